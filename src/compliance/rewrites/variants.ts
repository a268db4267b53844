// The variants of the rewriting proxy's table: other choices the spec allows. Each quotes the
// sentences that allow it (and, in `departsFrom`, a SHOULD it does not follow); every MUST holds.
import {
  A2A_PROTO,
  bodies,
  inner,
  errorOf,
  isObj,
  mapObjects,
  PATCH,
  reasonOf,
  setQuery,
  TIMESTAMP,
  V100_5_4,
  withError,
} from "./helpers.js";
import type { Citation, Json, JsonObject, Reply, Rewrite } from "./types.js";

/** A 1.0 REST error whose ErrorInfo reason is in `reasons`, rewritten by `f` (other replies as they are). */
function onRestError(reasons: string[], f: (r: Reply, e: JsonObject) => Reply): Rewrite["reply"] {
  return (r) => {
    const e = errorOf(r.body);
    const reason = e && reasonOf(e);
    return e && reason && reasons.includes(reason) ? f(r, e) : r;
  };
}

/** A 1.0 REST error with ErrorInfo reason in `reasons` answered with another HTTP status (and error.code). */
const restErrorStatus = (reasons: string[], status: number) =>
  onRestError(reasons, (r, e) => ({ ...r, status, body: withError(r.body as JsonObject, { ...e, code: status }) }));

/** A reply whose Content-Type matches `from` relabelled `to` (its parameters kept). */
function relabel(from: RegExp, to: string): Rewrite["reply"] {
  return (r) => {
    const type = r.headers["content-type"] ?? "";
    return from.test(type) ? { ...r, headers: { ...r.headers, "content-type": type.replace(from, to) } } : r;
  };
}

const A2A_JSON: Citation = {
  version: "1.0.1",
  section: "11.1",
  quote: "Content-Type: application/a2a+json SHOULD be used for requests and responses",
};
const RPC_ERROR_INFO: Citation = {
  version: "1.0.1",
  section: "9.5",
  quote: "Implementations SHOULD use well-known types such as google.rpc.ErrorInfo to refine error reporting",
};

/** An unknown member a later revision of the protocol might add. */
export const UNKNOWN_MEMBER = "a2aToolkitFutureField";

/** The object an unknown member goes into: the Task, Message or event inside a result, else the result. */
function withUnknownMember(payload: Json): Json {
  if (!isObj(payload)) return payload;
  const added = { [UNKNOWN_MEMBER]: { added: "by a2a-toolkit proxy" } };
  const { key, obj } = inner(payload);
  return key ? { ...payload, [key]: { ...obj, ...added } } : { ...payload, ...added };
}

/** SSE is the WHATWG HTML format, whose readers accept CRLF, CR or LF line ends, `event:`, `id:` and `:` comment lines. */
const SSE_1_0: Citation = { version: "1.0.1", section: "9.1", quote: "Streaming: Server-Sent Events (text/event-stream)" };
const SSE_0_3: Citation = {
  version: "0.3.0",
  section: "3.3.1",
  quote:
    "The body of this HTTP response contains a stream of [Server-Sent Events (SSE)](https://html.spec.whatwg.org/multipage/server-sent-events.html#server-sent-events) as defined by the W3C.",
};

/** Serves `:subscribe` by one verb only: the other is answered 405 naming the allowed one. */
function subscribeOnly(allowed: "GET" | "POST"): NonNullable<Rewrite["answer"]> {
  const refused = allowed === "GET" ? "POST" : "GET";
  return (ex) =>
    ex.request.method !== refused
      ? undefined
      : {
          status: 405,
          headers: { allow: allowed, "content-type": "application/json" },
          body: {
            error: { code: 405, status: "UNIMPLEMENTED", message: `${refused} is not allowed here: subscribe with ${allowed}` },
          },
        };
}

export const VARIANTS: readonly Rewrite[] = [
  {
    name: "rest-not-cancelable-409",
    kind: "variant",
    description: "1.0 HTTP+JSON TaskNotCancelableError answered 409 Conflict (1.0.0's mapping; 1.0.1 says 400)",
    spec: [V100_5_4("| `TaskNotCancelableError` | `-32002` | `FAILED_PRECONDITION` | `409 Conflict` |"), PATCH],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: restErrorStatus(["TASK_NOT_CANCELABLE"], 409),
  },
  {
    name: "rest-unimplemented-status",
    kind: "variant",
    description:
      "1.0 HTTP+JSON UnsupportedOperation, PushNotificationNotSupported and VersionNotSupported errors carry status UNIMPLEMENTED (1.0.0; 1.0.1: FAILED_PRECONDITION)",
    spec: [
      V100_5_4("| `UnsupportedOperationError` | `-32004` | `UNIMPLEMENTED` | `400 Bad Request` |"),
      V100_5_4("| `PushNotificationNotSupportedError` | `-32003` | `UNIMPLEMENTED` | `400 Bad Request` |"),
      V100_5_4("| `VersionNotSupportedError` | `-32009` | `UNIMPLEMENTED` | `400 Bad Request` |"),
      PATCH,
    ],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: onRestError(["UNSUPPORTED_OPERATION", "PUSH_NOTIFICATION_NOT_SUPPORTED", "VERSION_NOT_SUPPORTED"], (r, e) => ({
      ...r,
      body: withError(r.body as JsonObject, { ...e, status: "UNIMPLEMENTED" }),
    })),
  },
  {
    name: "rest-content-type-not-supported-415",
    kind: "variant",
    description: "1.0 HTTP+JSON ContentTypeNotSupportedError answered 415 Unsupported Media Type (1.0.0; 1.0.1 says 400)",
    spec: [V100_5_4("| `ContentTypeNotSupportedError` | `-32005` | `INVALID_ARGUMENT` | `415 Unsupported Media Type` |"), PATCH],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: restErrorStatus(["CONTENT_TYPE_NOT_SUPPORTED"], 415),
  },
  {
    name: "rest-invalid-agent-response-502",
    kind: "variant",
    description: "1.0 HTTP+JSON InvalidAgentResponseError answered 502 Bad Gateway (1.0.0; 1.0.1 says 500)",
    spec: [V100_5_4("| `InvalidAgentResponseError` | `-32006` | `INTERNAL` | `502 Bad Gateway` |"), PATCH],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: restErrorStatus(["INVALID_AGENT_RESPONSE"], 502),
  },
  {
    name: "subscribe-post-only",
    kind: "variant",
    description: "HTTP+JSON `:subscribe` is served by POST only: GET is answered 405 Method Not Allowed (Allow: POST)",
    spec: [
      {
        version: "1.0.1",
        section: "11.3.2",
        quote: "POST /tasks/{id}:subscribe - Subscribe to task updates (SSE response, returns error for terminal tasks)",
      },
      {
        version: "1.0.1",
        section: "5.3",
        quote: "| Subscribe to task | `SubscribeToTask` | `SubscribeToTask` | `POST /tasks/{id}:subscribe` |",
      },
      { version: "0.3.0", section: "7.9", quote: "URL: /v1/tasks/{id}:subscribe - HTTP Method: POST" },
    ],
    applies: { bindings: ["rest"], operations: ["SubscribeToTask"] },
    answer: subscribeOnly("POST"),
  },
  {
    name: "subscribe-get-only",
    kind: "variant",
    description:
      "HTTP+JSON `:subscribe` is served by GET only, as the proto's HTTP annotation has it: POST is answered 405 Method Not Allowed (Allow: GET)",
    spec: [A2A_PROTO],
    applies: { bindings: ["rest"], operations: ["SubscribeToTask"] },
    answer: subscribeOnly("GET"),
  },
  {
    name: "jsonrpc-error-data-null",
    kind: "variant",
    description: 'JSON-RPC errors that carry no details say so with "data": null instead of leaving data out',
    spec: [
      {
        version: "1.0.1",
        section: "9.5",
        quote: "Error Details: Mapped to error.data (array of objects, each containing a @type key, using ProtoJSON Any representation)",
      },
      {
        version: "0.3.0",
        section: "8.2",
        quote:
          "Servers MAY define additional error codes within the -32000 to -32099 range for more specific scenarios not covered above, but they SHOULD document these clearly. The data field of the JSONRPCError object can be used to provide more structured details for any error.",
      },
    ],
    applies: { bindings: ["json-rpc"] },
    ...bodies((j) => {
      const e = errorOf(j);
      return e && !("data" in e) ? withError(j as JsonObject, { ...e, data: null }) : j;
    }),
  },
  {
    name: "jsonrpc-error-info-omitted",
    kind: "variant",
    description:
      "JSON-RPC A2A errors carry no google.rpc.ErrorInfo in data (1.0.1 makes it a SHOULD; data is left out when nothing else is in it)",
    spec: [RPC_ERROR_INFO, PATCH],
    departsFrom: [RPC_ERROR_INFO],
    applies: { bindings: ["json-rpc"] },
    ...bodies((j) => {
      const e = errorOf(j);
      if (!e || !Array.isArray(e.data)) return j;
      const data = e.data.filter((d) => !(isObj(d) && d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo"));
      if (data.length === e.data.length) return j;
      const { data: _dropped, ...rest } = e;
      return withError(j as JsonObject, data.length ? { ...rest, data } : rest);
    }),
  },
  {
    name: "list-tasks-clamped-page-size",
    kind: "variant",
    description:
      "ListTasks with pageSize above 100 is served a page of 100 instead of an error (the request is forwarded with pageSize 100)",
    spec: [
      {
        version: "1.0.1",
        section: "a2a.proto ListTasksRequest.page_size",
        quote: "The maximum number of tasks to return. The service may return fewer than this value.",
      },
    ],
    applies: { versions: ["1.0"], operations: ["ListTasks"] },
    request: (req, ex) => {
      if (ex.binding === "rest") {
        const n = Number(new URLSearchParams(req.query).get("pageSize"));
        return n > 100 ? { ...req, query: setQuery(req.query, "pageSize", "100") } : req;
      }
      const j = req.json;
      if (!isObj(j) || !isObj(j.params) || typeof j.params.pageSize !== "number" || j.params.pageSize <= 100) return req;
      const json = { ...j, params: { ...j.params, pageSize: 100 } };
      return { ...req, json, body: JSON.stringify(json) };
    },
  },
  {
    name: "microsecond-timestamps",
    kind: "variant",
    description: "timestamps written with microseconds (2025-01-01T00:00:00.123000Z): the same instant, ISO 8601, UTC, Z",
    spec: [
      {
        version: "1.0.1",
        section: "5.6.1",
        quote:
          "When serialized to JSON (in JSON-RPC, HTTP/REST, or other JSON-based bindings), these timestamps MUST be represented as ISO 8601 formatted strings in UTC timezone.",
      },
      { version: "0.3.0", section: "9.3", quote: '"timestamp":"2025-04-02T16:59:25.331844"' },
    ],
    departsFrom: [{ version: "1.0.1", section: "5.6.1", quote: "Precision: Millisecond precision SHOULD be used where available" }],
    applies: {},
    ...bodies((j) =>
      mapObjects(j, (o) => {
        const m = typeof o.timestamp === "string" ? TIMESTAMP.exec(o.timestamp) : null;
        return m ? { ...o, timestamp: `${m[1]}.${(m[2] ?? "").padEnd(3, "0")}000Z` } : o;
      }),
    ),
  },
  {
    name: "unknown-result-field",
    kind: "variant",
    description: `results carry a member no version defines (${UNKNOWN_MEMBER}): on the Task, Message or event of a result, or on the result`,
    spec: [
      {
        version: "1.0.1",
        section: "5.7",
        quote: "Implementations SHOULD ignore unrecognized fields in messages, allowing for forward compatibility as the protocol evolves.",
      },
      {
        version: "0.3.0",
        section: "3.4.3",
        quote:
          "JSON-RPC: May include additional fields in the JSON-RPC request/response objects that do not conflict with the core specification.",
      },
    ],
    applies: {},
    ...bodies((j, ex) => {
      if (ex.binding === "json-rpc") return isObj(j) && "result" in j ? { ...j, result: withUnknownMember(j.result) } : j;
      return errorOf(j) ? j : withUnknownMember(j);
    }),
  },
  {
    name: "rest-a2a-json-content-type",
    kind: "variant",
    description: "1.0 HTTP+JSON replies are labelled application/a2a+json whatever the request named",
    spec: [A2A_JSON],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: relabel(/^application\/json\b/i, "application/a2a+json"),
  },
  {
    name: "rest-plain-json-content-type",
    kind: "variant",
    description: "1.0 HTTP+JSON replies are labelled application/json (1.0.0's media type) whatever the request named",
    spec: [{ version: "1.0.0", section: "11.1", quote: "Content-Type: application/json for requests and responses" }, PATCH],
    departsFrom: [A2A_JSON],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: relabel(/^application\/a2a\+json\b/i, "application/json"),
  },
  {
    name: "sse-crlf",
    kind: "variant",
    description: "SSE lines end with CRLF instead of LF",
    spec: [SSE_1_0, SSE_0_3],
    applies: {},
    event: (e) => [{ ...e, eol: "\r\n" }],
  },
  {
    name: "sse-event-names",
    kind: "variant",
    description: "every SSE event has an `event: message` line (the type a nameless event has anyway)",
    spec: [SSE_1_0, SSE_0_3],
    applies: {},
    event: (e) => [e.event === undefined ? { ...e, event: "message" } : e],
  },
  {
    name: "sse-event-ids",
    kind: "variant",
    description: "every SSE event has an `id:` line (its position in the stream, from 1)",
    spec: [SSE_1_0, SSE_0_3],
    applies: {},
    event: (e, _ex, index) => [e.id === undefined ? { ...e, id: String(index + 1) } : e],
  },
  {
    name: "sse-comments",
    kind: "variant",
    description: "a `: keep-alive` comment line before every SSE event (so one before the first and between events)",
    spec: [SSE_1_0, SSE_0_3],
    applies: {},
    event: (e) => [{ ...e, comments: [...(e.comments ?? []), " keep-alive"] }],
  },
  {
    name: "sse-multiline-data",
    kind: "variant",
    description: "each SSE event's JSON is written indented over several `data:` lines (readers join them with a newline)",
    spec: [
      SSE_1_0,
      {
        version: "1.0.1",
        section: "11.7",
        quote: "REST streaming uses Server-Sent Events with the data field containing JSON serializations of the protocol data objects:",
      },
      SSE_0_3,
    ],
    applies: {},
    event: (e) => [e.json === undefined ? e : { ...e, data: JSON.stringify(e.json, null, 1) }],
  },
];
