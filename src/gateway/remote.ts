// The gateway's side of a backend conversation (runtime.ts): sending a message to the backend and
// reading its first answer (blocking, streaming or returnImmediately, by what the caller and the
// backend's card allow), a turn's deadline, and the helpers that read correlation metadata.
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampMs, timestampNow, type Timestamp } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { Backend } from "./backends.js";

const S = v1_0.TaskState;

export type RemoteStart =
  | { kind: "message"; message: v1_0.Message }
  | {
      kind: "task";
      task: v1_0.Task;
      events?: AsyncGenerator<v1_0.StreamResponse>;
      pending?: v1_0.StreamResponse;
      /** `task` holds the remote ids only: read the remote task, then subscribe or poll (resume). */
      resume?: boolean;
    };

/** The backend answered with a task (or a resumed task is read again). */
export type TaskStart = Extract<RemoteStart, { kind: "task" }>;

/** A turn's deadline: one timer (AbortSignal.timeout/any cost more per request on Node 20). */
export interface TurnClock {
  follower: AbortController;
  deadline: { aborted: boolean };
  timer: NodeJS.Timeout;
}

/** Sends the message to the backend and reads its first answer. */
export async function openRemote(
  backend: Backend,
  message: v1_0.Message,
  req: v1_0.SendMessageRequest,
  signal: AbortSignal,
  activated: readonly string[],
  blocking: boolean,
): Promise<RemoteStart> {
  // A backend still being discovered (its card read pending) fails the turn at once.
  const client = await backend.client({ failFast: true });
  // Extensions the caller activated that this backend declares go along.
  const declared = new Set((client.card.capabilities?.extensions ?? []).map((e) => e.uri));
  const extensions = activated.filter((u) => declared.has(u));
  const init = {
    message,
    ...(req.metadata ? { metadata: req.metadata } : {}),
    configuration: { acceptedOutputModes: req.configuration?.acceptedOutputModes ?? [] },
  };
  if (blocking) {
    // The caller waits for the end of the turn anyway: one blocking call, bounded by the deadline.
    const res = await client.sendMessage(init, { signal, extensions, timeoutMs: 0 });
    if (res.payload.case === "message") return { kind: "message", message: res.payload.value };
    if (res.payload.case === "task") return { kind: "task", task: res.payload.value };
    throw new Error("the backend answered SendMessage with neither a task nor a message");
  }
  if (client.canStream) {
    const events = client.sendStreamingMessage(init, { signal, extensions });
    const first = await events.next();
    if (first.done) throw new Error("the backend's stream ended before its first event");
    const p = first.value.payload;
    if (p.case === "message") {
      void events.return(undefined);
      return { kind: "message", message: p.value };
    }
    if (p.case === "task") return { kind: "task", task: p.value, events };
    if (p.case === "statusUpdate" || p.case === "artifactUpdate") {
      const task = create(v1_0.TaskSchema, { id: p.value.taskId, contextId: p.value.contextId, status: { state: S.SUBMITTED } });
      return { kind: "task", task, events, pending: first.value };
    }
    throw new Error("the backend's stream began with an empty event");
  }
  const res = await client.sendMessage(
    { ...init, configuration: { ...init.configuration, returnImmediately: true } },
    { signal, extensions },
  );
  if (res.payload.case === "message") return { kind: "message", message: res.payload.value };
  if (res.payload.case === "task") return { kind: "task", task: res.payload.value };
  throw new Error("the backend answered SendMessage with neither a task nor a message");
}

export function turnClock(deadlineMs: number): TurnClock {
  const follower = new AbortController();
  const deadline = { aborted: false };
  const timer = setTimeout(
    () => {
      deadline.aborted = true;
      follower.abort(new Error(`turn deadline of ${deadlineMs} ms passed`));
    },
    Math.min(deadlineMs, 2 ** 31 - 1),
  );
  return { follower, deadline, timer };
}

/**
 * The backend's status time, unless it is earlier than the status the local task already
 * published (the local task is stamped when the gateway creates it, after the backend may have
 * moved on): a stream's status timestamps must not go backwards (1.0 §3.5.2, events in the order
 * they were generated), so such a status is stamped now.
 */
export function notBefore(remote: Timestamp | undefined, local: Timestamp | undefined): Timestamp {
  if (!remote || (local && timestampMs(remote) < timestampMs(local))) return timestampNow();
  return remote;
}

export function stringAt(obj: JsonObject | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === "string" ? v : undefined;
}

export function numberAt(obj: JsonObject | undefined, key: string): number | undefined {
  const v = obj?.[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function clip(s: string, max = 100): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
