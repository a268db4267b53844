// The rewriting proxy's table (src/compliance/rewrites.ts): each rewrite, applied to a sample of
// what an agent answers, leaves valid JSON and valid SSE and changes exactly the one thing it
// names (the JSON paths, headers or SSE lines listed here), and leaves alone what it does not
// apply to. Every quoted sentence occurs in the spec text it names.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { assert, describe, expect, it } from "vitest";
import { classify, pointCardAtProxy, serializeEvent, versionOf } from "../../src/compliance/proxy.js";
import {
  appliesTo,
  REWRITES,
  selectRewrites,
  UNKNOWN_MEMBER,
  type Exchange,
  type Json,
  type ProxyRequest,
  type Reply,
  type Rewrite,
  type SseEvent,
  type StreamHead,
} from "../../src/compliance/rewrites.js";

const SPEC_DIR = process.env.A2A_SPEC_DIR ?? join(import.meta.dirname, "..", "..", "..", "shared", "spec");

const req = (method: string, path: string, extra: Partial<ProxyRequest> = {}): ProxyRequest => ({
  method,
  path,
  query: "",
  headers: { "a2a-version": "1.0", "content-type": "application/json" },
  body: "",
  ...extra,
});
const rpc = (method: string, params: Json, headers: Record<string, string> = { "a2a-version": "1.0" }): ProxyRequest => {
  const json = { jsonrpc: "2.0", id: 1, method, params };
  return req("POST", "/", { json, body: JSON.stringify(json), headers });
};
const errorInfo = (reason: string) => ({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" });
const restError = (status: number, grpc: string, reason: string): Reply => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8" },
  body: { error: { code: status, status: grpc, message: "m", details: [errorInfo(reason)] } },
});
const task = {
  id: "t1",
  contextId: "c1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2025-01-01T00:00:00.123Z" },
  artifacts: [{ artifactId: "a1", parts: [{ text: "hi" }] }],
};
const okReply = (body: Json, ct = "application/json; charset=utf-8"): Reply => ({ status: 200, headers: { "content-type": ct }, body });
const streamEvent = (json: Json): SseEvent => ({ data: JSON.stringify(json), json });

/** What each rewrite is tried on, and exactly what it must change there. */
interface Sample {
  exchange: Exchange;
  reply?: Reply;
  event?: SseEvent;
  head?: StreamHead;
  /** Events of the same stream fed to the rewrite before `event` (not checked). */
  before?: SseEvent[];
  /** How many events `event` becomes (default 1). */
  eventsOut?: number;
  /** Changed JSON pointers ("/status", "/headers/content-type", "/body/…", "/request/…"), or SSE line prefixes. */
  changes: string[];
  /** An exchange of the same kind the rewrite must leave as it is. */
  untouched?: { exchange: Exchange; reply?: Reply; event?: SseEvent };
}

const restEx = (method: string, path: string, extra: Partial<ProxyRequest> = {}) => classify(req(method, path, extra));
const rpcEx = (method: string, params: Json = {}) => classify(rpc(method, params));
const sendStream = rpcEx("SendStreamingMessage", { message: {} });
const rpcEvent = streamEvent({ jsonrpc: "2.0", id: 1, result: { task } });
const rpc03 = (method: string, params: Json = {}) => classify(rpc(method, params, {}));
const stream03 = rpc03("message/stream", { message: {} });
const completed = { state: "TASK_STATE_COMPLETED", timestamp: "2025-01-01T00:00:01.000Z" };
const statusEvent = streamEvent({ jsonrpc: "2.0", id: 1, result: { statusUpdate: { taskId: "t1", contextId: "c1", status: completed } } });
const workingEvent = streamEvent({
  jsonrpc: "2.0",
  id: 1,
  result: { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } },
});
const statusEvent03 = streamEvent({
  jsonrpc: "2.0",
  id: 1,
  result: { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "completed" }, final: true },
});
const mini = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };
const rpcReply = (result: Json) => okReply({ jsonrpc: "2.0", id: 1, result });
const rpcError = (code: number) => okReply({ jsonrpc: "2.0", id: 1, error: { code, message: "m" } });
const card03 = classify(req("GET", "/.well-known/agent-card.json", { headers: {} }));
const card10 = classify(req("GET", "/.well-known/agent-card.json"));

const SAMPLES: Record<string, Sample> = {
  "rest-not-cancelable-409": {
    exchange: restEx("POST", "/tasks/t1:cancel"),
    reply: restError(400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    changes: ["/status", "/body/error/code"],
    untouched: { exchange: restEx("POST", "/tasks/t1:cancel"), reply: restError(404, "NOT_FOUND", "TASK_NOT_FOUND") },
  },
  "rest-unimplemented-status": {
    exchange: restEx("POST", "/message:send"),
    reply: restError(400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
    changes: ["/body/error/status"],
    untouched: { exchange: restEx("POST", "/tasks/t1:cancel"), reply: restError(400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE") },
  },
  "rest-content-type-not-supported-415": {
    exchange: restEx("POST", "/message:send"),
    reply: restError(400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"),
    changes: ["/status", "/body/error/code"],
  },
  "rest-invalid-agent-response-502": {
    exchange: restEx("POST", "/message:send"),
    reply: restError(500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
    changes: ["/status", "/body/error/code"],
    untouched: {
      exchange: classify(req("POST", "/v1/message:send", { headers: {} })),
      reply: restError(500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
    },
  },
  "subscribe-post-only": {
    exchange: restEx("GET", "/tasks/t1:subscribe"),
    changes: ["answer 405"],
    untouched: { exchange: restEx("POST", "/tasks/t1:subscribe") },
  },
  "subscribe-get-only": {
    exchange: restEx("POST", "/tasks/t1:subscribe"),
    changes: ["answer 405"],
    untouched: { exchange: restEx("GET", "/tasks/t1:subscribe") },
  },
  "jsonrpc-error-data-null": {
    exchange: rpcEx("Nope"),
    reply: okReply({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } }),
    changes: ["/body/error/data"],
    untouched: {
      exchange: rpcEx("GetTask"),
      reply: okReply({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "m", data: [errorInfo("TASK_NOT_FOUND")] } }),
    },
  },
  "jsonrpc-error-info-omitted": {
    exchange: rpcEx("GetTask"),
    reply: okReply({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "m", data: [errorInfo("TASK_NOT_FOUND")] } }),
    changes: ["/body/error/data/0/@type", "/body/error/data/0/reason", "/body/error/data/0/domain"],
  },
  "list-tasks-clamped-page-size": {
    exchange: rpcEx("ListTasks", { pageSize: 150 }),
    changes: ["/request/params/pageSize"],
    untouched: { exchange: rpcEx("ListTasks", { pageSize: 100 }) },
  },
  "microsecond-timestamps": {
    exchange: sendStream,
    event: rpcEvent,
    changes: ["/event/result/task/status/timestamp"],
  },
  "unknown-result-field": {
    exchange: rpcEx("GetTask"),
    reply: okReply({ jsonrpc: "2.0", id: 1, result: task }),
    changes: [`/body/result/${UNKNOWN_MEMBER}/added`],
    untouched: { exchange: rpcEx("GetTask"), reply: okReply({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "m" } }) },
  },
  "rest-a2a-json-content-type": {
    exchange: restEx("GET", "/tasks/t1"),
    reply: okReply(task),
    changes: ["/headers/content-type"],
    untouched: { exchange: classify(req("GET", "/v1/tasks/t1", { headers: {} })), reply: okReply(task) },
  },
  "rest-plain-json-content-type": {
    exchange: restEx("GET", "/tasks/t1"),
    reply: okReply(task, "application/a2a+json"),
    changes: ["/headers/content-type"],
  },
  "sse-crlf": { exchange: sendStream, event: rpcEvent, changes: ["eol"] },
  "sse-event-names": { exchange: sendStream, event: rpcEvent, changes: ["event: message"] },
  "sse-event-ids": { exchange: sendStream, event: rpcEvent, changes: ["id: 4"] },
  "sse-comments": { exchange: sendStream, event: rpcEvent, changes: [": keep-alive"] },
  "sse-multiline-data": { exchange: sendStream, event: rpcEvent, changes: ["data lines"] },
  "jsonrpc-version-wrong": { exchange: sendStream, event: rpcEvent, changes: ["/event/jsonrpc"] },
  "rest-error-info-domain-wrong": {
    exchange: restEx("POST", "/tasks/t1:cancel"),
    reply: restError(400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    changes: ["/body/error/details/0/domain"],
  },
  "v03-kind-missing": {
    exchange: rpc03("tasks/get", { id: "t1" }),
    reply: rpcReply({ kind: "task", id: "t1", contextId: "c1", status: { state: "completed" } }),
    changes: ["/body/result/kind"],
    untouched: { exchange: rpcEx("GetTask"), reply: rpcReply({ kind: "task", ...mini }) },
  },
  "state-lower-case": {
    exchange: rpcEx("GetTask"),
    reply: rpcReply(task),
    changes: ["/body/result/status/state"],
    untouched: { exchange: rpc03("tasks/get"), reply: rpcReply(task) },
  },
  "role-unprefixed": {
    exchange: rpcEx("GetTask"),
    reply: rpcReply({ ...mini, history: [{ messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] }] }),
    changes: ["/body/result/history/0/role"],
  },
  "snake-case-context-id": {
    exchange: rpcEx("GetTask"),
    reply: rpcReply(mini),
    changes: ["/body/result/contextId", "/body/result/context_id"],
  },
  "context-id-missing": {
    exchange: rpcEx("GetTask"),
    reply: rpcReply(task),
    changes: ["/body/result/contextId"],
  },
  "timestamp-offset": {
    exchange: sendStream,
    event: statusEvent,
    changes: ["/event/result/statusUpdate/status/timestamp"],
  },
  "history-length-ignored": {
    exchange: rpcEx("GetTask", { id: "t1", historyLength: 1 }),
    changes: ["/request/params/historyLength"],
    untouched: { exchange: rpcEx("GetTask", { id: "t1" }) },
  },
  "jsonrpc-id-not-echoed": { exchange: sendStream, event: rpcEvent, changes: ["/event/id"] },
  "task-not-found-as-internal-error": {
    exchange: rpcEx("GetTask"),
    reply: rpcError(-32001),
    changes: ["/body/error/code"],
    untouched: { exchange: rpcEx("CancelTask"), reply: rpcError(-32002) },
  },
  "rest-error-jsonrpc-code": {
    exchange: restEx("GET", "/tasks/t1"),
    reply: restError(404, "NOT_FOUND", "TASK_NOT_FOUND"),
    changes: ["/body/error/code"],
  },
  "rest-error-status-200": {
    exchange: restEx("GET", "/tasks/t1"),
    reply: restError(404, "NOT_FOUND", "TASK_NOT_FOUND"),
    changes: ["/status"],
    untouched: { exchange: restEx("GET", "/tasks/t1"), reply: okReply(task) },
  },
  "list-tasks-next-page-token-absent": {
    exchange: rpcEx("ListTasks"),
    reply: rpcReply({ tasks: [mini], nextPageToken: "", pageSize: 50, totalSize: 1 }),
    changes: ["/body/result/nextPageToken"],
    untouched: { exchange: rpcEx("ListTasks"), reply: rpcReply({ tasks: [mini], nextPageToken: "p2", pageSize: 1, totalSize: 2 }) },
  },
  "sse-content-type-wrong": {
    exchange: sendStream,
    head: { status: 200, headers: { "content-type": "text/event-stream" } },
    changes: ["/headers/content-type"],
  },
  "stream-never-closes": { exchange: sendStream, changes: ["holds the stream open"] },
  "stream-event-after-terminal": {
    exchange: sendStream,
    event: statusEvent,
    eventsOut: 2,
    changes: ["+1 event"],
    untouched: { exchange: sendStream, event: workingEvent },
  },
  "v03-final-missing": { exchange: stream03, event: statusEvent03, changes: ["/event/result/final"] },
  "v03-final-false": { exchange: stream03, event: statusEvent03, changes: ["/event/result/final"] },
  "status-timestamp-backwards": {
    exchange: sendStream,
    event: statusEvent,
    changes: ["/event/result/statusUpdate/status/timestamp"],
    untouched: { exchange: sendStream, event: workingEvent },
  },
  "stream-task-snapshots": {
    exchange: rpcEx("SendStreamingMessage", { message: {} }),
    before: [streamEvent({ jsonrpc: "2.0", id: 1, result: { task: { ...mini, status: { state: "TASK_STATE_WORKING" } } } })],
    event: statusEvent,
    changes: [
      "/event/result/statusUpdate/contextId",
      "/event/result/statusUpdate/status/state",
      "/event/result/statusUpdate/status/timestamp",
      "/event/result/statusUpdate/taskId",
      "/event/result/task/contextId",
      "/event/result/task/id",
      "/event/result/task/status/state",
      "/event/result/task/status/timestamp",
    ],
  },
  "v1-result-unwrapped": {
    exchange: rpcEx("SendMessage", { message: {} }),
    reply: rpcReply({ task: mini }),
    changes: [
      "/body/result/contextId",
      "/body/result/id",
      "/body/result/status/state",
      "/body/result/task/contextId",
      "/body/result/task/id",
      "/body/result/task/status/state",
    ],
  },
  "v03-card-protocol-version-missing": {
    exchange: card03,
    reply: okReply({ name: "agent", protocolVersion: "0.3.0", url: "http://agent/a2a" }),
    changes: ["/body/protocolVersion"],
    untouched: { exchange: card10, reply: okReply({ name: "agent", protocolVersion: "0.3.0", url: "http://agent/a2a" }) },
  },
  "card-name-missing": {
    exchange: card10,
    reply: okReply({ name: "agent", supportedInterfaces: [] }),
    changes: ["/body/name"],
    untouched: { exchange: rpcEx("GetExtendedAgentCard"), reply: rpcReply({ name: "agent" }) },
  },
  "task-not-cancelable-wrong-code": {
    exchange: rpcEx("CancelTask"),
    reply: rpcError(-32002),
    changes: ["/body/error/code"],
    untouched: { exchange: rpcEx("GetTask"), reply: rpcError(-32001) },
  },
  "method-not-found-as-invalid-request": {
    exchange: rpcEx("Nope"),
    reply: rpcError(-32601),
    changes: ["/body/error/code"],
    untouched: { exchange: rpcEx("GetTask"), reply: rpcError(-32001) },
  },
  "error-info-missing": {
    exchange: restEx("GET", "/tasks/t1"),
    reply: restError(404, "NOT_FOUND", "TASK_NOT_FOUND"),
    changes: ["/body/error/details/0/@type", "/body/error/details/0/reason", "/body/error/details/0/domain"],
    untouched: { exchange: rpcEx("GetTask"), reply: rpcReply(mini) },
  },
  "json-content-type-wrong": {
    exchange: rpcEx("GetTask"),
    reply: rpcReply(mini),
    changes: ["/headers/content-type"],
    untouched: { exchange: restEx("GET", "/tasks/t1"), reply: okReply(mini, "text/html") },
  },
  "card-supported-interfaces-missing": {
    exchange: card10,
    reply: okReply({ name: "agent", supportedInterfaces: [{ url: "http://agent/a2a" }] }),
    changes: ["/body/supportedInterfaces/0/url"],
    untouched: { exchange: card03, reply: okReply({ name: "agent", supportedInterfaces: [] }) },
  },
  "task-id-reused": {
    exchange: rpcEx("GetTask"),
    reply: rpcReply(mini),
    changes: ["/body/result/id"],
    untouched: { exchange: rpcEx("GetTask"), reply: rpcReply({ messageId: "m1", role: "ROLE_AGENT", parts: [] }) },
  },
  "v1-kind-present": {
    exchange: rpcEx("SendMessage", { message: {} }),
    reply: rpcReply({ task: { ...mini, history: [{ messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] }] } }),
    changes: ["/body/result/task/kind", "/body/result/task/history/0/kind", "/body/result/task/history/0/parts/0/kind"],
    untouched: { exchange: rpc03("message/send", { message: {} }), reply: rpcReply({ kind: "task", ...mini }) },
  },
  "v03-result-wrapped": {
    exchange: rpc03("tasks/get", { id: "t1" }),
    reply: rpcReply({ kind: "task", ...mini }),
    changes: [
      "/body/result/kind",
      "/body/result/id",
      "/body/result/contextId",
      "/body/result/status/state",
      "/body/result/task/id",
      "/body/result/task/contextId",
      "/body/result/task/status/state",
    ],
    untouched: { exchange: rpc03("tasks/get", { id: "t1" }), reply: rpcReply({ kind: "message", messageId: "m1" }) },
  },
  "stream-terminal-event-missing": {
    exchange: sendStream,
    event: statusEvent,
    eventsOut: 0,
    changes: ["event dropped"],
    untouched: { exchange: sendStream, event: workingEvent },
  },
  "stream-initial-task-missing": {
    exchange: sendStream,
    event: rpcEvent,
    eventsOut: 0,
    changes: ["event dropped"],
    untouched: { exchange: sendStream, event: statusEvent },
  },
  "v03-stream-ends-at-input-required-task": {
    exchange: stream03,
    event: streamEvent({ jsonrpc: "2.0", id: 1, result: { kind: "task", id: "t1", contextId: "c1", status: { state: "input-required" } } }),
    changes: ["ends the stream"],
    untouched: { exchange: stream03, event: statusEvent03 },
  },
  "version-unsupported-as-1.0": {
    exchange: classify(req("GET", "/tasks/t1", { headers: { "a2a-version": "2.0" } })),
    changes: ["/request/headers/a2a-version"],
    untouched: { exchange: classify(req("GET", "/tasks/t1", { headers: { "a2a-version": "1.0.1" } })) },
  },
  "patch-version-refused": {
    exchange: classify(req("GET", "/tasks/t1", { headers: { "a2a-version": "1.0.1" } })),
    changes: ["/request/headers/a2a-version"],
    untouched: { exchange: restEx("GET", "/tasks/t1") },
  },
  "missing-version-as-1.0": {
    exchange: classify(rpc("tasks/get", { id: "t1" }, { "content-type": "application/json" })),
    changes: ["/request/headers/a2a-version"],
    untouched: { exchange: classify(req("GET", "/tasks/t1", { headers: {}, query: "A2A-Version=0.3" })) },
  },
  "include-artifacts-forced": {
    exchange: rpcEx("ListTasks", {}),
    changes: ["/request/params/includeArtifacts", "/request/params"],
    untouched: { exchange: rpcEx("ListTasks", { includeArtifacts: true }) },
  },
  "return-immediately-ignored": {
    exchange: rpcEx("SendMessage", { message: {}, configuration: { returnImmediately: true } }),
    changes: ["/request/params/configuration/returnImmediately", "/request/params/configuration"],
    untouched: { exchange: rpcEx("SendMessage", { message: {} }) },
  },
  "principals-merged": {
    exchange: {
      ...classify(req("GET", "/tasks/t1", { headers: { "a2a-version": "1.0", authorization: "Bearer bob" } })),
      session: new Map([["principals-merged", "Bearer alice"]]),
    },
    changes: ["/request/headers/authorization"],
    untouched: {
      exchange: {
        ...classify(req("GET", "/tasks/t1", { headers: { "a2a-version": "1.0", authorization: "Bearer alice" } })),
        session: new Map([["principals-merged", "Bearer alice"]]),
      },
    },
  },
};

/** Every leaf of a JSON value by JSON Pointer. */
function leaves(v: unknown, at = "", out = new Map<string, unknown>()): Map<string, unknown> {
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v);
    if (!entries.length) out.set(at, Array.isArray(v) ? "[]" : "{}");
    for (const [k, x] of entries) leaves(x, `${at}/${k}`, out);
  } else out.set(at, v);
  return out;
}
function changedPaths(before: unknown, after: unknown, prefix: string): string[] {
  const a = leaves(before, prefix);
  const b = leaves(after, prefix);
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => !Object.is(a.get(k), b.get(k))).sort();
}
const replyView = (r: Reply) => ({ status: r.status, headers: r.headers, body: r.body });

/** Parses SSE text the way clients do: every event's data must be JSON. */
function parseSse(text: string): { data: string; json: unknown; event?: string; id?: string }[] {
  const out: { data: string; json: unknown; event?: string; id?: string }[] = [];
  const p = createParser({ onEvent: (m) => out.push({ data: m.data, json: JSON.parse(m.data), event: m.event, id: m.id }) });
  p.feed(text);
  return out;
}

describe("the rewrite table", () => {
  it("has at least 10 variants, unique names, and a sample here for each", () => {
    const names = REWRITES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(REWRITES.filter((r) => r.kind === "variant").length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(SAMPLES).sort()).toEqual([...names].sort());
    for (const r of REWRITES) expect(r.name, r.name).toMatch(/^[a-z0-9]+(-[a-z0-9.]+)*$/);
  });

  for (const r of REWRITES) {
    it(`${r.name}: valid JSON / SSE, and exactly what it names changes`, () => {
      const s = SAMPLES[r.name];
      assert(s, `${r.name} has a sample`);
      expect(appliesTo(r, s.exchange), "applies to its sample").toBe(true);
      const changed = apply(r, s);
      expect(changed).toEqual([...s.changes].sort());
      if (s.untouched) {
        const u = s.untouched;
        const still = !appliesTo(r, u.exchange) || apply(r, { ...u, changes: [] }).length === 0;
        expect(still, "leaves the other exchange alone").toBe(true);
      }
    });
  }

  function apply(r: Rewrite, s: Sample): string[] {
    const ex = s.exchange;
    const changes: string[] = [];
    const frozen = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
    if (r.answer) {
      const a = r.answer(ex);
      if (a) {
        expect(JSON.parse(JSON.stringify(a.body))).toEqual(a.body);
        changes.push(`answer ${a.status}`);
      }
    }
    if (r.request) {
      const before = frozen(ex.request);
      const out = r.request(ex.request, ex);
      expect(ex.request, "the input is not mutated").toEqual(before);
      if (out.json !== undefined) expect(JSON.parse(out.body)).toEqual(out.json);
      changes.push(
        ...changedPaths(
          ex.request.json ?? Object.fromEntries(new URLSearchParams(ex.request.query)),
          out.json ?? Object.fromEntries(new URLSearchParams(out.query)),
          "/request",
        ),
      );
      changes.push(...changedPaths(ex.request.headers, out.headers, "/request/headers"));
    }
    if (r.reply && s.reply) {
      const before = frozen(s.reply);
      const out = r.reply(s.reply, ex);
      expect(s.reply, "the input is not mutated").toEqual(before);
      expect(JSON.parse(JSON.stringify(out.body))).toEqual(out.body);
      changes.push(...changedPaths(replyView(s.reply), replyView(out), ""));
    }
    if (r.streamHead && s.head) {
      const before = frozen(s.head);
      const out = r.streamHead(s.head, ex);
      expect(s.head, "the input is not mutated").toEqual(before);
      changes.push(...changedPaths(s.head, out, ""));
    }
    if (r.holdOpen) changes.push("holds the stream open");
    if ((r.event || r.endsAfter) && s.event) {
      (s.before ?? []).forEach((e, i) => r.event?.(e, ex, i));
      const before = frozen(s.event);
      const out = r.event ? r.event(s.event, ex, 3) : [s.event];
      expect(s.event, "the input is not mutated").toEqual(before);
      const text = out.map(serializeEvent).join("");
      const parsed = parseSse(text);
      const original = parseSse(serializeEvent(s.event));
      expect(parsed.length, "how many events one event becomes").toBe(s.eventsOut ?? 1);
      if (r.endsAfter?.(out[out.length - 1] ?? s.event, ex)) changes.push("ends the stream");
      if (!parsed.length) {
        changes.push("event dropped");
        return changes.sort();
      }
      if (parsed.length > 1) changes.push(`+${parsed.length - 1} event`);
      const [sent] = original;
      const [first] = parsed;
      assert(sent && first);
      changes.push(...changedPaths(sent.json, first.json, "/event"));
      if (first.event !== undefined) changes.push(`event: ${first.event}`);
      if (first.id !== undefined) changes.push(`id: ${first.id}`);
      if (text.includes("\r\n")) changes.push("eol");
      if (/^:/m.test(text)) changes.push(...text.split(/\r?\n/).filter((l) => l.startsWith(":")));
      if (text.split(/\r?\n/).filter((l) => l.startsWith("data:")).length > parsed.length) changes.push("data lines");
    }
    return changes.sort();
  }

  it("selects by name and kind, refusing unknown names and the wrong kind", () => {
    expect(selectRewrites(["sse-crlf", "subscribe-post-only"]).map((r) => r.name)).toEqual(["subscribe-post-only", "sse-crlf"]);
    expect(() => selectRewrites(["no-such"])).toThrow(/unknown variant "no-such"/);
    expect(() => selectRewrites([], ["sse-crlf"])).toThrow(/"sse-crlf" is a variant: name it with --variant/);
  });

  it("every rewrite quotes its sentences verbatim from the section it names", () => {
    const norm = (s: string) =>
      s
        .replace(/\*\*|__|`/g, "")
        .replace(/\s+/g, " ")
        .trim();
    const texts = new Map<string, string>();
    const text = (v: string) => {
      if (!texts.has(v)) texts.set(v, readFileSync(join(SPEC_DIR, "text", `specification-v${v}.md`), "utf8"));
      return texts.get(v)!;
    };
    for (const r of REWRITES)
      for (const c of [...r.spec, ...(r.departsFrom ?? [])]) {
        if (c.section.startsWith("a2a.proto")) {
          const proto = readFileSync(join(SPEC_DIR, c.version.startsWith("1.") ? "v1.0" : "v0.3", "a2a.proto"), "utf8");
          expect(norm(proto.replace(/^\s*\/\/ ?/gm, "")), `${r.name}: ${c.quote}`).toContain(norm(c.quote));
          continue;
        }
        const lines = text(c.version).split("\n");
        const start = lines.findIndex((l) => new RegExp(`^(#+) ${c.section.replace(/\./g, "\\.")}\\.? `).test(l));
        expect(start, `${r.name}: section ${c.version} §${c.section}`).toBeGreaterThanOrEqual(0);
        const level = /^#+/.exec(lines[start] ?? "")![0].length;
        const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
        const section = lines.slice(start, end < 0 ? undefined : end).join("\n");
        expect(norm(section), `${r.name}: ${c.version} §${c.section}`).toContain(norm(c.quote));
      }
  });
});

describe("the proxy's reading of an exchange", () => {
  it("takes the version from A2A-Version (header, query, empty = 0.3, Major.Minor only)", () => {
    expect(versionOf({ "a2a-version": "1.0.1" }, "")).toBe("1.0");
    expect(versionOf({}, "A2A-Version=1.0")).toBe("1.0");
    expect(versionOf({}, "")).toBe("0.3");
    expect(versionOf({ "a2a-version": "9.9" }, "")).toBeUndefined();
  });

  it("names the operation of both bindings and versions", () => {
    expect(rpcEx("ListTasks").operation).toBe("ListTasks");
    expect(classify(rpc("tasks/resubscribe", {}, {})).operation).toBe("SubscribeToTask");
    expect(restEx("GET", "/tasks/t1:subscribe").operation).toBe("SubscribeToTask");
    expect(restEx("GET", "/tenant-a/tasks/t1").operation).toBe("GetTask");
    expect(restEx("DELETE", "/v1/tasks/t1/pushNotificationConfigs/p1").operation).toBe("DeleteTaskPushNotificationConfig");
    expect(restEx("GET", "/.well-known/agent-card.json").binding).toBe("card");
    // A malformed JSON-RPC request (not JSON, not an envelope) is still JSON-RPC: no REST route is POSTed to "/".
    expect(classify(req("POST", "/", { body: "{" })).binding).toBe("json-rpc");
    expect(restEx("POST", "/message:send").binding).toBe("rest");
  });

  it("points the card's interfaces under the target at the proxy, and notes the others", () => {
    const notes: string[] = [];
    const card = {
      supportedInterfaces: [
        { url: "http://agent:1/a2a", protocolBinding: "JSONRPC" },
        { url: "http://elsewhere/x", protocolBinding: "HTTP+JSON" },
      ],
      url: "http://agent:1/a2a",
    };
    expect(pointCardAtProxy(card, "http://agent:1/a2a", "http://127.0.0.1:9", (n) => notes.push(n))).toEqual({
      supportedInterfaces: [
        { url: "http://127.0.0.1:9", protocolBinding: "JSONRPC" },
        { url: "http://elsewhere/x", protocolBinding: "HTTP+JSON" },
      ],
      url: "http://127.0.0.1:9",
    });
    expect(notes).toEqual([
      "the card declares http://elsewhere/x, which is not under --target http://agent:1/a2a: clients using it bypass the proxy",
    ]);
  });
});
