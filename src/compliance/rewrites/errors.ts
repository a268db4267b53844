// Faults in how replies are framed and errors told: the JSON-RPC envelope (version, id), error
// codes and statuses, ErrorInfo, and the Content-Type of JSON replies.
import { bodies, errorOf, isObj, reasonOf, V100_5_4, withError } from "./helpers.js";
import type { Citation, JsonObject, Rewrite } from "./types.js";

/** A JSON-RPC error with code `from` answered with code `to` (replies and stream events). */
function rpcCode(from: number, to: number): Pick<Rewrite, "reply" | "event"> {
  return bodies((j) => {
    const e = errorOf(j);
    return e && e.code === from ? withError(j as JsonObject, { ...e, code: to }) : j;
  });
}

/** The JSON-RPC code of each A2A error (1.0 §5.4), by its ErrorInfo reason. */
const JSON_RPC_CODES: Record<string, number> = {
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: -32007,
  EXTENSION_SUPPORT_REQUIRED: -32008,
  VERSION_NOT_SUPPORTED: -32009,
};

const V03_RPC_ID: Citation = {
  version: "0.3.0",
  section: "6.11.2",
  quote:
    "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object. If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be null.",
};
const V1_JSON_RPC: Citation = { version: "1.0.1", section: "9.1", quote: "Protocol: JSON-RPC 2.0 over HTTP(S)" };
const REST_ERROR_CODE: Citation = {
  version: "1.0.1",
  section: "11.6",
  quote: "Error Code: Mapped to the HTTP status code and the error.code field",
};
const REST_ERROR_INFO: Citation = {
  version: "1.0.1",
  section: "11.6",
  quote:
    'implementations MUST include a google.rpc.ErrorInfo object in the details array for A2A-specific errors with: - @type: Set to "type.googleapis.com/google.rpc.ErrorInfo" - reason: The A2A error type in UPPER_SNAKE_CASE without the "Error" suffix (e.g., TASK_NOT_FOUND, TASK_NOT_CANCELABLE) - domain: Set to "a2a-protocol.org"',
};

export const ERROR_FAULTS: readonly Rewrite[] = [
  {
    name: "jsonrpc-version-wrong",
    kind: "fault",
    description: 'JSON-RPC responses (and stream events) say "jsonrpc": "1.0" instead of "2.0"',
    spec: [
      {
        version: "0.3.0",
        section: "6.11.2",
        quote: 'jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly "2.0".',
      },
      V1_JSON_RPC,
    ],
    applies: { bindings: ["json-rpc"] },
    ...bodies((j) => (isObj(j) && j.jsonrpc === "2.0" ? { ...j, jsonrpc: "1.0" } : j)),
  },
  {
    name: "rest-error-info-domain-wrong",
    kind: "fault",
    description: "1.0 HTTP+JSON errors carry their ErrorInfo with domain example.com instead of a2a-protocol.org",
    spec: [REST_ERROR_INFO],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: (r) => {
      const e = errorOf(r.body);
      if (!e || !Array.isArray(e.details) || !reasonOf(e)) return r;
      const details = e.details.map((d) => (isObj(d) && d.domain === "a2a-protocol.org" ? { ...d, domain: "example.com" } : d));
      return { ...r, body: withError(r.body as JsonObject, { ...e, details }) };
    },
  },
  {
    name: "jsonrpc-id-not-echoed",
    kind: "fault",
    description: "JSON-RPC responses (and stream events) carry another id than the request's (a string id gets a suffix, a number id + 1)",
    spec: [V03_RPC_ID, V1_JSON_RPC],
    applies: { bindings: ["json-rpc"] },
    ...bodies((j) => {
      if (!isObj(j)) return j;
      if (typeof j.id === "string") return { ...j, id: `${j.id}-other` };
      return typeof j.id === "number" ? { ...j, id: j.id + 1 } : j;
    }),
  },
  {
    name: "task-not-found-as-internal-error",
    kind: "fault",
    description: "JSON-RPC TaskNotFoundError answered with code -32603 Internal error instead of -32001",
    spec: [
      V100_5_4("| `TaskNotFoundError` | `-32001` | `NOT_FOUND` | `404 Not Found` |"),
      {
        version: "0.3.0",
        section: "8.2",
        quote:
          "| `-32001` | `TaskNotFoundError` | Task not found | The specified task `id` does not correspond to an existing or active task. It might be invalid, expired, or already completed and purged. |",
      },
    ],
    applies: { bindings: ["json-rpc"] },
    ...rpcCode(-32001, -32603),
  },
  {
    name: "rest-error-jsonrpc-code",
    kind: "fault",
    description: "1.0 HTTP+JSON A2A errors carry the JSON-RPC code in error.code (-32001 …) instead of the HTTP status",
    spec: [
      REST_ERROR_CODE,
      {
        version: "1.0.1",
        section: "5.4",
        quote:
          "All A2A-specific errors defined in [Section 3.3.2](#332-error-handling) MUST be mapped to binding-specific error representations.",
      },
    ],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: (r) => {
      const e = errorOf(r.body);
      const reason = e && reasonOf(e);
      const code = reason && JSON_RPC_CODES[reason];
      return e && code ? { ...r, body: withError(r.body as JsonObject, { ...e, code }) } : r;
    },
  },
  {
    name: "rest-error-status-200",
    kind: "fault",
    description: "HTTP+JSON errors are answered with HTTP status 200 (the error body unchanged)",
    spec: [
      REST_ERROR_CODE,
      {
        version: "0.3.0",
        section: "3.2.3",
        quote:
          "HTTP Status Codes: MUST use appropriate HTTP status codes (200, 400, 401, 403, 404, 500, etc.) that correspond to A2A error types.",
      },
    ],
    applies: { bindings: ["rest"] },
    reply: (r) => (r.status >= 400 && errorOf(r.body) ? { ...r, status: 200 } : r),
  },
  {
    name: "task-not-cancelable-wrong-code",
    kind: "fault",
    description: "JSON-RPC TaskNotCancelableError answered with -32004 (UnsupportedOperationError's code) instead of -32002",
    spec: [V100_5_4("| `TaskNotCancelableError` | `-32002` | `FAILED_PRECONDITION` | `409 Conflict` |")],
    applies: { bindings: ["json-rpc"] },
    ...rpcCode(-32002, -32004),
  },
  {
    name: "method-not-found-as-invalid-request",
    kind: "fault",
    description: "unknown JSON-RPC methods answered with -32600 Invalid Request instead of -32601",
    spec: [
      {
        version: "1.0.1",
        section: "9.5",
        quote: '| `-32601` | `MethodNotFoundError` | "Method not found" | The requested method does not exist or is not available |',
      },
    ],
    applies: { bindings: ["json-rpc"] },
    ...rpcCode(-32601, -32600),
  },
  {
    name: "error-info-missing",
    kind: "fault",
    description: "errors carry no google.rpc.ErrorInfo (JSON-RPC error.data and HTTP+JSON error.details dropped)",
    spec: [REST_ERROR_INFO],
    applies: { versions: ["1.0"] },
    reply: (r) => {
      const e = errorOf(r.body);
      if (!e || !("data" in e || "details" in e)) return r;
      const { data: _data, details: _details, ...rest } = e;
      return { ...r, body: withError(r.body as JsonObject, rest) };
    },
  },
  {
    name: "json-content-type-wrong",
    kind: "fault",
    description: "JSON replies are labelled Content-Type: text/plain (the body unchanged)",
    spec: [
      {
        version: "0.3.0",
        section: "3.2.1",
        quote: "The Content-Type header for HTTP requests and responses containing JSON-RPC payloads MUST be application/json.",
      },
      V1_JSON_RPC,
    ],
    applies: {},
    reply: (r) =>
      (r.headers["content-type"] ?? "").includes("json")
        ? { ...r, headers: { ...r.headers, "content-type": "text/plain; charset=utf-8" } }
        : r,
  },
];
