// The recording proxy: sits between any A2A client and any agent, relays every request and
// response unchanged (SSE streams event by event), and writes what passed through as compliance
// case files (compliance/case.schema.json) that the suite runner can replay against an agent.
//
//   const rec = await startRecorder({ target: "http://agent:8080", port: 0, outDir: "recorded/" });
//   // point the client at rec.url; each conversation is (re)written to outDir as it happens
//   await rec.close();
//
// What becomes a case: the exchanges of one conversation, in order. A request that refers to a
// task or context seen earlier (its id, taskId or contextId) joins that conversation; any other
// starts a new one. A conversation is split where the version or binding changes. Agent-card
// fetches are not recorded (the runner discovers the card itself), but the card's interface URLs
// are rewritten to the proxy so the client keeps talking through it, and they tell the recorder
// which interface each request used (case paths are relative to the interface URL).
//
// Masking volatile values: server-made ids (task ids, context ids, message ids, artifact ids,
// push-config ids, page tokens) are captured where they first appear in a response
// ({"$capture": "task1"}) and expected as "{{task1}}" afterwards, in later requests too; values
// the client made up (message ids, its own context ids) become "{{uuid:…}}" so each replay sends
// fresh ones; timestamps become {"$match": "timestamp"} (1.0) or "datetime" (0.3). Credentials are
// not written: Authorization, API keys and cookies stay out of the files.
//
// Expectations are only as strict as the spec, so the cases replay on another agent that does the
// same thing (`a2a-toolkit test <url> --cases <dir>`): see loosen() and docs/policies.md,
// "Recorded cases". `exact: true` (`record --exact`) keeps every recorded value instead.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { stringify } from "yaml";
import { isPlainObject } from "./match.js";
import { HOP_BY_HOP } from "./http.js";
import { readAbstract, type AbstractExchange } from "./record-abstract.js";
import { ABSTRACT_OPERATIONS } from "./scenarios.js";
import type { Operation } from "./projection.js";

const EXTRA = "x-a2a-toolkit";
/** The folder of <outDir> the scenarios go into: their IDs are <v1_0|v0_3>/<binding>/recorded/<NNN-operation>. */
const RECORDED_SUITE = "recorded";

export interface RecorderOptions {
  /** The agent's base URL (where its card is). */
  target: string;
  port?: number;
  host?: string;
  /** Cases directory to write into (<outDir>/<v1_0|v0_3>/<binding>/recorded/NNN-<operation>.json). */
  outDir: string;
  /** Requirement IDs written into each case (default S-03: the interface works as declared). */
  requirements?: string[];
  /**
   * Keep every recorded value (HTTP status, names, texts, error messages …) for regression runs
   * against the same agent; ids and timestamps are still captured, as they change on every run.
   * Default: expectations only as strict as the spec (see loosen()).
   */
  exact?: boolean;
  /**
   * Write each scenario for every (version, binding), so a replay runs it on each one the target
   * declares (gRPC too); 1.0 only when the conversation lists tasks (0.3 has no ListTasks). Default:
   * only the pair the client used.
   */
  allPairs?: boolean;
  onExchange?: (e: RecordedExchange) => void;
}

export interface RecordedExchange {
  version: "1.0" | "0.3";
  binding: "json-rpc" | "rest";
  operation: string;
  request: { method: string; path: string; base: "interface" | "agent"; headers: Record<string, string>; body?: unknown; rawBody?: string };
  response: {
    status: number;
    headers: Record<string, string>;
    json?: unknown;
    text?: string;
    events?: unknown[];
    closed?: boolean;
    stoppedAfter?: number;
  };
  /** The exchange as an abstract operation on the 1.0 model, or why it is none (record-abstract.ts). */
  abstract?: AbstractExchange | { problem: string };
}

export interface Recorder {
  url: string;
  /** Case files written so far. */
  files(): string[];
  close(): Promise<void>;
}

const KEPT_REQUEST_HEADERS = ["content-type", "accept", "a2a-version", "a2a-extensions", "x-a2a-extensions"];
/** What the recorder does not forward: hop-by-hop headers, and accept-encoding (it reads bodies as sent). */
const NOT_FORWARDED = new Set([...HOP_BY_HOP, "accept-encoding"]);
const CARD_PATH = "/.well-known/agent-card.json";
/** The pre-0.3 card location, still served by some agents. */
const LEGACY_CARD_PATH = "/.well-known/agent.json";
/** Members whose string values are ids a server or client makes up. */
const ID_KEYS = new Set(["taskId", "contextId", "messageId", "artifactId", "nextPageToken", "pageToken"]);
const TIMESTAMP_KEYS = new Set(["timestamp", "statusTimestampAfter"]);

interface Interface {
  url: string;
  version: "1.0" | "0.3";
  binding: "json-rpc" | "rest";
}

interface Conversation {
  index: number;
  version: "1.0" | "0.3";
  binding: "json-rpc" | "rest";
  exchanges: RecordedExchange[];
  /** Raw id values that belong to it. */
  ids: Set<string>;
  file?: string;
}

function flat(h: IncomingMessage["headers"] | Headers): Record<string, string> {
  const out: Record<string, string> = {};
  if (h instanceof Headers) h.forEach((v, k) => (out[k.toLowerCase()] = v));
  else for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Every string id in a value (for linking requests to conversations). */
function collectIds(v: unknown, out: Set<string>, parentIsTask = false): void {
  if (Array.isArray(v)) return v.forEach((x) => collectIds(x, out, parentIsTask));
  if (!isPlainObject(v)) return;
  const taskLike = "status" in v || parentIsTask;
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === "string" && x && (ID_KEYS.has(k) || (k === "id" && (taskLike || "url" in v)))) out.add(x);
    collectIds(x, out, k === "task");
  }
}

function idsInPath(path: string, known: Set<string>): string[] {
  return [...known].filter((id) => id.length >= 4 && decodeURIComponent(path).includes(id));
}

// Expectations only as strict as the spec (the default; `--exact` keeps the recorded values).
// What the text fixes stays exact: JSON-RPC envelope and id echo, error codes, task states, roles,
// `kind`, 0.3 `final`, ids (captured), the user's own message. What it leaves to the agent becomes a
// matcher of the recorded type. Each rule names its sentence; docs/policies.md has the table.

const escapeRegex = (s: string) => s.replace(/[.+*?^$()[\]{}|\\]/g, "\\$&");
const mediaType = (ct: string) => ct.split(";", 1).join("").trim().toLowerCase();

/**
 * 1.0 HTTP+JSON error statuses by ErrorInfo reason, both 1.0 tables (1.0.0 and 1.0.1 §5.4 "All
 * A2A-specific errors ... MUST be mapped to binding-specific error representations"); where the
 * two differ, either is accepted, as the built-in cases do. The gRPC status names likewise.
 */
const REST_ERROR_STATUS: Record<string, { http: number[]; status: string[] }> = {
  TASK_NOT_FOUND: { http: [404], status: ["NOT_FOUND"] },
  TASK_NOT_CANCELABLE: { http: [400, 409], status: ["FAILED_PRECONDITION"] },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { http: [400], status: ["FAILED_PRECONDITION", "UNIMPLEMENTED"] },
  UNSUPPORTED_OPERATION: { http: [400], status: ["FAILED_PRECONDITION", "UNIMPLEMENTED"] },
  CONTENT_TYPE_NOT_SUPPORTED: { http: [400, 415], status: ["INVALID_ARGUMENT"] },
  INVALID_AGENT_RESPONSE: { http: [500, 502], status: ["INTERNAL"] },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { http: [400], status: ["FAILED_PRECONDITION"] },
  EXTENSION_SUPPORT_REQUIRED: { http: [400], status: ["FAILED_PRECONDITION"] },
  VERSION_NOT_SUPPORTED: { http: [400], status: ["FAILED_PRECONDITION", "UNIMPLEMENTED"] },
};

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

/** The ErrorInfo reason of a 1.0 HTTP+JSON error body (AIP-193 or google.rpc.Status shape). */
function restErrorReason(body: unknown): string | undefined {
  const err = isPlainObject(body) && isPlainObject(body.error) ? body.error : body;
  const details = isPlainObject(err) && Array.isArray(err.details) ? err.details : [];
  const info = details.find((d) => isPlainObject(d) && d["@type"] === ERROR_INFO) as Record<string, unknown> | undefined;
  return typeof info?.reason === "string" ? info.reason : undefined;
}

const oneOrOneOf = (values: (number | string)[]) => (values.length === 1 ? values[0] : { $oneOf: values });

/**
 * Success: a stream keeps its 200 (0.3 §3.3.1 "The server responds with an HTTP 200 OK status and
 * a Content-Type header of text/event-stream"; 1.0.1 §9.4.2 "HTTP 200 with Content-Type:
 * text/event-stream"); any other success is any 2xx, as no version names the status of a
 * successful reply (the official SDK's 0.3 REST server answers message:send with 201). Errors: 1.0
 * HTTP+JSON by the §5.4 tables; 0.3 only asks for "appropriate HTTP status codes" (§3.2.3), so the
 * class is kept (4xx or 5xx).
 */
function statusExpectation(status: number, streamed: boolean, conv: Conversation, body: unknown): unknown {
  if (status >= 200 && status < 300) return streamed && status === 200 ? 200 : { $range: [200, 299] };
  if (conv.binding !== "rest" || status < 400) return status;
  if (conv.version === "1.0") {
    const known = REST_ERROR_STATUS[restErrorReason(body) ?? ""];
    return known?.http.includes(status) ? oneOrOneOf(known.http) : status;
  }
  return status < 500 ? { $range: [400, 499] } : { $range: [500, 599] };
}

/**
 * 1.0 HTTP+JSON: application/json or application/a2a+json (1.0.1 §11.1 SHOULD a2a+json; 1.0.0
 * and 0.3 name application/json). Elsewhere the recorded media type (JSON-RPC and 0.3 REST MUST
 * use application/json; streams text/event-stream).
 */
function contentTypeExpectation(ct: string, conv: Conversation): unknown {
  const type = mediaType(ct);
  if (conv.version === "1.0" && conv.binding === "rest" && (type === "application/json" || type === "application/a2a+json"))
    return { $regex: "^application/(a2a\\+)?json" };
  return { $regex: `^${escapeRegex(type)}` };
}

const isOperator = (v: unknown) => isPlainObject(v) && Object.keys(v).some((k) => k.startsWith("$"));
const optional = (m: unknown) => ({ $optional: m });
const AGENT_ROLES = new Set(["ROLE_AGENT", "agent"]);
/** Members of parts and artifacts the spec makes optional: absent on another agent is fine. */
const OPTIONAL_CONTENT = new Set(["name", "description", "filename", "mediaType", "mimeType", "metadata", "extensions"]);

/** The JSON type of a value as a matcher (null stays null, which also matches absent). */
function jsonType(v: unknown): unknown {
  if (v === null || v === undefined) return v;
  return { $match: Array.isArray(v) ? "array" : isPlainObject(v) ? "object" : typeof v };
}

/** A value the agent chose freely: kept only as its JSON type (and its `kind`, which 0.3 fixes). */
function typeOnly(v: unknown, key?: string): unknown {
  if (isOperator(v) || (typeof v === "string" && v.includes("{{"))) return v;
  let m: unknown;
  if (Array.isArray(v)) m = v.map((x) => typeOnly(x));
  else if (isPlainObject(v))
    m = Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, k === "kind" ? x : k === "data" || k === "metadata" ? jsonType(x) : typeOnly(x, k)]),
    );
  else m = jsonType(v);
  return key && OPTIONAL_CONTENT.has(key) ? optional(m) : m;
}

/**
 * Loosens a masked response (body or stream event) to what the spec fixes: the content of agent
 * messages and artifacts (the spec does not say what an agent answers), artifact names and chunking
 * (`append`, `lastChunk` are optional), metadata, error messages and details beyond ErrorInfo's
 * reason, and 0.3 HTTP+JSON error bodies (0.3 §3.2.3 only asks for "a consistent JSON format").
 */
function loosen(v: unknown, nonBlocking: boolean, opaqueError = false): unknown {
  if (opaqueError) return { $match: "object" };
  const walk = (x: unknown, k?: string): unknown => {
    if (Array.isArray(x)) return k === "artifacts" ? x.map(artifact) : x.map((y) => walk(y));
    if (!isPlainObject(x) || isOperator(x)) return x;
    const agentMessage = typeof x.role === "string" && AGENT_ROLES.has(x.role);
    const out: Record<string, unknown> = {};
    for (const [m, y] of Object.entries(x)) {
      if (agentMessage && (m === "parts" || m === "content")) out[m] = typeOnly(y);
      else if (m === "artifact") out[m] = artifact(y);
      else if (m === "metadata") out[m] = optional({ $match: "object" });
      else if ((m === "append" || m === "lastChunk") && typeof y === "boolean") out[m] = optional({ $match: "boolean" });
      else if (m === "error" && isPlainObject(y)) out[m] = error(y);
      else if (m === "status" && nonBlocking && isPlainObject(y) && typeof y.state === "string")
        out[m] = { ...(walk(y) as object), state: inProgress(y.state) };
      else out[m] = walk(y, m);
    }
    return out;
  };
  const artifact = (a: unknown): unknown =>
    isPlainObject(a) && !isOperator(a)
      ? Object.fromEntries(
          Object.entries(a).map(([m, y]) => [
            m,
            m === "artifactId" ? y : m === "parts" ? typeOnly(y) : typeOnly(y, OPTIONAL_CONTENT.has(m) ? m : undefined),
          ]),
        )
      : a;
  const error = (e: Record<string, unknown>): unknown => {
    const out: Record<string, unknown> = { ...e };
    if (typeof e.message === "string") out.message = { $match: "string" };
    if ("data" in e) out.data = optional({ $match: "any" });
    if (Array.isArray(e.details)) {
      // 1.0.1 §11.6: "implementations MUST include a google.rpc.ErrorInfo object in the details array for A2A-specific errors"
      const info = e.details.find((d) => isPlainObject(d) && d["@type"] === ERROR_INFO) as Record<string, unknown> | undefined;
      out.details = info ? { $some: { "@type": ERROR_INFO, reason: info.reason, domain: info.domain } } : { $match: "array" };
    }
    const known = typeof e.status === "string" ? REST_ERROR_STATUS[restErrorReason({ error: e }) ?? ""] : undefined;
    if (known?.status.includes(e.status as string)) out.status = oneOrOneOf(known.status);
    return out;
  };
  return walk(v);
}

/**
 * The reply to a non-blocking send: 1.0.1 §3.2.2 "The returned task will have an in-progress state
 * (e.g., TASK_STATE_WORKING, TASK_STATE_INPUT_REQUIRED)": which one depends on timing (the SDK
 * answers submitted, ours working). 0.3 says nothing more precise. Spelled as recorded.
 */
function inProgress(recorded: string): unknown {
  const names = ["SUBMITTED", "WORKING", "INPUT_REQUIRED", "AUTH_REQUIRED"];
  return {
    $oneOf: recorded.startsWith("TASK_STATE_") ? names.map((n) => `TASK_STATE_${n}`) : names.map((n) => n.toLowerCase().replace("_", "-")),
  };
}

/**
 * A send that asks not to wait: 1.0 returnImmediately, 0.3 blocking: false, and in 0.3 HTTP+JSON
 * also no `blocking` (ProtoJSON omits a false bool; the v0.3.0 proto comment reads it as "return
 * immediately", docs/policies.md L22).
 */
function isNonBlocking(body: unknown, conv: Conversation): boolean {
  const params = isPlainObject(body) && body.jsonrpc === "2.0" ? body.params : body;
  if (!isPlainObject(params) || !isPlainObject(params.message)) return false;
  const config = isPlainObject(params.configuration) ? params.configuration : {};
  if (conv.version === "0.3" && conv.binding === "rest") return config.blocking !== true;
  return config.returnImmediately === true || config.blocking === false;
}

/** The extended card operations (1.0 GetExtendedAgentCard, 0.3 agent/getAuthenticatedExtendedCard, REST). */
const CARD_OPERATION = /ExtendedAgentCard|AuthenticatedExtendedCard|extendedAgentCard|\/card$/;

/**
 * An extended card describes the agent that answered: another agent's card differs in every
 * value, so the replay checks only that it is a valid card of the version (in its envelope).
 */
function cardExpectation(v: unknown, conv: Conversation): unknown {
  const valid = { $valid: conv.version === "1.0" ? "v1_0.AgentCard" : conv.binding === "rest" ? "v0_3.rest.AgentCard" : "v0_3.AgentCard" };
  return conv.binding === "json-rpc" && isPlainObject(v) && "result" in v
    ? { ...v, result: valid }
    : isPlainObject(v) && "error" in v
      ? v
      : valid;
}

/**
 * The masking of one conversation: ids the agent made up captured at first sight and templated
 * afterwards, ids the client made up fresh per replay, timestamps as matchers (`stamp`: the
 * version's timestamp matcher). One masker per conversation, requests and responses in order.
 */
function masker(stamp: "timestamp" | "datetime") {
  const names = new Map<string, string>(); // raw value → variable name
  let counter = 0;
  const fresh = (prefix: string) => `${prefix}${++counter}`;

  /** A known id, or a string holding one (a resource name "tasks/<id>/pushNotificationConfigs/<id>"), templated. */
  const replaceKnown = (s: string): string | undefined => {
    if (names.has(s)) return `{{${names.get(s)!}}}`;
    let out = s;
    let hit = false;
    for (const [raw, n] of names) {
      // Long ids anywhere in the string; short ones (a client's "cfg-1") only as a whole path segment.
      const t = `{{${n}}}`;
      if (raw.length >= 8 && out.includes(raw)) out = out.split(raw).join(t);
      else if (raw.length < 8 && out.split("/").includes(raw))
        out = out
          .split("/")
          .map((seg) => (seg === raw ? t : seg))
          .join("/");
      else continue;
      hit = true;
    }
    return hit ? out : undefined;
  };

  /** Requests: known ids → templates; ids the client made up → fresh uuids per replay. */
  const maskRequest = (v: unknown, key?: string, parentTaskLike = false): unknown => {
    if (Array.isArray(v)) return v.map((x) => maskRequest(x, key));
    if (isPlainObject(v)) {
      const taskLike = "status" in v;
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskRequest(x, k, taskLike || parentTaskLike)]));
    }
    if (typeof v !== "string" || !v) return v;
    const known = replaceKnown(v);
    if (known !== undefined) return known;
    if (key && (ID_KEYS.has(key) || key === "id") && !TIMESTAMP_KEYS.has(key)) {
      const n = `uuid:${fresh("c")}`;
      names.set(v, n);
      return `{{${n}}}`;
    }
    return v;
  };

  /** Responses: first sight of an id → capture; later → template; timestamps → matcher. */
  const maskResponse = (v: unknown, key?: string, parentTaskLike = false): unknown => {
    if (Array.isArray(v)) return v.map((x) => maskResponse(x, key, parentTaskLike));
    if (isPlainObject(v)) {
      const taskLike = "status" in v && typeof v.id === "string";
      const configLike = "url" in v && typeof v.id === "string";
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => {
          if (k === "id" && typeof x === "string" && (taskLike || configLike)) return [k, maskResponse(x, "id:volatile")];
          return [k, maskResponse(x, k, taskLike)];
        }),
      );
    }
    if (typeof v !== "string") return v;
    if (key && TIMESTAMP_KEYS.has(key)) return { $match: stamp };
    if (!v) return v;
    const known = replaceKnown(v);
    if (known !== undefined) return known;
    if (key === "id:volatile" || (key && ID_KEYS.has(key))) {
      const n = fresh(
        key === "contextId"
          ? "context"
          : key === "messageId"
            ? "message"
            : key === "artifactId"
              ? "artifact"
              : key === "id:volatile"
                ? "task"
                : "token",
      );
      names.set(v, n);
      return { $capture: n };
    }
    return v;
  };

  const maskPath = (path: string): string => {
    let out = path;
    for (const [raw, n] of names) {
      if (raw.length < 4) continue;
      const enc = encodeURIComponent(raw);
      if (out.includes(enc)) out = out.split(enc).join(n.startsWith("uuid:") ? `{{${n}}}` : `{{url:${n}}}`);
      else if (out.includes(raw)) out = out.split(raw).join(`{{${n}}}`);
    }
    return out;
  };
  return { maskRequest, maskResponse, maskPath };
}

const titleOf = (conv: Conversation, ops: string[]) =>
  `Recorded ${conv.version} ${conv.binding === "rest" ? "HTTP+JSON" : "JSON-RPC"} conversation: ${ops.join(", ")}`;
const descriptionOf = (conv: Conversation, exact: boolean) =>
  `Recorded by a2a-toolkit record${exact ? " --exact" : ""} (${conv.exchanges.length} exchange(s)); replays the conversation with volatile values masked${exact ? " and every other value kept" : ", expecting only what the spec fixes"}.`;

/** The card capabilities the conversation used successfully: on an agent without them the case is skipped, not failed. */
function capabilitiesOf(conv: Conversation): string[] {
  const succeeded = (x: RecordedExchange) => x.response.status < 300 && !(isPlainObject(x.response.json) && "error" in x.response.json);
  return [
    ...(conv.exchanges.some((x) => x.response.events) ? ["streaming"] : []),
    ...(conv.exchanges.some((x) => succeeded(x) && /pushNotificationConfig/i.test(x.operation)) ? ["pushNotifications"] : []),
    ...(conv.exchanges.some((x) => succeeded(x) && CARD_OPERATION.test(x.operation)) ? ["extendedAgentCard"] : []),
  ];
}

/** ACTS §4.1 names by 1.0 operation. */
const ACTS_NAME = Object.fromEntries(Object.entries(ABSTRACT_OPERATIONS).map(([acts, op]) => [op, acts])) as Record<Operation, string>;

/** The abstract form of every exchange of a conversation, or undefined when one has none. */
function abstractsOf(conv: Conversation): AbstractExchange[] | undefined {
  const out: AbstractExchange[] = [];
  for (const x of conv.exchanges) {
    if (!x.abstract || "problem" in x.abstract) return undefined;
    out.push(x.abstract);
  }
  return out;
}

/**
 * Turns a conversation into a scenario (compliance/scenarios format, src/compliance/scenarios.ts):
 * each exchange the abstract operation the client called, with its 1.0 ProtoJSON params, the answer
 * as expectations on its 1.0 view (ACTS §4.2) or as the A2A error it carried (`expect_error`),
 * masked and loosened as toCase does. It applies to the (version, binding) the client chose; the
 * runner sends it through the target's own interface of that pair, so the agent's paths do not matter.
 */
export function toScenario(
  conv: Conversation,
  steps: AbstractExchange[],
  id: string,
  requirements: string[],
  exact = false,
  allPairs = false,
): Record<string, unknown> {
  const { maskRequest, maskResponse } = masker("timestamp");
  const out = steps.map((a, i) => {
    const x = conv.exchanges[i]!;
    const step: Record<string, unknown> = {
      id: `step-${i + 1}`,
      description: `${i + 1} ${ACTS_NAME[a.operation]}`,
      operation: ACTS_NAME[a.operation],
      params: maskRequest(a.params),
    };
    if ("error" in a.answer) return { ...step, expect_error: { error_type: a.answer.error } };
    const config = isPlainObject(a.params) && isPlainObject(a.params.configuration) ? a.params.configuration : {};
    const nonBlocking = config.returnImmediately === true;
    const expected = (v: unknown): unknown => {
      const m = maskResponse(v);
      if (exact) return m;
      // An extended card describes the agent that answered: any valid card.
      if (a.operation === "GetExtendedAgentCard") return { $valid: "v1_0.AgentCard" };
      return loosen(m, nonBlocking);
    };
    const status = exact ? { status: x.response.status } : {};
    if ("events" in a.answer) {
      // ACTS sees the count (§7); the events themselves are our extension, matched on their views.
      const r = x.response;
      const n = a.answer.events.length;
      return {
        ...step,
        expect_stream: r.stoppedAfter === undefined && r.closed !== false ? { min_count: n, max_count: n } : { min_count: n },
        [EXTRA]: {
          ...status,
          stream: {
            exactly: a.answer.events.map(expected),
            ...(r.stoppedAfter !== undefined ? { stopAfter: r.stoppedAfter } : r.closed === false ? { closes: false } : {}),
          },
        },
      };
    }
    let expect: Record<string, unknown>;
    if (a.operation === "DeleteTaskPushNotificationConfig" && !exact)
      // 1.0.1 §3.1.10 Outputs: "Confirmation of deletion (implementation-specific)".
      expect = {};
    else expect = { body: expected(a.answer.view) };
    return { ...step, expect, ...(exact ? { [EXTRA]: status } : {}) };
  });
  const capabilities = capabilitiesOf(conv);
  const pairs: { versions?: string[]; bindings?: string[] } = !allPairs
    ? { versions: [conv.version], bindings: [conv.binding] }
    : steps.some((a) => a.operation === "ListTasks")
      ? { versions: ["1.0"] }
      : {};
  return {
    acts_version: "1.0",
    spec_version: "1.0",
    suites: [
      {
        id: RECORDED_SUITE,
        name: "Recorded conversations",
        tests: [
          {
            id,
            name: titleOf(conv, [...new Set(steps.map((a) => ACTS_NAME[a.operation]))]),
            level: "must",
            steps: out,
            [EXTRA]: {
              description: descriptionOf(conv, exact),
              ...pairs,
              ...(capabilities.length ? { capabilities } : {}),
              agent: "any",
              requirements: Object.fromEntries((pairs.versions ?? ["1.0", "0.3"]).map((v) => [v, requirements])),
              spec: {},
            },
          },
        ],
      },
    ],
  };
}

/** Turns recorded exchanges into one case with volatile values masked and reused. */
export function toCase(conv: Conversation, requirements: string[], exact = false): Record<string, unknown> {
  const { maskRequest, maskResponse, maskPath } = masker(conv.version === "1.0" ? "timestamp" : "datetime");
  const steps = conv.exchanges.map((x, i) => {
    const request: Record<string, unknown> = {
      method: x.request.method,
      path: maskPath(x.request.path),
      ...(x.request.base === "agent" ? { base: "agent" } : {}),
      headers: x.request.headers,
    };
    if (x.request.body !== undefined) request.body = maskRequest(x.request.body);
    else if (x.request.rawBody !== undefined) request.rawBody = x.request.rawBody;
    const ct = x.response.headers["content-type"];
    const streamed = x.response.events !== undefined;
    const expect: Record<string, unknown> = {
      status: exact ? x.response.status : statusExpectation(x.response.status, streamed, conv, x.response.json),
    };
    if (ct) expect.headers = { "content-type": exact ? { $regex: `^${escapeRegex(mediaType(ct))}` } : contentTypeExpectation(ct, conv) };
    const nonBlocking = isNonBlocking(x.request.body, conv);
    const card = x.response.status < 300 && CARD_OPERATION.test(x.operation);
    const deleted = x.response.status < 300 && conv.version === "1.0" && /DeleteTaskPushNotificationConfig|^DELETE /.test(x.operation);
    const expected = (v: unknown) => {
      const m = maskResponse(v);
      if (exact) return m;
      if (card) return cardExpectation(m, conv);
      // 1.0.1 §3.1.10 Outputs: "Confirmation of deletion (implementation-specific)" (0.3 §7.8: result null, kept).
      if (deleted) return isPlainObject(m) && "result" in m ? { ...m, result: optional({ $match: "any" }) } : optional({ $match: "any" });
      return loosen(m, nonBlocking, conv.version === "0.3" && conv.binding === "rest" && x.response.status >= 400);
    };
    if (x.response.events) {
      const events = x.response.events.map(expected);
      expect.stream = {
        exactly: events,
        ...(x.response.stoppedAfter !== undefined
          ? { stopAfter: x.response.stoppedAfter }
          : x.response.closed === false
            ? { closes: false }
            : {}),
      };
    } else if (x.response.json !== undefined) expect.body = expected(x.response.json);
    return { name: `${i + 1} ${x.operation}`, request, expect };
  });
  const ops = [...new Set(conv.exchanges.map((x) => x.operation))];
  const capabilities = capabilitiesOf(conv);
  return {
    title: titleOf(conv, ops),
    description: descriptionOf(conv, exact),
    requirements,
    level: "MUST",
    version: conv.version,
    binding: conv.binding,
    ...(capabilities.length ? { capabilities } : {}),
    agent: "any",
    steps,
  };
}

function operationOf(binding: "json-rpc" | "rest", method: string, path: string, body: unknown): string {
  if (binding === "json-rpc" && isPlainObject(body) && typeof body.method === "string") return body.method;
  const [pathname = ""] = path.split("?", 1);
  const [, op = pathname] =
    /(message:send|message:stream|:cancel|:subscribe|pushNotificationConfigs|extendedAgentCard|\/card|\/tasks\/[^/]+$|\/tasks$)/.exec(
      pathname,
    ) ?? [];
  // Ids in the path are the conversation's, not the operation's name: /tasks/{id}:cancel.
  return `${method} ${op.replace(/\/tasks\/[^/:]+/, "/tasks/{id}")}`;
}

/** One exchange as it went on the wire, for a RecordingBook. */
export interface WireExchange {
  method: string;
  /** The full URL the request went to. */
  url: string;
  /** Request headers, names in lower case (only KEPT_REQUEST_HEADERS are written). */
  headers: Record<string, string>;
  body: string;
  response: { status: number; headers: Record<string, string>; text?: string; events?: unknown[]; closed?: boolean; stoppedAfter?: number };
}

export interface RecordingBook {
  /** Learns the interfaces a card (1.0 or 0.3) declares: request paths are written relative to them. */
  learnCard(card: unknown): void;
  /**
   * Before a request goes out: when it is under no interface the book knows, the book reads the
   * agent's card itself (a client that got the card elsewhere), so its path can be made relative.
   */
  ready(x: Pick<WireExchange, "method" | "url" | "headers" | "body">): Promise<void>;
  /** Records one exchange into its conversation and (re)writes that conversation's file; card fetches only teach the card. */
  add(x: WireExchange): void;
  files(): string[];
}

/**
 * The conversations of a stream of exchanges, written to `outDir` as they grow: what the recording
 * proxy (startRecorder) does with what passes through it, and what the inspector does with a
 * session's exchanges (src/inspector/).
 */
export function createRecordingBook(opts: Omit<RecorderOptions, "port" | "host">): RecordingBook {
  const targetBase = new URL(opts.target).toString().replace(/\/+$/, "");
  const requirements = opts.requirements ?? ["S-03"];
  const interfaces: Interface[] = [];
  const conversations: Conversation[] = [];
  const written: string[] = [];

  /** The declared interface a request went to: of its version and binding, else any whose URL it is under (longest first). */
  const interfaceFor = (fullUrl: string, version: "1.0" | "0.3", binding: "json-rpc" | "rest"): Interface | undefined => {
    const under = interfaces
      .filter((i) => fullUrl === i.url || fullUrl.startsWith(`${i.url}/`) || fullUrl.startsWith(`${i.url}?`))
      .sort((a, b) => b.url.length - a.url.length);
    return under.find((i) => i.version === version && i.binding === binding) ?? under[0];
  };

  // A client that got the card elsewhere (configured by hand, cached) never fetches it through the
  // proxy: the recorder then reads the card itself, once (1.0 and 0.3 readings), so paths stay
  // relative to the declared interfaces.
  let cardRead: Promise<void> | undefined;
  const readCardOnce = () =>
    (cardRead ??= (async () => {
      for (const headers of [{ "A2A-Version": "1.0" }, {}] as Record<string, string>[])
        for (const path of [CARD_PATH, LEGACY_CARD_PATH])
          try {
            const res = await fetch(targetBase + path, { headers, signal: AbortSignal.timeout(5000) });
            if (res.ok) {
              learnCard(parse(await res.text()));
              break;
            }
          } catch {
            // no card there: paths of such requests stay relative to the agent URL
          }
    })());

  const learnCard = (card: unknown) => {
    if (!isPlainObject(card)) return;
    const add = (url: unknown, version: "1.0" | "0.3", b: unknown) => {
      const binding = b === "JSONRPC" ? "json-rpc" : b === "HTTP+JSON" ? "rest" : undefined;
      if (typeof url !== "string" || !binding) return;
      const u = url.replace(/\/+$/, "");
      if (!interfaces.some((i) => i.url === u && i.version === version && i.binding === binding))
        interfaces.push({ url: u, version, binding });
    };
    if (Array.isArray(card.supportedInterfaces))
      for (const i of card.supportedInterfaces)
        if (isPlainObject(i))
          add(i.url, typeof i.protocolVersion === "string" && i.protocolVersion.startsWith("0.3") ? "0.3" : "1.0", i.protocolBinding);
    if (typeof card.url === "string") {
      add(card.url, "0.3", card.preferredTransport ?? "JSONRPC");
      if (Array.isArray(card.additionalInterfaces))
        for (const i of card.additionalInterfaces) if (isPlainObject(i)) add(i.url, "0.3", i.transport);
    }
  };

  // A conversation whose every exchange is an abstract operation is a scenario
  // (<outDir>/recorded/NNN-<operation>.yaml); one with an exchange that is none stays a case file of
  // wire steps (<outDir>/<v1_0|v0_3>/<binding>/recorded/NNN-<operation>.json). A conversation that
  // stops being one moves: its earlier file is removed.
  const save = (conv: Conversation) => {
    const steps = abstractsOf(conv);
    const first = steps?.[0] ? ACTS_NAME[steps[0].operation] : (conv.exchanges[0]?.operation ?? "conversation");
    const slug = first
      .replace(/[^A-Za-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .toLowerCase();
    const name = `${String(conv.index).padStart(3, "0")}-${slug}`;
    const dir = steps
      ? join(opts.outDir, RECORDED_SUITE)
      : join(opts.outDir, conv.version === "1.0" ? "v1_0" : "v0_3", conv.binding, "recorded");
    const file = join(dir, `${name}.${steps ? "yaml" : "json"}`);
    if (conv.file !== file) {
      if (conv.file) {
        rmSync(conv.file, { force: true });
        written.splice(written.indexOf(conv.file), 1);
      }
      mkdirSync(dir, { recursive: true });
      conv.file = file;
      written.push(file);
    }
    const exact = opts.exact === true;
    writeFileSync(
      file,
      steps
        ? stringify(toScenario(conv, steps, name, requirements, exact, opts.allPairs === true), { lineWidth: 0 })
        : JSON.stringify(toCase(conv, requirements, exact), null, 2) + "\n",
    );
  };

  const record = (x: RecordedExchange) => {
    const ids = new Set<string>();
    collectIds(x.request.body, ids);
    // A request names its task with a plain `id` (GetTask, CancelTask …): in JSON-RPC params, or the REST body.
    const b = x.request.body;
    const params = isPlainObject(b) && b.jsonrpc === "2.0" ? b.params : b;
    if (isPlainObject(params) && typeof params.id === "string" && params.id) ids.add(params.id);
    for (const id of idsInPath(x.request.path, new Set(conversations.flatMap((c) => [...c.ids])))) ids.add(id);
    let conv = [...conversations]
      .reverse()
      .find((c) => c.version === x.version && c.binding === x.binding && [...ids].some((id) => c.ids.has(id)));
    if (!conv) {
      conv = { index: conversations.length + 1, version: x.version, binding: x.binding, exchanges: [], ids: new Set() };
      conversations.push(conv);
    }
    conv.exchanges.push(x);
    for (const id of ids) conv.ids.add(id);
    const out = new Set<string>();
    collectIds(x.response.json, out);
    for (const e of x.response.events ?? []) collectIds(e, out);
    for (const id of out) conv.ids.add(id);
    save(conv);
    opts.onExchange?.(x);
  };

  /** How a request reads: its version (A2A-Version header or query), binding and JSON body. */
  const classify = (w: Pick<WireExchange, "method" | "url" | "headers" | "body">) => {
    const url = new URL(w.url);
    const version: "1.0" | "0.3" = /^1\./.test(w.headers["a2a-version"] ?? url.searchParams.get("A2A-Version") ?? "") ? "1.0" : "0.3";
    const reqJson = w.body ? parse(w.body) : undefined;
    const isRpc = w.method === "POST" && isPlainObject(reqJson) && reqJson.jsonrpc === "2.0";
    const binding: "json-rpc" | "rest" = isRpc ? "json-rpc" : "rest";
    return { url, version, reqJson, binding };
  };

  const ready = async (w: Pick<WireExchange, "method" | "url" | "headers" | "body">): Promise<void> => {
    const { url, version, binding } = classify(w);
    if (!isCardPath(url.pathname) && !interfaceFor(w.url, version, binding)) await readCardOnce();
  };

  const add = (w: WireExchange): void => {
    const fullUrl = w.url;
    const { url, version, reqJson, binding } = classify(w);
    const path = fullUrl.startsWith(targetBase) ? fullUrl.slice(targetBase.length) : url.pathname + url.search;
    const pathname = url.pathname;
    if (isCardPath(pathname)) {
      if (w.response.status < 300 && w.response.text !== undefined) learnCard(parse(w.response.text));
      return;
    }
    const headers = w.headers;
    const iface = interfaceFor(fullUrl, version, binding);
    const relPath = iface ? fullUrl.slice(iface.url.length) : path;
    const kept: Record<string, string> = {};
    for (const k of KEPT_REQUEST_HEADERS)
      if (headers[k] !== undefined) kept[k === "a2a-version" ? "A2A-Version" : k === "content-type" ? "Content-Type" : k] = headers[k];
    const { status, text, events } = w.response;
    const json = events === undefined && text ? parse(text) : undefined;
    const exchange: RecordedExchange = {
      version,
      binding,
      operation: operationOf(binding, w.method, pathname, reqJson),
      request: {
        method: w.method,
        path: relPath === "/" ? "" : relPath,
        base: iface ? "interface" : "agent",
        headers: kept,
        ...(w.body ? (reqJson !== undefined ? { body: reqJson } : { rawBody: w.body }) : {}),
      },
      response: {
        status,
        headers: w.response.headers,
        ...(events !== undefined
          ? {
              events,
              ...(w.response.stoppedAfter !== undefined ? { stoppedAfter: w.response.stoppedAfter } : { closed: w.response.closed }),
            }
          : json !== undefined
            ? { json }
            : text
              ? { text }
              : {}),
      },
    };
    exchange.abstract = iface
      ? readAbstract({
          version,
          binding,
          request: { method: w.method, url: url.pathname + url.search, headers, ...(w.body ? { body: w.body } : {}) },
          basePath: new URL(iface.url).pathname,
          response: { status, ...(events !== undefined ? { events } : json !== undefined ? { json } : { text }) },
        })
      : { problem: "the request went to no interface the card declares" };
    record(exchange);
  };

  return { learnCard, ready, add, files: () => [...written] };
}

/** An agent card's path (the current well-known path or the pre-0.3 one). */
function isCardPath(pathname: string): boolean {
  return pathname.endsWith(CARD_PATH) || pathname.endsWith(LEGACY_CARD_PATH);
}

export async function startRecorder(opts: RecorderOptions): Promise<Recorder> {
  const targetBase = new URL(opts.target).toString().replace(/\/+$/, "");
  const book = createRecordingBook(opts);
  let proxyBase = "";

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const bodyText = Buffer.concat(chunks).toString("utf8");
    const path = req.url ?? "/";
    const headers = flat(req.headers);
    const forward: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (!NOT_FORWARDED.has(k)) forward[k] = v;
    const request = { method: req.method ?? "GET", url: targetBase + path, headers, body: bodyText };
    await book.ready(request);
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    let upstream: Response;
    try {
      upstream = await fetch(targetBase + path, {
        method: req.method,
        headers: forward,
        body: req.method === "GET" || req.method === "HEAD" || !chunks.length ? undefined : bodyText,
        signal: controller.signal,
        redirect: "manual",
      });
    } catch (e) {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `a2a-toolkit record: could not reach ${targetBase}: ${(e as Error).message}` }));
      return;
    }
    const resHeaders = flat(upstream.headers);
    const outHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(resHeaders)) if (!NOT_FORWARDED.has(k) && k !== "content-encoding") outHeaders[k] = v;
    const wire = (response: Omit<WireExchange["response"], "status" | "headers">) =>
      book.add({ ...request, response: { status: upstream.status, headers: resHeaders, ...response } });

    if ((resHeaders["content-type"] ?? "").startsWith("text/event-stream")) {
      res.writeHead(upstream.status, outHeaders);
      const events: unknown[] = [];
      const parser = createParser({ onEvent: (m: EventSourceMessage) => events.push(parse(m.data) ?? m.data) });
      const reader = upstream.body!.getReader();
      const decoder = new TextDecoder();
      let closed = false;
      let clientLeft = false;
      res.on("close", () => (clientLeft = !res.writableFinished));
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            closed = true;
            break;
          }
          parser.feed(decoder.decode(value, { stream: true }));
          if (!res.write(value)) await new Promise<void>((r) => res.once("drain", r).once("close", r));
          if (clientLeft) break;
        }
      } catch {
        // the client left (abort) or the agent cut the stream
      }
      res.end();
      wire({ events, ...(clientLeft && !closed ? { stoppedAfter: Math.max(1, events.length) } : { closed }) });
      return;
    }

    let text = await upstream.text();
    if (isCardPath(path.split("?", 1).join("")) && upstream.ok) {
      wire({ text });
      // The client must keep talking through the proxy: the agent's base URL becomes the proxy's.
      text = text.split(targetBase).join(proxyBase);
    }
    res.writeHead(upstream.status, { ...outHeaders, "content-length": String(Buffer.byteLength(text)) });
    res.end(text);
    if (!isCardPath(path.split("?", 1).join(""))) wire({ text });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `a2a-toolkit record: ${(e as Error).message}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const addr = server.address() as AddressInfo;
  proxyBase = `http://${opts.host ?? "127.0.0.1"}:${addr.port}`;
  return {
    url: proxyBase,
    files: () => book.files(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
