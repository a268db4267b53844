// A stream that survives dropped connections (A2A 1.0 §3.1.6, §3.5.2; a2a-wire.md C-17).
//
// When a stream ends before its task is terminal or interrupted (the connection breaks, or the
// server closes early), the client re-reads the task with GetTask, yields that snapshot (the
// authoritative state), and, unless it is already final, subscribes to the task again. Attempts
// are bounded. A terminal event is yielded at most once and ends the stream.
import { create } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError } from "../versioning/errors.js";
import { isInterrupted, isTerminal } from "../versioning/stream.js";
import type { A2AClient, CallOptions } from "./client.js";
import { A2ATransportError } from "./errors.js";
import type { WireEvent } from "./wire.js";
import { sleep as wait } from "../runtime/sleep.js";

export interface ResubscribePolicy {
  /** Resubscriptions after drops before giving up (default 3). */
  maxAttempts?: number;
  /** First delay before resubscribing, doubled each attempt (default 200 ms). */
  backoffMs?: number;
  /** Upper bound of the delay (default 5 000 ms). */
  maxBackoffMs?: number;
  /** Called before each resubscription, with the attempt number and what ended the stream. */
  onResubscribe?: (info: { attempt: number; taskId: string; cause?: unknown }) => void;
}

/** The task id and state an event carries, if any. */
export function eventState(ev: v1_0.StreamResponse): { taskId?: string; state?: v1_0.TaskState } {
  switch (ev.payload.case) {
    case "task":
      return { taskId: ev.payload.value.id, state: ev.payload.value.status?.state };
    case "statusUpdate":
      return { taskId: ev.payload.value.taskId, state: ev.payload.value.status?.state };
    case "artifactUpdate":
      return { taskId: ev.payload.value.taskId };
    default:
      return {};
  }
}

/** Errors after which resubscribing makes sense: the connection broke, not the protocol. */
function isDrop(e: unknown): boolean {
  return e instanceof A2ATransportError && (e.kind === "network" || e.kind === "bad-response");
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  wait(ms, signal, (cause) => new A2ATransportError("aborted", "aborted while waiting to resubscribe", { cause }));

export async function* resilientStream(
  client: A2AClient,
  first: () => AsyncGenerator<WireEvent>,
  opts: CallOptions,
  policy: ResubscribePolicy | false,
  knownTaskId?: string,
): AsyncGenerator<v1_0.StreamResponse> {
  let taskId = knownTaskId;
  let state: v1_0.TaskState | undefined;
  let terminalYielded = false;
  let attempts = 0;
  let source = first();
  /** After a re-read: skip a leading Task snapshot of the new subscription that says the same. */
  let skipSnapshotState: v1_0.TaskState | undefined;

  for (;;) {
    let cause: unknown;
    let ended = false; // a 0.3 `final` event or a Message ended the exchange
    try {
      for await (const item of source) {
        const ev = (item as { event: v1_0.StreamResponse }).event;
        if (ev.payload.case === "message") {
          yield ev;
          // A message-only exchange is complete; a Message inside a task stream is informational.
          if (!taskId) ended = true;
          if (ended) break;
          continue;
        }
        const info = eventState(ev);
        if (info.taskId) taskId = info.taskId;
        if (skipSnapshotState !== undefined) {
          const same = ev.payload.case === "task" && info.state === skipSnapshotState;
          skipSnapshotState = undefined;
          if (same) continue;
        }
        if (info.state !== undefined) state = info.state;
        if (isTerminal(state)) {
          if (!terminalYielded) {
            terminalYielded = true;
            yield ev;
          }
          return;
        }
        yield ev;
        if ((item as { end?: boolean }).end) ended = true;
      }
    } catch (e) {
      if (!isDrop(e) || policy === false || !taskId) throw e;
      cause = e;
    }
    if (ended || terminalYielded) return;
    if (isInterrupted(state) && cause === undefined) return;
    if (!taskId) return;
    if (policy === false) {
      if (cause instanceof Error) throw cause; // set only to a dropped connection's A2ATransportError
      return;
    }
    const max = policy.maxAttempts ?? 3;
    if (attempts >= max)
      throw new A2ATransportError("network", `stream of task ${taskId} dropped; gave up after ${max} resubscription(s)`, {
        url: client.target.url,
        cause,
      });
    attempts++;
    policy.onResubscribe?.({ attempt: attempts, taskId, cause });
    await sleep(Math.min((policy.backoffMs ?? 200) * 2 ** (attempts - 1), policy.maxBackoffMs ?? 5_000), opts.signal);

    // Re-read the task: its state is authoritative, and it may have finished meanwhile.
    let task: v1_0.Task;
    try {
      task = await client.getTask({ id: taskId }, opts);
    } catch (e) {
      if (isDrop(e) && attempts < max) {
        source = (async function* () {
          throw e;
        })();
        continue;
      }
      throw e;
    }
    const snapshot = create(v1_0.StreamResponseSchema, { payload: { case: "task", value: task } });
    state = task.status?.state;
    if (isTerminal(state)) {
      terminalYielded = true;
      yield snapshot;
      return;
    }
    yield snapshot;
    if (isInterrupted(state)) return;
    skipSnapshotState = state;
    const id = taskId;
    source = (async function* () {
      try {
        yield* client.openStream("SubscribeToTask", create(v1_0.SubscribeToTaskRequestSchema, { id, tenant: client.target.tenant }), opts);
      } catch (e) {
        // The task finished between the re-read and the subscription (1.0: UnsupportedOperation).
        if (e instanceof A2AError && e.type === "UnsupportedOperationError") {
          const t = await client.getTask({ id }, opts);
          yield { event: create(v1_0.StreamResponseSchema, { payload: { case: "task", value: t } }) };
          return;
        }
        throw e;
      }
    })();
  }
}
