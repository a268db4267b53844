// When a stream may stay open and when it must have closed. 1.0.1 §3.1.2: a Message-only stream
// "MUST contain exactly one `Message` object and then close immediately"; a task stream "MUST
// close when the task reaches a terminal state"; §11.7 adds the interrupted states ("until the
// task reaches a terminal or interrupted state, at which point the stream closes"). In 0.3 the
// last status update carries `final: true`. A stream still open on a task that is working is legal: the
// runner cannot judge its closing, only say so (inconclusive).
//
// The readers (http.ts, grpc.ts) call closingEvent on every event as it arrives; after the first
// closing event they wait at most CLOSE_GRACE_MS more for the end of the stream.
import { isPlainObject } from "./match.js";

/** How long a stream may stay open after its closing event before the runner stops reading. */
export const CLOSE_GRACE_MS = 3_000;

export type Closing = "message" | "terminal" | "interrupted" | "error";

const TERMINAL = new Set(["completed", "failed", "canceled", "cancelled", "rejected"]);
const INTERRUPTED = new Set(["input-required", "auth-required"]);

/** A state of either version, normalised: "TASK_STATE_INPUT_REQUIRED" and "input-required" → "input-required". */
function stateName(s: unknown): string | undefined {
  return typeof s === "string"
    ? s
        .replace(/^TASK_STATE_/, "")
        .toLowerCase()
        .replace(/_/g, "-")
    : undefined;
}

function ofState(state: unknown): Closing | undefined {
  const s = stateName(state);
  return s === undefined ? undefined : TERMINAL.has(s) ? "terminal" : INTERRUPTED.has(s) ? "interrupted" : undefined;
}

/**
 * Whether a decoded stream event (JSON-RPC envelope or not; 1.0 StreamResponse or 0.3 event) ends
 * the stream: a Message, a Task or status update in a terminal or interrupted state, or a JSON-RPC
 * error response.
 */
export function closingEvent(json: unknown): Closing | undefined {
  if (!isPlainObject(json)) return undefined;
  // A JSON-RPC error answers the request: nothing can follow it.
  if (json.jsonrpc !== undefined && isPlainObject(json.error)) return "error";
  const body = isPlainObject(json.result) ? json.result : json;
  // 1.0: a StreamResponse has one member (task, message, statusUpdate, artifactUpdate).
  if (isPlainObject(body.message)) return "message";
  if (isPlainObject(body.task)) return ofState(isPlainObject(body.task.status) ? body.task.status.state : undefined);
  if (isPlainObject(body.statusUpdate))
    return ofState(isPlainObject(body.statusUpdate.status) ? body.statusUpdate.status.state : undefined);
  // 0.3: the object itself, told apart by `kind`.
  if (body.kind === "message") return "message";
  if (body.kind === "task" || body.kind === "status-update") {
    const state = ofState(isPlainObject(body.status) ? body.status.state : undefined);
    return state ?? (body.final === true ? "terminal" : undefined);
  }
  return undefined;
}

/** The last task state a stream reported (for the reason of an inconclusive verdict). */
export function lastState(events: readonly { json?: unknown }[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const j = events[i]?.json;
    if (!isPlainObject(j)) continue;
    const b = isPlainObject(j.result) ? j.result : j;
    const holder = isPlainObject(b.statusUpdate) ? b.statusUpdate : isPlainObject(b.task) ? b.task : b;
    const s = isPlainObject(holder.status) ? stateName(holder.status.state) : undefined;
    if (s) return s;
  }
  return undefined;
}
