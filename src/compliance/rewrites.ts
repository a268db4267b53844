// The rewriting proxy's table of named rewrites (proxy.ts applies them; `a2a-toolkit proxy
// --variant <name> --fault <name>`). A rewrite changes one member, header or frame of what an
// agent answers, and leaves valid JSON and valid SSE:
//   - a variant is another choice the spec allows: its `spec` quotes the sentence that allows it
//     (and `departsFrom` the SHOULD it does not follow, if any); every MUST still holds;
//   - a fault breaks a rule: its `spec` quotes the sentence it violates.
// Each rewrite says which exchanges it applies to (version, binding, operation) and is a set of
// pure functions over the parsed exchange: the request that is forwarded, an answer given
// instead of the agent's, a whole non-streaming reply (status, headers, JSON body), the head of
// a stream, and each SSE event of a stream (one at a time: streams are never buffered).
// Functions never mutate their arguments; they return new values.
import { isPlainObject } from "./match.js";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export type ProxyVersion = "1.0" | "0.3";
export type ProxyBinding = "json-rpc" | "rest" | "card";

/** The 1.0 operation names (0.3 methods and routes are named by their 1.0 counterpart). */
export type Operation =
  | "SendMessage"
  | "SendStreamingMessage"
  | "GetTask"
  | "ListTasks"
  | "CancelTask"
  | "SubscribeToTask"
  | "CreateTaskPushNotificationConfig"
  | "GetTaskPushNotificationConfig"
  | "ListTaskPushNotificationConfigs"
  | "DeleteTaskPushNotificationConfig"
  | "GetExtendedAgentCard"
  | "AgentCard";

export interface Citation {
  version: "0.3.0" | "1.0.0" | "1.0.1";
  /** Heading number in /work/shared/spec/text/specification-v<version>.md, or a file of the spec (a2a.proto …). */
  section: string;
  quote: string;
}

/** The request as the proxy received it (and, after `request` rewrites, as it is forwarded). */
export interface ProxyRequest {
  method: string;
  /** Path below the target's base URL, without the query. */
  path: string;
  query: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The raw body text ("" when none). */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: Json;
}

/** What the proxy knows about an exchange before the agent answers. */
export interface Exchange {
  /** From A2A-Version (header, else query; empty = 0.3; Major.Minor); undefined for other versions. */
  version?: ProxyVersion;
  binding: ProxyBinding;
  operation?: Operation;
  request: ProxyRequest;
}

export interface Reply {
  status: number;
  /** Lower-case names; content-length is recomputed by the proxy. */
  headers: Record<string, string>;
  /** The body parsed as JSON (undefined: not JSON; `text` then holds it). */
  body?: Json;
  text?: string;
}

export interface StreamHead {
  status: number;
  headers: Record<string, string>;
}

/** One SSE event as read (eventsource-parser) and as it will be written. */
export interface SseEvent {
  /** The `data:` text (several data lines joined with "\n"). */
  data: string;
  /** `data` parsed as JSON, when it is JSON. */
  json?: Json;
  event?: string;
  id?: string;
  /** Comment lines written before the event's fields (without the leading ":"). */
  comments?: string[];
  /** Line ending of every line of this event (default "\n"). */
  eol?: "\n" | "\r\n" | "\r";
}

export interface Applies {
  /** Default: both versions (and exchanges whose version is neither). */
  versions?: ProxyVersion[];
  /** Default: json-rpc and rest (not the well-known card). */
  bindings?: ProxyBinding[];
  /** Default: every operation. */
  operations?: Operation[];
}

export interface Rewrite {
  name: string;
  kind: "variant" | "fault";
  /** One line for `a2a-toolkit proxy --list`. */
  description: string;
  /** Variants: the sentences that allow the choice. Faults: the sentence broken. */
  spec: Citation[];
  /** Variants that stay within every MUST but do not follow a SHOULD: that sentence. */
  departsFrom?: Citation[];
  applies: Applies;
  /** Rewrites the request before it is forwarded (e.g. a clamped pageSize). */
  request?(req: ProxyRequest, ex: Exchange): ProxyRequest;
  /** Answers in place of the agent (the request is not forwarded) when it returns a reply. */
  answer?(ex: Exchange): Reply | undefined;
  /** Rewrites a non-streaming reply. */
  reply?(reply: Reply, ex: Exchange): Reply;
  /** Rewrites the status and headers of an SSE stream. */
  streamHead?(head: StreamHead, ex: Exchange): StreamHead;
  /** Rewrites one SSE event (index: its position in the agent's stream, from 0); [] drops it. */
  event?(event: SseEvent, ex: Exchange, index: number): SseEvent[];
}

// ---- helpers over parsed JSON (all return new values) ----

/** Rebuilds `v` with `f` applied to every object, children first. */
export function mapObjects(v: Json, f: (o: JsonObject) => JsonObject): Json {
  if (Array.isArray(v)) {
    const out = v.map((x) => mapObjects(x, f));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (!isPlainObject(v)) return v;
  const entries = Object.entries(v as JsonObject);
  const mapped = entries.map(([k, x]) => [k, mapObjects(x, f)] as const);
  return f(mapped.some(([, x], i) => x !== entries[i][1]) ? Object.fromEntries(mapped) : (v as JsonObject));
}

const isObj = (v: unknown): v is JsonObject => isPlainObject(v);

/** The error object of a JSON-RPC envelope or a google.rpc.Status body ({error: …}). */
function errorOf(body: Json | undefined): JsonObject | undefined {
  return isObj(body) && isObj(body.error) ? body.error : undefined;
}

/** The ErrorInfo reason of an error (REST `details`, JSON-RPC `data`). */
function reasonOf(error: JsonObject): string | undefined {
  const list = Array.isArray(error.details) ? error.details : Array.isArray(error.data) ? error.data : [];
  const info = list.find((d) => isObj(d) && d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");
  return isObj(info) && typeof info.reason === "string" ? info.reason : undefined;
}

const withError = (body: JsonObject, error: JsonObject): JsonObject => ({ ...body, error });

/** One rewrite of every JSON body: non-streaming replies and each SSE event's JSON. */
function bodies(f: (json: Json, ex: Exchange) => Json): Pick<Rewrite, "reply" | "event"> {
  return {
    reply: (r, ex) => (r.body === undefined ? r : { ...r, body: f(r.body, ex) }),
    event: (e, ex) => {
      if (e.json === undefined) return [e];
      const json = f(e.json, ex);
      return [json === e.json ? e : { ...e, json, data: JSON.stringify(json) }];
    },
  };
}

/** A 1.0 REST error with ErrorInfo reason in `reasons` answered with another HTTP status (and error.code). */
function restErrorStatus(reasons: string[], status: number): Rewrite["reply"] {
  return (r) => {
    const e = errorOf(r.body);
    const reason = e && reasonOf(e);
    if (!e || !reason || !reasons.includes(reason)) return r;
    return { ...r, status, body: withError(r.body as JsonObject, { ...e, code: status }) };
  };
}

function setQuery(query: string, name: string, value: string): string {
  const q = new URLSearchParams(query);
  q.set(name, value);
  return q.toString();
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,3}))?Z$/;

/** An unknown member a later revision of the protocol might add. */
export const UNKNOWN_MEMBER = "a2aToolkitFutureField";

/** The object an unknown member goes into: the Task, Message or event inside a result, else the result. */
function withUnknownMember(payload: Json): Json {
  if (!isObj(payload)) return payload;
  for (const k of ["task", "message", "statusUpdate", "artifactUpdate"])
    if (isObj(payload[k])) return { ...payload, [k]: { ...payload[k], [UNKNOWN_MEMBER]: { added: "by a2a-toolkit proxy" } } };
  return { ...payload, [UNKNOWN_MEMBER]: { added: "by a2a-toolkit proxy" } };
}

const V100_5_4 = (row: string): Citation => ({ version: "1.0.0", section: "5.4", quote: row });
const PATCH: Citation = {
  version: "1.0.1",
  section: "3.6",
  quote: "Patch version numbers used by the specification, do not affect protocol compatibility.",
};

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

export const REWRITES: readonly Rewrite[] = [
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
    reply: (r) => {
      const e = errorOf(r.body);
      const reason = e && reasonOf(e);
      if (!e || !reason || !["UNSUPPORTED_OPERATION", "PUSH_NOTIFICATION_NOT_SUPPORTED", "VERSION_NOT_SUPPORTED"].includes(reason))
        return r;
      return { ...r, body: withError(r.body as JsonObject, { ...e, status: "UNIMPLEMENTED" }) };
    },
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
    spec: [
      {
        version: "1.0.1",
        section: "1.4",
        quote:
          "In addition to the protocol requirements defined in this document, the file spec/a2a.proto is the single authoritative normative definition of all protocol data objects and request/response messages.",
      },
    ],
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
    spec: [
      {
        version: "1.0.1",
        section: "9.5",
        quote: "Implementations SHOULD use well-known types such as google.rpc.ErrorInfo to refine error reporting",
      },
      PATCH,
    ],
    departsFrom: [
      {
        version: "1.0.1",
        section: "9.5",
        quote: "Implementations SHOULD use well-known types such as google.rpc.ErrorInfo to refine error reporting",
      },
    ],
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
    spec: [{ version: "1.0.1", section: "11.1", quote: "Content-Type: application/a2a+json SHOULD be used for requests and responses" }],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: (r) =>
      /^application\/json\b/i.test(r.headers["content-type"] ?? "")
        ? {
            ...r,
            headers: { ...r.headers, "content-type": r.headers["content-type"].replace(/^application\/json/i, "application/a2a+json") },
          }
        : r,
  },
  {
    name: "rest-plain-json-content-type",
    kind: "variant",
    description: "1.0 HTTP+JSON replies are labelled application/json (1.0.0's media type) whatever the request named",
    spec: [{ version: "1.0.0", section: "11.1", quote: "Content-Type: application/json for requests and responses" }, PATCH],
    departsFrom: [
      { version: "1.0.1", section: "11.1", quote: "Content-Type: application/a2a+json SHOULD be used for requests and responses" },
    ],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: (r) =>
      /^application\/a2a\+json\b/i.test(r.headers["content-type"] ?? "")
        ? {
            ...r,
            headers: { ...r.headers, "content-type": r.headers["content-type"].replace(/^application\/a2a\+json/i, "application/json") },
          }
        : r,
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
      { version: "1.0.1", section: "9.1", quote: "Protocol: JSON-RPC 2.0 over HTTP(S)" },
    ],
    applies: { bindings: ["json-rpc"] },
    ...bodies((j) => (isObj(j) && j.jsonrpc === "2.0" ? { ...j, jsonrpc: "1.0" } : j)),
  },
  {
    name: "rest-error-info-domain-wrong",
    kind: "fault",
    description: "1.0 HTTP+JSON errors carry their ErrorInfo with domain example.com instead of a2a-protocol.org",
    spec: [
      {
        version: "1.0.1",
        section: "11.6",
        quote:
          'implementations MUST include a google.rpc.ErrorInfo object in the details array for A2A-specific errors with: - @type: Set to "type.googleapis.com/google.rpc.ErrorInfo" - reason: The A2A error type in UPPER_SNAKE_CASE without the "Error" suffix (e.g., TASK_NOT_FOUND, TASK_NOT_CANCELABLE) - domain: Set to "a2a-protocol.org"',
      },
    ],
    applies: { versions: ["1.0"], bindings: ["rest"] },
    reply: (r) => {
      const e = errorOf(r.body);
      if (!e || !Array.isArray(e.details) || !reasonOf(e)) return r;
      const details = e.details.map((d) => (isObj(d) && d.domain === "a2a-protocol.org" ? { ...d, domain: "example.com" } : d));
      return { ...r, body: withError(r.body as JsonObject, { ...e, details }) };
    },
  },
];

/** The rewrites named, in table order; an unknown name or a name of the other kind throws. */
export function selectRewrites(variants: string[] = [], faults: string[] = []): Rewrite[] {
  const want = new Map<string, "variant" | "fault">();
  for (const [names, kind] of [
    [variants, "variant"],
    [faults, "fault"],
  ] as const)
    for (const n of names) {
      const r = REWRITES.find((x) => x.name === n);
      if (!r) throw new Error(`unknown ${kind} "${n}" (a2a-toolkit proxy --list names them)`);
      if (r.kind !== kind) throw new Error(`"${n}" is a ${r.kind}: name it with --${r.kind}`);
      want.set(n, kind);
    }
  return REWRITES.filter((r) => want.has(r.name));
}

export function appliesTo(r: Rewrite, ex: Exchange): boolean {
  const a = r.applies;
  if (a.versions && (!ex.version || !a.versions.includes(ex.version))) return false;
  if (!(a.bindings ?? ["json-rpc", "rest"]).includes(ex.binding)) return false;
  return !a.operations || (ex.operation !== undefined && a.operations.includes(ex.operation));
}
