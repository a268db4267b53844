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

function ofState(s: string | undefined): Closing | undefined {
  return s === undefined ? undefined : TERMINAL.has(s) ? "terminal" : INTERRUPTED.has(s) ? "interrupted" : undefined;
}

/** The event without its JSON-RPC envelope: a 1.0 StreamResponse or a 0.3 event. */
function bodyOf(json: Record<string, unknown>): Record<string, unknown> {
  return isPlainObject(json.result) ? json.result : json;
}

/** The task state an event carries: a 1.0 task or status update, or a 0.3 object with a status. */
function stateOf(body: Record<string, unknown>): string | undefined {
  const holder = isPlainObject(body.statusUpdate) ? body.statusUpdate : isPlainObject(body.task) ? body.task : body;
  return isPlainObject(holder.status) ? stateName(holder.status.state) : undefined;
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
  const body = bodyOf(json);
  // 1.0: a StreamResponse has one member (task, message, statusUpdate, artifactUpdate); 0.3: `kind`.
  if (isPlainObject(body.message) || body.kind === "message") return "message";
  if (isPlainObject(body.task) || isPlainObject(body.statusUpdate)) return ofState(stateOf(body));
  if (body.kind === "task" || body.kind === "status-update")
    return ofState(stateOf(body)) ?? (body.final === true ? "terminal" : undefined);
  return undefined;
}

/** The last task state a stream reported (for the reason of an inconclusive verdict). */
export function lastState(events: readonly { json?: unknown }[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const j = events[i]?.json;
    const s = isPlainObject(j) ? stateOf(bodyOf(j)) : undefined;
    if (s) return s;
  }
  return undefined;
}
