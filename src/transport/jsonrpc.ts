// JSON-RPC 2.0 envelopes, the same for A2A 1.0 and 0.3 (a2a-wire.md §1.1, §3.3). No knowledge of
// versions or operations here: src/versioning/codec.ts and src/transport/server.ts build on it.
//
// API
//   parseJsonRpcRequest(raw)      string | Uint8Array | parsed value → JsonRpcCall | JsonRpcEnvelopeError
//   jsonRpcResult(id, result)     the success envelope
//   jsonRpcResultText(id, text)   the same as JSON text, around a result written as text
//   jsonRpcErrorEnvelope(id, err) the error envelope (err = {code, message, data?})
//   parseJsonRpcResponse(raw)     client side: {id, result} | {id, error}; throws A2AError on a malformed reply
//   isJsonRpcId(v)                string, number or null (JSON-RPC 2.0 §4)
//
// Ids are echoed exactly, 0 and "" included; `null` only when the id cannot be read (parse error,
// invalid envelope). A request without an id (a JSON-RPC notification) is refused with -32600:
// every A2A method has a result the caller needs.
import { jsonLimitIssue } from "../runtime/json-limits.js";
import { A2AError, invalidParams } from "../versioning/errors.js";

export type JsonRpcId = string | number | null;

export interface JsonRpcCall {
  kind: "call";
  id: string | number;
  method: string;
  /** `params` as sent; undefined when absent. */
  params: unknown;
}

export interface JsonRpcEnvelopeError {
  kind: "error";
  /** The id to answer with: the request's when it could be read, else null. */
  id: JsonRpcId;
  error: A2AError;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export function isJsonRpcId(v: unknown): v is JsonRpcId {
  return v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

/** Parses JSON text; throws the -32700 A2AError when it is not JSON. */
export function parseJsonText(raw: string | Uint8Array): unknown {
  const text = typeof raw === "string" ? raw : new TextDecoder().decode(raw);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new A2AError("JSONParseError", `Invalid JSON payload: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Reads a JSON-RPC request. `raw` may be the body text (so unparseable JSON gets -32700) or an
 * already parsed value.
 */
export function parseJsonRpcRequest(raw: unknown): JsonRpcCall | JsonRpcEnvelopeError {
  let body: unknown = raw;
  if (typeof raw === "string" || raw instanceof Uint8Array) {
    try {
      body = parseJsonText(raw);
    } catch (e) {
      return { kind: "error", id: null, error: e as A2AError };
    }
  }
  if (Array.isArray(body))
    return {
      kind: "error",
      id: null,
      error: new A2AError("InvalidRequestError", "Invalid JSON-RPC request: batch requests are not supported"),
    };
  if (!body || typeof body !== "object")
    return {
      kind: "error",
      id: null,
      error: new A2AError("InvalidRequestError", "Invalid JSON-RPC request: the body must be a JSON object"),
    };
  const o = body as Record<string, unknown>;
  const idReadable = "id" in o && isJsonRpcId(o.id);
  const id: JsonRpcId = idReadable ? (o.id as JsonRpcId) : null;
  const fail = (why: string): JsonRpcEnvelopeError => ({
    kind: "error",
    id,
    error: new A2AError("InvalidRequestError", `Invalid JSON-RPC request: ${why}`),
  });
  if (o.jsonrpc !== "2.0") return fail('"jsonrpc" must be "2.0"');
  if (!("id" in o)) return fail('"id" is missing (notifications are not supported)');
  if (!idReadable) return fail('"id" must be a string or a number');
  if (o.id === null) return fail('"id" must not be null');
  if (typeof o.method !== "string" || o.method === "") return fail('"method" must be a non-empty string');
  if ("params" in o && o.params !== undefined && (o.params === null || typeof o.params !== "object"))
    return fail('"params" must be an object or an array');
  const issue = jsonLimitIssue(o.params);
  if (issue) return { kind: "error", id, error: invalidParams(issue.path, issue.message) };
  return { kind: "call", id: o.id as string | number, method: o.method, params: o.params };
}

export function jsonRpcResult(id: JsonRpcId, result: unknown): { jsonrpc: "2.0"; id: JsonRpcId; result: unknown } {
  return { jsonrpc: "2.0", id, result };
}

/** The success envelope as JSON text around a result already written as text (JSON.stringify's order and form). */
export function jsonRpcResultText(id: JsonRpcId, resultText: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultText}}`;
}

export function jsonRpcErrorEnvelope(
  id: JsonRpcId,
  error: JsonRpcErrorObject,
): { jsonrpc: "2.0"; id: JsonRpcId; error: JsonRpcErrorObject } {
  return { jsonrpc: "2.0", id, error };
}

export type JsonRpcResponse =
  { kind: "result"; id: JsonRpcId; result: unknown } | { kind: "error"; id: JsonRpcId; error: JsonRpcErrorObject };

/** Client side: reads a JSON-RPC response envelope; a malformed one is an InvalidAgentResponse error. */
export function parseJsonRpcResponse(raw: unknown): JsonRpcResponse {
  const body = typeof raw === "string" || raw instanceof Uint8Array ? parseResponseText(raw) : raw;
  const bad = (why: string) => new A2AError("InvalidAgentResponseError", `Invalid JSON-RPC response: ${why}`);
  if (!body || typeof body !== "object" || Array.isArray(body)) throw bad("not a JSON object");
  const o = body as Record<string, unknown>;
  if (o.jsonrpc !== "2.0") throw bad('"jsonrpc" must be "2.0"');
  if (!isJsonRpcId(o.id)) throw bad('"id" must be a string, a number or null');
  if ("error" in o && o.error !== undefined) {
    const e = o.error as Record<string, unknown> | null;
    if (!e || typeof e !== "object" || typeof e.code !== "number" || !Number.isInteger(e.code))
      throw bad('"error.code" must be an integer');
    return {
      kind: "error",
      id: o.id,
      error: { code: e.code, message: typeof e.message === "string" ? e.message : "", ...("data" in e ? { data: e.data } : {}) },
    };
  }
  if (!("result" in o)) throw bad('neither "result" nor "error" is present');
  return { kind: "result", id: o.id, result: o.result };
}

function parseResponseText(raw: string | Uint8Array): unknown {
  try {
    return parseJsonText(raw);
  } catch {
    throw new A2AError("InvalidAgentResponseError", "Invalid JSON-RPC response: the body is not JSON");
  }
}
