// Following a backend's task to the end of the local turn (runtime.ts starts the turn and the
// following; mirror.ts applies what is read): the first answer's task or event, then the remote
// task's stream when there is one (the client resubscribes after a drop), else polling GetTask with
// backoff (250 ms × 1.5 up to 5 s); a resumed task (after a restart, a lease taken over) is read
// with GetTask first. The turn ends when the remote task is terminal or interrupted.
//
// Failures: a canceled local task (or close()) just releases the turn; artifacts over the limit, or
// a backend answer past a byte limit of http-fetch.ts, fail it with a message naming the limit and
// cancel the remote task; a backend that fails or a missed
// deadline fails it with BACKEND_FAILURE or TIMEOUT_FAILURE (details logged only), and after a missed
// deadline the remote task is canceled, best effort.
import type { A2AClient } from "../client/index.js";
import { sleep } from "../runtime/sleep.js";
import { TaskTooLargeError, TIMEOUT_FAILURE } from "../server/engine/execute.js";
import { isTerminal } from "../versioning/stream.js";
import { A2AError } from "../versioning/errors.js";
import type { Backend } from "./backends.js";
import { applyEvent, applySnapshot, endTurn, fail, record, releaseTurn, type GatewayTask, type Mirror } from "./mirror.js";
import { answerTooLarge } from "./http-fetch.js";
import type { TaskStart, TurnClock } from "./remote.js";

/** Status message of a local task whose backend failed (details are logged, never sent). */
export const BACKEND_FAILURE = "The backend agent could not complete this task.";

/** Follows the remote task in the background until the turn ends; the turn's timer stops with it. */
export function startFollowing(m: Mirror, g: GatewayTask, backend: Backend, start: TaskStart, clock: TurnClock): void {
  void follow(m, g, backend, start, clock.follower.signal, clock.deadline).finally(() => clearTimeout(clock.timer));
}

/** Follows the remote task to the end of the turn. Never throws. */
async function follow(
  m: Mirror,
  g: GatewayTask,
  backend: Backend,
  start: TaskStart,
  signal: AbortSignal,
  deadline: { readonly aborted: boolean },
) {
  try {
    let client: A2AClient | undefined;
    let events = start.events;
    let ended: boolean;
    if (start.resume) {
      client = await backend.client();
      ended = applySnapshot(m, g, await client.getTask({ id: start.task.id }, { signal }));
      if (!ended && client.canStream) events = client.subscribeToTask({ id: start.task.id }, { signal });
    } else {
      ended = applySnapshot(m, g, start.task);
      if (!ended && start.pending) ended = applyEvent(m, g, start.pending);
    }
    // Followed from here on: recorded, so that a restarted gateway can take the task up again.
    if (!ended) void record(m, g);
    if (!ended && events) {
      try {
        for await (const ev of events) {
          if (applyEvent(m, g, ev)) {
            ended = true;
            break;
          }
        }
      } catch (e) {
        // A remote task that ended between the read and the subscription (1.0 refuses to
        // subscribe to it with UnsupportedOperation): the poll below reads it.
        if (!(start.resume && e instanceof A2AError && e.type === "UnsupportedOperationError") || signal.aborted) throw e;
      }
    } else void events?.return(undefined);
    if (!ended) {
      if (signal.aborted) throw signal.reason;
      client ??= await backend.client();
      ended = await poll(m, g, client, start.task.id, signal);
    }
    await endTurn(m, g);
  } catch (e) {
    if (isTerminal(g.task.status?.state)) return releaseTurn(m, g); // canceled meanwhile
    // Stopped by close(): the task stays as last recorded (WORKING), for a restarted gateway to resume.
    if (m.book.closed) return releaseTurn(m, g);
    const tooLarge = e instanceof TaskTooLargeError ? e : answerTooLarge(e);
    if (tooLarge) {
      m.logger.warn({ taskId: g.task.id, backend: backend.name, reason: tooLarge.message }, "task over a byte limit");
      await fail(m, g, tooLarge.message).catch((err: unknown) =>
        m.logger.error({ err, taskId: g.task.id }, "could not record the failure"),
      );
      if (start.task.id) void cancelRemote(m, backend, g.task.id, start.task.id);
      return;
    }
    m.logger.error(
      { err: e, backend: backend.name, taskId: g.task.id, remoteTaskId: start.task.id, timedOut: deadline.aborted },
      "backend failed while following its task",
    );
    await fail(m, g, deadline.aborted ? TIMEOUT_FAILURE : BACKEND_FAILURE).catch((err: unknown) =>
      m.logger.error({ err, taskId: g.task.id }, "could not record the failure"),
    );
    // The backend may still be working on a turn the gateway gave up on: ask it to stop.
    if (deadline.aborted && start.task.id) void cancelRemote(m, backend, g.task.id, start.task.id);
  }
}

/** Best-effort CancelTask on the backend; failures are logged only. */
export async function cancelRemote(m: Mirror, backend: Backend, localId: string, remoteId: string): Promise<void> {
  try {
    const client = await backend.client();
    await client.cancelTask({ id: remoteId });
  } catch (err) {
    m.logger.warn({ err, backend: backend.name, taskId: localId, remoteTaskId: remoteId }, "backend did not cancel its task");
  }
}

/** Polls GetTask on the backend with backoff until the turn ends; true when it did. */
async function poll(m: Mirror, g: GatewayTask, client: A2AClient, remoteTaskId: string, signal: AbortSignal): Promise<boolean> {
  let delay = 250;
  for (;;) {
    if (applySnapshot(m, g, await client.getTask({ id: remoteTaskId }, { signal }))) return true;
    await sleep(delay, signal);
    delay = Math.min(delay * 1.5, 5000);
  }
}
