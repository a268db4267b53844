// The seam through which several replicas act as one agent: what TaskRuntime asks of a
// coordinator when it has one (RuntimeOptions.coordinator; cluster.ts implements it on PostgreSQL).
// Without one the runtime is the single-process runtime, unchanged.
import { clone } from "@bufbuild/protobuf";
import * as v1_0 from "../../../generated/v1_0/index.js";
import type { A2AError } from "../../versioning/errors.js";
import type { TaskStore } from "../store/store.js";
import { followUpProblem, type CallContext } from "./tasks.js";

/** What the coordinator may ask of the runtime it serves. */
export interface LocalTurns {
  /** Cancel a task whose turn runs here, as CancelTask does (a request forwarded by another replica). */
  cancel(taskId: string, call: CallContext): Promise<unknown>;
}

export interface TurnCoordinator {
  attach(local: LocalTurns): void;
  /**
   * Takes the lease of the task's turn for this replica; false while another replica's turn runs
   * (after waiting up to `waitMs` for it to end; default: the coordinator's).
   */
  claim(owner: string, taskId: string, waitMs?: number): Promise<boolean>;
  /** The turn's first event: the Task as it begins (published in order with the turn's events). */
  beginTurn(task: v1_0.Task): void;
  /** Resolves once every event published so far can be read by every replica. */
  settled(): Promise<void>;
  /** An event of a turn running here, in order. */
  publish(taskId: string, event: v1_0.StreamResponse): void;
  /** The turn ended (its last write made): gives the lease up. */
  release(taskId: string): void;
  /**
   * When another live replica runs the task's turn: has it canceled there and resolves with the
   * task as recorded then (or rejects with that replica's A2AError). Undefined: cancel here.
   */
  cancelElsewhere(owner: string, taskId: string, call: CallContext): Promise<v1_0.Task | undefined>;
  /** A stream of a task whose turn does not run here (`task`: as stored, not terminal). */
  subscribe(task: v1_0.Task): Promise<AsyncIterableIterator<v1_0.StreamResponse>>;
  close(): Promise<void>;
}

/**
 * A follow-up with replicas (serve's and the gateway's): the turn's lease, else the task is busy on
 * another replica; then the task as last recorded (another replica may have run turns since it was
 * read). A follow-up rule it breaks: `release()` (the entry's turn is given up) and thrown.
 */
export async function claimFollowUp(
  c: TurnCoordinator,
  store: TaskStore,
  live: { owner: string; task: v1_0.Task },
  incoming: v1_0.Message,
  release: () => void,
): Promise<void> {
  let problem: A2AError | undefined;
  if (!(await c.claim(live.owner, live.task.id))) problem = followUpProblem({ task: live.task, busy: true }, incoming);
  else {
    const stored = await store.get(live.owner, live.task.id);
    if (stored) live.task = clone(v1_0.TaskSchema, stored);
    problem = followUpProblem({ task: live.task, busy: false }, incoming);
  }
  if (problem) {
    release();
    throw problem;
  }
}

/** Open SSE streams per caller, counted where the front's limit must hold (one process, or every replica). */
export interface StreamSlots {
  /** Takes a slot for `who` unless `max` are taken; false: refuse the stream. */
  acquire(who: string, max: number): Promise<boolean>;
  release(who: string): void;
}

/** The one-process count (the front's default). */
export function localStreamSlots(): StreamSlots {
  const open = new Map<string, number>();
  return {
    async acquire(who, max) {
      const n = open.get(who) ?? 0;
      if (n >= max) return false;
      open.set(who, n + 1);
      return true;
    },
    release(who) {
      const n = (open.get(who) ?? 1) - 1;
      if (n > 0) open.set(who, n);
      else open.delete(who);
    },
  };
}
