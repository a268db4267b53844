// Stream semantics across versions (a2a-wire.md §5.3–5.5; loss rows L5, L13, L21).
//
// API
//   isTerminal(state), isInterrupted(state)        1.0 TaskState classes (interrupted = INPUT_REQUIRED, AUTH_REQUIRED)
//   endsStream(event)                              true when a 1.0 stream closes after this event: a Message, a
//                                                  terminal Task, a status update terminal or interrupted (E9)
//   finalFor0_3(state)                             true | false | "lookahead" (AUTH_REQUIRED)
//   isAuthRequiredUpdate(event)                    a status update whose `final` needs lookahead (L13)
//   FinalFlagger                                   1.0 → 0.3 (server side): push(event) / end() → items with `final`;
//                                                  `closed` turns true after a final item, later pushes are dropped
//   PASS_THROUGH_FRAMER, finalFlagFramer(onLoss)   StreamFramer of a 1.0 / 0.3 server stream (policy.ts picks one):
//                                                  push(event) / end() → items, `closed`, late(); L5/L13 reported
//   FinalCloser                                    0.3 → 1.0 (client side): accept(event, final) → {event, close}
//   ends0_3Stream(event, final)                    0.3 → 1.0: the 0.3 stream is over after this item
//   subscribeToFinishedTask(version, task)         0.3: [task] then close; 1.0: throws UnsupportedOperation
//
// 1.0 → 0.3: `final: true` on a status update in a terminal state or INPUT_REQUIRED. AUTH_REQUIRED
// is interrupted in 1.0 but not in 0.3 (L13), and 1.0 agents may keep the stream open while
// credentials arrive out of band (1.0 §7.6.1): the update is held until the next event (then
// final: false) or the end of the 1.0 stream (then final: true). After a final item the 0.3 stream
// is closed; a Message or a terminal Task snapshot also closes it (0.3 consumers stop there). An
// INPUT_REQUIRED Task snapshot does not: it opens the stream of a follow-up to an input-required
// task (the snapshot is taken before the new turn runs), whose answer comes after it (issue 14).
// 0.3 → 1.0: `final` is dropped and the translated stream closes after it, even if the 0.3
// server keeps the connection open (L21).
import { create } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError } from "./errors.js";
import type { Loss } from "./loss.js";
import type { ProtocolVersion } from "./negotiate.js";

const S = v1_0.TaskState;

/** Terminal task states: the task changes no more (the one definition; server, client and gateway use it). */
export const TERMINAL_STATES: ReadonlySet<v1_0.TaskState> = new Set([S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED]);
/** Interrupted states: the task waits for the client. */
export const INTERRUPTED_STATES: ReadonlySet<v1_0.TaskState> = new Set([S.INPUT_REQUIRED, S.AUTH_REQUIRED]);

export function isTerminal(state: v1_0.TaskState | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.has(state);
}

export function isInterrupted(state: v1_0.TaskState | undefined): boolean {
  return state !== undefined && INTERRUPTED_STATES.has(state);
}

/**
 * 1.0: the stream closes after a Message, a terminal Task snapshot, or a status update in a terminal
 * or interrupted state (the one end-of-stream rule: the server's task streams and the tests use it).
 * An interrupted Task snapshot does not close it: the stream of a follow-up to an input-required
 * task starts with one (taken before the new turn runs), and its answer comes after it.
 */
export function endsStream(event: v1_0.StreamResponse): boolean {
  const p = event.payload;
  if (p.case === "message") return true;
  if (p.case === "task") return isTerminal(p.value.status?.state);
  if (p.case !== "statusUpdate") return false;
  const state = p.value.status?.state;
  return isTerminal(state) || isInterrupted(state);
}

/** A status update in AUTH_REQUIRED: its 0.3 `final` needs one event of lookahead (L13). */
export function isAuthRequiredUpdate(event: v1_0.StreamResponse): boolean {
  return event.payload.case === "statusUpdate" && event.payload.value.status?.state === S.AUTH_REQUIRED;
}

export function finalFor0_3(state: v1_0.TaskState | undefined): boolean | "lookahead" {
  if (state === undefined) return false;
  if (isTerminal(state) || state === S.INPUT_REQUIRED) return true;
  if (state === S.AUTH_REQUIRED) return "lookahead";
  return false;
}

export interface FlaggedEvent {
  event: v1_0.StreamResponse;
  /** The 0.3 `final` flag (meaningful on status updates only). */
  final: boolean;
  /** What deciding `final` lost (L13), reported once the item is sent. */
  loss?: Loss;
}

/** 1.0 stream → 0.3 stream: derives `final`, with one-event lookahead for AUTH_REQUIRED. */
export class FinalFlagger {
  private held: v1_0.StreamResponse | undefined;
  private _closed = false;

  /** True once a final item was produced: the 0.3 stream must close, later events are dropped. */
  get closed(): boolean {
    return this._closed;
  }

  push(event: v1_0.StreamResponse): FlaggedEvent[] {
    if (this._closed) return [];
    const out: FlaggedEvent[] = [];
    if (this.held) {
      out.push({ event: this.held, final: false });
      this.held = undefined;
    }
    if (event.payload.case === "statusUpdate") {
      const f = finalFor0_3(event.payload.value.status?.state);
      if (f === "lookahead") {
        this.held = event;
        return out;
      }
      out.push({ event, final: f });
      if (f) this._closed = true;
      return out;
    }
    out.push({ event, final: false });
    if (event.payload.case === "message") this._closed = true;
    // Only a terminal snapshot ends the stream: an INPUT_REQUIRED one is where the stream of a
    // follow-up starts (taken before the new turn runs); a 1.0 stream that stops there ends anyway.
    if (event.payload.case === "task" && isTerminal(event.payload.value.status?.state ?? S.UNSPECIFIED)) this._closed = true;
    return out;
  }

  /** The 1.0 stream ended: a held AUTH_REQUIRED update becomes the final one. */
  end(): FlaggedEvent[] {
    if (this._closed) return [];
    this._closed = true;
    const held = this.held;
    this.held = undefined;
    return held ? [{ event: held, final: true }] : [];
  }
}

/**
 * How a server stream of one wire version frames the 1.0 events (src/transport/server.ts openStream):
 * the items to send for each event, and when the stream must close. Losses that are not an item's
 * (L5) go to the `onLoss` the framer was made with.
 */
export interface StreamFramer {
  /** Items to send for this event (empty: held back). */
  push(event: v1_0.StreamResponse): FlaggedEvent[];
  /** The 1.0 stream ended: items still owed. */
  end(): FlaggedEvent[];
  /** True once the version's stream is over: later events are not sent. */
  readonly closed: boolean;
  /** An event arrived after `closed`: it is not sent. */
  late(): void;
}

/** 1.0: every event as it is; the 1.0 stream ends when the handler's does (stateless, so one for all streams). */
export const PASS_THROUGH_FRAMER: StreamFramer = {
  push: (event) => [{ event, final: false }],
  end: () => [],
  closed: false,
  late: () => {},
};

/** 0.3: `final` from FinalFlagger; L13 on each lookahead decision, L5 on what the 0.3 stream cannot carry. */
export function finalFlagFramer(onLoss: (loss: Loss) => void): StreamFramer {
  const flagger = new FinalFlagger();
  const withL13 = (items: FlaggedEvent[]) => {
    for (const item of items)
      if (isAuthRequiredUpdate(item.event))
        item.loss = {
          id: "L13",
          direction: "to-0.3",
          path: "/statusUpdate/status/state",
          detail: `AUTH_REQUIRED is not an interrupted state in 0.3; sent final=${item.final} because the 1.0 stream ${item.final ? "ended" : "went on"} after it`,
        };
    return items;
  };
  return {
    push: (event) => withL13(flagger.push(event)),
    end() {
      const items = flagger.end();
      if (!items.length)
        onLoss({
          id: "L5",
          direction: "to-0.3",
          path: "",
          detail: "the 1.0 stream ended without a terminal or interrupted event; the 0.3 stream closes without a final item",
        });
      return withL13(items);
    },
    get closed() {
      return flagger.closed;
    },
    late: () => onLoss({ id: "L5", direction: "to-0.3", path: "", detail: "a 1.0 event after the end of the 0.3 stream is not sent" }),
  };
}

/**
 * Client side, 0.3 → 1.0: does the 0.3 stream end after this item? After `final: true` (L21), and
 * where 0.3 consumers stop anyway (a2a-wire.md §5.4): a Message, or a terminal Task snapshot. Not
 * after an INPUT_REQUIRED snapshot: a follow-up's stream starts with one (the FinalFlagger rule).
 */
export function ends0_3Stream(event: v1_0.StreamResponse, final: boolean): boolean {
  if (final || event.payload.case === "message") return true;
  return event.payload.case === "task" && isTerminal(event.payload.value.status?.state ?? S.UNSPECIFIED);
}

/** 0.3 stream → 1.0 stream (client side): the stream ends after a `final: true` item (L21). */
export class FinalCloser {
  private _closed = false;
  get closed(): boolean {
    return this._closed;
  }
  accept(event: v1_0.StreamResponse, final: boolean): { event: v1_0.StreamResponse; close: boolean } | undefined {
    if (this._closed) return undefined;
    if (final) this._closed = true;
    return { event, close: final };
  }
}

/**
 * SubscribeToTask / tasks/resubscribe on a task that already finished (§5.5). 1.0 answers
 * UnsupportedOperation (1.0 §3.1.6); 0.3 returns the task, like GetTask, and closes the stream
 * (P03 TaskSubscription), which is what a 0.3 client reconnecting after the end expects.
 */
export function subscribeToFinishedTask(version: ProtocolVersion, task: v1_0.Task): v1_0.StreamResponse[] {
  if (version === "1.0")
    throw new A2AError(
      "UnsupportedOperationError",
      `Task ${task.id} is in a terminal state (${v1_0.TaskState[task.status?.state ?? S.UNSPECIFIED]}); use GetTask`,
      { taskId: task.id },
    );
  return [create(v1_0.StreamResponseSchema, { payload: { case: "task", value: task } })];
}
