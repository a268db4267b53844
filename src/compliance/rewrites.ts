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
  /** What one proxy remembers across its exchanges, for rewrites that need it (one map per proxy). */
  session?: Map<string, string>;
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
  /** Keeps an SSE stream open after the agent has ended it, until the client goes away. */
  holdOpen?: boolean;
  /** Ends an SSE stream right after this (rewritten) event, as if the agent had closed it there. */
  endsAfter?(event: SseEvent, ex: Exchange): boolean;
}

// ---- helpers over parsed JSON (all return new values) ----

/** Rebuilds `v` with `f` applied to every object, children first. */
export function mapObjects(v: Json, f: (o: JsonObject) => JsonObject): Json {
  if (Array.isArray(v)) {
    const out = v.map((x) => mapObjects(x, f));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (!isPlainObject(v)) return v;
  const entries = Object.entries(v);
  const mapped = entries.map(([k, x]) => [k, mapObjects(x, f)] as const);
  return f(mapped.some(([, x], i) => x !== entries[i]?.[1]) ? Object.fromEntries(mapped) : v);
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

/** A JSON-RPC error with code `from` answered with code `to` (replies and stream events). */
function rpcCode(from: number, to: number): Pick<Rewrite, "reply" | "event"> {
  return bodies((j) => {
    const e = errorOf(j);
    return e && e.code === from ? withError(j as JsonObject, { ...e, code: to }) : j;
  });
}

/** The agent card without one member. */
function cardWithout(member: string): Rewrite["reply"] {
  return (r) => {
    if (!isObj(r.body) || !(member in r.body)) return r;
    const { [member]: _dropped, ...card } = r.body;
    return { ...r, body: card };
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

// ---- helpers of the faults ----

/** The protocol object of a reply or event: a JSON-RPC result, else a REST body that is no error. */
function onPayload(f: (payload: JsonObject, ex: Exchange) => JsonObject): Pick<Rewrite, "reply" | "event"> {
  return bodies((j, ex) => {
    if (!isObj(j)) return j;
    if (ex.binding === "json-rpc") {
      if (!isObj(j.result)) return j;
      const result = f(j.result, ex);
      return result === j.result ? j : { ...j, result };
    }
    return errorOf(j) ? j : f(j, ex);
  });
}

const WRAPPERS = ["task", "message", "statusUpdate", "artifactUpdate"] as const;

/** The Task, Message or event a payload carries: under its 1.0 (and 0.3 HTTP+JSON) wrapper member, else the payload itself. */
function inner(payload: JsonObject): { key?: string; obj: JsonObject } {
  const key = WRAPPERS.find((k) => isObj(payload[k]));
  return key ? { key, obj: payload[key] as JsonObject } : { obj: payload };
}

/** The status update a payload carries (1.0 `statusUpdate`, 0.3 `kind: "status-update"`). */
function statusUpdateOf(payload: JsonObject): JsonObject | undefined {
  if (isObj(payload.statusUpdate)) return payload.statusUpdate;
  return payload.kind === "status-update" ? payload : undefined;
}

const TERMINAL = new Set([
  ...["COMPLETED", "FAILED", "CANCELED", "REJECTED"].map((s) => `TASK_STATE_${s}`),
  ...["completed", "failed", "canceled", "rejected"],
]);
const stateOf = (update: JsonObject): string | undefined =>
  isObj(update.status) && typeof update.status.state === "string" ? update.status.state : undefined;

/** The payload of one SSE event, for rewrites that look at a stream's events one by one. */
function eventPayload(e: SseEvent, ex: Exchange): JsonObject | undefined {
  const j = e.json;
  if (!isObj(j)) return undefined;
  if (ex.binding === "json-rpc") return isObj(j.result) ? j.result : undefined;
  return errorOf(j) ? undefined : j;
}
function withEventPayload(e: SseEvent, ex: Exchange, payload: JsonObject): SseEvent {
  const json = ex.binding === "json-rpc" ? { ...(e.json as JsonObject), result: payload } : payload;
  return { ...e, json, data: JSON.stringify(json) };
}

/** Rewrites the status update a stream event carries (`f` returns it as it is to leave the event alone). */
function onStatusUpdate(f: (update: JsonObject) => JsonObject): NonNullable<Rewrite["event"]> {
  return (e, ex) => {
    const p = eventPayload(e, ex);
    const update = p && statusUpdateOf(p);
    const changed = update && f(update);
    if (!p || !update || changed === update) return [e];
    return [withEventPayload(e, ex, update === p ? changed! : { ...p, statusUpdate: changed! })];
  };
}

/** Renames one member of every object (keeping its place among the members). */
function renameMember(from: string, to: string): (j: Json) => Json {
  return (j) => mapObjects(j, (o) => (from in o ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k === from ? to : k, v])) : o));
}

/** A Task object: the only objects with `id`, `contextId` and `status`. */
const isTask = (o: JsonObject) => typeof o.id === "string" && isObj(o.status) && "contextId" in o;

/** The same instant as a UTC timestamp, written with a +01:00 offset. */
function withOffset(ts: string): string {
  const ms = Date.parse(ts);
  if (!TIMESTAMP.test(ts) || Number.isNaN(ms)) return ts;
  return `${new Date(ms + 3_600_000).toISOString().slice(0, -1)}+01:00`;
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

const ROLES = new Set(["ROLE_USER", "ROLE_AGENT"]);

/** The task each stream has built so far (for `stream-task-snapshots`), keyed by the stream's exchange. */
const streamTasks = new WeakMap<Exchange, JsonObject>();

/** The Task after one update: the status replaced, an artifact added, appended to or replaced. */
function applyUpdate(task: JsonObject, payload: JsonObject): JsonObject {
  const status = statusUpdateOf(payload);
  if (status) return status.status === undefined ? task : { ...task, status: status.status };
  const update = isObj(payload.artifactUpdate) ? payload.artifactUpdate : payload.kind === "artifact-update" ? payload : undefined;
  if (!update || !isObj(update.artifact)) return task;
  const artifact = update.artifact;
  const list = Array.isArray(task.artifacts) ? task.artifacts : [];
  const at = list.findIndex((a) => isObj(a) && a.artifactId === artifact.artifactId);
  if (at < 0) return { ...task, artifacts: [...list, artifact] };
  const old = list[at] as JsonObject;
  const merged =
    update.append === true && Array.isArray(old.parts) && Array.isArray(artifact.parts)
      ? { ...old, parts: [...old.parts, ...artifact.parts] }
      : artifact;
  return { ...task, artifacts: list.map((a, i) => (i === at ? merged : a)) };
}

const V03_DATA: Citation = {
  version: "0.3.0",
  section: "11.1.5",
  quote: "A2A data objects: MUST use the data structures defined in [Section 6](#6-protocol-data-objects) for all protocol entities.",
};
const V1_REQUIRED: Citation = {
  version: "1.0.1",
  section: "5.7",
  quote: "Fields marked with [(google.api.field_behavior) = REQUIRED] indicate that the field MUST be present and set in valid messages.",
};
const V1_ENUMS: Citation = {
  version: "1.0.1",
  section: "5.5",
  quote:
    "Enum values MUST be represented according to the [ProtoJSON specification](https://protobuf.dev/programming-guides/json/), which serializes enums as their string names as defined in the Protocol Buffer definition (typically SCREAMING_SNAKE_CASE).",
};
const V1_STREAM_CLOSES: Citation = {
  version: "1.0.1",
  section: "3.1.2",
  quote:
    "The stream MUST close when the task reaches a terminal state (`TASK_STATE_COMPLETED`, `TASK_STATE_FAILED`, `TASK_STATE_CANCELED`, `TASK_STATE_REJECTED`).",
};
const V03_STREAM_CLOSES: Citation = {
  version: "0.3.0",
  section: "9.3",
  quote: "Server closes the SSE connection after the final:true event",
};
const V03_RPC_ID: Citation = {
  version: "0.3.0",
  section: "6.11.2",
  quote:
    "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object. If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be null.",
};
const V1_JSON_RPC: Citation = { version: "1.0.1", section: "9.1", quote: "Protocol: JSON-RPC 2.0 over HTTP(S)" };
const REST_ERROR_INFO: Citation = {
  version: "1.0.1",
  section: "11.6",
  quote:
    'implementations MUST include a google.rpc.ErrorInfo object in the details array for A2A-specific errors with: - @type: Set to "type.googleapis.com/google.rpc.ErrorInfo" - reason: The A2A error type in UPPER_SNAKE_CASE without the "Error" suffix (e.g., TASK_NOT_FOUND, TASK_NOT_CANCELABLE) - domain: Set to "a2a-protocol.org"',
};
const V1_STREAM_BEGINS: Citation = {
  version: "1.0.1",
  section: "3.1.2",
  quote:
    "If the agent returns a [Task](#411-task), the stream MUST begin with the Task object, followed by zero or more [TaskStatusUpdateEvent](#421-taskstatusupdateevent) or [TaskArtifactUpdateEvent](#422-taskartifactupdateevent) objects.",
};
const V03_STREAM: Citation = {
  version: "0.3.0",
  section: "7.2",
  quote:
    "Sends a message to an agent to initiate/continue a task AND subscribes the client to real-time updates for that task via Server-Sent Events (SSE).",
};
/** The 1.0 data objects are a2a.proto's messages, which have no `kind` member. */
const V1_KIND: Citation = {
  version: "1.0.1",
  section: "1.4",
  quote:
    "In addition to the protocol requirements defined in this document, the file spec/a2a.proto is the single authoritative normative definition of all protocol data objects and request/response messages.",
};
const VERSION_CHECK: Citation = {
  version: "1.0.1",
  section: "3.6.2",
  quote:
    "Agents MUST process requests using the semantics of the requested A2A-Version (matching Major.Minor). If the version is not supported by the interface, agents MUST return a [VersionNotSupportedError](#332-error-handling).",
};

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
            headers: {
              ...r.headers,
              "content-type": (r.headers["content-type"] ?? "").replace(/^application\/json/i, "application/a2a+json"),
            },
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
            headers: {
              ...r.headers,
              "content-type": (r.headers["content-type"] ?? "").replace(/^application\/a2a\+json/i, "application/json"),
            },
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
  {
    name: "v03-kind-missing",
    kind: "fault",
    description: "0.3 JSON-RPC results (and stream events) carry no `kind` discriminator",
    spec: [V03_DATA],
    applies: { versions: ["0.3"], bindings: ["json-rpc"] },
    ...onPayload((p) => {
      if (!("kind" in p)) return p;
      const { kind: _dropped, ...rest } = p;
      return rest;
    }),
  },
  {
    name: "state-lower-case",
    kind: "fault",
    description: "1.0 task states written in lower case (task_state_completed)",
    spec: [V1_ENUMS],
    applies: { versions: ["1.0"] },
    ...bodies((j) =>
      mapObjects(j, (o) => (typeof o.state === "string" && o.state.startsWith("TASK_STATE_") ? { ...o, state: o.state.toLowerCase() } : o)),
    ),
  },
  {
    name: "role-unprefixed",
    kind: "fault",
    description: "1.0 message roles written without their enum prefix (AGENT, USER)",
    spec: [V1_ENUMS],
    applies: { versions: ["1.0"] },
    ...bodies((j) =>
      mapObjects(j, (o) => (typeof o.role === "string" && ROLES.has(o.role) ? { ...o, role: o.role.slice("ROLE_".length) } : o)),
    ),
  },
  {
    name: "snake-case-context-id",
    kind: "fault",
    description: "results name the context id in snake_case (context_id)",
    spec: [
      {
        version: "1.0.1",
        section: "5.5",
        quote:
          "All JSON serializations of the A2A protocol data model MUST use camelCase naming for field names, not the snake_case convention used in Protocol Buffer definitions.",
      },
      V03_DATA,
    ],
    applies: {},
    ...onPayload((p) => renameMember("contextId", "context_id")(p) as JsonObject),
  },
  {
    name: "context-id-missing",
    kind: "fault",
    description: "tasks in results carry no contextId",
    spec: [V1_REQUIRED, V03_DATA],
    applies: {},
    ...onPayload(
      (p) =>
        mapObjects(p, (o) => {
          if (!isTask(o)) return o;
          const { contextId: _dropped, ...rest } = o;
          return rest;
        }) as JsonObject,
    ),
  },
  {
    name: "timestamp-offset",
    kind: "fault",
    description: "1.0 timestamps written with a +01:00 offset instead of Z (the same instant)",
    spec: [
      { version: "1.0.1", section: "5.6.1", quote: "Timestamps MUST NOT include timezone offsets other than 'Z' (all times are UTC)" },
    ],
    applies: { versions: ["1.0"] },
    ...bodies((j) =>
      mapObjects(j, (o) => {
        if (typeof o.timestamp !== "string") return o;
        const timestamp = withOffset(o.timestamp);
        return timestamp === o.timestamp ? o : { ...o, timestamp };
      }),
    ),
  },
  {
    name: "history-length-ignored",
    kind: "fault",
    description: "GetTask ignores historyLength: the request is forwarded without it, so the whole history comes back",
    spec: [
      { version: "1.0.1", section: "3.2.4", quote: "> 0: Return at most this many recent messages from the task's history" },
      V03_DATA,
    ],
    applies: { operations: ["GetTask"] },
    request: (req, ex) => {
      if (ex.binding === "rest") {
        const q = new URLSearchParams(req.query);
        if (!q.has("historyLength")) return req;
        q.delete("historyLength");
        return { ...req, query: q.toString() };
      }
      const j = req.json;
      if (!isObj(j) || !isObj(j.params) || !("historyLength" in j.params)) return req;
      const { historyLength: _dropped, ...params } = j.params;
      const json = { ...j, params };
      return { ...req, json, body: JSON.stringify(json) };
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
      { version: "1.0.1", section: "11.6", quote: "Error Code: Mapped to the HTTP status code and the error.code field" },
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
      { version: "1.0.1", section: "11.6", quote: "Error Code: Mapped to the HTTP status code and the error.code field" },
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
    name: "list-tasks-next-page-token-absent",
    kind: "fault",
    description: 'ListTasks results leave out nextPageToken on the last page (where it must be "")',
    spec: [
      {
        version: "1.0.1",
        section: "3.1.4",
        quote: "Note on nextPageToken: The nextPageToken field MUST always be present in the response.",
      },
    ],
    applies: { versions: ["1.0"], operations: ["ListTasks"] },
    ...onPayload((p) => {
      if (p.nextPageToken !== "") return p;
      const { nextPageToken: _dropped, ...rest } = p;
      return rest;
    }),
  },
  {
    name: "sse-content-type-wrong",
    kind: "fault",
    description: "SSE streams are labelled Content-Type: text/plain instead of text/event-stream (the events unchanged)",
    spec: [
      { version: "1.0.1", section: "9.4.2", quote: "Response: HTTP 200 with Content-Type: text/event-stream" },
      {
        version: "0.3.0",
        section: "3.3.1",
        quote: "The server responds with an HTTP 200 OK status and a Content-Type header of text/event-stream.",
      },
    ],
    applies: {},
    streamHead: (h) => ({ ...h, headers: { ...h.headers, "content-type": "text/plain; charset=utf-8" } }),
  },
  {
    name: "stream-never-closes",
    kind: "fault",
    description: "SSE streams stay open after the agent's last event (until the client hangs up)",
    spec: [V1_STREAM_CLOSES, V03_STREAM_CLOSES],
    applies: {},
    holdOpen: true,
  },
  {
    name: "stream-event-after-terminal",
    kind: "fault",
    description: "the terminal status event of a stream is sent twice (a status update after the terminal one)",
    spec: [
      V1_STREAM_CLOSES,
      {
        version: "1.0.1",
        section: "11.7",
        quote:
          "Streaming responses are simple, linearly ordered sequences: first a Task (or single Message), then zero or more status or artifact update events until the task reaches a terminal or interrupted state, at which point the stream closes.",
      },
      V03_STREAM_CLOSES,
    ],
    applies: {},
    event: (e, ex) => {
      const p = eventPayload(e, ex);
      const update = p && statusUpdateOf(p);
      return update && TERMINAL.has(stateOf(update) ?? "") ? [e, { ...e }] : [e];
    },
  },
  {
    name: "v03-final-missing",
    kind: "fault",
    description: "0.3 status-update events carry no `final` member",
    spec: [V03_DATA],
    applies: { versions: ["0.3"] },
    event: onStatusUpdate((u) => {
      if (!("final" in u)) return u;
      const { final: _dropped, ...rest } = u;
      return rest;
    }),
  },
  {
    name: "v03-final-false",
    kind: "fault",
    description: "0.3 terminal status-update events say `final: false`",
    spec: [V03_STREAM_CLOSES, V03_DATA],
    applies: { versions: ["0.3"] },
    event: onStatusUpdate((u) => (u.final === true ? { ...u, final: false } : u)),
  },
  {
    name: "status-timestamp-backwards",
    kind: "fault",
    description: "the terminal status update of a stream is stamped one day before the agent's timestamp",
    spec: [
      {
        version: "1.0.1",
        section: "3.5.2",
        quote: "All implementations MUST deliver events in the order they were generated.",
      },
      {
        version: "0.3.0",
        section: "7.2",
        quote:
          "Sends a message to an agent to initiate/continue a task AND subscribes the client to real-time updates for that task via Server-Sent Events (SSE).",
      },
    ],
    applies: {},
    event: onStatusUpdate((u) => {
      const status = u.status as JsonObject;
      const ms = TERMINAL.has(stateOf(u) ?? "") && typeof status.timestamp === "string" ? Date.parse(status.timestamp) : NaN;
      return Number.isNaN(ms) ? u : { ...u, status: { ...status, timestamp: new Date(ms - 86_400_000).toISOString() } };
    }),
  },
  {
    name: "stream-task-snapshots",
    kind: "fault",
    description: "streams carry a whole Task snapshot in place of each status or artifact update event",
    spec: [
      {
        version: "1.0.1",
        section: "3.1.2",
        quote:
          "If the agent returns a [Task](#411-task), the stream MUST begin with the Task object, followed by zero or more [TaskStatusUpdateEvent](#421-taskstatusupdateevent) or [TaskArtifactUpdateEvent](#422-taskartifactupdateevent) objects.",
      },
      V03_DATA,
    ],
    applies: { operations: ["SendStreamingMessage", "SubscribeToTask"] },
    event: (e, ex) => {
      const p = eventPayload(e, ex);
      if (!p) return [e];
      const { key, obj } = inner(p);
      if (key === "task" || obj.kind === "task" || (key === undefined && isTask(obj))) {
        streamTasks.set(ex, obj);
        return [e];
      }
      const task = streamTasks.get(ex);
      if (!task || key === "message" || obj.kind === "message") return [e];
      const next = applyUpdate(task, p);
      streamTasks.set(ex, next);
      return [withEventPayload(e, ex, key ? { task: next } : { ...next, kind: "task" })];
    },
  },
  {
    name: "v1-result-unwrapped",
    kind: "fault",
    description: "1.0 SendMessage results are the bare Task or Message, without the `task` / `message` member around it",
    spec: [
      {
        version: "1.0.1",
        section: "9.4.1",
        quote: '/* SendMessageResponse object, contains one of: * "task": { Task object } * "message": { Message object } */',
      },
      {
        version: "1.0.1",
        section: "1.4",
        quote:
          "In addition to the protocol requirements defined in this document, the file spec/a2a.proto is the single authoritative normative definition of all protocol data objects and request/response messages.",
      },
    ],
    applies: { versions: ["1.0"], operations: ["SendMessage"] },
    ...onPayload((p) => {
      const { key, obj } = inner(p);
      return key === "task" || key === "message" ? obj : p;
    }),
  },
  {
    name: "v03-card-protocol-version-missing",
    kind: "fault",
    description: "the 0.3 agent card (served without A2A-Version) has no protocolVersion",
    spec: [
      {
        version: "0.3.0",
        section: "11.1.1",
        quote: "Expose Agent Card: MUST provide a valid AgentCard document as defined in [Section 5](#5-agent-discovery-the-agent-card).",
      },
    ],
    applies: { versions: ["0.3"], bindings: ["card"] },
    reply: cardWithout("protocolVersion"),
  },
  {
    name: "card-name-missing",
    kind: "fault",
    description: "the agent card (either version) has no name",
    spec: [
      V1_REQUIRED,
      {
        version: "0.3.0",
        section: "11.1.1",
        quote: "Expose Agent Card: MUST provide a valid AgentCard document as defined in [Section 5](#5-agent-discovery-the-agent-card).",
      },
    ],
    applies: { bindings: ["card"] },
    reply: cardWithout("name"),
  },

  // ---- the faults that were once built into the reference server (`serve --fault`) ----
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
  {
    name: "card-supported-interfaces-missing",
    kind: "fault",
    description: "the 1.0 agent card has no supportedInterfaces",
    spec: [V1_REQUIRED],
    applies: { versions: ["1.0"], bindings: ["card"] },
    reply: cardWithout("supportedInterfaces"),
  },
  {
    name: "task-id-reused",
    kind: "fault",
    description: "every task is reported with the same id (the-one-task)",
    spec: [{ version: "1.0.1", section: "3.4.2", quote: "Agents MUST generate a unique taskId for each new task they create" }],
    applies: {},
    ...bodies((j) => mapObjects(j, (o) => (isTask(o) && o.id !== "the-one-task" ? { ...o, id: "the-one-task" } : o))),
  },
  {
    name: "v1-kind-present",
    kind: "fault",
    description: "1.0 tasks, messages and text parts keep the 0.3 `kind` member",
    spec: [V1_KIND],
    applies: { versions: ["1.0"] },
    ...onPayload(
      (p) =>
        mapObjects(p, (o) => {
          const kind = isTask(o) ? "task" : typeof o.messageId === "string" ? "message" : typeof o.text === "string" ? "text" : undefined;
          return kind && o.kind !== kind ? { ...o, kind } : o;
        }) as JsonObject,
    ),
  },
  {
    name: "v03-result-wrapped",
    kind: "fault",
    description: "0.3 JSON-RPC Task results are wrapped the 1.0 way ({task: …}) without `kind`",
    spec: [V03_DATA],
    applies: { versions: ["0.3"], bindings: ["json-rpc"] },
    ...onPayload((p) => {
      if (p.kind !== "task") return p;
      const { kind: _dropped, ...task } = p;
      return { task };
    }),
  },
  {
    name: "stream-terminal-event-missing",
    kind: "fault",
    description: "streams never carry the terminal status update (the agent's stream then ends)",
    spec: [V1_STREAM_CLOSES, V03_STREAM_CLOSES],
    applies: {},
    event: (e, ex) => {
      const p = eventPayload(e, ex);
      const update = p && statusUpdateOf(p);
      return update && TERMINAL.has(stateOf(update) ?? "") ? [] : [e];
    },
  },
  {
    name: "stream-initial-task-missing",
    kind: "fault",
    description: "task streams do not begin with the Task (its event is dropped)",
    spec: [V1_STREAM_BEGINS],
    applies: { operations: ["SendStreamingMessage", "SubscribeToTask"] },
    event: (e, ex) => {
      const p = eventPayload(e, ex);
      if (!p) return [e];
      const { key, obj } = inner(p);
      return key === "task" || obj.kind === "task" ? [] : [e];
    },
  },
  {
    name: "v03-stream-ends-at-input-required-task",
    kind: "fault",
    description: "a 0.3 stream ends after a Task in input-required, so a streaming follow-up gets only the task as it stood",
    spec: [V03_STREAM],
    applies: { versions: ["0.3"], operations: ["SendStreamingMessage", "SubscribeToTask"] },
    endsAfter: (e, ex) => {
      const p = eventPayload(e, ex);
      const task = p && inner(p).obj;
      return !!task && (task.kind === "task" || isTask(task)) && stateOf(task) === "input-required";
    },
  },
  {
    name: "version-unsupported-as-1.0",
    kind: "fault",
    description: "a request with an unsupported A2A-Version is forwarded as 1.0, so it is processed instead of refused",
    spec: [VERSION_CHECK],
    applies: {},
    request: (req, ex) => {
      if (ex.version) return req;
      const q = new URLSearchParams(req.query);
      const query = q.has("A2A-Version") ? setQuery(req.query, "A2A-Version", "1.0") : req.query;
      const headers = "a2a-version" in req.headers ? { ...req.headers, "a2a-version": "1.0" } : req.headers;
      return { ...req, headers, query };
    },
  },
  {
    name: "patch-version-refused",
    kind: "fault",
    description: "a patch version in A2A-Version (1.0.1) is forwarded as 9.9, so it is refused as unsupported",
    spec: [PATCH, VERSION_CHECK],
    applies: {},
    request: (req) =>
      /^\s*\d+\.\d+\.\d+\s*$/.test(req.headers["a2a-version"] ?? "") ? { ...req, headers: { ...req.headers, "a2a-version": "9.9" } } : req,
  },
  {
    name: "missing-version-as-1.0",
    kind: "fault",
    description: "a request without A2A-Version (header and query) is forwarded as 1.0 instead of being read as 0.3",
    spec: [{ version: "1.0.1", section: "3.6.2", quote: "Agents MUST interpret empty value as 0.3 version." }],
    applies: {},
    request: (req) =>
      (req.headers["a2a-version"] ?? "").trim() === "" && !new URLSearchParams(req.query).has("A2A-Version")
        ? { ...req, headers: { ...req.headers, "a2a-version": "1.0" } }
        : req,
  },
  {
    name: "include-artifacts-forced",
    kind: "fault",
    description: "ListTasks is forwarded with includeArtifacts: true, so artifacts come back although the client did not ask",
    spec: [
      {
        version: "1.0.1",
        section: "3.1.4",
        quote:
          "When includeArtifacts is false (the default), the artifacts field MUST be omitted entirely from each Task object in the response.",
      },
    ],
    applies: { versions: ["1.0"], operations: ["ListTasks"] },
    request: (req, ex) => {
      if (ex.binding === "rest") return { ...req, query: setQuery(req.query, "includeArtifacts", "true") };
      const j = req.json;
      if (!isObj(j) || (isObj(j.params) && j.params.includeArtifacts === true)) return req;
      const json = { ...j, params: { ...(isObj(j.params) ? j.params : {}), includeArtifacts: true } };
      return { ...req, json, body: JSON.stringify(json) };
    },
  },
  {
    name: "return-immediately-ignored",
    kind: "fault",
    description: "SendMessage is forwarded without returnImmediately (0.3: with blocking: true), so every send waits",
    spec: [
      {
        version: "1.0.1",
        section: "3.2.2",
        quote:
          "Non-Blocking (return_immediately: true): The operation MUST return immediately after creating the task, even if processing is still in progress.",
      },
    ],
    applies: { operations: ["SendMessage"] },
    request: (req) => {
      if (!isObj(req.json)) return req;
      const json = mapObjects(req.json, (o) => {
        if (o.blocking === false) return { ...o, blocking: true };
        if (o.returnImmediately !== true) return o;
        const { returnImmediately: _dropped, ...rest } = o;
        return rest;
      });
      return json === req.json ? req : { ...req, json, body: JSON.stringify(json) };
    },
  },
  {
    name: "principals-merged",
    kind: "fault",
    description: "every request is forwarded with the first Authorization the proxy saw, so tasks leak between principals",
    spec: [
      {
        version: "1.0.1",
        section: "13.1",
        quote:
          "Implementations MUST scope results to the caller's authorized access boundaries as defined by the agent's authorization model",
      },
    ],
    applies: {},
    request: (req, ex) => {
      const auth = req.headers.authorization;
      if (!auth || !ex.session) return req;
      const first = ex.session.get("principals-merged") ?? auth;
      ex.session.set("principals-merged", first);
      return first === auth ? req : { ...req, headers: { ...req.headers, authorization: first } };
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
