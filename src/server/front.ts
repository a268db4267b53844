// The framework-neutral HTTP front of the reference server: one request in (method, target,
// headers, raw body) → a reply (status, headers, body) or a stream (status, headers, SSE frames).
// Everything between an HTTP framework and an A2AHandler happens here, once: routing by path,
// content types and version negotiation (decodeCall), authentication, extension checks, the
// dispatch table (handler.ts), stream quotas and keep-alive comments, the card route with its
// signing and caching, and errors in the binding's and version's shape. The adapters
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
import { createHash } from "node:crypto";
import type * as v1_0 from "../../generated/v1_0/index.js";
import {
  decodeCall,
  encodeError,
  encodeResult,
  openStream,
  toA2AError,
  type DecodedCall,
  type HttpReply,
  type SseStream,
} from "../transport/server.js";
import { splitUrl } from "../transport/rest.js";
import { sseComment } from "../transport/sse.js";
import { agentCardReply, askedCardVersion } from "../versioning/card.js";
import { A2AError, retryable } from "../versioning/errors.js";
import { extensionsHeader, SUPPORTED_VERSIONS, type ProtocolVersion } from "../versioning/negotiate.js";
import { policyOf } from "../versioning/policy.js";
import type { Operation, RequestOf, ResponseOf } from "../versioning/codec.js";
import type { AgentCardInit } from "./agent.js";
import { buildCard, grpcAddressOf } from "./card.js";
import {
  dispatchStream,
  dispatchUnary,
  isExtendedCardCall,
  isStreaming,
  isUnary,
  type A2AHandler,
  type EventStream,
  type HandlerContext,
} from "./handler.js";
import { consoleLogger, TaskRuntime, type Logger, type RuntimeOptions } from "./runtime.js";
import { localStreamSlots, type StreamSlots } from "./coordinator.js";
import {
  authenticate,
  cardSecurity,
  unauthenticatedReply,
  withCardSecurity,
  type AuthRequest,
  type AuthResult,
  type Authenticator,
} from "../security/auth.js";
import { signAgentCard, type SigningKey } from "../security/card-signing.js";
import { EventWait, fellBehind, StreamBudget, StreamQueue, type Packing } from "./stream-budget.js";
import { DEFAULT_BODY_TIMEOUT_MS, errorScope, errorWithStatus, versionOf } from "./http-limits.js";

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
const TICK = Symbol("keep-alive");
const GONE = Symbol("client gone");

export function createFront<Req>(opts: A2AServeInput<Req> & { prefix?: string; logger?: Logger }): Front<Req> {
  const versions = opts.versions?.length ? [...opts.versions] : [...SUPPORTED_VERSIONS];
  for (const v of versions) if (!SUPPORTED_VERSIONS.includes(v)) throw new Error(`unsupported A2A version ${v}`);
  const log: Logger = opts.logger ?? consoleLogger;
  const { handler, owned } = handlerOf(opts);
  const prefix = (opts.prefix ?? "").replace(/\/+$/, "");
  const scope = { prefix, versions };
  const bodyLimit = opts.bodyLimit ?? 1024 * 1024;
  const cardMaxAge = opts.cardMaxAge ?? 300;
  const keepAliveMs = opts.sseKeepAliveMs ?? 15_000;
  const maxStreams =
    opts.maxStreamsPerPrincipal !== undefined && opts.maxStreamsPerPrincipal >= 1 ? Math.floor(opts.maxStreamsPerPrincipal) : 100;
  const streamSlots = opts.streamSlots ?? localStreamSlots();
  const streamBudget =
    opts.streamBudget ?? new StreamBudget({ maxBytes: opts.maxStreamBufferBytes, maxBytesPerStream: opts.maxStreamBufferBytesPerStream });
  const authenticators = opts.authenticators?.length ? [...opts.authenticators] : undefined;
  // Only an otherwise open server checks credentials for the extended card alone (see the option).
  const open = !authenticators && !opts.authenticate;
  const cardAuthenticators = open ? [...(opts.extendedCardAuthenticators ?? [])] : [];
  const signing = opts.cardSigning;

  // The handler's card may change while serving (the gateway's, when a backend is discovered late):
  // what depends on it is derived again when its declaration is another object.
  let declaration: AgentCardInit | undefined;
  let hasExtended = false;
  let declaredUris = new Set<string>();
  let requiredUris: string[] = [];
  // Signing costs a few ms: each card is built once per base URL, so every shape of the public
  // card (1.0, dual) carries the same signature.
  const builtCards = new Map<string, Promise<v1_0.AgentCard>>();
  // One entry per shape and base URL; its ETag and Last-Modified (the time it was built, to the
  // second) last as long as the entry, so a validator never outlives the body it names.
  const cardCache = new Map<string, { reply: HttpReply; etag: string; modified: number }>();
  const currentCard = (): AgentCardInit => {
    const now = handler.card();
    if (now.declaration !== declaration) {
      declaration = now.declaration;
      hasExtended = now.extended;
      builtCards.clear();
      cardCache.clear();
      const declared = declaration.capabilities?.extensions ?? [];
      declaredUris = new Set(declared.map((e) => e.uri ?? ""));
      requiredUris = declared.filter((e) => e.required && e.uri).map((e) => e.uri!);
    }
    return declaration;
  };

  /** The 1.0 card as served: the declaration, its interfaces and the schemes we check, signed last. */
  const cardFor = (url: string, extended: AgentCardInit | undefined): Promise<v1_0.AgentCard> => {
    const publicInit = currentCard();
    const key = `${extended ? "extended" : "public"} ${url}`;
    let card = builtCards.get(key);
    if (!card) {
      card = (async () => {
        const grpcUrl = opts.grpc === true ? grpcAddressOf(url) : opts.grpc || undefined;
        let c = buildCard(extended ?? publicInit, url, versions, extended !== undefined || hasExtended, grpcUrl);
        if (authenticators) c = withCardSecurity(c, authenticators);
        else if (cardAuthenticators.length)
          c = { ...c, securitySchemes: { ...c.securitySchemes, ...cardSecurity(cardAuthenticators).securitySchemes } };
        if (signing) c = await signAgentCard(c, signing.key, { kid: signing.kid, alg: signing.alg, jku: signing.jku });
        return c;
      })();
      if (builtCards.size > 64) builtCards.clear();
      builtCards.set(key, card);
      card.catch(() => builtCards.delete(key));
    }
    return card;
  };

  const baseUrl = (request: FrontRequest<Req>) => (opts.publicUrl ?? `${request.origin}${prefix}`).replace(/\/+$/, "");

  const serveCard = async (request: FrontRequest<Req>): Promise<HttpReply> => {
    // The seam picks the shape (1.0 / 0.3 / dual) from A2A-Version; the key covers what it looks at.
    const asked = askedCardVersion({ headers: request.headers, url: request.url });
    const url = baseUrl(request);
    const key = `${asked === "" || SUPPORTED_VERSIONS.some((v) => v === asked) ? asked : "other"} ${url}`;
    currentCard();
    let cached = cardCache.get(key);
    if (!cached) {
      const card = await cardFor(url, undefined);
      const r = agentCardReply(card, { headers: request.headers, url: request.url }, { versions });
      const etag = `"${createHash("sha256").update(r.body).digest("base64url").slice(0, 27)}"`;
      cached = { reply: r, etag, modified: Math.floor(Date.now() / 1000) * 1000 };
      if (cardCache.size > 64) cardCache.clear();
      cardCache.set(key, cached);
    }
    const headers = {
      ...cached.reply.headers,
      "cache-control": `public, max-age=${cardMaxAge}`,
      etag: cached.etag,
      "last-modified": new Date(cached.modified).toUTCString(),
    };
    return notModified(request.headers, cached) ? { kind: "reply", status: 304, headers, body: "" } : { ...cached.reply, headers };
  };

  /** The principal, or why there is none (the authenticators' result; undefined: the `authenticate` hook refused). */
  const who = async (request: {
    headers: FrontRequest<Req>["headers"];
    url: string;
    raw: Req;
  }): Promise<string | AuthResult | undefined> => {
    if (authenticators) {
      const r = await authenticate(authenticators, request);
      return r.ok ? r.principal : r;
    }
    if (!opts.authenticate) return "anonymous";
    return opts.authenticate(request.raw);
  };

  /** The principal, or the 401 reply. */
  const principalOf = async (binding: "JSONRPC" | "HTTP+JSON", request: FrontRequest<Req>): Promise<string | HttpReply> => {
    const r = await who(request);
    if (typeof r === "string") return r;
    if (r && authenticators)
      return unauthenticatedReply(
        { ...errorScope(request.url, request.headers, scope), rpcId: rpcIdOf(binding, request.body) },
        r,
        authenticators,
      );
    const e = encodeError(
      { ...errorScope(request.url, request.headers, scope), rpcId: null },
      new A2AError("InvalidRequestError", "Authentication required"),
    );
    return { ...e, status: 401, headers: { ...e.headers, "www-authenticate": "Bearer" } };
  };

  /** The extensions a call activates; ExtensionSupportRequiredError when it lacks a required one. */
  const activated = (asked: readonly string[]): string[] => {
    currentCard();
    const missing = requiredUris.filter((u) => !asked.includes(u));
    if (missing.length)
      throw new A2AError("ExtensionSupportRequiredError", `This agent requires the extension(s) ${missing.join(", ")}`, {
        extensions: missing.join(","),
      });
    return asked.filter((u) => declaredUris.has(u));
  };

  /** Takes one of the caller's stream slots (streamSlots: this process, or every replica): its release, or undefined when all are taken. */
  const takeStream = async (principal: string, clientAddress: string): Promise<(() => void) | undefined> => {
    // Without authentication every caller is "anonymous": count per client address instead.
    const key = authenticators || opts.authenticate ? `principal:${principal}` : `address:${clientAddress}`;
    if (!(await streamSlots.acquire(key, maxStreams))) return undefined;
    return () => streamSlots.release(key);
  };
  const tooManyStreams = () =>
    new A2AError("InvalidRequestError", `Too many open streams: at most ${maxStreams} per caller; close one and retry`);

  /**
   * The extended card's caller on an open server (extendedCardAuthenticators): its principal, or why
   * there is none. Undefined when nothing is to check: the server authenticates every call, or it
   * has no extended card (UnsupportedOperationError comes first, 1.0.1 §3.3.4).
   */
  const extendedCardCaller = async (request: AuthRequest): Promise<string | AuthResult | undefined> => {
    currentCard();
    if (!open || !hasExtended) return undefined;
    if (!cardAuthenticators.length) return { ok: false, error: "missing" };
    const r = await authenticate(cardAuthenticators, request);
    return r.ok ? r.principal : r;
  };

  /** GetExtendedAgentCard: the handler declares, the front publishes. */
  const extendedCard = async (version: ProtocolVersion, request: v1_0.GetExtendedAgentCardRequest, ctx: HandlerContext, url: string) => {
    // Without one, the handler's UnsupportedOperationError (1.0 §3.3.4), unless the version has its
    // own error (policy.ts).
    currentCard();
    const noCard = policyOf(version).noExtendedCard;
    if (noCard && !hasExtended) throw noCard();
    return cardFor(url, await handler.getExtendedAgentCard(request, ctx));
  };

  const call = async (binding: "JSONRPC" | "HTTP+JSON", request: FrontRequest<Req>): Promise<HttpReply | FrontStream> => {
    const principal = await principalOf(binding, request);
    if (typeof principal !== "string") return principal;
    const decoded = decodeCall(request, { binding, versions, basePath: prefix });
    if (decoded.kind === "reply") return decoded;

    let extensions: string[];
    try {
      extensions = activated(decoded.extensions);
    } catch (e) {
      return encodeError(decoded, toA2AError(e));
    }
    const ctx: HandlerContext = {
      principal,
      version: decoded.version,
      extensions,
      tenant: decoded.tenant,
      // Read only by what waits on the client (streams): the adapters make the signal on first read.
      get signal() {
        return request.signal;
      },
    };
    const failed = (e: unknown, what: string) => {
      if (!(e instanceof A2AError)) log.error({ err: e }, what);
      return encodeError(decoded, toA2AError(e), extensionsHeader(decoded.version, extensions));
    };

    if (isStreaming(decoded)) {
      // Taking the slot can fail too (the replicas' count is in the database): answered like the call, with its id.
      let release: (() => void) | undefined;
      let events: EventStream;
      try {
        release = await takeStream(principal, request.clientAddress);
        if (!release) return errorWithStatus(decoded, tooManyStreams(), 429, "RESOURCE_EXHAUSTED");
        events = await dispatchStream(handler, decoded, ctx);
      } catch (e) {
        release?.();
        return failed(e, "A2A stream failed to start");
      }
      const sse = openStream(decoded, { extensions });
      const frames = pump(events, sse, request.signal, release);
      return { kind: "stream", status: 200, headers: sse.headers, frames, measure: (transport) => frames.measure(transport) };
    }
    try {
      if (isUnary(decoded)) return encodeResult(decoded, await dispatchUnary(handler, decoded, ctx), { extensions });
      if (!isExtendedCardCall(decoded)) throw new A2AError("UnsupportedOperationError", `${decoded.operation} is not a unary operation`);
      const caller = await extendedCardCaller(request);
      if (caller !== undefined && typeof caller !== "string")
        return unauthenticatedReply(
          { version: decoded.version, binding, rpcId: rpcIdOf(binding, request.body) },
          caller,
          cardAuthenticators,
        );
      const cardCtx = caller === undefined ? ctx : { ...ctx, principal: caller };
      return encodeResult(decoded, await extendedCard(decoded.version, decoded.request, cardCtx, baseUrl(request)), { extensions });
    } catch (e) {
      return failed(e, "A2A operation failed");
    }
  };

  const refusal = (r: AuthResult | undefined) => (r && !r.ok && r.error === "invalid" ? "Credentials refused" : "Authentication required");

  const invoke = async (c: DirectCall<Req>): Promise<DirectResult> => {
    const principal = await who(c);
    if (typeof principal !== "string")
      return {
        kind: "refused",
        status: "UNAUTHENTICATED",
        message: refusal(principal),
      };
    try {
      const extensions = activated(c.extensions);
      const ctx: HandlerContext = { principal, version: c.version, extensions, tenant: c.tenant, signal: c.signal };
      const decoded = { operation: c.operation, request: c.request } as DecodedCall;
      if (isStreaming(decoded)) {
        const release = await takeStream(principal, c.clientAddress);
        if (!release) return { kind: "refused", status: "RESOURCE_EXHAUSTED", message: tooManyStreams().message };
        try {
          return { kind: "stream", events: await dispatchStream(handler, decoded, ctx), release, extensions };
        } catch (e) {
          release();
          throw e;
        }
      }
      if (isUnary(decoded)) return { kind: "unary", response: await dispatchUnary(handler, decoded, ctx), extensions };
      if (!isExtendedCardCall(decoded)) throw new A2AError("UnsupportedOperationError", `${c.operation} is not a unary operation`);
      const caller = await extendedCardCaller(c);
      if (caller !== undefined && typeof caller !== "string")
        return { kind: "refused", status: "UNAUTHENTICATED", message: refusal(caller) };
      const url = (opts.publicUrl ?? `${c.origin}${prefix}`).replace(/\/+$/, "");
      const cardCtx = caller === undefined ? ctx : { ...ctx, principal: caller };
      return { kind: "unary", response: await extendedCard(c.version, decoded.request, cardCtx, url), extensions };
    } catch (e) {
      if (!(e instanceof A2AError)) log.error({ err: e }, "A2A operation failed");
      throw toA2AError(e);
    }
  };

  /**
   * SSE frames of one stream, taken from the handler as they come and queued as bytes until the
   * client reads them (stream-budget.ts: a stream over its share of the budget is cut with an error
   * event). Comments keep proxies from cutting a stream that is quiet while the agent works.
   */
  function pump(events: EventStream, sse: SseStream, signal: AbortSignal, release: () => void): StreamQueue<SseChunk> {
    // The client going away ends the wait for the next event even when the handler's iterator
    // does not settle a pending next() on return() (an async generator's return waits behind it).
    const waiting = new EventWait();
    const stop = () => {
      waiting.stop(GONE);
      void events.return?.();
    };
    const out = new StreamQueue<SseChunk>(
      streamBudget,
      SSE_PACKING,
      (limit) => {
        out.push(sse.error(fellBehind(limit)));
        out.end();
        stop();
      },
      stop,
    );
    const produce = async () => {
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
      const timer = keepAliveMs > 0 ? setInterval(() => waiting.nudge(TICK), keepAliveMs) : undefined;
      try {
        // A pending next() may reject while a comment is out: the empty catch keeps that from counting
        // as unhandled; the rejection still reaches the wait that awaits it.
        const pull = () => {
          const p = events.next();
          p.catch(() => {});
          return p;
        };
        let pending = pull();
        for (;;) {
          const next = await waiting.wait(pending);
          if (next === GONE) break;
          if (next === TICK) {
            // A stream with frames still queued is not idle.
            if (!signal.aborted && out.length === 0) out.push(sseComment());
            continue;
          }
          if (typeof next === "symbol" || next.done || signal.aborted) break;
          const { frames, close } = sse.event(next.value);
          if (frames) out.push(frames);
          if (close) break;
          pending = pull();
        }
        if (!signal.aborted) {
          const tail = sse.end();
          if (tail) out.push(tail);
        }
      } catch (e) {
        if (!(e instanceof A2AError)) log.error({ err: e }, "A2A stream failed");
        if (!signal.aborted) out.push(sse.error(toA2AError(e)));
      } finally {
        clearInterval(timer);
        signal.removeEventListener("abort", stop);
        stop();
        release();
        out.end();
      }
    };
    void produce();
    return out;
  }

  const notFound = (request: Pick<FrontRequest<Req>, "url" | "headers" | "method">) =>
    encodeError(
      { version: versionOf(request.headers, safeQuery(request.url), versions), binding: "HTTP+JSON", rpcId: null },
      new A2AError("MethodNotFoundError", `No A2A route for ${request.method} ${clip(request.url)}`),
    );

  const failure = (request: Pick<FrontRequest<Req>, "url" | "headers">, err: Error & { statusCode?: number }): HttpReply => {
    const ctx = errorScope(request.url, request.headers, scope);
    if (err instanceof A2AError) return encodeError({ ...ctx, rpcId: null }, err);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status < 500) return errorWithStatus(ctx, new A2AError("InvalidRequestError", err.message), status);
    log.error({ err }, "unexpected error in the A2A server");
    // JSON-RPC answers its errors with HTTP 200; only transport-level refusals (413 …) differ.
    if (ctx.binding === "JSONRPC") return encodeError({ ...ctx, rpcId: null }, new A2AError("InternalError"));
    return errorWithStatus(ctx, new A2AError("InternalError"), 500);
  };

  const bodyTimeoutMs = Math.max(0, Math.floor(opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS));
  return {
    bodyLimit,
    bodyTimeoutMs,
    streamBudget,
    async handle(request) {
      try {
        const method = request.method.toUpperCase();
        const { path } = splitUrl(request.url);
        if (!METHODS.has(method) || !(path === prefix || path.startsWith(`${prefix}/`))) return notFound(request);
        if ((method === "GET" || method === "HEAD") && path === prefix + CARD_PATH) return await serveCard(request);
        return await call(path === prefix || path === `${prefix}/` ? "JSONRPC" : "HTTP+JSON", request);
      } catch (e) {
        return failure(request, e as Error);
      }
    },
    invoke,
    failure,
    tooLarge: (request) =>
      errorWithStatus(
        errorScope(request.url, request.headers, scope),
        new A2AError("InvalidRequestError", `Request body is larger than ${bodyLimit} bytes`),
        413,
      ),
    bodyTimedOut: (request) =>
      errorWithStatus(
        errorScope(request.url, request.headers, scope),
        new A2AError("InvalidRequestError", `The request body did not arrive within ${bodyTimeoutMs} ms`),
        408,
      ),
    overBudget: (request) =>
      errorWithStatus(
        errorScope(request.url, request.headers, scope),
        retryable(
          new A2AError(
            "InternalError",
            `The server's memory budget (${streamBudget.maxBytes} bytes of stream buffers and request bodies) is full; retry shortly`,
          ),
        ),
        503,
        "UNAVAILABLE",
      ),
    tooManyConnections: (request) =>
      errorWithStatus(
        errorScope(request.url, request.headers, scope),
        new A2AError("InvalidRequestError", "Too many connections from this address; close one and retry"),
        429,
        "RESOURCE_EXHAUSTED",
      ),
    close: async () => {
      if (owned) await handler.close();
    },
  };
}

/** SSE frames wait as UTF-8 bytes (what the socket would hold of them). */
const SSE_PACKING: Packing<SseChunk> = {
  pack: (chunk) => (typeof chunk === "string" ? Buffer.from(chunk) : chunk),
  unpack: (b) => b,
};

function safeQuery(url: string): URLSearchParams {
  try {
    return splitUrl(url).query;
  } catch {
    return new URLSearchParams();
  }
}

/** The JSON-RPC id of a raw request body, when it can be read (for the 401 envelope). */
function rpcIdOf(binding: "JSONRPC" | "HTTP+JSON", body: unknown): string | number | null {
  if (binding !== "JSONRPC" || body === undefined) return null;
  try {
    const text = typeof body === "string" ? body : new TextDecoder().decode(body as Uint8Array);
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

/** Client-supplied text echoed in an error message, cut to a sane length. */
function clip(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/**
 * RFC 9110 §13.1: If-None-Match (weak comparison, `*`) decides when present; otherwise
 * If-Modified-Since, when it is a valid date no earlier than the entry's Last-Modified.
 */
function notModified(headers: FrontRequest<unknown>["headers"], entry: { etag: string; modified: number }): boolean {
  const inm = headers["if-none-match"];
  const ifNoneMatch = Array.isArray(inm) ? inm.join(",") : inm;
  if (ifNoneMatch !== undefined) return ifNoneMatch.split(",").some((t) => ["*", entry.etag].includes(t.trim().replace(/^W\//, "")));
  const ims = headers["if-modified-since"];
  return typeof ims === "string" && Date.parse(ims) >= entry.modified;
}
