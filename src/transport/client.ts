// Client-side HTTP helpers, the mirror image of server.ts: a 1.0 request → an HTTP request in the
// target's version and binding; an HTTP reply or SSE event → a 1.0 message or an A2AError. The
// reference client calls only these (and parseAgentCard in src/versioning/card.ts).
//
// API
//   encodeCall(target, op, request, {extensions?, rpcId?})  → WireRequest {method, url, headers, body?, rpcId?, losses}
//   decodeReply(target, op, reply, {rpcId?, sent?})          → ResponseOf<op> (1.0); throws A2AError for a
//                                                             protocol error, NotA2AReplyError for anything else.
//                                                             `sent`: the WireRequest's losses (L10 trimming)
//   decodeStreamEvent(target, op, data, sseEvent?)           → {event, end?, losses} | {error}
//   NotA2AReplyError                                         the reply is not an A2A answer (HTML 502, wrong envelope…)
//
//   target = {url, binding, version, tenant}: the interface chosen from the card. `url` is the
//   interface URL; REST paths are appended to it. A non-empty tenant is echoed (1.0 §8.3.2): in the
//   JSON-RPC params and in the `/{tenant}/…` REST form; 0.3 has no tenant (L1): a 0.3 interface's
//   URL is already the tenant's, so a target tenant is not sent and is reported in `losses`.
//   Headers: 1.0 requests carry `A2A-Version: 1.0`; 0.3 requests carry no version header (an empty
//   header means 0.3), like a real 0.3 client. Extensions go out as A2A-Extensions (1.0) or
//   X-A2A-Extensions (0.3).
import type { JsonObject } from "@bufbuild/protobuf";
import type * as v1_0 from "../../generated/v1_0/index.js";
import {
  codecFor,
  jsonRpcMethodOf,
  listTasksUnsupported,
  OPERATIONS,
  restClientBindings,
  restRequestSchema,
  type Binding,
  type Operation,
  type RequestOf,
  type ResponseOf,
} from "../versioning/codec.js";
import { A2AError } from "../versioning/errors.js";
import type { Loss } from "../versioning/loss.js";
import { extensionsHeader, VERSION_HEADER, type ProtocolVersion } from "../versioning/negotiate.js";
import { policyOf, tenantLoss } from "../versioning/policy.js";
import { parseJsonRpcResponse, type JsonRpcId } from "./jsonrpc.js";
import { httpFromRequestJson } from "./rest.js";
import { SSE_CONTENT_TYPE } from "./sse.js";

export interface TargetLike {
  url: string;
  binding: Binding;
  version: ProtocolVersion;
  tenant?: string;
}

export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** JSON-RPC id used (to check the reply against). */
  rpcId?: string | number;
  /** What the downgrade to the target's version could not carry. */
  losses: Loss[];
}

export interface WireReply {
  status: number;
  /** Parsed JSON body, undefined when absent or not JSON. */
  json?: unknown;
  /** Raw body text (used when `json` is undefined). */
  text?: string;
}

export class NotA2AReplyError extends Error {
  override readonly name = "NotA2AReplyError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

let nextId = 1;

function joinUrl(base: string, path: string, query: URLSearchParams): string {
  const q = query.toString();
  return base.replace(/\/+$/, "") + path + (q ? `?${q}` : "");
}

export function encodeCall<O extends Operation>(
  target: TargetLike,
  op: O,
  request: RequestOf<O>,
  opts: { extensions?: readonly string[]; rpcId?: string | number } = {},
): WireRequest {
  const { version, binding } = target;
  const policy = policyOf(version);
  if (!policy.listTasks && op === "ListTasks") throw listTasksUnsupported();
  const codec = codecFor(version, binding);
  let req = request;
  if (policy.tenantField && target.tenant && "tenant" in (request as object) && !(request as { tenant: string }).tenant)
    req = { ...request, tenant: target.tenant };
  const encoded = codec.encodeRequest(op, req);
  const losses =
    !policy.tenantField && target.tenant && !encoded.losses.some((l) => l.id === "L1")
      ? [...encoded.losses, tenantLoss(target.tenant)]
      : encoded.losses;
  const headers: Record<string, string> = {
    accept: OPERATIONS[op].streaming
      ? SSE_CONTENT_TYPE
      : policy.a2aJsonMediaType && binding === "HTTP+JSON"
        ? "application/a2a+json, application/json"
        : "application/json",
    // The default version (0.3) is the one a request without the header speaks.
    ...(policy.isDefault ? {} : { [VERSION_HEADER]: version }),
    ...extensionsHeader(version, opts.extensions),
  };
  if (binding === "JSONRPC") {
    const method = jsonRpcMethodOf(version, op);
    if (!method) throw listTasksUnsupported();
    const rpcId = opts.rpcId ?? nextId++;
    const envelope: Record<string, unknown> = { jsonrpc: "2.0", id: rpcId, method };
    if (policy.extendedCardParams || op !== "GetExtendedAgentCard") envelope.params = encoded.value;
    return {
      method: "POST",
      url: target.url,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(envelope),
      rpcId,
      losses,
    };
  }
  const parts = httpFromRequestJson(restClientBindings(version, op), restRequestSchema(version, op), (encoded.value ?? {}) as JsonObject);
  const out: WireRequest = { method: parts.verb, url: joinUrl(target.url, parts.path, parts.query), headers, losses };
  if (parts.body !== undefined) {
    out.headers["content-type"] = policy.a2aJsonMediaType ? "application/a2a+json" : "application/json";
    out.body = JSON.stringify(parts.body);
  }
  return out;
}

function bodyOf(reply: WireReply): unknown {
  if (reply.json !== undefined) return reply.json;
  if (reply.text === undefined || reply.text.trim() === "") return undefined;
  try {
    return JSON.parse(reply.text);
  } catch {
    return undefined;
  }
}

function looksLikeRestError(body: unknown): boolean {
  if (!body || typeof body !== "object" || Array.isArray(body)) return false;
  const o = body as Record<string, unknown>;
  return (o.error !== undefined && typeof o.error === "object") || typeof o.type === "string" || typeof o.message === "string";
}

export function decodeReply<O extends Operation>(
  target: TargetLike,
  op: O,
  reply: WireReply,
  opts: { rpcId?: JsonRpcId; sent?: readonly Loss[] } = {},
): ResponseOf<O> {
  const codec = codecFor(target.version, target.binding);
  const body = bodyOf(reply);
  if (target.binding === "JSONRPC") {
    if (body === undefined) throw new NotA2AReplyError(`HTTP ${reply.status}: the reply is not JSON`, reply.status);
    let parsed;
    try {
      parsed = parseJsonRpcResponse(body);
    } catch (e) {
      throw new NotA2AReplyError(`HTTP ${reply.status}: ${e instanceof Error ? e.message : String(e)}`, reply.status);
    }
    if (parsed.kind === "error") throw codec.decodeError(parsed.error);
    if (opts.rpcId !== undefined && parsed.id !== opts.rpcId)
      throw new A2AError(
        "InvalidAgentResponseError",
        `Invalid agent response: id ${JSON.stringify(parsed.id)} does not match the request's`,
      );
    return codec.decodeResponse(op, parsed.result, { sent: opts.sent }).value;
  }
  if (reply.status < 200 || reply.status >= 300) {
    if (looksLikeRestError(body)) throw codec.decodeError(body, reply.status);
    throw new NotA2AReplyError(`HTTP ${reply.status} without an A2A error body`, reply.status);
  }
  if (body === undefined && op !== "DeleteTaskPushNotificationConfig")
    throw new NotA2AReplyError(`HTTP ${reply.status}: the reply is not JSON`, reply.status);
  return codec.decodeResponse(op, body ?? {}, { sent: opts.sent }).value;
}

/** An HTTP+JSON error body inside a stream: AIP-193 `{error}`, or the 0.3 `{code, message}` shape (a StreamResponse has neither). */
function isRestErrorBody(value: unknown): boolean {
  if (!value || typeof value !== "object") return false;
  const o = value as Record<string, unknown>;
  return "error" in o || (typeof o.code === "number" && typeof o.message === "string");
}

export type DecodedEvent = { event: v1_0.StreamResponse; end?: boolean; losses: Loss[] } | { error: A2AError };

/**
 * Decodes the `data` of one SSE event (text or parsed JSON). JSON-RPC: a response envelope whose
 * result is the item or whose error ends the stream. REST: the bare item, or an error body
 * (`{error: Status}` or 0.3 `{code, message}`, also when sent as `event: error`). `end: true` marks a 0.3 `final: true` item: the caller
 * closes the stream after it (L21).
 */
export function decodeStreamEvent(target: TargetLike, _op: Operation, data: unknown, sseEvent?: string): DecodedEvent {
  const codec = codecFor(target.version, target.binding);
  try {
    let value: unknown = data;
    if (typeof data === "string") {
      try {
        value = JSON.parse(data);
      } catch {
        throw new A2AError("InvalidAgentResponseError", "Invalid agent response: an SSE event is not JSON");
      }
    }
    if (target.binding === "JSONRPC") {
      const parsed = parseJsonRpcResponse(value);
      if (parsed.kind === "error") return { error: codec.decodeError(parsed.error) };
      value = parsed.result;
    } else if (sseEvent === "error" || isRestErrorBody(value)) {
      const status = Number((value as { error?: { code?: unknown } }).error?.code) || 500;
      return { error: codec.decodeError(value, status) };
    }
    const decoded = codec.decodeEvent(value);
    return decoded.final ? { event: decoded.value, end: true, losses: decoded.losses } : { event: decoded.value, losses: decoded.losses };
  } catch (e) {
    return { error: e instanceof A2AError ? e : new A2AError("InvalidAgentResponseError", `Invalid agent response: ${String(e)}`) };
  }
}
