// How a backend's task is mirrored into the gateway's local task (follow.ts reads the remote task;
// this is what each thing it reads does to the local one): a remote stream event, a Task snapshot
// (a poll, the first answer), a status or an artifact update is applied with the local ids,
// recorded and re-published. Also the gateway's own status changes (WORKING at the start of a turn,
// CANCELED, FAILED) and a local turn opened, ended (its last put) and released. Functions over a
// Mirror: the parts of the GatewayRuntime they use.
//
// Rules:
// - Nothing read from the backend changes a terminal local task; applyEvent and applySnapshot answer whether the local turn
//   is over (a terminal or interrupted state).
// - A snapshot re-publishes only what differs: artifacts not equal to the local copy, a status
//   whose state or message is new. A poll still showing the interrupted status the turn started
//   from (`staleStatusId`) is the previous turn's and is ignored; a bare remote WORKING adds nothing.
// - A status update reaches the task's streams (and other replicas) once its put is committed
//   (publishInOrder); an artifact update never overtakes it. A put the store refuses is reported
//   to nobody (recordTask). Remote status messages join the local history.
// - Artifacts are bounded as on the reference server (maxArtifactBytes): the chunk that would
//   exceed it is not kept and TaskTooLargeError is thrown (the follower fails the task).
import { randomUUID } from "node:crypto";
import { clone, create, equals, type JsonObject } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { TurnCoordinator } from "../server/engine/coordinator.js";
import { TaskTooLargeError, tooLargeFailure } from "../server/engine/execute.js";
import type { Logger } from "../server/engine/runtime.js";
import { isInterrupted, isTerminal } from "../versioning/stream.js";
import { keepArtifact, publishInOrder, recordTask, type LiveEntry, type TaskBook } from "../server/engine/tasks.js";
import { notBefore } from "./remote.js";

const S = v1_0.TaskState;

/** A task the gateway holds: the TaskBook's entry and what following its remote task needs. */
export interface GatewayTask extends LiveEntry {
  follower?: AbortController;
  /** messageId of the remote status message the turn started from (a poll still showing it is stale). */
  staleStatusId?: string;
  /** messageId of the last remote status message applied. */
  remoteStatusId?: string;
  /** The latest put of the task (settles after its COMMIT; rejects when it failed). */
  written?: Promise<void>;
}

/** What mirroring needs of the GatewayRuntime: its tasks (and their store), log, replicas and limit. */
export interface Mirror {
  readonly book: TaskBook<GatewayTask>;
  readonly logger: Logger;
  readonly coordinator: TurnCoordinator | undefined;
  readonly maxArtifactBytes: number;
}

/** Applies one remote stream event; true when the local turn is over. */
export function applyEvent(m: Mirror, g: GatewayTask, ev: v1_0.StreamResponse): boolean {
  if (isTerminal(g.task.status?.state)) return true;
  const p = ev.payload;
  switch (p.case) {
    case "task":
      return applySnapshot(m, g, p.value);
    case "statusUpdate":
      return applyStatus(m, g, p.value.status, p.value.metadata);
    case "artifactUpdate":
      applyArtifact(m, g, p.value.artifact, p.value.append, p.value.lastChunk, p.value.metadata);
      return false;
    default:
      return false;
  }
}

/** Brings the local task up to a remote Task snapshot; true when the local turn is over. */
export function applySnapshot(m: Mirror, g: GatewayTask, remote: v1_0.Task): boolean {
  if (isTerminal(g.task.status?.state)) return true;
  for (const a of remote.artifacts) {
    const mine = g.task.artifacts.find((x) => x.artifactId === a.artifactId);
    if (!mine || !equals(v1_0.ArtifactSchema, mine, a)) applyArtifact(m, g, a, false, true, undefined);
  }
  const status = remote.status;
  if (!status) return false;
  const stale = isInterrupted(status.state) && status.message?.messageId === g.staleStatusId && g.staleStatusId !== undefined;
  if (stale) return false;
  const same = status.state === g.task.status?.state && (status.message?.messageId ?? "") === (g.remoteStatusId ?? "");
  if (same) return isTerminal(status.state) || isInterrupted(status.state);
  return applyStatus(m, g, status, undefined);
}

/** Re-publishes a remote status on the local task; true when the local turn is over. */
function applyStatus(m: Mirror, g: GatewayTask, status: v1_0.TaskStatus | undefined, metadata: JsonObject | undefined): boolean {
  if (isTerminal(g.task.status?.state)) return true;
  if (!status || status.state === S.UNSPECIFIED || status.state === S.SUBMITTED) return false;
  // The turn already published WORKING; a bare remote WORKING adds nothing.
  if (status.state === S.WORKING && !status.message && g.task.status?.state === S.WORKING) return false;
  let message: v1_0.Message | undefined;
  if (status.message) {
    g.remoteStatusId = status.message.messageId;
    message = clone(v1_0.MessageSchema, status.message);
    message.taskId = g.task.id;
    message.contextId = g.task.contextId;
    m.book.addHistory(g.task, message);
  }
  g.task.status = create(v1_0.TaskStatusSchema, {
    state: status.state,
    timestamp: notBefore(status.timestamp, g.task.status?.timestamp),
    message,
  });
  publish(
    m,
    g,
    create(v1_0.StreamResponseSchema, {
      payload: {
        case: "statusUpdate",
        value: { taskId: g.task.id, contextId: g.task.contextId, status: g.task.status, ...(metadata ? { metadata } : {}) },
      },
    }),
    record(m, g),
  );
  return isTerminal(status.state) || isInterrupted(status.state);
}

function applyArtifact(
  m: Mirror,
  g: GatewayTask,
  remote: v1_0.Artifact | undefined,
  append: boolean,
  lastChunk: boolean,
  metadata: JsonObject | undefined,
): void {
  if (!remote || isTerminal(g.task.status?.state)) return;
  const artifact = clone(v1_0.ArtifactSchema, remote);
  // Over the limit nothing of the chunk is kept; follow() fails the task and asks the backend to stop.
  if (!keepArtifact(g, artifact, clone(v1_0.ArtifactSchema, artifact), append, m.maxArtifactBytes))
    throw new TaskTooLargeError(tooLargeFailure(m.maxArtifactBytes));
  publish(
    m,
    g,
    create(v1_0.StreamResponseSchema, {
      payload: {
        case: "artifactUpdate",
        value: { taskId: g.task.id, contextId: g.task.contextId, artifact, append, lastChunk, ...(metadata ? { metadata } : {}) },
      },
    }),
  );
}

/** A local status change (WORKING at the start of a turn, CANCELED, FAILED), published. */
export function setLocalStatus(m: Mirror, g: GatewayTask, state: v1_0.TaskState, text?: string): void {
  const message = text
    ? create(v1_0.MessageSchema, {
        messageId: randomUUID(),
        taskId: g.task.id,
        contextId: g.task.contextId,
        role: v1_0.Role.AGENT,
        parts: [{ content: { case: "text", value: text } }],
      })
    : undefined;
  if (message) m.book.addHistory(g.task, message);
  g.task.status = create(v1_0.TaskStatusSchema, { state, timestamp: timestampNow(), message });
  publish(
    m,
    g,
    create(v1_0.StreamResponseSchema, {
      payload: { case: "statusUpdate", value: { taskId: g.task.id, contextId: g.task.contextId, status: g.task.status } },
    }),
    record(m, g),
  );
}

/**
 * Puts the task; settles after the COMMIT, rejecting as the store did (recordTask: a failure is
 * logged and the change reported to nobody). The turn's puts coalesce in the store.
 */
export function record(m: Mirror, g: GatewayTask): Promise<void> {
  return (g.written = recordTask(m.book.store, g, (err) => m.logger.error({ err, taskId: g.task.id }, "could not record the task")));
}

/**
 * To the task's streams, in order: a status update once `committed` (the put recording it) has
 * settled, and every event after one that waits behind it.
 */
function publish(m: Mirror, g: GatewayTask, ev: v1_0.StreamResponse, committed?: Promise<void>): void {
  publishInOrder(
    g,
    () => {
      g.channel.publish(ev);
      m.coordinator?.publish(g.task.id, ev);
    },
    committed,
  );
}

// ---------------------------------------------------------------- the local turn: opened, ended, released

/** Marks the start of a turn on a live task: `turnDone` resolves when it ends. */
export function openTurn(m: Mirror, g: GatewayTask, follower: AbortController | undefined): void {
  m.book.openTurn(g);
  g.follower = follower;
}

/** Ends the turn FAILED with this status text (unless it is already terminal): recorded, then released. */
export async function fail(m: Mirror, g: GatewayTask, text: string): Promise<void> {
  if (!isTerminal(g.task.status?.state)) setLocalStatus(m, g, S.FAILED, text);
  await endTurn(m, g);
}

/** Ends the turn: the task's last put (the caller hears of a failure), then released. */
export async function endTurn(m: Mirror, g: GatewayTask): Promise<void> {
  try {
    await record(m, g);
  } finally {
    releaseTurn(m, g);
  }
}

/** The turn is over: no follower, the lease released (with replicas), the next message allowed. */
export function releaseTurn(m: Mirror, g: GatewayTask): void {
  g.follower = undefined;
  // Stopped by close(): the lease is kept, to expire; another replica then takes the task over.
  if (!m.book.closed) m.coordinator?.release(g.task.id);
  m.book.release(g);
}
