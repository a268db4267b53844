// The agent programming model of the reference server.
//
// An agent declares its card and implements `handleMessage(message, context)`. The result says
// what happens to the conversation; the runtime (runtime.ts) owns everything else: task ids,
// context ids, lifecycle, history, artifacts, persistence, streaming and cancellation.
//
//   reply(parts, opts?)        the parts become one artifact; the task completes
//   message(parts)             a bare agent Message; no task is created or stored
//                              (for a message that continues an existing task this is rejected)
//   inputRequired(parts)       the parts become the status message; the caller continues with the same taskId
//   authRequired(parts)        likewise, in TASK_STATE_AUTH_REQUIRED
//   stream(iterable)           the task stays WORKING while the iterable is drained, then completes
//   error(parts, opts?)        the task fails (or is rejected with `{ reject: true }`)
//
// `handleMessage` decides the *shape* of the answer, so no task exists until it settles: keep it
// quick and put long-running work inside a `stream` (an async generator may await anything before
// it yields). That is what lets `returnImmediately` and streaming callers see the task at once.
import type { JsonObject } from "@bufbuild/protobuf";
import * as v1_0 from "../../../generated/v1_0/index.js";
import type { PartInit } from "./parts.js";
import { sleep as wait } from "../../runtime/sleep.js";

/** The agent card as the agent declares it: the 1.0 card JSON without the interfaces (the server adds those). */
export type AgentCardInit = Omit<v1_0.AgentCardJson, "supportedInterfaces">;

export interface AgentContext {
  /** The task this message belongs to: a fresh id for a new task, or the continued task's id. */
  readonly taskId: string;
  /** The conversation id: the caller's, the continued task's, or a freshly generated one. */
  readonly contextId: string;
  /** The task as it stands before this message (undefined for a new task). */
  readonly task: v1_0.Task | undefined;
  /** Earlier messages of the task, oldest first, followed by this message. */
  readonly history: readonly v1_0.Message[];
  /** `metadata` of the request (SendMessageRequest.metadata), if any. */
  readonly metadata: JsonObject | undefined;
  /** Who is calling, as established by the server's `authenticate` hook ("anonymous" without one). */
  readonly principal: string;
  /** Extension URIs the caller activated that this agent declares. */
  readonly extensions: readonly string[];
  /** Protocol version of the request that started this turn ("1.0" or "0.3"). */
  readonly version: string;
  /** Aborted when the task is canceled or the server shuts down. */
  readonly signal: AbortSignal;
}

/** One chunk of an artifact, for `stream` results that manage artifacts themselves. */
export interface ArtifactChunk {
  artifact: {
    /** Defaults to one id per stream. */
    artifactId?: string;
    name?: string;
    description?: string;
    metadata?: JsonObject;
    parts: PartInit | PartInit[];
  };
  /** Append these parts to the artifact with the same id (default false). */
  append?: boolean;
  /** This is the last chunk of the artifact (default false). */
  lastChunk?: boolean;
}

/** A working-status update with a message, e.g. progress text. */
export interface StatusChunk {
  status: PartInit | PartInit[];
}

/**
 * An item of a `stream` result. Bare parts (and strings) are chunks of one artifact per stream:
 * the runtime sets `append` on all but the first and `lastChunk` on the last, which it knows
 * because it holds each part until the next one arrives (or the stream ends).
 */
export type StreamItem = PartInit | ArtifactChunk | StatusChunk;

export interface ArtifactOptions {
  name?: string;
  description?: string;
  metadata?: JsonObject;
}

export type AgentResult =
  | { kind: "reply"; parts: PartInit[]; artifact?: ArtifactOptions; statusMessage?: PartInit[] }
  | { kind: "message"; parts: PartInit[]; metadata?: JsonObject }
  | { kind: "inputRequired"; parts: PartInit[] }
  | { kind: "authRequired"; parts: PartInit[] }
  | { kind: "stream"; items: AsyncIterable<StreamItem> | Iterable<StreamItem> }
  | { kind: "error"; parts: PartInit[]; reject?: boolean };

export interface Agent {
  /** The public card. Streaming is served only when `capabilities.streaming` is true. */
  readonly card: AgentCardInit;
  /** Served by GetExtendedAgentCard when set (the card then declares `capabilities.extendedAgentCard`). */
  readonly extendedCard?: AgentCardInit;
  handleMessage(message: v1_0.Message, context: AgentContext): AgentResult | Promise<AgentResult>;
  /** Called once when a running or interrupted task is canceled (after `signal` is aborted). */
  handleCancel?(context: AgentContext): void | Promise<void>;
}

const list = (p: PartInit | PartInit[]): PartInit[] => (Array.isArray(p) ? p : [p]);

/** The parts become one artifact; the task completes. `statusMessage` goes into the final status. */
export function reply(
  parts: PartInit | PartInit[],
  opts: { artifact?: ArtifactOptions; statusMessage?: PartInit | PartInit[] } = {},
): AgentResult {
  return {
    kind: "reply",
    parts: list(parts),
    ...(opts.artifact ? { artifact: opts.artifact } : {}),
    ...(opts.statusMessage !== undefined ? { statusMessage: list(opts.statusMessage) } : {}),
  };
}

/** A bare agent Message: no task. */
export function message(parts: PartInit | PartInit[], metadata?: JsonObject): AgentResult {
  return { kind: "message", parts: list(parts), ...(metadata ? { metadata } : {}) };
}

export function inputRequired(parts: PartInit | PartInit[]): AgentResult {
  return { kind: "inputRequired", parts: list(parts) };
}

export function authRequired(parts: PartInit | PartInit[]): AgentResult {
  return { kind: "authRequired", parts: list(parts) };
}

export function stream(items: AsyncIterable<StreamItem> | Iterable<StreamItem>): AgentResult {
  return { kind: "stream", items };
}

/** The task fails with these parts as its status message (`reject: true`: TASK_STATE_REJECTED). */
export function error(parts: PartInit | PartInit[], opts: { reject?: boolean } = {}): AgentResult {
  return { kind: "error", parts: list(parts), ...(opts.reject ? { reject: true } : {}) };
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => wait(ms, signal);
