// The pieces of one turn of the reference server's TaskRuntime (runtime.ts): the context
// handleMessage sees, its lazily made abort signal, the status clock, agent messages, and how a
// stream's items are told apart.
import { randomUUID } from "node:crypto";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../../generated/v1_0/index.js";
import type { AgentContext, ArtifactChunk, StatusChunk, StreamItem } from "./agent.js";
import { toParts, type PartInit } from "./parts.js";
import type { CallContext } from "./tasks.js";

/**
 * What handleMessage sees. A class rather than an object literal with a `signal` getter: V8 builds
 * such literals on a slow path, once per message.
 */
export class TurnContext implements AgentContext {
  readonly principal: string;
  readonly extensions: readonly string[];
  readonly version: string;
  readonly #abort: LazyAbort;

  constructor(
    readonly taskId: string,
    readonly contextId: string,
    readonly task: v1_0.Task | undefined,
    readonly history: readonly v1_0.Message[],
    readonly metadata: JsonObject | undefined,
    call: CallContext,
    abort: LazyAbort,
  ) {
    this.principal = call.principal;
    this.extensions = call.extensions;
    this.version = call.version;
    this.#abort = abort;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}

/** An AbortController made only when someone reads the signal (most agents never do). */
export class LazyAbort {
  private controller: AbortController | undefined;
  private reason: unknown;
  private aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/**
 * Now, as a status timestamp. Statuses set within the same millisecond share one Timestamp (never
 * changed after creation): a blocking SendMessage sets three, and making each costs a BigInt. One
 * clock per runtime, so no state is shared across servers in one process.
 */
export class StatusClock {
  private lastMs = -1;
  private last: Timestamp | undefined;

  now(): Timestamp {
    const ms = Date.now();
    if (ms !== this.lastMs || !this.last) {
      this.lastMs = ms;
      this.last = timestampFromMs(ms);
    }
    return this.last;
  }
}

export function agentMessage(contextId: string, taskId: string, parts: PartInit[], metadata?: JsonObject): v1_0.Message {
  return create(v1_0.MessageSchema, {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: v1_0.Role.AGENT,
    parts: toParts(parts),
    ...(metadata ? { metadata } : {}),
  });
}

export function isArtifactChunk(item: StreamItem): item is ArtifactChunk {
  return typeof item === "object" && item !== null && "artifact" in item && !("$typeName" in item);
}

export function isStatusChunk(item: StreamItem): item is StatusChunk {
  return typeof item === "object" && item !== null && "status" in item && !("$typeName" in item);
}
