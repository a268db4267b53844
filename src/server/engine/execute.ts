// Carrying out an agent's result on its task, to the end of the turn (runtime.ts starts the turn,
// calls handleMessage and launches this): a reply's artifact and COMPLETED, an input-required,
// auth-required, error or reject status, or a stream's items (text parts gathered into one
// artifact, artifact chunks, status updates) and then COMPLETED; an exception fails the task with
// GENERIC_FAILURE (details logged only). Also the status writes the runtime makes itself (WORKING
// at the start, CANCELED, a timeout's FAILED) and a turn's release. Functions over an Execution: the
// parts of the TaskRuntime they use.
//
// Rules (the runtime's header has the policies):
// - A status is recorded (put) before its event is published; a turn's end (finish) also waits for
//   the put before it releases the task. A status whose put fails is reported to nobody: its event
//   is not published, streams end with an InternalError, and so does a blocking call (recordTask). Artifact events are not recorded on their own and never
//   overtake a status waiting before them (publishInOrder).
// - An event is built only when someone listens: a stream subscriber, a webhook, other replicas.
// - Nothing changes a terminal task (a cancel may end the turn while the agent still runs).
// - Artifact bytes are bounded (maxArtifactBytes): the chunk beyond the limit is not kept and the
//   task fails with tooLargeFailure().
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import * as v1_0 from "../../../generated/v1_0/index.js";
import { isTerminal } from "../../versioning/stream.js";
import type { PushDelivery } from "../../push/delivery.js";
import type { Agent, AgentContext, AgentResult, ArtifactChunk, StreamItem } from "./agent.js";
import type { TurnCoordinator } from "./coordinator.js";
import { toParts, type PartInit } from "./parts.js";
import type { PushRegistry } from "./push-configs.js";
import type { Logger } from "./runtime.js";
import { keepArtifact, publishInOrder, recordTask, view, type LiveEntry, type TaskBook } from "./tasks.js";
import { agentMessage, isArtifactChunk, isStatusChunk, type LazyAbort, type StatusClock } from "./turn.js";

const S = v1_0.TaskState;

export const GENERIC_FAILURE = "The agent failed while processing this task.";
export const TIMEOUT_FAILURE = "The task did not finish in time.";

/** Thrown inside a turn when the agent's artifacts would exceed maxArtifactBytes; fails the task. */
export class TaskTooLargeError extends Error {}

/** Status message of a task failed by maxArtifactBytes. */
export const tooLargeFailure = (limit: number) =>
  `The task's artifacts reached this server's limit of ${limit} bytes; the output after that was not kept.`;

/** A task the runtime is working on or streaming: the authoritative copy while it is here. */
export interface LiveTask extends LiveEntry {
  abort?: LazyAbort;
  context?: AgentContext;
}

/** What carrying out a result needs of the TaskRuntime: its parts, shared with it (not copies). */
export interface Execution {
  /** Read at each event: whether the card declares push notifications. */
  readonly agent: Agent;
  readonly book: TaskBook<LiveTask>;
  readonly log: Logger;
  readonly clock: StatusClock;
  readonly push: PushRegistry;
  readonly pushDelivery: PushDelivery;
  readonly coordinator: TurnCoordinator | undefined;
  readonly maxArtifactBytes: number;
  /** The turn's slice the runtime's streams share. */
  readonly slice: StreamSlice;
}

/** Executes an agent result to the end of the turn (startTurn has set WORKING). Never throws. */
export async function run(x: Execution, live: LiveTask, result: AgentResult | "crash", ctx: AgentContext): Promise<void> {
  try {
    if (result === "crash") return await finish(x, live, S.FAILED, [GENERIC_FAILURE]);
    switch (result.kind) {
      case "reply":
        if (result.parts.length)
          applyChunk(x, live, {
            artifact: { ...result.artifact, artifactId: randomUUID(), parts: result.parts },
            lastChunk: true,
          });
        return await finish(x, live, S.COMPLETED, result.statusMessage);
      case "inputRequired":
        return await finish(x, live, S.INPUT_REQUIRED, result.parts);
      case "authRequired":
        return await finish(x, live, S.AUTH_REQUIRED, result.parts);
      case "error":
        return await finish(x, live, result.reject ? S.REJECTED : S.FAILED, result.parts);
      case "stream":
        await drain(x, live, result.items, ctx.signal);
        return await finish(x, live, S.COMPLETED);
      default:
        throw new Error(`unknown agent result kind ${(result as { kind: string }).kind}`);
    }
  } catch (e) {
    if (isTerminal(live.task.status?.state)) return; // canceled meanwhile: the abort surfaced here
    const tooLarge = e instanceof TaskTooLargeError;
    if (tooLarge) x.log.warn({ taskId: live.task.id, limit: x.maxArtifactBytes }, "task artifacts over the limit");
    else x.log.error({ err: e, taskId: live.task.id }, "agent failed");
    const text = tooLarge ? e.message : x.book.closed ? "The server shut down before the task finished." : GENERIC_FAILURE;
    await finish(x, live, S.FAILED, [text]).catch((err: unknown) =>
      x.log.error({ err, taskId: live.task.id }, "could not record the failure"),
    );
  }
}

/**
 * Items a stream's turn takes before it lets the event loop run other work (I/O, other tasks). With
 * 16, 500 tasks streaming at once hold the loop for a few hundred ms per round at most, and a task
 * of 20,000 items pays 1,250 loop turns (docs/limits.md, "Keeping the server answering").
 */
export const YIELD_EVERY = 16;

/**
 * The time streams together may take of one event-loop turn (ms): once they have, every stream
 * yields at its next item, so the turn ends and I/O (another client's GetTask) is served. Without
 * it a turn lasts as long as every running stream's YIELD_EVERY items: with 200 streams about 3,200
 * items, seconds on a loaded machine (docs/limits.md, "Keeping the server answering").
 */
export const STREAM_SLICE_MS = 10;

/** The slice of the turn a runtime's streams share (one per TaskRuntime: Execution.slice). */
export class StreamSlice {
  /** When the streams began taking the current turn (undefined: not yet in this turn). */
  private start: number | undefined;

  /** True once the streams have had their STREAM_SLICE_MS of this turn (the slice starts anew next turn). */
  spent(): boolean {
    const now = performance.now();
    if (this.start === undefined) {
      this.start = now;
      setImmediate(() => (this.start = undefined));
      return false;
    }
    return now - this.start > STREAM_SLICE_MS;
  }
}

async function drain(
  x: Execution,
  live: LiveTask,
  items: AsyncIterable<StreamItem> | Iterable<StreamItem>,
  signal: AbortSignal,
): Promise<void> {
  const artifactId = randomUUID();
  let pending: PartInit | undefined;
  let sent = 0;
  const flush = (last: boolean) => {
    if (pending === undefined) return;
    applyChunk(x, live, { artifact: { artifactId, parts: [pending] }, append: sent > 0, lastChunk: last });
    pending = undefined;
    sent++;
  };
  let since = 0;
  try {
    for await (const item of items as AsyncIterable<StreamItem>) {
      // An agent that yields without waiting for anything (a generator over data at hand) would keep
      // the event loop for its whole stream: every YIELD_EVERY items, or once the streams have had
      // their slice of this turn, other work gets a turn.
      if (++since >= YIELD_EVERY || x.slice.spent()) {
        since = 0;
        await new Promise((r) => setImmediate(r));
      }
      if (isTerminal(live.task.status?.state)) return;
      if (signal.aborted) throw signal.reason ?? new Error("aborted");
      flush(false);
      if (isArtifactChunk(item)) applyChunk(x, live, item);
      else if (isStatusChunk(item)) void transition(x, live, S.WORKING, item.status);
      else pending = item;
    }
  } finally {
    // Also when the agent throws: what it yielded before is delivered, not lost.
    flush(true);
  }
}

/**
 * Merges an artifact chunk into the task and publishes it. Throws TaskTooLargeError, keeping
 * nothing of the chunk, when it would take the task's artifacts over maxArtifactBytes.
 */
function applyChunk(x: Execution, live: LiveTask, chunk: ArtifactChunk): void {
  if (isTerminal(live.task.status?.state)) return;
  const parts = toParts(chunk.artifact.parts);
  if (!parts.length) return;
  const a = chunk.artifact;
  const artifact = create(v1_0.ArtifactSchema, {
    artifactId: a.artifactId || randomUUID(),
    name: a.name ?? "",
    description: a.description ?? "",
    parts,
    ...(a.metadata ? { metadata: a.metadata } : {}),
  });
  // The task keeps its own artifact object (appended to in place); the event carries the chunk.
  const own = { ...artifact, parts: [...artifact.parts] };
  if (!keepArtifact(live, artifact, own, chunk.append ?? false, x.maxArtifactBytes))
    throw new TaskTooLargeError(tooLargeFailure(x.maxArtifactBytes));
  emit(x, live, () =>
    create(v1_0.StreamResponseSchema, {
      payload: {
        case: "artifactUpdate",
        value: {
          taskId: live.task.id,
          contextId: live.task.contextId,
          artifact,
          append: chunk.append ?? false,
          lastChunk: chunk.lastChunk ?? false,
        },
      },
    }),
  );
}

/**
 * Sets a non-final status and records it; its event is published once the put has settled. The
 * put's promise is returned (a failure is also logged, so nobody needs to await it).
 */
export function transition(x: Execution, live: LiveTask, state: v1_0.TaskState, parts?: PartInit | PartInit[]): Promise<void> {
  if (isTerminal(live.task.status?.state)) return Promise.resolve();
  const event = setStatus(x, live, state, parts);
  const put = record(x, live);
  emit(x, live, event, put);
  return put;
}

/** Ends the turn in `state` (terminal or interrupted): record, publish once committed, wake blocking callers. */
export async function finish(x: Execution, live: LiveTask, state: v1_0.TaskState, parts?: PartInit | PartInit[]): Promise<void> {
  if (isTerminal(live.task.status?.state)) return;
  const event = setStatus(x, live, state, parts);
  const put = record(x, live);
  emit(x, live, event, put);
  try {
    await put;
  } finally {
    release(x, live, true);
  }
}

/** Writes the task (recordTask: a failure is logged, and the change is reported to nobody). */
function record(x: Execution, live: LiveTask): Promise<void> {
  return recordTask(x.book.store, live, (err) => x.log.error({ err, taskId: live.task.id }, "could not record the task"));
}

/** Sets the status now; returns its stream event (published by the caller once recorded). */
function setStatus(x: Execution, live: LiveTask, state: v1_0.TaskState, parts?: PartInit | PartInit[]): () => v1_0.StreamResponse {
  const list = parts === undefined ? [] : toParts(parts);
  const message = list.length ? agentMessage(live.task.contextId, live.task.id, list) : undefined;
  if (message) x.book.addHistory(live.task, message);
  const status = create(v1_0.TaskStatusSchema, { state, timestamp: x.clock.now() });
  if (message) status.message = message;
  live.task.status = status;
  return () =>
    create(v1_0.StreamResponseSchema, {
      payload: { case: "statusUpdate", value: { taskId: live.task.id, contextId: live.task.contextId, status } },
    });
}

/**
 * To every stream subscriber, and to the task's webhooks. The event is built only when one of
 * them listens: most blocking sends have neither. A status update waits until `recorded` (its
 * put) has settled, and every event after one that waits goes after it, in order.
 */
function emit(x: Execution, live: LiveTask, event: () => v1_0.StreamResponse, recorded?: Promise<void>): void {
  // With replicas every event is recorded for them, and webhooks may have been set on any replica.
  const push = x.push.watches(live.task.id) || (x.coordinator !== undefined && x.agent.card.capabilities?.pushNotifications === true);
  if (live.channel.size === 0 && !push && !x.coordinator) return;
  // Webhooks that get Task snapshots get the task as it was at this event.
  const task = (recorded || live.held) && push ? view(live.task, undefined) : live.task;
  publishInOrder(live, () => publish(x, live, event, task, push), recorded);
}

function publish(x: Execution, live: LiveTask, event: () => v1_0.StreamResponse, task: v1_0.Task, push: boolean): void {
  if (live.channel.size === 0 && !push && !x.coordinator) return;
  const e = event();
  live.channel.publish(e);
  x.coordinator?.publish(live.task.id, e);
  if (push) x.pushDelivery.enqueue(live.owner, live.task.id, e, task);
}

/** The turn is over (or never started): allow the next message; forget the task if nobody listens. */
export function release(x: Execution, live: LiveTask, turnEnded: boolean): void {
  live.abort = undefined;
  x.coordinator?.release(live.task.id);
  x.book.release(live, turnEnded);
}
