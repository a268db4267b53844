// Faults of SSE streams: the stream's Content-Type, where it begins and ends, its terminal and
// 0.3 `final` events, their order, and updates replaced by Task snapshots. Events are rewritten
// one at a time; what a rewrite must remember of a stream is keyed by the stream's exchange.
import { errorOf, inner, isObj, isTask, V03_DATA } from "./helpers.js";
import type { Citation, Exchange, JsonObject, Rewrite, SseEvent } from "./types.js";

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

/** The task each stream has built so far (for `stream-task-snapshots`), keyed by the stream's exchange. */
const streamTasks = new WeakMap<Exchange, JsonObject>();

/** The Task after one update: the status replaced, an artifact added, appended to or replaced. */
function applyUpdate(task: JsonObject, payload: JsonObject): JsonObject {
  const status = statusUpdateOf(payload);
  if (status) return status.status === undefined ? { ...task } : { ...task, status: status.status };
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

export const STREAM_FAULTS: readonly Rewrite[] = [
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
      V03_STREAM,
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
    spec: [V1_STREAM_BEGINS, V03_DATA],
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
];
