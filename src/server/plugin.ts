// The fastify plugin of the reference server: every A2A request goes through the transport seam
// (src/transport/server.ts: decodeCall → 1.0 message; encodeResult / encodeError / openStream →
// the request's own version and binding), so this file only routes, authenticates and streams.
//
// Routes, relative to the prefix the plugin is registered with:
//   GET  /.well-known/agent-card.json   the card, in the shape of the requested version
//                                       (A2A-Version header or query; none = 0.3 when 0.3 is served)
//   POST /                              JSON-RPC, 1.0 (PascalCase methods) and 0.3 (slash methods)
//   *    /*                             HTTP+JSON: 1.0 (`/message:send`, `/tasks/{id}` …, tenant forms)
//                                       and 0.3 (`/v1/message:send` …), by the negotiated version
//
// Every reply is JSON in the binding's error shape, including malformed JSON, unknown routes,
// wrong content types, oversized bodies and internal failures: no HTML page, no hang, no crash.
// Authentication (`authenticators`) covers every route but the public card; each principal may hold
// `maxStreamsPerPrincipal` SSE streams at once (then HTTP 429 in the binding's shape).
// The plugin is encapsulated: its content-type parser, error and not-found handlers do not leak
// into the application it is mounted in.
import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type * as v1_0 from "../../generated/v1_0/index.js";
import { decodeCall, encodeError, encodeResult, openStream, toA2AError, type DecodedCall, type HttpReply } from "../transport/server.js";
import { splitUrl } from "../transport/rest.js";
import { sseComment } from "../transport/sse.js";
import { agentCardReply, askedCardVersion } from "../versioning/card.js";
import type { Binding } from "../versioning/codec.js";
import { A2AError } from "../versioning/errors.js";
import { SUPPORTED_VERSIONS, type ProtocolVersion } from "../versioning/negotiate.js";
import type { Agent } from "./agent.js";
import { buildCard } from "./card.js";
import { TaskRuntime, type CallContext } from "./runtime.js";
import type { PushConfigStore } from "../push/config-store.js";
import type { PushDeliveryOptions } from "../push/delivery.js";
import type { TaskStore } from "./store.js";
import { authenticate, unauthenticatedReply, withCardSecurity, type Authenticator } from "../security/auth.js";
import { signAgentCard, type SigningKey } from "../security/card-signing.js";
import { DEFAULT_BODY_TIMEOUT_MS, endSocket, errorWithStatus, isOverConnectionLimit, versionOf } from "./http-limits.js";

export interface A2APluginOptions {
  agent: Agent;
  /** Default: a MemoryTaskStore with its default retention. */
  store?: TaskStore;
  /** Versions served (default 1.0 and 0.3); the card lists every binding at each. */
  versions?: readonly ProtocolVersion[];
  /** Public base URL of the interfaces (default: from the request's Host and the plugin prefix). */
  publicUrl?: string;
  /**
   * The caller's principal, or undefined to refuse the request with HTTP 401. Without this hook
   * every caller is "anonymous" (and shares one task space).
   */
  authenticate?: (request: FastifyRequest) => string | undefined | Promise<string | undefined>;
  /**
   * Authenticators (src/security: bearerAuth, apiKeyAuth …), tried in order on every request except
   * the public agent card; the first principal wins. Without a principal the request is refused in
   * its binding's shape (unauthenticatedReply: HTTP 401 with `WWW-Authenticate`). The public and the
   * extended card declare their schemes (withCardSecurity). Replaces `authenticate` when both are given.
   */
  authenticators?: readonly Authenticator[];
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
  /** Webhook delivery settings: retries, timeouts, and the SSRF allow-list (`allow: ["127.0.0.1"]` …). */
  push?: PushDeliveryOptions;
  /** Longest time one turn of a task may take, in ms (default: none); then the task fails. */
  taskTimeoutMs?: number;
  /** Push-notification config storage (default in memory). */
  pushConfigs?: PushConfigStore;
  /** Messages kept in a task's history (default 1,000; the oldest are dropped). */
  maxHistory?: number;
  /** Parts one incoming message may have (default 1,000; more: InvalidParams). */
  maxPartsPerMessage?: number;
  /** Push-notification configs per task (default 10; another: InvalidParams). */
  maxPushConfigsPerTask?: number;
  /** Estimated bytes of one task's history (default 4 MiB; the oldest messages are dropped). */
  maxHistoryBytes?: number;
  /** Estimated bytes of one task's artifacts (default 4 MiB; beyond it the task fails). */
  maxArtifactBytes?: number;
  /** Estimated bytes of tasks in one ListTasks page (default 4 MiB; the page ends early, nextPageToken goes on). */
  maxListBytes?: number;
  /**
   * SSE streams (SendStreamingMessage, SubscribeToTask) one principal may have open at once
   * (default 100; without authentication, one client address); beyond it a new one is refused
   * with HTTP 429 in the binding's error shape.
   */
  maxStreamsPerPrincipal?: number;
  /** Use this runtime instead of building one from `agent` and `store`. */
  runtime?: TaskRuntime;
}

type RouteBinding = { a2aBinding?: Binding };

const CARD_PATH = "/.well-known/agent-card.json";

export async function a2aPlugin(app: FastifyInstance, opts: A2APluginOptions): Promise<void> {
  const versions = opts.versions?.length ? [...opts.versions] : [...SUPPORTED_VERSIONS];
  for (const v of versions) if (!SUPPORTED_VERSIONS.includes(v)) throw new Error(`unsupported A2A version ${v}`);
  const runtime =
    opts.runtime ??
    new TaskRuntime({
      agent: opts.agent,
      store: opts.store,
      logger: app.log,
      push: opts.push,
      pushConfigs: opts.pushConfigs,
      taskTimeoutMs: opts.taskTimeoutMs,
      maxHistory: opts.maxHistory,
      maxPartsPerMessage: opts.maxPartsPerMessage,
      maxPushConfigsPerTask: opts.maxPushConfigsPerTask,
      maxHistoryBytes: opts.maxHistoryBytes,
      maxArtifactBytes: opts.maxArtifactBytes,
      maxListBytes: opts.maxListBytes,
    });
  const agent = runtime.agent;
  const prefix = app.prefix.replace(/\/+$/, "");
  const bodyLimit = opts.bodyLimit ?? 1024 * 1024;
  const cardMaxAge = opts.cardMaxAge ?? 300;
  const keepAliveMs = opts.sseKeepAliveMs ?? 15_000;
  const maxStreams =
    opts.maxStreamsPerPrincipal !== undefined && opts.maxStreamsPerPrincipal >= 1 ? Math.floor(opts.maxStreamsPerPrincipal) : 100;
  const openStreams = new Map<string, number>();
  // The agent's card may change while serving (the gateway's, when a backend is discovered late):
  // what depends on it is derived again when `agent.card` is another object.
  let cardInit = agent.card;
  let declaredUris = new Set<string>();
  let requiredUris: string[] = [];
  const deriveFromCard = () => {
    const declared = cardInit.capabilities?.extensions ?? [];
    declaredUris = new Set(declared.map((e) => e.uri ?? ""));
    requiredUris = declared.filter((e) => e.required && e.uri).map((e) => e.uri!);
  };
  deriveFromCard();
  const cardChanged = () => {
    if (agent.card === cardInit) return;
    cardInit = agent.card;
    builtCards.clear();
    cardCache.clear();
    deriveFromCard();
  };

  // preClose: open streams must end before fastify waits for connections to drain.
  app.addHook("preClose", async () => {
    if (!opts.runtime) await runtime.close();
  });

  // Raw bodies for every content type: the seam decides (-32700 for bad JSON, 415 for wrong types).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit }, (_req, body, done) => done(null, body));

  const authenticators = opts.authenticators?.length ? [...opts.authenticators] : undefined;
  /** The 1.0 card as served: the agent's declaration, its interfaces and the schemes we check. */
  const signing = opts.cardSigning;
  const publishedCard = async (init: Agent["card"], url: string, extended: boolean): Promise<v1_0.AgentCard> => {
    let card = buildCard(init, url, versions, extended);
    if (authenticators) card = withCardSecurity(card, authenticators);
    // Signed last: the signature covers everything a client sees in the 1.0 card.
    if (signing) card = await signAgentCard(card, signing.key, { kid: signing.kid, alg: signing.alg, jku: signing.jku });
    return card;
  };
  // Signing costs a few ms: each card is built once per base URL, so every shape of the public
  // card (1.0, dual) carries the same signature.
  const builtCards = new Map<string, Promise<v1_0.AgentCard>>();
  const cardFor = (url: string, extended: boolean): Promise<v1_0.AgentCard> => {
    const key = `${extended ? "extended" : "public"} ${url}`;
    let card = builtCards.get(key);
    if (!card) {
      card = extended
        ? publishedCard(runtime.extendedCardInit()!, url, true)
        : publishedCard(agent.card, url, agent.extendedCard !== undefined);
      if (builtCards.size > 64) builtCards.clear();
      builtCards.set(key, card);
      card.catch(() => builtCards.delete(key));
    }
    return card;
  };

  const baseUrl = (request: FastifyRequest) => (opts.publicUrl ?? `${request.protocol}://${request.host}${prefix}`).replace(/\/+$/, "");

  const errorContext = (request: FastifyRequest): { version: ProtocolVersion; binding: Binding } => {
    const binding = (request.routeOptions.config as RouteBinding | undefined)?.a2aBinding ?? "HTTP+JSON";
    return { version: versionOf(request.headers, splitUrl(request.url).query, versions), binding };
  };

  const send = (reply: FastifyReply, r: HttpReply) => reply.code(r.status).headers(r.headers).send(r.body);

  // A connection beyond its address's limit (http-limits.ts) is answered 429 and closed; a body
  // that has not arrived bodyTimeoutMs after the headers is answered 408 and its connection closed.
  const bodyTimeoutMs = Math.max(0, Math.floor(opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS));
  app.addHook("onRequest", (request, reply, done) => {
    const req = request.raw;
    if (isOverConnectionLimit(req.socket)) {
      const r = errorWithStatus(
        errorContext(request),
        new A2AError("InvalidRequestError", "Too many connections from this address; close one and retry"),
        429,
        "RESOURCE_EXHAUSTED",
      );
      void send(reply.header("connection", "close"), r);
      return;
    }
    if (bodyTimeoutMs > 0 && !req.complete) {
      const timer = setTimeout(() => {
        if (req.complete || reply.sent) return;
        const r = errorWithStatus(
          errorContext(request),
          new A2AError("InvalidRequestError", `The request body did not arrive within ${bodyTimeoutMs} ms`),
          408,
        );
        reply.hijack();
        reply.raw.writeHead(r.status, { ...r.headers, connection: "close", "content-length": Buffer.byteLength(r.body) });
        reply.raw.end(r.body, () => endSocket(req.socket));
      }, bodyTimeoutMs);
      reply.raw.once("close", () => clearTimeout(timer));
    }
    done();
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, reply) => {
    const ctx = errorContext(request);
    let status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    let a2a: A2AError;
    if (err instanceof A2AError) {
      a2a = err;
      status = 0;
    } else if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE")
      a2a = new A2AError("InvalidRequestError", `Request body is larger than ${bodyLimit} bytes`);
    else if (status < 500) a2a = new A2AError("InvalidRequestError", err.message);
    else {
      request.log.error({ err }, "unexpected error in the A2A server");
      a2a = new A2AError("InternalError");
      // JSON-RPC answers its errors with HTTP 200; only transport-level refusals (413 …) differ.
      if (ctx.binding === "JSONRPC") status = 0;
    }
    return send(reply, status ? errorWithStatus(ctx, a2a, status) : encodeError({ ...ctx, rpcId: null }, a2a));
  });

  app.setNotFoundHandler((request, reply) => {
    const ctx = errorContext(request);
    send(
      reply,
      encodeError({ ...ctx, rpcId: null }, new A2AError("MethodNotFoundError", `No A2A route for ${request.method} ${clip(request.url)}`)),
    );
  });

  // ------------------------------------------------------------------ agent card

  // One entry per shape and base URL; its ETag and Last-Modified (the time it was built, to the
  // second) last as long as the entry, so a validator never outlives the body it names.
  const cardCache = new Map<string, { reply: HttpReply; etag: string; modified: number }>();
  app.get(CARD_PATH, async (request, reply) => {
    // The seam picks the shape (1.0 / 0.3 / dual) from A2A-Version; the key covers what it looks at.
    const asked = askedCardVersion({ headers: request.headers, url: request.url });
    const url = baseUrl(request);
    const key = `${asked === "" || asked === "1.0" || asked === "0.3" ? asked : "other"} ${url}`;
    cardChanged();
    let cached = cardCache.get(key);
    if (!cached) {
      const card = await cardFor(url, false);
      const r = agentCardReply(card, { headers: request.headers, url: request.url }, { versions });
      const etag = `"${createHash("sha256").update(r.body).digest("base64url").slice(0, 27)}"`;
      cached = { reply: r, etag, modified: Math.floor(Date.now() / 1000) * 1000 };
      if (cardCache.size > 64) cardCache.clear();
      cardCache.set(key, cached);
    }
    reply.headers({
      ...cached.reply.headers,
      "cache-control": `public, max-age=${cardMaxAge}`,
      etag: cached.etag,
      "last-modified": new Date(cached.modified).toUTCString(),
    });
    return notModified(request.headers, cached) ? reply.code(304).send() : reply.code(cached.reply.status).send(cached.reply.body);
  });

  // ------------------------------------------------------------------ A2A calls

  const handle = async (binding: Binding, request: FastifyRequest, reply: FastifyReply) => {
    let principal = "anonymous";
    if (authenticators) {
      const who = await authenticate(authenticators, request);
      if (!who.ok)
        return send(reply, unauthenticatedReply({ ...errorContext(request), rpcId: rpcIdOf(binding, request.body) }, who, authenticators));
      principal = who.principal;
    } else if (opts.authenticate) {
      const who = await opts.authenticate(request);
      if (who === undefined) {
        const r = encodeError({ ...errorContext(request), rpcId: null }, new A2AError("InvalidRequestError", "Authentication required"));
        return send(reply, { ...r, status: 401, headers: { ...r.headers, "www-authenticate": "Bearer" } });
      }
      principal = who;
    }
    const decoded = decodeCall(
      { method: request.method, url: request.url, headers: request.headers, body: request.body as string | undefined },
      { binding, versions, basePath: prefix },
    );
    if (decoded.kind === "reply") return send(reply, decoded);
    const call = decoded;

    cardChanged();
    const missing = requiredUris.filter((u) => !call.extensions.includes(u));
    if (missing.length)
      return send(
        reply,
        encodeError(
          call,
          new A2AError("ExtensionSupportRequiredError", `This agent requires the extension(s) ${missing.join(", ")}`, {
            extensions: missing.join(","),
          }),
        ),
      );
    const activated = call.extensions.filter((u) => declaredUris.has(u));
    const ctx: CallContext = { principal, version: call.version, extensions: activated, tenant: call.tenant };

    if (call.streaming) return stream(call, ctx, request, reply);
    let result: unknown;
    try {
      result = await unary(call, ctx, request);
    } catch (e) {
      if (!(e instanceof A2AError)) request.log.error({ err: e }, "A2A operation failed");
      return send(reply, encodeError(call, toA2AError(e), extensionHeaders(call, activated)));
    }
    return send(reply, encodeResult(call, result as never, { extensions: activated }));
  };

  const unary = async (call: DecodedCall, ctx: CallContext, request: FastifyRequest): Promise<unknown> => {
    const r = call.request as never;
    switch (call.operation) {
      case "SendMessage":
        return runtime.sendMessage(r, ctx);
      case "GetTask":
        return runtime.getTask(r, ctx);
      case "ListTasks":
        return runtime.listTasks(r, ctx);
      case "CancelTask":
        return runtime.cancelTask(r, ctx);
      case "CreateTaskPushNotificationConfig":
        return runtime.createPushConfig(r, ctx);
      case "GetTaskPushNotificationConfig":
        return runtime.getPushConfig(r, ctx);
      case "ListTaskPushNotificationConfigs":
        return runtime.listPushConfigs(r, ctx);
      case "DeleteTaskPushNotificationConfig":
        return runtime.deletePushConfig(r, ctx);
      case "GetExtendedAgentCard":
        // No extended card: 1.0 answers UnsupportedOperationError (1.0 §3.3.4); 0.3 defines its own
        // AuthenticatedExtendedCardNotConfiguredError, -32007 (0.3 §8.2).
        if (call.version === "0.3" && !runtime.hasExtendedCard())
          throw new A2AError("ExtendedAgentCardNotConfiguredError", "This agent has no authenticated extended card");
        runtime.extendedCardInit(); // UnsupportedOperation when the agent has none
        return cardFor(baseUrl(request), true);
      default:
        throw new A2AError("UnsupportedOperationError", `${call.operation} is not a unary operation`);
    }
  };

  const stream = async (call: DecodedCall, ctx: CallContext, request: FastifyRequest, reply: FastifyReply) => {
    // Without authentication every caller is "anonymous": count per client address instead.
    const who = authenticators || opts.authenticate ? `principal:${ctx.principal}` : `address:${request.ip}`;
    const open = openStreams.get(who) ?? 0;
    if (open >= maxStreams) return send(reply, tooManyStreams(call, maxStreams));
    openStreams.set(who, open + 1);
    try {
      return await streamCounted(call, ctx, request, reply);
    } finally {
      const n = (openStreams.get(who) ?? 1) - 1;
      if (n > 0) openStreams.set(who, n);
      else openStreams.delete(who);
    }
  };

  const streamCounted = async (call: DecodedCall, ctx: CallContext, request: FastifyRequest, reply: FastifyReply) => {
    let events: AsyncIterableIterator<v1_0.StreamResponse>;
    try {
      events =
        call.operation === "SendStreamingMessage"
          ? await runtime.sendStreamingMessage(call.request as v1_0.SendMessageRequest, ctx)
          : await runtime.subscribeToTask(call.request as v1_0.SubscribeToTaskRequest, ctx);
    } catch (e) {
      if (!(e instanceof A2AError)) request.log.error({ err: e }, "A2A stream failed to start");
      return send(reply, encodeError(call, toA2AError(e), extensionHeaders(call, ctx.extensions)));
    }
    const sse = openStream(call, { extensions: ctx.extensions });
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, sse.headers);
    let gone = false;
    res.on("close", () => {
      gone = true;
      void events.return?.();
    });
    // Comments keep proxies from cutting a stream that is quiet while the agent works.
    const keepAlive = keepAliveMs > 0 ? setInterval(() => gone || res.write(sseComment()), keepAliveMs) : undefined;
    try {
      for (;;) {
        const next = await events.next();
        if (next.done || gone) break;
        const { frames, close } = sse.event(next.value);
        if (frames && !res.write(frames)) await drained(res);
        if (close) break;
      }
      if (!gone) {
        const tail = sse.end();
        if (tail) res.write(tail);
      }
    } catch (e) {
      if (!(e instanceof A2AError)) request.log.error({ err: e }, "A2A stream failed");
      if (!gone) res.write(sse.error(toA2AError(e)));
    } finally {
      clearInterval(keepAlive);
      void events.return?.();
      res.end();
    }
  };

  app.route({
    method: "POST",
    url: "/",
    config: { a2aBinding: "JSONRPC" } satisfies RouteBinding,
    handler: (q, r) => handle("JSONRPC", q, r),
  });
  app.route({
    method: ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"],
    url: "/",
    config: { a2aBinding: "JSONRPC" } satisfies RouteBinding,
    handler: (q, r) => handle("JSONRPC", q, r),
  });
  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    url: "/*",
    config: { a2aBinding: "HTTP+JSON" } satisfies RouteBinding,
    handler: (q, r) => handle("HTTP+JSON", q, r),
  });
}

/** HTTP 429 for a principal over its open-stream limit: the binding's error shape, RESOURCE_EXHAUSTED on HTTP+JSON. */
function tooManyStreams(call: DecodedCall, max: number): HttpReply {
  const err = new A2AError("InvalidRequestError", `Too many open streams: at most ${max} per caller; close one and retry`);
  return errorWithStatus(call, err, 429, "RESOURCE_EXHAUSTED");
}

/** The JSON-RPC id of a raw request body, when it can be read (for the 401 envelope). */
function rpcIdOf(binding: Binding, body: unknown): string | number | null {
  if (binding !== "JSONRPC" || typeof body !== "string") return null;
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

/** Client-supplied text echoed in an error message, cut to a sane length. */
function clip(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function extensionHeaders(call: DecodedCall, activated: readonly string[]): Record<string, string> {
  if (!activated.length) return {};
  return { [call.version === "1.0" ? "A2A-Extensions" : "X-A2A-Extensions"]: activated.join(", ") };
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * RFC 9110 §13.1: If-None-Match (weak comparison, `*`) decides when present; otherwise
 * If-Modified-Since, when it is a valid date no earlier than the entry's Last-Modified.
 */
function notModified(headers: FastifyRequest["headers"], entry: { etag: string; modified: number }): boolean {
  const inm = headers["if-none-match"];
  if (inm !== undefined) return inm.split(",").some((t) => ["*", entry.etag].includes(t.trim().replace(/^W\//, "")));
  const ims = headers["if-modified-since"];
  return ims !== undefined && Date.parse(ims) >= entry.modified;
}
