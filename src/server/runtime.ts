// The task runtime: the 11 A2A 1.0 operations over 1.0 protobuf-es messages, independent of
// binding and wire version (the fastify plugin decodes and encodes around it).
//
// It owns the task lifecycle (SUBMITTED → WORKING → COMPLETED / FAILED / REJECTED / CANCELED, or
// an interrupted INPUT_REQUIRED / AUTH_REQUIRED that a follow-up message resumes), history
// (every user message and every agent status message, oldest first), artifacts (chunks merged by
// artifactId), contextId generation and reuse, persistence (a TaskStore) and event delivery
// (channel.ts).
//
// Policies (a2a-wire.md §8.1 rule ids in brackets):
// - A message with a taskId continues that task: unknown or another principal's → TaskNotFound
//   [S-16, S-57]; terminal → UnsupportedOperation [S-19]; a contextId differing from the task's →
//   InvalidParams [S-17]; a task whose previous turn is still running → UnsupportedOperation.
// - Without taskId a new task is created with a fresh id; the message's contextId is reused, else
//   one is generated [S-14, S-15]. With only a taskId the task's contextId is used [S-18].
// - Blocking SendMessage waits for a terminal or interrupted state [S-20]; returnImmediately answers
//   as soon as the task exists [S-21]. Execution never depends on the caller staying connected.
// - Streams begin with the Task (or consist of exactly one Message) and end after the first
//   terminal or interrupted status [S-33..S-36]; SubscribeToTask likewise begins with the current
//   Task [S-37]; on a terminal task 1.0 answers UnsupportedOperation, 0.3 gets the Task and the
//   stream closes [S-38, V-10].
// - An exception thrown by the agent (other than an A2AError) fails the task with a generic status
//   message; the details go to the log only. An A2AError thrown by handleMessage is the answer.
// - Tasks belong to the caller's principal within the request's tenant: another principal, or the
//   same principal under another tenant, gets TaskNotFound.
// - Only status changes are written to the store; artifact chunks live in the runtime's copy of a
//   running task (reads prefer that copy), so a 2,000-chunk stream costs one write at the end.
// - Limits (DEFAULT_LIMITS; sizes estimated as in task-size.ts): parts per incoming message
//   (InvalidParams), messages and bytes kept per task's history (the oldest dropped, the newest
//   always kept), artifact bytes per task (the chunk that would exceed it is not kept and the task
//   fails with tooLargeFailure(), naming the limit; what came before stays), push configs per task
//   (InvalidParams; replacing one is allowed), bytes per ListTasks page (fewer tasks; at least one).
import { randomUUID } from "node:crypto";
import { clone, create, type JsonObject } from "@bufbuild/protobuf";
import { EmptySchema, timestampFromMs, timestampMs, type Empty, type Timestamp } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError, invalidParams } from "../versioning/errors.js";
import { isInterrupted, isTerminal } from "../versioning/stream.js";
import type { Agent, AgentContext, AgentResult, ArtifactChunk, StatusChunk, StreamItem } from "./agent.js";
import { Channel, Subscription, type ChannelByteLimit } from "./channel.js";
import { toParts, type PartInit } from "./parts.js";
import { MemoryPushConfigStore, type PushConfigStore } from "../push/config-store.js";
import { PushDelivery, type PushDeliveryOptions } from "../push/delivery.js";
import { checkWebhookRegistration, WebhookUrlError } from "../push/ssrf.js";
import { MemoryTaskStore, type ListCursor, type TaskStore } from "./store.js";
import { artifactBytes, artifactsBytes, eventBytes, historyBytes, messageBytes, partsBytes } from "./task-size.js";

const S = v1_0.TaskState;

export { isInterrupted, isTerminal };

/** True for the status update that ends a stream: a terminal or interrupted state. */
export function endsStream(event: v1_0.StreamResponse): boolean {
  if (event.payload.case !== "statusUpdate") return false;
  const state = event.payload.value.status?.state;
  return isTerminal(state) || isInterrupted(state);
}

/** Who is calling and how: what the transport layer learnt about the request. */
export interface CallContext {
  /** Authenticated principal; tasks are visible to their owner only. */
  principal: string;
  /** Wire version of the request ("1.0" | "0.3"). */
  version: string;
  /** Extension URIs the request activated that the agent declares. */
  extensions: string[];
  /** 1.0 tenant of the request ("" or absent: none). Tasks are partitioned by principal and tenant. */
  tenant?: string;
}

/** The key tasks and push configs are stored under: the principal, within the request's tenant. */
export function ownerOf(call: CallContext): string {
  return call.tenant ? `${call.principal}\u001ftenant:${call.tenant}` : call.principal;
}

export interface Logger {
  error(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

const consoleLogger: Logger = {
  error: (obj, msg) => console.error(msg ?? "", obj),
  warn: (obj, msg) => console.warn(msg ?? "", obj),
};

export interface RuntimeOptions {
  agent: Agent;
  store?: TaskStore;
  logger?: Logger;
  /** Events one stream subscriber may fall behind before it is disconnected (default 100,000). */
  maxBufferedEvents?: number;
  /** Estimated bytes of events one stream subscriber may fall behind before it is disconnected (default 16 MiB). */
  maxBufferedBytes?: number;
  /** Where push-notification configs live (default: in memory; SqliteTaskStore has `pushConfigs`). */
  pushConfigs?: PushConfigStore;
  /**
   * Longest time one turn (handling a message until a terminal or interrupted state) may take, in
   * ms; then the agent's signal is aborted and the task fails with a generic message. Default: none.
   */
  taskTimeoutMs?: number;
  /** Webhook delivery settings, including the SSRF allow-list (src/push/delivery.ts). */
  push?: PushDeliveryOptions;
  /** Messages kept in a task's history (default 1,000): beyond it the oldest are dropped. */
  maxHistory?: number;
  /** Parts one incoming message may have (default 1,000): more is InvalidParams. */
  maxPartsPerMessage?: number;
  /** Push-notification configs one task may have (default 10): another is InvalidParams. */
  maxPushConfigsPerTask?: number;
  /** Estimated bytes of a task's history (default 4 MiB): beyond it the oldest messages are dropped. */
  maxHistoryBytes?: number;
  /** Estimated bytes of a task's artifacts (default 4 MiB): a chunk beyond it fails the task. */
  maxArtifactBytes?: number;
  /** Estimated bytes of the tasks of one ListTasks page (default 4 MiB): then the page ends early. */
  maxListBytes?: number;
}

const MiB = 1024 * 1024;
/** Defaults of the runtime's limits (README "Limits"). */
export const DEFAULT_LIMITS = {
  maxHistory: 1_000,
  maxPartsPerMessage: 1_000,
  maxPushConfigsPerTask: 10,
  maxHistoryBytes: 4 * MiB,
  maxArtifactBytes: 4 * MiB,
  maxListBytes: 4 * MiB,
  maxBufferedBytes: 16 * MiB,
} as const;

/** Thrown inside a turn when the agent's artifacts would exceed maxArtifactBytes; fails the task. */
export class TaskTooLargeError extends Error {}

/** Status message of a task failed by maxArtifactBytes. */
export const tooLargeFailure = (limit: number) =>
  `The task's artifacts reached this server's limit of ${limit} bytes; the output after that was not kept.`;

/** A task the runtime is working on or streaming: the authoritative copy while it is here. */
interface LiveTask {
  owner: string;
  task: v1_0.Task;
  channel: Channel<v1_0.StreamResponse>;
  /** A turn (handleMessage and what follows) is in progress. */
  busy: boolean;
  /** Estimated bytes of task.artifacts (task-size.ts), kept up to date by applyChunk. */
  artifactBytes: number;
  abort?: LazyAbort;
  context?: AgentContext;
  turnDone?: Promise<void>;
  endTurn?: () => void;
}

export const GENERIC_FAILURE = "The agent failed while processing this task.";
export const TIMEOUT_FAILURE = "The task did not finish in time.";
const PAGE_SIZE_DEFAULT = 50;
const PAGE_SIZE_MAX = 100;

export class TaskRuntime {
  private readonly clock = new StatusClock();
  readonly agent: Agent;
  readonly store: TaskStore;
  private readonly log: Logger;
  private readonly maxBuffered: number;
  /** Byte limit of each stream subscriber's buffer (channel.ts). */
  protected readonly bufferBytes: ChannelByteLimit<v1_0.StreamResponse>;
  private readonly live = new Map<string, LiveTask>();
  private readonly taskTimeoutMs: number;
  readonly pushConfigs: PushConfigStore;
  readonly pushDelivery: PushDelivery;
  private readonly pushOptions: PushDeliveryOptions;
  /** Tasks that may have webhooks: only their events are handed to PushDelivery (bounded, oldest dropped). */
  private readonly pushTasks = new Set<string>();
  private closed = false;
  private readonly maxHistory: number;
  private readonly maxParts: number;
  private readonly maxPushConfigs: number;
  private readonly maxHistoryBytes: number;
  protected readonly maxArtifactBytes: number;
  private readonly maxListBytes: number;

  constructor(opts: RuntimeOptions) {
    const limit = (v: number | undefined, d: number) => (v === undefined || !(v >= 1) ? d : Math.floor(v));
    this.maxHistory = limit(opts.maxHistory, DEFAULT_LIMITS.maxHistory);
    this.maxParts = limit(opts.maxPartsPerMessage, DEFAULT_LIMITS.maxPartsPerMessage);
    this.maxPushConfigs = limit(opts.maxPushConfigsPerTask, DEFAULT_LIMITS.maxPushConfigsPerTask);
    this.maxHistoryBytes = limit(opts.maxHistoryBytes, DEFAULT_LIMITS.maxHistoryBytes);
    this.maxArtifactBytes = limit(opts.maxArtifactBytes, DEFAULT_LIMITS.maxArtifactBytes);
    this.maxListBytes = limit(opts.maxListBytes, DEFAULT_LIMITS.maxListBytes);
    this.agent = opts.agent;
    this.store = opts.store ?? new MemoryTaskStore();
    this.log = opts.logger ?? consoleLogger;
    this.maxBuffered = opts.maxBufferedEvents ?? 100_000;
    this.bufferBytes = { maxBytes: limit(opts.maxBufferedBytes, DEFAULT_LIMITS.maxBufferedBytes), sizeOf: eventBytes };
    this.taskTimeoutMs = opts.taskTimeoutMs ?? 0;
    this.pushConfigs = opts.pushConfigs ?? new MemoryPushConfigStore();
    this.pushOptions = opts.push ?? {};
    this.pushDelivery = new PushDelivery(this.pushConfigs, { logger: this.log, ...opts.push });
  }

  get streaming(): boolean {
    return this.agent.card.capabilities?.streaming === true;
  }

  get pushNotifications(): boolean {
    return this.agent.card.capabilities?.pushNotifications === true;
  }

  /** Number of tasks currently held in memory by the runtime (running or streamed). */
  get liveTasks(): number {
    return this.live.size;
  }

  // ---------------------------------------------------------------- SendMessage / SendStreamingMessage

  async sendMessage(req: v1_0.SendMessageRequest, call: CallContext): Promise<v1_0.SendMessageResponse> {
    const turn = await this.startTurn(req, call, false);
    if (turn.kind === "message") return create(v1_0.SendMessageResponseSchema, { payload: { case: "message", value: turn.message } });
    const historyLength = req.configuration?.historyLength;
    if (req.configuration?.returnImmediately) {
      return create(v1_0.SendMessageResponseSchema, { payload: { case: "task", value: view(turn.live.task, historyLength) } });
    }
    await turn.live.turnDone;
    return create(v1_0.SendMessageResponseSchema, { payload: { case: "task", value: view(turn.live.task, historyLength) } });
  }

  /** Errors found before the stream starts reject the promise; the iterator then only yields events. */
  async sendStreamingMessage(req: v1_0.SendMessageRequest, call: CallContext): Promise<AsyncIterableIterator<v1_0.StreamResponse>> {
    if (!this.streaming) throw new A2AError("UnsupportedOperationError", "This agent does not support streaming");
    const turn = await this.startTurn(req, call, true);
    if (turn.kind === "message") return once(create(v1_0.StreamResponseSchema, { payload: { case: "message", value: turn.message } }));
    return turn.subscription!;
  }

  private async startTurn(
    req: v1_0.SendMessageRequest,
    call: CallContext,
    streaming: boolean,
  ): Promise<
    { kind: "message"; message: v1_0.Message } | { kind: "task"; live: LiveTask; subscription?: Subscription<v1_0.StreamResponse> }
  > {
    if (this.closed) throw new A2AError("UnsupportedOperationError", "The server is shutting down");
    const incoming = req.message;
    if (!incoming) throw invalidParams("/message", 'required field "message" is missing');
    if (incoming.parts.length > this.maxParts) throw invalidParams("/message/parts", `at most ${this.maxParts} parts per message`);
    const pushConfig = req.configuration?.taskPushNotificationConfig;
    if (pushConfig && !this.pushNotifications)
      throw new A2AError("PushNotificationNotSupportedError", "This agent does not support push notifications");
    if (pushConfig) await this.checkWebhook(pushConfig.url);
    if (req.configuration?.historyLength !== undefined && req.configuration.historyLength < 0)
      throw invalidParams("/configuration/historyLength", "must not be negative");

    let existing: LiveTask | undefined;
    let taskId: string;
    let contextId: string;
    if (incoming.taskId) {
      existing = await this.acquire(ownerOf(call), incoming.taskId);
      if (!existing) throw taskNotFound(incoming.taskId);
      const problem = followUpProblem(existing, incoming);
      if (problem) {
        if (!existing.busy && existing.channel.size === 0) this.forget(existing);
        throw problem;
      }
      taskId = existing.task.id;
      contextId = existing.task.contextId;
      existing.busy = true;
    } else {
      taskId = randomUUID();
      contextId = incoming.contextId || randomUUID();
    }

    // The request was decoded for this call alone, so its message can become the history entry.
    const userMessage = incoming;
    userMessage.taskId = taskId;
    userMessage.contextId = contextId;
    const abort = new LazyAbort();
    const ctx = new TurnContext(
      taskId,
      contextId,
      existing ? clone(v1_0.TaskSchema, existing.task) : undefined,
      [...(existing?.task.history ?? []), userMessage],
      req.metadata,
      call,
      abort,
    );

    let result: AgentResult | "crash";
    try {
      result = await this.agent.handleMessage(userMessage, ctx);
      if (!result || typeof result !== "object" || !("kind" in result)) throw new Error(`handleMessage returned ${String(result)}`);
    } catch (e) {
      if (e instanceof A2AError) {
        if (existing) this.release(existing, false);
        throw e;
      }
      this.log.error({ err: e, taskId }, "agent handleMessage threw");
      result = "crash";
    }

    if (result !== "crash" && result.kind === "message") {
      if (existing) {
        this.release(existing, false);
        throw new A2AError(
          "InvalidAgentResponseError",
          `The agent answered a message for task ${taskId} with a bare message; the task is unchanged`,
          {
            taskId,
          },
        );
      }
      const m = agentMessage(contextId, "", result.parts, result.metadata);
      return { kind: "message", message: m };
    }

    if (pushConfig) {
      try {
        await this.checkPushConfigRoom(ownerOf(call), taskId, pushConfig.id);
        await this.pushConfigs.create(ownerOf(call), { ...pushConfig, taskId, tenant: "" }, call.version === "0.3" ? "0.3" : "1.0");
        this.watchPush(taskId);
      } catch (e) {
        if (existing) this.release(existing, false);
        throw e;
      }
    }

    let live: LiveTask;
    if (existing && isTerminal(existing.task.status?.state)) {
      // Canceled while handleMessage ran: the message is not taken.
      if (existing.channel.size === 0) this.forget(existing);
      throw new A2AError("UnsupportedOperationError", `Task ${taskId} was canceled while this message was being handled`, { taskId });
    }
    if (existing) {
      live = existing;
      this.addHistory(live.task, userMessage);
    } else {
      // Filled in field by field: create() with nested initialisers checks and converts each one.
      const task = create(v1_0.TaskSchema, { id: taskId, contextId });
      task.status = create(v1_0.TaskStatusSchema, { state: S.SUBMITTED, timestamp: this.clock.now() });
      task.history.push(userMessage);
      live = this.track(ownerOf(call), task);
      live.busy = true;
    }
    live.abort = abort;
    live.context = ctx;
    let endTurn!: () => void;
    live.turnDone = new Promise<void>((resolve) => (endTurn = resolve));
    live.endTurn = endTurn;

    const subscription = streaming ? live.channel.subscribe([taskEvent(live.task)], endsStream) : undefined;
    // run() records the task with its WORKING status before its first await.
    const turnDone = live.turnDone;
    const timer =
      this.taskTimeoutMs > 0
        ? setTimeout(() => {
            if (live.turnDone !== turnDone || isTerminal(live.task.status?.state)) return;
            this.log.warn({ taskId: live.task.id, timeoutMs: this.taskTimeoutMs }, "task timed out");
            abort.abort(new Error("task timed out"));
            void this.finish(live, S.FAILED, [TIMEOUT_FAILURE]);
          }, this.taskTimeoutMs)
        : undefined;
    void this.run(live, result, ctx).finally(() => {
      clearTimeout(timer);
      endTurn();
    });
    return { kind: "task", live, subscription };
  }

  /** Executes an agent result to the end of the turn. Never throws. */
  private async run(live: LiveTask, result: AgentResult | "crash", ctx: AgentContext): Promise<void> {
    try {
      await this.transition(live, S.WORKING);
      if (result === "crash") return await this.finish(live, S.FAILED, [GENERIC_FAILURE]);
      switch (result.kind) {
        case "reply":
          if (result.parts.length)
            this.applyChunk(live, {
              artifact: { ...result.artifact, artifactId: randomUUID(), parts: result.parts },
              lastChunk: true,
            });
          return await this.finish(live, S.COMPLETED, result.statusMessage);
        case "inputRequired":
          return await this.finish(live, S.INPUT_REQUIRED, result.parts);
        case "authRequired":
          return await this.finish(live, S.AUTH_REQUIRED, result.parts);
        case "error":
          return await this.finish(live, result.reject ? S.REJECTED : S.FAILED, result.parts);
        case "stream":
          await this.drain(live, result.items, ctx.signal);
          return await this.finish(live, S.COMPLETED);
        default:
          throw new Error(`unknown agent result kind ${(result as { kind: string }).kind}`);
      }
    } catch (e) {
      if (isTerminal(live.task.status?.state)) return; // canceled meanwhile: the abort surfaced here
      const tooLarge = e instanceof TaskTooLargeError;
      if (tooLarge) this.log.warn({ taskId: live.task.id, limit: this.maxArtifactBytes }, "task artifacts over the limit");
      else this.log.error({ err: e, taskId: live.task.id }, "agent failed");
      const text = tooLarge ? e.message : this.closed ? "The server shut down before the task finished." : GENERIC_FAILURE;
      await this.finish(live, S.FAILED, [text]).catch((err) =>
        this.log.error({ err, taskId: live.task.id }, "could not record the failure"),
      );
    }
  }

  private async drain(live: LiveTask, items: AsyncIterable<StreamItem> | Iterable<StreamItem>, signal: AbortSignal): Promise<void> {
    const artifactId = randomUUID();
    let pending: PartInit | undefined;
    let sent = 0;
    const flush = (last: boolean) => {
      if (pending === undefined) return;
      this.applyChunk(live, { artifact: { artifactId, parts: [pending] }, append: sent > 0, lastChunk: last });
      pending = undefined;
      sent++;
    };
    try {
      for await (const item of items as AsyncIterable<StreamItem>) {
        if (isTerminal(live.task.status?.state)) return;
        if (signal.aborted) throw signal.reason ?? new Error("aborted");
        flush(false);
        if (isArtifactChunk(item)) this.applyChunk(live, item);
        else if (isStatusChunk(item)) await this.transition(live, S.WORKING, item.status);
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
  private applyChunk(live: LiveTask, chunk: ArtifactChunk): void {
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
    const list = live.task.artifacts;
    const i = list.findIndex((x) => x.artifactId === artifact.artifactId);
    const bytes =
      i >= 0 && chunk.append
        ? live.artifactBytes + partsBytes(parts)
        : live.artifactBytes + artifactBytes(artifact) - (i >= 0 ? artifactBytes(list[i]) : 0);
    if (bytes > this.maxArtifactBytes) throw new TaskTooLargeError(tooLargeFailure(this.maxArtifactBytes));
    live.artifactBytes = bytes;
    // The task keeps its own artifact object (appended to in place); the event carries the chunk.
    const own = { ...artifact, parts: [...artifact.parts] };
    if (i >= 0 && chunk.append) list[i].parts.push(...artifact.parts);
    else if (i >= 0) list[i] = own;
    else list.push(own);
    this.emit(live, () =>
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

  /** Sets a non-final status, publishes it and records it. */
  private async transition(live: LiveTask, state: v1_0.TaskState, parts?: PartInit | PartInit[]): Promise<void> {
    if (isTerminal(live.task.status?.state)) return;
    this.setStatus(live, state, parts);
    await this.store.put(live.owner, live.task);
  }

  /** Ends the turn in `state` (terminal or interrupted): publish, record, wake blocking callers. */
  private async finish(live: LiveTask, state: v1_0.TaskState, parts?: PartInit | PartInit[]): Promise<void> {
    if (isTerminal(live.task.status?.state)) return;
    this.setStatus(live, state, parts);
    try {
      await this.store.put(live.owner, live.task);
    } finally {
      this.release(live, true);
    }
  }

  private setStatus(live: LiveTask, state: v1_0.TaskState, parts?: PartInit | PartInit[]): void {
    const list = parts === undefined ? [] : toParts(parts);
    const message = list.length ? agentMessage(live.task.contextId, live.task.id, list) : undefined;
    if (message) this.addHistory(live.task, message);
    const status = create(v1_0.TaskStatusSchema, { state, timestamp: this.clock.now() });
    if (message) status.message = message;
    live.task.status = status;
    this.emit(live, () =>
      create(v1_0.StreamResponseSchema, {
        payload: { case: "statusUpdate", value: { taskId: live.task.id, contextId: live.task.contextId, status } },
      }),
    );
  }

  /** Appends to the history, dropping the oldest messages beyond maxHistory or maxHistoryBytes (never the newest). */
  protected addHistory(task: v1_0.Task, message: v1_0.Message): void {
    const h = task.history;
    h.push(message);
    let bytes = historyBytes(h);
    let drop = Math.max(0, h.length - this.maxHistory);
    for (let i = 0; i < drop; i++) bytes -= messageBytes(h[i]);
    while (bytes > this.maxHistoryBytes && drop < h.length - 1) bytes -= messageBytes(h[drop++]);
    if (drop) h.splice(0, drop);
  }

  /** InvalidParams when storing `config` would give its task more than maxPushConfigsPerTask configs. */
  private async checkPushConfigRoom(owner: string, taskId: string, id: string): Promise<void> {
    const existing = await this.pushConfigs.list(owner, taskId);
    if (existing.length < this.maxPushConfigs || (id && existing.some((c) => c.config.id === id))) return;
    throw invalidParams(
      "/id",
      `task ${taskId} already has ${existing.length} push notification configs, the most this server keeps per task; delete one first`,
    );
  }

  /**
   * To every stream subscriber, and to the task's webhooks. The event is built only when one of
   * them listens: most blocking sends have neither.
   */
  private emit(live: LiveTask, event: () => v1_0.StreamResponse): void {
    const push = this.pushTasks.has(live.task.id);
    if (live.channel.size === 0 && !push) return;
    const e = event();
    live.channel.publish(e);
    if (push) this.pushDelivery.enqueue(live.owner, live.task.id, e, live.task);
  }

  private watchPush(taskId: string): void {
    this.pushTasks.delete(taskId);
    this.pushTasks.add(taskId);
    if (this.pushTasks.size > 100_000) this.pushTasks.delete(this.pushTasks.values().next().value as string);
  }

  /**
   * InvalidParams unless the webhook URL passes the SSRF guard at registration (src/push/ssrf.ts).
   * The caller learns only that the URL is not allowed; what its host resolved to goes to the log.
   */
  private async checkWebhook(url: string): Promise<void> {
    try {
      await checkWebhookRegistration(url, { allow: this.pushOptions.allow, lookup: this.pushOptions.lookup });
    } catch (e) {
      if (!(e instanceof WebhookUrlError)) throw e;
      this.log.warn({ reason: e.reason }, `push config refused: ${e.message}`);
      throw invalidParams("/url", e.publicMessage);
    }
  }

  /** The turn is over (or never started): allow the next message; forget the task if nobody listens. */
  private release(live: LiveTask, turnEnded: boolean): void {
    live.busy = false;
    live.abort = undefined;
    if (turnEnded) live.endTurn?.();
    if (live.channel.size === 0) this.forget(live);
  }

  private forget(live: LiveTask): void {
    if (!live.busy && this.live.get(live.task.id) === live) this.live.delete(live.task.id);
  }

  private track(owner: string, task: v1_0.Task): LiveTask {
    const live: LiveTask = {
      owner,
      task,
      busy: false,
      artifactBytes: artifactsBytes(task.artifacts),
      channel: new Channel<v1_0.StreamResponse>(this.maxBuffered, () => this.forget(live), this.bufferBytes),
    };
    this.live.set(task.id, live);
    return live;
  }

  /** The live copy of a task, loading it from the store if needed; undefined if not visible to `owner`. */
  private async acquire(owner: string, id: string): Promise<LiveTask | undefined> {
    const found = this.live.get(id);
    if (found) return found.owner === owner ? found : undefined;
    const stored = await this.store.get(owner, id);
    if (!stored) return undefined;
    const again = this.live.get(id);
    if (again) return again.owner === owner ? again : undefined;
    return this.track(owner, clone(v1_0.TaskSchema, stored));
  }

  private async read(owner: string, id: string): Promise<v1_0.Task | undefined> {
    const found = this.live.get(id);
    if (found) return found.owner === owner ? found.task : undefined;
    return this.store.get(owner, id);
  }

  // ---------------------------------------------------------------- GetTask / ListTasks

  async getTask(req: v1_0.GetTaskRequest, call: CallContext): Promise<v1_0.Task> {
    if (req.historyLength !== undefined && req.historyLength < 0) throw invalidParams("/historyLength", "must not be negative");
    const task = await this.read(ownerOf(call), req.id);
    if (!task) throw taskNotFound(req.id);
    return view(task, req.historyLength);
  }

  async listTasks(req: v1_0.ListTasksRequest, call: CallContext): Promise<v1_0.ListTasksResponse> {
    const pageSize = req.pageSize ?? PAGE_SIZE_DEFAULT;
    if (pageSize < 1 || pageSize > PAGE_SIZE_MAX) throw invalidParams("/pageSize", `must be between 1 and ${PAGE_SIZE_MAX}`);
    if (req.historyLength !== undefined && req.historyLength < 0) throw invalidParams("/historyLength", "must not be negative");
    const after = req.pageToken ? parsePageToken(req.pageToken) : undefined;
    const page = await this.store.list({
      owner: ownerOf(call),
      contextId: req.contextId || undefined,
      state: req.status || undefined,
      statusAfterMs: req.statusTimestampAfter ? timestampMs(req.statusTimestampAfter) : undefined,
      pageSize,
      after,
      maxBytes: this.maxListBytes,
      withArtifacts: req.includeArtifacts === true,
    });
    const tasks = page.tasks.map((t) => {
      const current = this.live.get(t.id)?.task ?? t;
      return view(current, req.historyLength, req.includeArtifacts === true);
    });
    return create(v1_0.ListTasksResponseSchema, {
      tasks,
      nextPageToken: page.next ? makePageToken(page.next) : "",
      pageSize,
      totalSize: page.totalSize,
    });
  }

  // ---------------------------------------------------------------- CancelTask / SubscribeToTask

  async cancelTask(req: v1_0.CancelTaskRequest, call: CallContext): Promise<v1_0.Task> {
    const live = await this.acquire(ownerOf(call), req.id);
    if (!live) throw taskNotFound(req.id);
    const state = live.task.status?.state;
    if (isTerminal(state)) {
      if (live.channel.size === 0) this.forget(live);
      throw new A2AError(
        "TaskNotCancelableError",
        `Task ${req.id} is in a terminal state (${v1_0.TaskState[state!]}) and cannot be canceled`,
        {
          taskId: req.id,
        },
      );
    }
    const abort = live.abort;
    const ctx = live.context;
    await this.finish(live, S.CANCELED);
    abort?.abort(new A2AError("TaskNotCancelableError", "canceled"));
    if (this.agent.handleCancel) {
      try {
        await this.agent.handleCancel(
          ctx ?? {
            taskId: live.task.id,
            contextId: live.task.contextId,
            task: clone(v1_0.TaskSchema, live.task),
            history: live.task.history,
            metadata: req.metadata,
            principal: call.principal,
            extensions: call.extensions,
            version: call.version,
            signal: AbortSignal.abort(),
          },
        );
      } catch (e) {
        this.log.error({ err: e, taskId: live.task.id }, "agent handleCancel threw");
      }
    }
    return view(live.task, undefined);
  }

  async subscribeToTask(req: v1_0.SubscribeToTaskRequest, call: CallContext): Promise<AsyncIterableIterator<v1_0.StreamResponse>> {
    if (!this.streaming) throw new A2AError("UnsupportedOperationError", "This agent does not support streaming");
    const live = await this.acquire(ownerOf(call), req.id);
    if (!live) throw taskNotFound(req.id);
    const state = live.task.status?.state;
    if (isTerminal(state)) {
      if (live.channel.size === 0) this.forget(live);
      // 0.3 (P03 TaskSubscription): a finished task is returned like GetTask and the stream closes.
      if (call.version === "0.3") return once(taskEvent(live.task));
      throw new A2AError("UnsupportedOperationError", `Task ${req.id} is in a terminal state (${v1_0.TaskState[state!]}); use GetTask`, {
        taskId: req.id,
      });
    }
    return live.channel.subscribe([taskEvent(live.task)], endsStream);
  }

  // ---------------------------------------------------------------- push notifications, extended card

  private async pushTask(taskId: string, call: CallContext): Promise<v1_0.Task> {
    if (!this.pushNotifications) throw new A2AError("PushNotificationNotSupportedError", "This agent does not support push notifications");
    const task = await this.read(ownerOf(call), taskId);
    if (!task) throw taskNotFound(taskId);
    return task;
  }

  async createPushConfig(req: v1_0.TaskPushNotificationConfig, call: CallContext): Promise<v1_0.TaskPushNotificationConfig> {
    await this.pushTask(req.taskId, call);
    await this.checkWebhook(req.url);
    await this.checkPushConfigRoom(ownerOf(call), req.taskId, req.id);
    const stored = await this.pushConfigs.create(ownerOf(call), { ...req, tenant: "" }, call.version === "0.3" ? "0.3" : "1.0");
    this.watchPush(req.taskId);
    return stored.config;
  }

  async getPushConfig(req: v1_0.GetTaskPushNotificationConfigRequest, call: CallContext): Promise<v1_0.TaskPushNotificationConfig> {
    await this.pushTask(req.taskId, call);
    // 0.3 `tasks/pushNotificationConfig/get` with only the task id (TaskIdParams, the legacy
    // single-config form) arrives with id "" (loss L23): it means the task's sole (or first) config [V-06].
    const stored =
      req.id === "" && call.version === "0.3"
        ? (await this.pushConfigs.list(ownerOf(call), req.taskId))[0]
        : await this.pushConfigs.get(ownerOf(call), req.taskId, req.id);
    if (!stored)
      throw new A2AError("TaskNotFoundError", `Task ${req.taskId} has no push notification config ${req.id}`, {
        taskId: req.taskId,
        configId: req.id,
      });
    return stored.config;
  }

  async listPushConfigs(
    req: v1_0.ListTaskPushNotificationConfigsRequest,
    call: CallContext,
  ): Promise<v1_0.ListTaskPushNotificationConfigsResponse> {
    await this.pushTask(req.taskId, call);
    if (req.pageSize < 0) throw invalidParams("/pageSize", "must not be negative");
    const all = (await this.pushConfigs.list(ownerOf(call), req.taskId)).map((s) => s.config);
    let start = 0;
    if (req.pageToken) {
      start = Number.parseInt(Buffer.from(req.pageToken, "base64url").toString("utf8"), 10);
      if (!Number.isInteger(start) || start < 0 || start > all.length)
        throw invalidParams("/pageToken", "is not a page token this server issued");
    }
    const end = req.pageSize > 0 ? Math.min(all.length, start + req.pageSize) : all.length;
    return create(v1_0.ListTaskPushNotificationConfigsResponseSchema, {
      configs: all.slice(start, end),
      nextPageToken: end < all.length ? Buffer.from(String(end)).toString("base64url") : "",
    });
  }

  async deletePushConfig(req: v1_0.DeleteTaskPushNotificationConfigRequest, call: CallContext): Promise<Empty> {
    await this.pushTask(req.taskId, call);
    await this.pushConfigs.delete(ownerOf(call), req.taskId, req.id);
    return create(EmptySchema);
  }

  /** The agent's extended card (interfaces are filled in by the caller). */
  hasExtendedCard(): boolean {
    return this.agent.extendedCard !== undefined;
  }

  extendedCardInit(): Agent["extendedCard"] {
    if (!this.agent.extendedCard) throw new A2AError("UnsupportedOperationError", "This agent has no extended agent card");
    return this.agent.extendedCard;
  }

  /** Aborts every running task; they end FAILED. Streams still open are closed. */
  async close(): Promise<void> {
    this.closed = true;
    for (const l of this.live.values()) {
      l.abort?.abort(new Error("server shutting down"));
      l.channel.close();
    }
    await this.pushDelivery.close();
    await this.store.close?.();
  }
}

/**
 * What handleMessage sees. A class rather than an object literal with a `signal` getter: V8 builds
 * such literals on a slow path, once per message.
 */
class TurnContext implements AgentContext {
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
class LazyAbort {
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
class StatusClock {
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

function taskNotFound(id: string): A2AError {
  return new A2AError("TaskNotFoundError", `Task ${id} not found`, { taskId: id });
}

function agentMessage(contextId: string, taskId: string, parts: PartInit[], metadata?: JsonObject): v1_0.Message {
  return create(v1_0.MessageSchema, {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: v1_0.Role.AGENT,
    parts: toParts(parts),
    ...(metadata ? { metadata } : {}),
  });
}

function taskEvent(task: v1_0.Task): v1_0.StreamResponse {
  return create(v1_0.StreamResponseSchema, { payload: { case: "task", value: clone(v1_0.TaskSchema, task) } });
}

/** A copy of the task for a response: history trimmed to `historyLength`, artifacts optional. */
export function view(task: v1_0.Task, historyLength: number | undefined, includeArtifacts = true): v1_0.Task {
  const history = historyLength === undefined ? task.history : historyLength === 0 ? [] : task.history.slice(-historyLength);
  return { ...task, history: [...history], artifacts: includeArtifacts ? [...task.artifacts] : [] };
}

function once<T>(item: T): AsyncIterableIterator<T> {
  let done = false;
  return {
    next: async () => {
      if (done) return { value: undefined, done: true };
      done = true;
      return { value: item, done: false };
    },
    return: async () => {
      done = true;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function isArtifactChunk(item: StreamItem): item is ArtifactChunk {
  return typeof item === "object" && item !== null && "artifact" in item && !("$typeName" in item);
}

function isStatusChunk(item: StreamItem): item is StatusChunk {
  return typeof item === "object" && item !== null && "status" in item && !("$typeName" in item);
}

export function makePageToken(c: ListCursor): string {
  return Buffer.from(JSON.stringify([c.timestampMs, c.id])).toString("base64url");
}

function parsePageToken(token: string): ListCursor {
  try {
    const v = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "number" && typeof v[1] === "string") {
      timestampFromMs(v[0]);
      return { timestampMs: v[0], id: v[1] };
    }
  } catch {
    // fall through
  }
  throw invalidParams("/pageToken", "is not a page token this server issued");
}

/**
 * Why a message may not continue a task, if it may not: the task is terminal, its previous turn is
 * still running, or the message names another context. Shared with the gateway's runtime.
 */
export function followUpProblem(live: { task: v1_0.Task; busy: boolean }, incoming: v1_0.Message): A2AError | undefined {
  const id = live.task.id;
  const state = live.task.status?.state;
  if (isTerminal(state))
    return new A2AError(
      "UnsupportedOperationError",
      `Task ${id} is in a terminal state (${v1_0.TaskState[state!]}) and accepts no more messages`,
      {
        taskId: id,
      },
    );
  if (live.busy)
    return new A2AError("UnsupportedOperationError", `Task ${id} is still being processed; wait until it needs input`, { taskId: id });
  if (incoming.contextId && incoming.contextId !== live.task.contextId)
    return invalidParams("/message/contextId", `does not match the contextId of task ${id}`);
  return undefined;
}
