// Server-side HTTP helpers: one request in → a decoded 1.0 call or a finished error reply; a 1.0
// result, error or stream out → HTTP replies and SSE frames, in the request's own version and
// binding. The fastify server calls only these (plus src/versioning/card.ts), so it never sees a
// 0.3 value.
//
// API
//   decodeCall(req, {binding, versions?, basePath?}) → DecodedCall | HttpReply   (discriminate on `kind`)
//   encodeResult(call, result, {extensions?})        → HttpReply  (200, JSON-RPC envelope or REST body)
//   encodeError(callOrPartial, err, headers?, {status, grpcStatus}?) → HttpReply  (JSON-RPC envelope / AIP-193 body;
//                                                      the override: a transport-level refusal's status)
//   openStream(call, {extensions?, onLoss?})         → SseStream  ({headers, event(e), end(), error(err), closed})
//
// Losses (LOSSY.md) reach the caller: DecodedCall.losses (the upgrade of a 0.3 request),
// HttpReply.losses (the downgrade of a result; L12 on a 0.3 JSON-RPC error), openStream's onLoss
// (per item, and the stream rows L5/L13).
//   toA2AError(e)                                    any thrown value → A2AError (InternalError keeps no details)
//
//   HttpRequestLike = {method, url, headers, body?}: `url` is the request target (path + query);
//   `body` should be the raw text or bytes (so unparseable JSON gets -32700); a parsed value or
//   undefined is accepted too. With `basePath` (REST), the path must start with it and the rest is
//   matched against the route tables.
//
// Status codes: JSON-RPC replies are HTTP 200 whatever the outcome, except 415 for a body that is
// not JSON by its Content-Type (ContentTypeNotSupportedError, -32005, on both bindings and
// versions); REST replies use the status of the error table (1.0.1 column).
// Accepted request content types: application/json and application/a2a+json (any parameters); a
// request without Content-Type is read as JSON. Replies are application/json, except 1.0 REST
// replies to a request that names application/a2a+json (Accept or Content-Type).
import type { JsonValue } from "@bufbuild/protobuf";
import type * as v1_0 from "../../generated/v1_0/index.js";
import {
  codecFor,
  JSONRPC_0_3_LIST_TASKS,
  listTasksUnsupported,
  OPERATIONS,
  resolveJsonRpcMethod,
  restRequestSchema,
  restRoutes,
  type Binding,
  type Operation,
  type RequestOf,
  type ResponseOf,
  type RestErrorReply,
} from "../versioning/codec.js";
import { jsonLimitIssue } from "../runtime/json-limits.js";
import { A2AError, invalidParams, isRetryableCause, retryable } from "../versioning/errors.js";
import type { Loss } from "../versioning/loss.js";
import {
  extensionsHeader,
  negotiate,
  readExtensions,
  readHeader,
  SUPPORTED_VERSIONS,
  VERSION_HEADER,
  type HeadersLike,
  type ProtocolVersion,
} from "../versioning/negotiate.js";
import { knownVersion, otherVersion, policyOf } from "../versioning/policy.js";
import type { FlaggedEvent } from "../versioning/stream.js";
import { jsonRpcErrorEnvelope, jsonRpcResult, jsonRpcResultText, parseJsonRpcRequest, parseJsonText, type JsonRpcId } from "./jsonrpc.js";
import { matchRoute, requestJsonFromHttp, splitUrl } from "./rest.js";
import { SSE_HEADERS, sseFrame } from "./sse.js";

export interface HttpRequestLike {
  method: string;
  url: string;
  headers: HeadersLike;
  body?: unknown;
}

export interface DecodeOptions {
  binding: Binding;
  /** Versions this interface serves (default 1.0 and 0.3). */
  versions?: readonly ProtocolVersion[];
  /** REST: path prefix of the interface URL, stripped before route matching ("" = root). */
  basePath?: string;
  /** 0.3 REST: what an absent/false `blocking` means (L22; default false = return immediately). */
  blockingDefault0_3?: boolean;
}

export interface DecodedCall<O extends Operation = Operation> {
  kind: "call";
  version: ProtocolVersion;
  binding: Binding;
  operation: O;
  streaming: boolean;
  /** The request as a 1.0 protobuf-es message. */
  request: RequestOf<O>;
  /** JSON-RPC id, echoed exactly; undefined on REST. */
  rpcId?: string | number;
  /** Extension URIs the client asked for (A2A-Extensions / X-A2A-Extensions). */
  extensions: string[];
  /** 1.0 tenant (REST path or JSON-RPC params); "" when none. */
  tenant: string;
  /** What the upgrade to 1.0 could not carry. */
  losses: Loss[];
  /** Content-Type of the replies to this call. */
  mediaType: string;
}

export interface HttpReply {
  kind: "reply";
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * What the reply could not carry to the request's version: the downgrade's losses (encodeResult),
   * or an error code 0.3 does not define (encodeError to a 0.3 JSON-RPC peer, L12).
   */
  losses?: Loss[];
}

/** Enough of a call to answer with an error. */
export interface CallContext {
  version: ProtocolVersion;
  binding: Binding;
  rpcId?: JsonRpcId;
  /** Content-Type of replies (default application/json); decodeCall sets it on REST calls. */
  mediaType?: string;
}

const JSON_TYPES = new Set(["application/json", "application/a2a+json"]);

/**
 * ContentTypeNotSupportedError for a request body that is not JSON by its Content-Type, else
 * undefined (docs/policies.md, "Content types"). Answered with HTTP 415 on both bindings.
 */
function contentTypeRefusal(headers: HeadersLike): A2AError | undefined {
  const raw = readHeader(headers, "content-type");
  if (raw === undefined || raw.trim() === "") return undefined;
  if (JSON_TYPES.has((raw.split(";")[0] ?? "").trim().toLowerCase())) return undefined;
  return new A2AError(
    "ContentTypeNotSupportedError",
    `Content-Type ${JSON.stringify(clip(raw))} is not supported: send the request as application/json (or application/a2a+json)`,
  );
}

function jsonContentType(ctx: CallContext): string {
  return ctx.mediaType ?? "application/json";
}

/**
 * Reply media type of a REST request: `application/a2a+json` (1.0.1 §11.1 SHOULD) when the request
 * names it in Accept or Content-Type and speaks 1.0; `application/json` otherwise, which is what
 * 1.0.0 clients, 0.3 clients and the official conformance kit expect.
 */
function restMediaType(headers: HeadersLike, version: ProtocolVersion): string {
  if (!policyOf(version).a2aJsonMediaType) return "application/json";
  const named = [readHeader(headers, "accept"), readHeader(headers, "content-type")].some((v) =>
    (v ?? "").toLowerCase().includes("application/a2a+json"),
  );
  return named ? "application/a2a+json" : "application/json";
}

/**
 * Any thrown value as an A2AError; unexpected ones become InternalError without their details, and
 * a cause marked retryable (an unreachable store) the retryable InternalError.
 */
export function toA2AError(e: unknown): A2AError {
  if (e instanceof A2AError) return e;
  if (isRetryableCause(e))
    return retryable(new A2AError("InternalError", "A service the server depends on is unavailable; retry the request."));
  return new A2AError("InternalError");
}

/**
 * A transport-level refusal (405, 408, 413, 415, 429 …): the HTTP status of the reply, which on
 * HTTP+JSON is also the AIP-193 body's `code` (and `grpcStatus` its `status`, when given).
 */
export interface StatusOverride {
  status: number;
  grpcStatus?: string;
}

export function encodeError(
  ctx: CallContext,
  err: A2AError,
  extraHeaders: Record<string, string> = {},
  override?: StatusOverride,
): HttpReply {
  const codec = codecFor(ctx.version, ctx.binding);
  const retryAfter: Record<string, string> = err.retryAfterSeconds === undefined ? {} : { "retry-after": String(err.retryAfterSeconds) };
  const headers = { "content-type": jsonContentType(ctx), ...retryAfter, ...extraHeaders };
  const encoded = codec.encodeError(err);
  if (ctx.binding === "JSONRPC") {
    const r: HttpReply = {
      kind: "reply",
      status: override?.status ?? 200,
      headers,
      body: JSON.stringify(jsonRpcErrorEnvelope(ctx.rpcId ?? null, encoded as { code: number; message: string; data?: unknown })),
    };
    const losses = policyOf(ctx.version).errorLosses(err);
    return losses.length ? { ...r, losses } : r;
  }
  const rest = encoded as RestErrorReply;
  if (override) {
    // Both REST dialects carry the AIP-193 object under `error` (0.3 beside its own code/message).
    const error = (rest.body as { error: { code: number; status: string } }).error;
    error.code = override.status;
    if (override.grpcStatus) error.status = override.grpcStatus;
  }
  return { kind: "reply", status: override?.status ?? rest.status, headers, body: JSON.stringify(rest.body) };
}

export function encodeResult<O extends Operation>(
  call: DecodedCall<O>,
  result: ResponseOf<O>,
  opts: { extensions?: readonly string[] } = {},
): HttpReply {
  const codec = codecFor(call.version, call.binding);
  let encoded: { value: string; losses: Loss[] };
  try {
    encoded = codec.encodeResponseText(call.operation, result);
  } catch (e) {
    return encodeError(call, toA2AError(e));
  }
  const headers = { "content-type": jsonContentType(call), ...extensionsHeader(call.version, opts.extensions) };
  const body = call.binding === "JSONRPC" ? jsonRpcResultText(call.rpcId ?? null, encoded.value) : encoded.value;
  return { kind: "reply", status: 200, headers, body, losses: encoded.losses };
}

export interface SseStream {
  /** Response headers: text/event-stream, no caching, and the extensions header when given. */
  readonly headers: Record<string, string>;
  /** Frames for one 1.0 event ("" when held back or dropped) and whether the stream must now close. */
  event(e: v1_0.StreamResponse): { frames: string; close: boolean };
  /** The 1.0 stream ended: frames still owed (a held 0.3 AUTH_REQUIRED update, final: true). */
  end(): string;
  /** An error after the stream started: one error frame; the stream must close after it. */
  error(err: A2AError): string;
  /** True once a 0.3 final item was sent. */
  readonly closed: boolean;
}

export interface OpenStreamOptions {
  /** Extension URIs the server activated (response header). */
  extensions?: readonly string[];
  /**
   * Told what the 0.3 items could not carry: each item's translator losses; L13 for an AUTH_REQUIRED
   * update whose `final` was decided by lookahead; L5 for a 1.0 event dropped after the item that
   * ended the 0.3 stream, and for a 1.0 stream that ended without any item a 0.3 client stops at.
   */
  onLoss?: (loss: Loss) => void;
}

/**
 * Per-stream encoder. JSON-RPC wraps each item in a response carrying the request id; REST sends
 * the bare StreamResponse. The version's framer (src/versioning/policy.ts) says what is sent and
 * when the stream closes: 0.3 streams get `final` and close after the final item.
 */
export function openStream(call: DecodedCall, opts: OpenStreamOptions = {}): SseStream {
  const codec = codecFor(call.version, call.binding);
  const lost = opts.onLoss ?? (() => {});
  const framer = policyOf(call.version).streamFramer(lost);
  const frame = (value: JsonValue) => sseFrame(call.binding === "JSONRPC" ? jsonRpcResult(call.rpcId ?? null, value) : value);
  const errorFrame = (err: A2AError) => {
    const encoded = codec.encodeError(err);
    return sseFrame(
      call.binding === "JSONRPC" ? jsonRpcErrorEnvelope(call.rpcId ?? null, encoded as never) : (encoded as RestErrorReply).body,
    );
  };
  const encodeItems = (items: FlaggedEvent[]) => {
    let out = "";
    for (const item of items) {
      try {
        const encoded = codec.encodeEvent(item.event, item.final);
        out += frame(encoded.value);
        for (const l of encoded.losses) lost(l);
        if (item.loss) lost(item.loss);
      } catch (e) {
        out += errorFrame(toA2AError(e));
      }
    }
    return out;
  };
  let closed = false;
  /** The framer closed the stream (not end() or error()): a later event is the framer's to report. */
  let framerClosed = false;
  return {
    headers: { ...SSE_HEADERS, ...extensionsHeader(call.version, opts.extensions) },
    event(e) {
      if (closed) {
        if (framerClosed) framer.late();
        return { frames: "", close: true };
      }
      const frames = encodeItems(framer.push(e));
      closed = framerClosed = framer.closed;
      return { frames, close: closed };
    },
    end() {
      if (closed) return "";
      closed = true;
      return encodeItems(framer.end());
    },
    error(err) {
      if (closed) return "";
      closed = true;
      return errorFrame(err);
    },
    get closed() {
      return closed;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// decodeCall

function reply(ctx: CallContext, err: A2AError, status?: number): HttpReply {
  return encodeError(ctx, err, {}, status ? { status } : undefined);
}

/** Client-supplied text echoed in an error message, cut to a readable length. */
function clip(s: string, max = 120): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function tenantOf(request: unknown): string {
  const t = (request as { tenant?: unknown }).tenant;
  return typeof t === "string" ? t : "";
}

export function decodeCall(req: HttpRequestLike, options: DecodeOptions): DecodedCall | HttpReply {
  try {
    return options.binding === "JSONRPC" ? decodeJsonRpc(req, options) : decodeRest(req, options);
  } catch (e) {
    return reply({ version: "1.0", binding: options.binding, rpcId: null }, toA2AError(e));
  }
}

function decodeJsonRpc(req: HttpRequestLike, options: DecodeOptions): DecodedCall | HttpReply {
  const supported = options.versions ?? SUPPORTED_VERSIONS;
  const { query } = splitUrl(req.url);
  const negotiated = negotiate(req.headers, query, supported);
  const requested = negotiated.ok ? negotiated.version : negotiated.requested;
  // Dialect of an answer that cannot be tied to a method: the requested version when known.
  const fallback = knownVersion(requested);
  if (req.method.toUpperCase() !== "POST")
    return reply(
      { version: fallback, binding: "JSONRPC", rpcId: null },
      new A2AError("InvalidRequestError", "JSON-RPC requests must use POST"),
      405,
    );

  const envelope = parseJsonRpcRequest(req.body ?? "");
  const refusal = contentTypeRefusal(req.headers);
  if (refusal) return reply({ version: fallback, binding: "JSONRPC", rpcId: envelope.id }, refusal, 415);
  if (envelope.kind === "error") return reply({ version: fallback, binding: "JSONRPC", rpcId: envelope.id }, envelope.error);

  const ref = resolveJsonRpcMethod(envelope.method);
  const dialect: ProtocolVersion = ref?.version ?? fallback;
  const ctx: CallContext = { version: dialect, binding: "JSONRPC", rpcId: envelope.id };
  if (!negotiated.ok) return reply(ctx, negotiated.error);
  const version = negotiated.version;

  if (!ref) {
    if (envelope.method === JSONRPC_0_3_LIST_TASKS && !policyOf(version).listTasks)
      return reply({ ...ctx, version }, listTasksUnsupported());
    return reply({ ...ctx, version }, new A2AError("MethodNotFoundError", `Method not found: ${clip(envelope.method)}`));
  }
  if (ref.version !== version) {
    if (ref.operation === "ListTasks" && !policyOf(version).listTasks) return reply(ctx, listTasksUnsupported());
    return reply(ctx, contradiction(envelope.method, ref.version, version));
  }

  const codec = codecFor(version, "JSONRPC");
  try {
    const decoded = codec.decodeRequest(ref.operation, envelope.params);
    return {
      kind: "call",
      version,
      binding: "JSONRPC",
      operation: ref.operation,
      streaming: ref.streaming,
      request: decoded.value,
      rpcId: envelope.id,
      extensions: readExtensions(req.headers, version),
      tenant: tenantOf(decoded.value),
      losses: decoded.losses,
      mediaType: "application/json",
    };
  } catch (e) {
    return reply(ctx, toA2AError(e));
  }
}

function contradiction(what: string, belongsTo: ProtocolVersion, negotiated: ProtocolVersion): A2AError {
  const why = policyOf(negotiated).isDefault
    ? `this request speaks ${negotiated} (no ${VERSION_HEADER} header or parameter means ${negotiated}); send ${VERSION_HEADER}: ${belongsTo}`
    : `this request asked for ${VERSION_HEADER}: ${negotiated}`;
  return new A2AError("MethodNotFoundError", `Method not found: ${what} is an A2A ${belongsTo} method, but ${why}`, {
    methodVersion: belongsTo,
    negotiatedVersion: negotiated,
  });
}

function stripBase(path: string, basePath: string | undefined): string | undefined {
  const base = (basePath ?? "").replace(/\/+$/, "");
  if (!base) return path;
  if (path === base) return "/";
  return path.startsWith(base + "/") ? path.slice(base.length) : undefined;
}

/** `body`, unless it breaks a JSON limit (runtime/json-limits.ts): then InvalidParams with the path. */
function checkedLimits(body: unknown): unknown {
  const issue = jsonLimitIssue(body);
  if (issue) throw invalidParams(issue.path, issue.message);
  return body;
}

function readBody(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) {
    const text = typeof body === "string" ? body : new TextDecoder().decode(body);
    if (text.trim() === "") return undefined;
    return checkedLimits(parseJsonText(text));
  }
  return checkedLimits(body);
}

function decodeRest(req: HttpRequestLike, options: DecodeOptions): DecodedCall | HttpReply {
  const supported = options.versions ?? SUPPORTED_VERSIONS;
  const { path: fullPath, query } = splitUrl(req.url);
  const negotiated = negotiate(req.headers, query, supported);
  const requested = negotiated.ok ? negotiated.version : negotiated.requested;
  const fallback = knownVersion(requested);
  if (!negotiated.ok)
    return reply({ version: fallback, binding: "HTTP+JSON", mediaType: restMediaType(req.headers, fallback) }, negotiated.error);
  const version = negotiated.version;
  const mediaType = restMediaType(req.headers, version);
  const ctx: CallContext = { version, binding: "HTTP+JSON", mediaType };
  const path = stripBase(fullPath, options.basePath);
  const notFound = () =>
    new A2AError("MethodNotFoundError", `No A2A ${version} route for ${clip(req.method.toUpperCase())} ${clip(fullPath)}`);
  if (path === undefined) return reply(ctx, notFound());

  // The negotiated version picks the route table, which settles `/v1/...` (0.3) against a 1.0
  // tenant named "v1" (docs/policies.md).
  const match = matchRoute(restRoutes(version), req.method, path);
  if (!match) {
    const other = otherVersion(version);
    const elsewhere = matchRoute(restRoutes(other), req.method, path);
    if (elsewhere && "route" in elsewhere) {
      if (elsewhere.route.info.operation === "ListTasks" && !policyOf(version).listTasks) return reply(ctx, listTasksUnsupported());
      return reply(ctx, contradiction(`${req.method.toUpperCase()} ${path}`, other, version));
    }
    return reply(ctx, notFound());
  }
  if ("allowed" in match) {
    const r = reply(
      ctx,
      new A2AError("MethodNotFoundError", `${req.method.toUpperCase()} is not allowed on ${fullPath}; use ${match.allowed.join(" or ")}`),
      405,
    );
    return { ...r, headers: { ...r.headers, allow: match.allowed.join(", ") } };
  }
  const operation = match.route.info.operation as Operation;
  if (operation === "ListTasks" && !policyOf(version).listTasks) return reply(ctx, listTasksUnsupported());

  try {
    let body: unknown;
    if (match.route.binding.body) {
      const refusal = contentTypeRefusal(req.headers);
      if (refusal) return reply(ctx, refusal, 415);
      body = readBody(req.body);
    }
    const json = requestJsonFromHttp(restRequestSchema(version, operation), match.route, match.params, query, body);
    const decoded = codecFor(version, "HTTP+JSON").decodeRequest(operation, json, { blockingDefault: options.blockingDefault0_3 });
    return {
      kind: "call",
      version,
      binding: "HTTP+JSON",
      operation,
      streaming: OPERATIONS[operation].streaming,
      request: decoded.value,
      extensions: readExtensions(req.headers, version),
      tenant: tenantOf(decoded.value),
      losses: decoded.losses,
      mediaType,
    };
  } catch (e) {
    return reply(ctx, toA2AError(e));
  }
}
