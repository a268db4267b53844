// waitForTask: until a task reaches a wanted state, by subscription when the card allows it,
// else by polling GetTask with exponential backoff.
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError } from "../versioning/errors.js";
import { INTERRUPTED_STATES, TERMINAL_STATES } from "../versioning/stream.js";
import type { A2AClient } from "./client.js";
import { A2ATransportError } from "./errors.js";
import { sleep } from "../runtime/sleep.js";

export interface WaitOptions {
  /** States to wait for, or a predicate over the task (default: terminal or interrupted). */
  until?: readonly v1_0.TaskState[] | ((task: v1_0.Task) => boolean);
  signal?: AbortSignal;
  /** "auto" (default): subscribe if the card declares streaming, else poll. */
  mode?: "auto" | "poll" | "subscribe";
  /** First poll interval (default 250 ms), multiplied by 1.5 up to `maxIntervalMs` (default 5 000 ms). */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Per-request timeout (default: the client's). */
  timeoutMs?: number;
  /** Called with every task snapshot seen while waiting. */
  onUpdate?: (task: v1_0.Task) => void;
}

/** Where waiting ends by default: a terminal or interrupted state. */
const DONE = [...TERMINAL_STATES, ...INTERRUPTED_STATES];

function predicate(until: WaitOptions["until"]): (t: v1_0.Task) => boolean {
  if (typeof until === "function") return until;
  const states = new Set(until ?? DONE);
  return (t) => t.status !== undefined && states.has(t.status.state);
}

const delay = (ms: number, signal?: AbortSignal): Promise<void> =>
  sleep(ms, signal, (cause) => new A2ATransportError("aborted", "waitForTask was aborted", { cause }));

export async function waitForTask(client: A2AClient, id: string, opts: WaitOptions = {}): Promise<v1_0.Task> {
  const done = predicate(opts.until);
  const call = { signal: opts.signal, timeoutMs: opts.timeoutMs };
  let task = await client.getTask({ id }, call);
  opts.onUpdate?.(task);
  if (done(task)) return task;
  const mode = opts.mode ?? "auto";
  if (mode === "subscribe" || (mode === "auto" && client.canStream)) {
    try {
      for await (const ev of client.subscribeToTask({ id }, call)) {
        if (ev.payload.case === "task") task = ev.payload.value;
        else if (ev.payload.case === "statusUpdate" && ev.payload.value.status) task = { ...task, status: ev.payload.value.status };
        else if (ev.payload.case === "artifactUpdate") continue;
        else continue;
        opts.onUpdate?.(task);
        if (done(task)) return ev.payload.case === "task" ? task : await client.getTask({ id }, call);
      }
    } catch (e) {
      // A task that ended before the subscription (1.0 answers UnsupportedOperation): read it.
      if (!(e instanceof A2AError && e.type === "UnsupportedOperationError")) throw e;
    }
    task = await client.getTask({ id }, call);
    opts.onUpdate?.(task);
    if (done(task) || mode === "subscribe") return task;
  }
  let interval = opts.intervalMs ?? 250;
  for (;;) {
    await delay(interval, opts.signal);
    interval = Math.min(interval * 1.5, opts.maxIntervalMs ?? 5_000);
    task = await client.getTask({ id }, call);
    opts.onUpdate?.(task);
    if (done(task)) return task;
  }
}
