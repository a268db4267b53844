// The framework-neutral HTTP front of the reference server: one request in (method, target,
// headers, raw body) → a reply (status, headers, body) or a stream (status, headers, SSE frames).
// Everything between an HTTP framework and an A2AHandler happens in the front, once, in named
// parts: routing by path (here), the card route with its signing and caching (card-route.ts),
// authentication, extension checks and stream quotas (gate.ts), content types, version negotiation
// and the dispatch table (dispatch.ts: decodeCall, handler.ts), SSE frames with keep-alive comments
// (stream-pump.ts), and errors in the binding's and version's shape. The adapters
// (adapters/fastify.ts, adapters/node-http.ts) only carry requests in and replies out; the gRPC
// adapter (adapters/grpc.ts) decodes its own messages and comes in through `invoke`, which takes
// the same steps from authentication to dispatch.
//
// Routes, relative to `prefix`:
//   GET|HEAD /.well-known/agent-card.json  the card, in the shape of the requested version
//                                          (A2A-Version header or query; none = 0.3 when 0.3 is served)
//   *        /                             JSON-RPC, 1.0 (PascalCase methods) and 0.3 (slash methods)
//   *        /*                            HTTP+JSON: 1.0 (`/message:send`, `/tasks/{id}` …, tenant forms)
//                                          and 0.3 (`/v1/message:send` …), by the negotiated version
//
// Every reply is JSON in the binding's error shape, including malformed JSON, unknown routes,
// wrong content types, oversized bodies and internal failures. Authentication (`authenticators`)
// covers every route but the public card; each principal may hold `maxStreamsPerPrincipal` SSE
// streams at once (then HTTP 429 in the binding's shape).
import { encodeError, type HttpReply } from "../../transport/server.js";
import { splitUrl } from "../../transport/rest.js";
import { A2AError } from "../../versioning/errors.js";
import { SUPPORTED_VERSIONS, type ProtocolVersion } from "../../versioning/negotiate.js";
import type { Operation, RequestOf, ResponseOf } from "../../versioning/codec.js";
import type { Authenticator } from "../../security/auth.js";
import type { SigningKey } from "../../security/card-signing.js";
import type { A2AHandler, EventStream } from "../engine/handler.js";
import { consoleLogger, TaskRuntime, type Logger, type RuntimeOptions } from "../engine/runtime.js";
import { localStreamSlots, type StreamSlots } from "../engine/coordinator.js";
import { CardRoute } from "./card-route.js";
import { Dispatch } from "./dispatch.js";
import { Gate } from "./gate.js";
import { budgetFull, StreamBudget } from "./stream-budget.js";
import { DEFAULT_BODY_TIMEOUT_MS, errorScope, errorWithStatus, versionOf, type RouteScope } from "./http-limits.js";

/** The runtime's options the front passes on when it builds the TaskRuntime (documented in runtime.ts). */
type RuntimeServeOptions = Pick<
  RuntimeOptions,
  | "agent"
  | "store"
  | "push"
  | "pushConfigs"
  | "taskTimeoutMs"
  | "maxHistory"
  | "maxPartsPerMessage"
  | "maxPushConfigsPerTask"
  | "maxHistoryBytes"
  | "maxArtifactBytes"
  | "maxListBytes"
  | "maxRunningTaskBytes"
  | "coordinator"
>;

/** How the front serves, whatever handler answers; `Req` is the framework's request, handed to `authenticate`. */
export interface A2AFrontOptions<Req> {
  /** Versions served (default 1.0 and 0.3); the card lists every binding at each. */
  versions?: readonly ProtocolVersion[];
  /** Public base URL of the interfaces (default: from the request's Host and the prefix). */
  publicUrl?: string;
  /**
   * The caller's principal, or undefined to refuse the request with HTTP 401. Without this hook
   * every caller is "anonymous" (and shares one task space).
   */
  authenticate?: (request: Req) => string | undefined | Promise<string | undefined>;
  /**
   * Authenticators (src/security: bearerAuth, apiKeyAuth …), tried in order on every request except
   * the public agent card; the first principal wins. Without a principal the request is refused in
   * its binding's shape (unauthenticatedReply: HTTP 401 with `WWW-Authenticate`). The public and the
   * extended card declare their schemes (withCardSecurity). Replaces `authenticate` when both are given.
   */
  authenticators?: readonly Authenticator[];
  /**
   * GetExtendedAgentCard requires authentication (1.0.1 §13.3: the operation "MUST require
   * authentication"; 0.3: agent/getAuthenticatedExtendedCard, GET /v1/card). With `authenticators`
   * or `authenticate` every call is authenticated already. A server that is otherwise open checks
   * these for the extended card alone, declares their schemes in the cards' `securitySchemes` (not
   * in `securityRequirements`: the other operations need none) and refuses a call without a
   * principal in its binding's shape (HTTP 401 with `WWW-Authenticate`; gRPC UNAUTHENTICATED).
   * Without any of the three, nobody can be authenticated and the extended card is always refused.
   */
  extendedCardAuthenticators?: readonly Authenticator[];
  /**
   * Sign the 1.0 card (public and extended) with this private key (JWS, A2A 1.0 §8.4; src/security/
   * card-signing.ts): `signatures` lists the signature, verifiable with verifyAgentCard and the public
   * key. The 0.3 card carries no signatures (loss L9); the dual card served to a request without
   * A2A-Version carries the 1.0 card's (docs/policies.md).
   */
  cardSigning?: { key: SigningKey; kid: string; alg: string; jku?: string };
  /** Largest request body in bytes (default 1 MiB); larger ones get a spec-shaped 413. */
  bodyLimit?: number;
  /**
   * Time a request's body has to arrive after its headers, in ms (default 30,000; 0 = no limit);
   * then HTTP 408 in the binding's error shape, `Connection: close`, and the connection is closed.
   */
  bodyTimeoutMs?: number;
  /** Seconds the agent card may be cached (Cache-Control max-age, default 300). */
  cardMaxAge?: number;
  /** Interval of `: keep-alive` comments on idle SSE streams, in ms (default 15,000; 0 = none). */
  sseKeepAliveMs?: number;
  /**
   * SSE streams (SendStreamingMessage, SubscribeToTask) one principal may have open at once
   * (default 100; without authentication, one client address); beyond it a new one is refused
   * with HTTP 429 in the binding's error shape.
   */
  maxStreamsPerPrincipal?: number;
  /** Where open streams are counted (default: this process; cluster.ts: across replicas). */
  streamSlots?: StreamSlots;
  /**
   * Bytes all open streams together may hold queued for clients that read slower than events come
   * (default 128 MiB), and one stream (default 16 MiB): stream-budget.ts, docs/limits.md. A stream
   * over its share is cut with its binding's error; the task goes on.
   */
  maxStreamBufferBytes?: number;
  maxStreamBufferBytesPerStream?: number;
  /** The budget itself, shared by the fronts of one process (buildServer: HTTP and gRPC); default: made from the two limits. */
  streamBudget?: StreamBudget;
  /**
   * gRPC is served too (adapters/grpc.ts): the card lists a GRPC interface per version, at the
   * `host:port` of the interface URL (`true`: the same port) or at this `host:port`.
   */
  grpc?: true | string;
}

/** Serving an agent: the front builds a TaskRuntime from it (and closes it with the front). */
export interface A2AServeOptions<Req> extends A2AFrontOptions<Req>, RuntimeServeOptions {
  /** Serve this handler (a TaskRuntime …) instead of building a TaskRuntime from `agent` and `store`. */
  runtime?: A2AHandler;
}

/** Serving a handler (a GatewayRuntime, a TaskRuntime made elsewhere …) as it is; its owner closes it. */
export interface A2AHandlerServeOptions<Req> extends A2AFrontOptions<Req> {
  handler: A2AHandler;
}

/** What createFront and the adapters take: an agent to serve, or a handler. */
export type A2AServeInput<Req> = A2AServeOptions<Req> | A2AHandlerServeOptions<Req>;

/** The handler the options name, and whether the front built it (then the front closes it). */
function handlerOf(opts: A2AServeInput<never>): { handler: A2AHandler; owned: boolean } {
  if ("handler" in opts) return { handler: opts.handler, owned: false };
  if (opts.runtime) return { handler: opts.runtime, owned: false };
  return { handler: new TaskRuntime(opts), owned: true };
}

/** One HTTP request as the front sees it. */
export interface FrontRequest<Req> {
  method: string;
  /** Request target: path and query. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body (undefined when the framework read none, e.g. on GET). */
  body?: string | Uint8Array;
  /** `scheme://host[:port]` the request was sent to: the card's interface URLs without `publicUrl`. */
  origin: string;
  /** The client's address: the stream quota's key without authentication. */
  clientAddress: string;
  /** Aborted when the client goes away before the reply ends (may be a getter that makes it when read). */
  signal: AbortSignal;
  /** The framework's request, handed to `authenticate`. */
  raw: Req;
}

/** One piece of an SSE stream: frames as encoded, or as queued bytes. */
export type SseChunk = string | Uint8Array;

/**
 * A stream reply: write `status` and `headers`, then every frame (backpressure: pull the next after
 * a write drains). Frames the client has not read wait in the front's queue, counted against the
 * stream budget (stream-budget.ts) with what `measure` says the transport holds.
 */
export interface FrontStream {
  kind: "stream";
  status: number;
  headers: Record<string, string>;
  frames: AsyncIterable<SseChunk>;
  /** Tells the front how many bytes the transport holds (node: `() => res.writableLength`). */
  measure?: (transport: () => number) => void;
}

/**
 * One call of a binding that frames and decodes its own messages (gRPC, adapters/grpc.ts): the
 * operation and its 1.0 request are known; the front authenticates, checks extensions and stream
 * quotas, builds the HandlerContext and dispatches, as for JSON-RPC and HTTP+JSON.
 */
export interface DirectCall<Req> {
  operation: Operation;
  request: RequestOf<Operation>;
  version: ProtocolVersion;
  /** Request metadata (Authorization, extensions …) as HTTP headers. */
  headers: Record<string, string | string[] | undefined>;
  /** Path the authenticators see (the gRPC method path). */
  url: string;
  /** `scheme://host[:port]` the call was sent to: the extended card's interface URLs without `publicUrl`. */
  origin: string;
  clientAddress: string;
  /** Extension URIs the client asked for. */
  extensions: string[];
  tenant: string;
  signal: AbortSignal;
  raw: Req;
}

/**
 * What a direct call gives: a response, a stream (call `release` when it ends), or a refusal below
 * A2A (no principal; every stream slot of the caller taken), named by its gRPC status.
 */
export type DirectResult =
  | { kind: "unary"; response: ResponseOf<Operation>; extensions: string[] }
  | { kind: "stream"; events: EventStream; release: () => void; extensions: string[] }
  | { kind: "refused"; status: "UNAUTHENTICATED" | "RESOURCE_EXHAUSTED"; message: string };

export interface Front<Req> {
  handle(request: FrontRequest<Req>): Promise<HttpReply | FrontStream>;
  /** A call of a self-framing binding (gRPC); A2A errors are thrown as A2AError. */
  invoke(call: DirectCall<Req>): Promise<DirectResult>;

  /** A failure before the front saw the request (a framework's error, e.g. a bad Content-Length): a 4xx/500 in the route's shape. */
  failure(request: Pick<FrontRequest<Req>, "url" | "headers">, err: Error & { statusCode?: number }): HttpReply;
  /** HTTP 413 for a body over `bodyLimit`. */
  tooLarge(request: Pick<FrontRequest<Req>, "url" | "headers">): HttpReply;
  /** HTTP 408 for a body that did not arrive within `bodyTimeoutMs`. */
  bodyTimedOut(request: Pick<FrontRequest<Req>, "url" | "headers">): HttpReply;
  /** HTTP 503 (retryable) for a body that does not fit in the memory budget (stream-budget.ts). */
  overBudget(request: Pick<FrontRequest<Req>, "url" | "headers">): HttpReply;
  /** HTTP 429 for a connection beyond its address's limit (http-limits.ts). */
  tooManyConnections(request: Pick<FrontRequest<Req>, "url" | "headers">): HttpReply;
  readonly bodyLimit: number;
  readonly bodyTimeoutMs: number;
  /** The stream buffers' budget (stream-budget.ts), which the gRPC adapter's streams share. */
  readonly streamBudget: StreamBudget;
  /** Closes the runtime the front built (not a given `runtime` or `handler`). */
  close(): Promise<void>;
}

const CARD_PATH = "/.well-known/agent-card.json";
/** The methods the A2A routes answer; any other gets MethodNotFound. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The front, made of named parts (ARCHITECTURE.md): the card route (card-route.ts), the gate of
 * authentication, extensions and stream slots (gate.ts), the dispatch (dispatch.ts) with its stream
 * pump (stream-pump.ts); here only routing by path and the replies before any part is reached.
 */
export function createFront<Req>(opts: A2AServeInput<Req> & { prefix?: string; logger?: Logger }): Front<Req> {
  const versions = opts.versions?.length ? [...opts.versions] : [...SUPPORTED_VERSIONS];
  for (const v of versions) if (!SUPPORTED_VERSIONS.includes(v)) throw new Error(`unsupported A2A version ${v}`);
  const log: Logger = opts.logger ?? consoleLogger;
  const { handler, owned } = handlerOf(opts);
  const prefix = (opts.prefix ?? "").replace(/\/+$/, "");
  const scope = { prefix, versions };
  const bodyLimit = opts.bodyLimit ?? 1024 * 1024;
  const maxStreams =
    opts.maxStreamsPerPrincipal !== undefined && opts.maxStreamsPerPrincipal >= 1 ? Math.floor(opts.maxStreamsPerPrincipal) : 100;
  const streamBudget =
    opts.streamBudget ?? new StreamBudget({ maxBytes: opts.maxStreamBufferBytes, maxBytesPerStream: opts.maxStreamBufferBytesPerStream });
  const authenticators = opts.authenticators?.length ? [...opts.authenticators] : undefined;
  // Only an otherwise open server checks credentials for the extended card alone (see the option).
  const cardAuthenticators = !authenticators && !opts.authenticate ? [...(opts.extendedCardAuthenticators ?? [])] : [];
  const cards = new CardRoute(handler, {
    versions,
    cardMaxAge: opts.cardMaxAge ?? 300,
    grpc: opts.grpc,
    authenticators,
    cardAuthenticators,
    signing: opts.cardSigning,
  });
  const gate = new Gate<Req>({
    authenticators,
    authenticate: opts.authenticate,
    cardAuthenticators,
    maxStreams,
    streamSlots: opts.streamSlots ?? localStreamSlots(),
    declared: () => cards.current(),
    scope,
  });
  const pump = { budget: streamBudget, keepAliveMs: opts.sseKeepAliveMs ?? 15_000, log };
  const dispatch = new Dispatch<Req>(handler, gate, cards, { versions, prefix, publicUrl: opts.publicUrl, cardAuthenticators, pump, log });
  const bodyTimeoutMs = Math.max(0, Math.floor(opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS));
  const refuse = (request: Pick<FrontRequest<Req>, "url" | "headers">, message: string, status: number, grpcStatus?: string) =>
    errorWithStatus(errorScope(request.url, request.headers, scope), new A2AError("InvalidRequestError", message), status, grpcStatus);
  const failure = failureReply<Req>(scope, log);
  return {
    bodyLimit,
    bodyTimeoutMs,
    streamBudget,
    async handle(request) {
      try {
        const method = request.method.toUpperCase();
        const { path } = splitUrl(request.url);
        if (!METHODS.has(method) || !(path === prefix || path.startsWith(`${prefix}/`))) return notFound(request, versions);
        if ((method === "GET" || method === "HEAD") && path === prefix + CARD_PATH)
          return await cards.serve(request, dispatch.baseUrl(request.origin));
        return await dispatch.call(path === prefix || path === `${prefix}/` ? "JSONRPC" : "HTTP+JSON", request);
      } catch (e) {
        return failure(request, e as Error);
      }
    },
    invoke: (c) => dispatch.invoke(c),
    failure,
    tooLarge: (request) => refuse(request, `Request body is larger than ${bodyLimit} bytes`, 413),
    bodyTimedOut: (request) => refuse(request, `The request body did not arrive within ${bodyTimeoutMs} ms`, 408),
    overBudget: (request) =>
      errorWithStatus(errorScope(request.url, request.headers, scope), budgetFull(streamBudget.maxBytes), 503, "UNAVAILABLE"),
    tooManyConnections: (request) =>
      refuse(request, "Too many connections from this address; close one and retry", 429, "RESOURCE_EXHAUSTED"),
    close: async () => {
      if (owned) await handler.close();
    },
  };
}

function notFound(request: Pick<FrontRequest<unknown>, "url" | "headers" | "method">, versions: readonly ProtocolVersion[]): HttpReply {
  return encodeError(
    { version: versionOf(request.headers, safeQuery(request.url), [...versions]), binding: "HTTP+JSON", rpcId: null },
    new A2AError("MethodNotFoundError", `No A2A route for ${request.method} ${clip(request.url)}`),
  );
}

/** A failure outside the parts (a framework's error, a bug): a 4xx in the route's shape, or an InternalError logged. */
function failureReply<Req>(scope: RouteScope, log: Logger): Front<Req>["failure"] {
  return (request, err) => {
    const ctx = errorScope(request.url, request.headers, scope);
    if (err instanceof A2AError) return encodeError({ ...ctx, rpcId: null }, err);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status < 500) return errorWithStatus(ctx, new A2AError("InvalidRequestError", err.message), status);
    log.error({ err }, "unexpected error in the A2A server");
    // JSON-RPC answers its errors with HTTP 200; only transport-level refusals (413 …) differ.
    if (ctx.binding === "JSONRPC") return encodeError({ ...ctx, rpcId: null }, new A2AError("InternalError"));
    return errorWithStatus(ctx, new A2AError("InternalError"), 500);
  };
}

function safeQuery(url: string): URLSearchParams {
  try {
    return splitUrl(url).query;
  } catch {
    return new URLSearchParams();
  }
}

/** Client-supplied text echoed in an error message, cut to a sane length. */
function clip(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
