// The task runtime: the 11 A2A 1.0 operations over 1.0 protobuf-es messages, independent of
// binding and wire version (the front decodes and encodes around it; where a version's rules
// differ, it asks the version's policy, src/versioning/policy.ts, and never tests the version).
//
// It owns the task lifecycle (SUBMITTED → WORKING → COMPLETED / FAILED / REJECTED / CANCELED, or
// an interrupted INPUT_REQUIRED / AUTH_REQUIRED that a follow-up message resumes), history
// (every user message and every agent status message, oldest first), artifacts (chunks merged by
// artifactId), contextId generation and reuse, persistence (a TaskStore) and event delivery
// (channel.ts). A turn starts here (startTurn); the agent's result is carried out in execute.ts.
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
//   Task [S-37]; a terminal task gets what the request's version says (src/versioning/policy.ts:
//   1.0 UnsupportedOperation, 0.3 the Task, then the stream closes) [S-38, V-10].
// - An exception thrown by the agent (other than an A2AError) fails the task with a generic status
//   message; the details go to the log only. An A2AError thrown by handleMessage is the answer.
// - Tasks belong to the caller's principal within the request's tenant: another principal, or the
//   same principal under another tenant, gets TaskNotFound.
// - Only status changes are written to the store; artifact chunks live in the runtime's copy of a
//   running task (reads prefer that copy), so a 2,000-chunk stream costs one write at the end.
// - Nothing a client is told is uncommitted: a returnImmediately reply (the task as recorded
//   WORKING) and a stream's first event wait for the WORKING put; a blocking reply and every status
//   event wait for their own put (execute.ts); artifact events do not, but never overtake a status
//   waiting before them. The turn itself does not wait, so a quick agent's puts share one commit.
// - Limits (DEFAULT_LIMITS; sizes estimated as in task-size.ts): parts per incoming message
//   (InvalidParams), messages and bytes kept per task's history (the oldest dropped, the newest
//   always kept), artifact bytes per task (the chunk that would exceed it is not kept and the task
//   fails with tooLargeFailure(), naming the limit; what came before stays), push configs per task
//   (InvalidParams; replacing one is allowed), bytes per ListTasks page (fewer tasks; at least one).
import { clone, create } from "@bufbuild/protobuf";
import { EmptySchema, type Empty } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../../generated/v1_0/index.js";
import { A2AError, invalidParams } from "../../versioning/errors.js";
import { policyOf } from "../../versioning/policy.js";
import { isTerminal } from "../../versioning/stream.js";
import type { Agent, AgentCardInit, AgentContext, AgentResult } from "./agent.js";
import type { A2AHandler } from "./handler.js";
import type { Subscription } from "./channel.js";
import { MemoryPushConfigStore, type PushConfigStore } from "../../push/config-store.js";
import { PushDelivery, type PushDeliveryOptions } from "../../push/delivery.js";
import { MemoryTaskStore, type TaskStore } from "../store/store.js";
import { acceptedInputModes, coversMediaType } from "./parts.js";
import { claimFollowUp, type TurnCoordinator } from "./coordinator.js";
import { eventBytes } from "../store/task-size.js";
import { once, ownerOf, runningTasksFull, TaskBook, taskNotFound, unrecordedError, view, type CallContext } from "./tasks.js";
import { PushRegistry } from "./push-configs.js";
import { agentMessage, LazyAbort, StatusClock, TurnContext } from "./turn.js";
import { finish, release, run, StreamSlice, TIMEOUT_FAILURE, transition, type Execution, type LiveTask } from "./execute.js";

const S = v1_0.TaskState;

export type { CallContext } from "./tasks.js";

export interface Logger {
  error(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

/** The default logger: console.error and console.warn. */
export const consoleLogger: Logger = {
  error: (obj, msg) => console.error(msg ?? "", obj),
  warn: (obj, msg) => console.warn(msg ?? "", obj),
};

export interface RuntimeOptions {
  agent: Agent;
  /** Default: a MemoryTaskStore with its default retention. */
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
  /** Webhook delivery settings: retries, timeouts, and the SSRF allow-list (`allow: ["127.0.0.1"]` …; src/push/delivery.ts). */
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
  /**
   * Estimated artifact bytes of all running (live) tasks together (default 1 GiB): while they hold
   * more, a send that would start or continue a task is refused, retryable; running tasks go on.
   */
  maxRunningTaskBytes?: number;
  /** Several replicas on one store acting as one agent (coordinator.ts; cluster.ts). Default: one process. */
  coordinator?: TurnCoordinator;
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
  maxRunningTaskBytes: 1024 * MiB,
} as const;

/** What starting a turn gives the caller: the agent's bare Message, or the task (and its stream). */
type Turn =
  | { kind: "message"; message: v1_0.Message }
  | { kind: "task"; live: LiveTask; subscription?: Subscription<v1_0.StreamResponse>; shown?: v1_0.Task };

export class TaskRuntime implements A2AHandler {
  private readonly clock = new StatusClock();
  readonly agent: Agent;
  readonly store: TaskStore;
  private readonly log: Logger;
  /** Live tasks, ownership, follow-up / cancel / subscribe rules, history, GetTask and ListTasks (tasks.ts). */
  private readonly book: TaskBook<LiveTask>;
  private readonly taskTimeoutMs: number;
  readonly pushConfigs: PushConfigStore;
  readonly pushDelivery: PushDelivery;
  /** Registration, reads and lists of push configs, and which tasks have webhooks (push-configs.ts). */
  private readonly push: PushRegistry;
  private readonly maxParts: number;
  private readonly maxRunningTaskBytes: number;
  /** The media types the card declares (parts.ts acceptedInputModes); other parts are refused. */
  private readonly inputModes: string[];
  /** What carrying out a result (execute.ts) uses of this runtime. */
  private readonly exec: Execution;
  private readonly coordinator: TurnCoordinator | undefined;

  constructor(opts: RuntimeOptions) {
    const limit = (v: number | undefined, d: number) => (v === undefined || !(v >= 1) ? d : Math.floor(v));
    this.maxParts = limit(opts.maxPartsPerMessage, DEFAULT_LIMITS.maxPartsPerMessage);
    this.maxRunningTaskBytes = limit(opts.maxRunningTaskBytes, DEFAULT_LIMITS.maxRunningTaskBytes);
    this.agent = opts.agent;
    this.inputModes = acceptedInputModes(opts.agent.card);
    this.store = opts.store ?? new MemoryTaskStore();
    this.log = opts.logger ?? consoleLogger;
    this.book = new TaskBook<LiveTask>({
      store: this.store,
      maxBufferedEvents: opts.maxBufferedEvents ?? 100_000,
      bufferBytes: { maxBytes: limit(opts.maxBufferedBytes, DEFAULT_LIMITS.maxBufferedBytes), sizeOf: eventBytes },
      maxHistory: limit(opts.maxHistory, DEFAULT_LIMITS.maxHistory),
      maxHistoryBytes: limit(opts.maxHistoryBytes, DEFAULT_LIMITS.maxHistoryBytes),
      maxListBytes: limit(opts.maxListBytes, DEFAULT_LIMITS.maxListBytes),
    });
    this.taskTimeoutMs = opts.taskTimeoutMs ?? 0;
    this.pushConfigs = opts.pushConfigs ?? new MemoryPushConfigStore();
    this.push = new PushRegistry(this.pushConfigs, {
      maxPerTask: limit(opts.maxPushConfigsPerTask, DEFAULT_LIMITS.maxPushConfigsPerTask),
      push: opts.push ?? {},
      logger: this.log,
    });
    this.pushDelivery = new PushDelivery(this.pushConfigs, { logger: this.log, ...opts.push });
    this.coordinator = opts.coordinator;
    this.exec = {
      agent: this.agent,
      book: this.book,
      log: this.log,
      clock: this.clock,
      push: this.push,
      pushDelivery: this.pushDelivery,
      coordinator: this.coordinator,
      maxArtifactBytes: limit(opts.maxArtifactBytes, DEFAULT_LIMITS.maxArtifactBytes),
      slice: new StreamSlice(),
    };
    this.coordinator?.attach({ cancel: (id, call) => this.cancelTask(create(v1_0.CancelTaskRequestSchema, { id }), call) });
  }

  get streaming(): boolean {
    return this.agent.card.capabilities?.streaming === true;
  }

  get pushNotifications(): boolean {
    return this.agent.card.capabilities?.pushNotifications === true;
  }

  /** Number of tasks currently held in memory by the runtime (running or streamed). */
  get liveTasks(): number {
    return this.book.size;
  }

  // ---------------------------------------------------------------- SendMessage / SendStreamingMessage

  async sendMessage(req: v1_0.SendMessageRequest, call: CallContext): Promise<v1_0.SendMessageResponse> {
    const turn = await this.startTurn(req, call, false);
    if (turn.kind === "message") return create(v1_0.SendMessageResponseSchema, { payload: { case: "message", value: turn.message } });
    const historyLength = req.configuration?.historyLength;
    if (turn.shown) return create(v1_0.SendMessageResponseSchema, { payload: { case: "task", value: view(turn.shown, historyLength) } });
    await turn.live.turnDone;
    if (turn.live.unrecorded) throw unrecordedError(turn.live.unrecorded);
    return create(v1_0.SendMessageResponseSchema, { payload: { case: "task", value: view(turn.live.task, historyLength) } });
  }

  /** Errors found before the stream starts reject the promise; the iterator then only yields events. */
  async sendStreamingMessage(req: v1_0.SendMessageRequest, call: CallContext): Promise<AsyncIterableIterator<v1_0.StreamResponse>> {
    if (!this.streaming) throw new A2AError("UnsupportedOperationError", "This agent does not support streaming");
    const turn = await this.startTurn(req, call, true);
    if (turn.kind === "message") return once(create(v1_0.StreamResponseSchema, { payload: { case: "message", value: turn.message } }));
    return turn.subscription!;
  }

  /**
   * A turn: the request checked, the task opened (new, or the follow-up's), the agent asked, then
   * a bare Message answered as it is, or the task admitted and the result run in the background.
   */
  private async startTurn(req: v1_0.SendMessageRequest, call: CallContext, streaming: boolean): Promise<Turn> {
    const incoming = await this.checkSend(req);
    if (this.book.taskBytes.bytes > this.maxRunningTaskBytes) throw runningTasksFull(this.maxRunningTaskBytes);
    const { existing, taskId, contextId } = await this.openTask(incoming, call);
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
    const result = await this.callAgent(userMessage, ctx, existing);
    if (result !== "crash" && result.kind === "message") return this.bareMessage(result, existing, taskId, contextId);
    const pushConfig = req.configuration?.taskPushNotificationConfig;
    if (pushConfig) await this.registerTurnPush(pushConfig, call, taskId, existing);
    const live = this.admit(existing, userMessage, call);
    live.abort = abort;
    live.context = ctx;
    if (this.coordinator) await this.beginReplicatedTurn(live, !existing);
    this.book.openTurn(live);
    const subscription = streaming ? this.book.stream(live) : undefined;
    // A returnImmediately reply (the task as recorded WORKING) and a stream's first event wait for
    // the COMMIT of this put; the turn goes on meanwhile, so a quick agent's later puts join it.
    const working = transition(this.exec, live, S.WORKING);
    const shown = !streaming && req.configuration?.returnImmediately ? view(live.task, undefined) : undefined;
    this.launch(live, result, ctx, abort);
    if (subscription || shown)
      await working.catch((e: unknown) => {
        void subscription?.return();
        throw live.unrecorded instanceof Error ? unrecordedError(e) : e;
      });
    // The turn's first events (WORKING) readable by every replica before the caller hears of the task.
    if (this.coordinator) await this.coordinator.settled();
    return { kind: "task", live, subscription, shown };
  }

  /** The request's message, once the request passes the checks that need no task (throws the refusal). */
  private async checkSend(req: v1_0.SendMessageRequest): Promise<v1_0.Message> {
    if (this.book.closed) throw new A2AError("UnsupportedOperationError", "The server is shutting down");
    const incoming = req.message;
    if (!incoming) throw invalidParams("/message", 'required field "message" is missing');
    if (incoming.parts.length > this.maxParts) throw invalidParams("/message/parts", `at most ${this.maxParts} parts per message`);
    // The card's input modes are a promise the runtime keeps for the agent (1.0 §3.1.1); a part
    // without a media type is taken.
    const refused = incoming.parts.findIndex((p) => p.mediaType !== "" && !coversMediaType(this.inputModes, p.mediaType));
    if (refused >= 0)
      throw new A2AError(
        "ContentTypeNotSupportedError",
        `This agent accepts ${this.inputModes.join(", ")} (its card's input modes); part ${refused} has media type ${incoming.parts[refused]!.mediaType}`,
      );
    const pushConfig = req.configuration?.taskPushNotificationConfig;
    if (pushConfig && !this.pushNotifications)
      throw new A2AError("PushNotificationNotSupportedError", "This agent does not support push notifications");
    if (pushConfig) await this.push.checkWebhook(pushConfig.url);
    if (req.configuration?.historyLength !== undefined && req.configuration.historyLength < 0)
      throw invalidParams("/configuration/historyLength", "must not be negative");
    return incoming;
  }

  /** The follow-up's task (now busy; TaskNotFound or the follow-up rule it breaks), else a new task's ids. */
  private async openTask(incoming: v1_0.Message, call: CallContext): Promise<{ existing?: LiveTask; taskId: string; contextId: string }> {
    if (!incoming.taskId) return { taskId: this.book.newId(), contextId: incoming.contextId || this.book.newId() };
    const existing = await this.book.continueWith(ownerOf(call), incoming);
    if (this.coordinator) await claimFollowUp(this.coordinator, this.store, existing, incoming, () => release(this.exec, existing, false));
    return { existing, taskId: existing.task.id, contextId: existing.task.contextId };
  }

  /** handleMessage's result; "crash" when it threw (logged). An A2AError it throws is the answer. */
  private async callAgent(userMessage: v1_0.Message, ctx: TurnContext, existing: LiveTask | undefined): Promise<AgentResult | "crash"> {
    try {
      const result = await this.agent.handleMessage(userMessage, ctx);
      if (!result || typeof result !== "object" || !("kind" in result)) throw new Error(`handleMessage returned ${String(result)}`);
      return result;
    } catch (e) {
      if (e instanceof A2AError) {
        if (existing) release(this.exec, existing, false);
        throw e;
      }
      this.log.error({ err: e, taskId: ctx.taskId }, "agent handleMessage threw");
      return "crash";
    }
  }

  /** A bare Message answers a new message as it is; for a follow-up it is InvalidAgentResponse. */
  private bareMessage(
    result: Extract<AgentResult, { kind: "message" }>,
    existing: LiveTask | undefined,
    taskId: string,
    contextId: string,
  ): Turn {
    if (existing) {
      release(this.exec, existing, false);
      throw new A2AError(
        "InvalidAgentResponseError",
        `The agent answered a message for task ${taskId} with a bare message; the task is unchanged`,
        { taskId },
      );
    }
    return { kind: "message", message: agentMessage(contextId, "", result.parts, result.metadata) };
  }

  /** Stores the request's push config for the task (InvalidParams beyond maxPushConfigsPerTask). */
  private async registerTurnPush(
    pushConfig: v1_0.TaskPushNotificationConfig,
    call: CallContext,
    taskId: string,
    existing: LiveTask | undefined,
  ): Promise<void> {
    try {
      await this.push.register(ownerOf(call), { ...pushConfig, taskId, tenant: "" }, policyOf(call.version).version);
    } catch (e) {
      if (existing) release(this.exec, existing, false);
      throw e;
    }
  }

  /** The live task the turn runs on: the follow-up's with the message in its history, or a new SUBMITTED one. */
  private admit(existing: LiveTask | undefined, userMessage: v1_0.Message, call: CallContext): LiveTask {
    if (existing && isTerminal(existing.task.status?.state)) {
      // Canceled while handleMessage ran: the message is not taken.
      this.book.forgetIfIdle(existing);
      throw new A2AError("UnsupportedOperationError", `Task ${existing.task.id} was canceled while this message was being handled`, {
        taskId: existing.task.id,
      });
    }
    if (existing) {
      this.book.addHistory(existing.task, userMessage);
      return existing;
    }
    // Filled in field by field: create() with nested initialisers checks and converts each one.
    const task = create(v1_0.TaskSchema, { id: userMessage.taskId, contextId: userMessage.contextId });
    task.status = create(v1_0.TaskStatusSchema, { state: S.SUBMITTED, timestamp: this.clock.now() });
    task.history.push(userMessage);
    return this.book.track(ownerOf(call), task);
  }

  /** Runs the result in the background, under taskTimeoutMs; the turn ends when run() does. */
  private launch(live: LiveTask, result: AgentResult | "crash", ctx: AgentContext, abort: LazyAbort): void {
    // openTurn() set both: the turn ends, and blocking callers wake, when run() is over.
    const endTurn = live.endTurn!;
    const turnDone = live.turnDone;
    const timer =
      this.taskTimeoutMs > 0
        ? setTimeout(() => {
            if (live.turnDone !== turnDone || isTerminal(live.task.status?.state)) return;
            this.log.warn({ taskId: live.task.id, timeoutMs: this.taskTimeoutMs }, "task timed out");
            abort.abort(new Error("task timed out"));
            void finish(this.exec, live, S.FAILED, [TIMEOUT_FAILURE]);
          }, this.taskTimeoutMs)
        : undefined;
    void run(this.exec, live, result, ctx).finally(() => {
      clearTimeout(timer);
      endTurn();
    });
  }

  /** With a coordinator: the lease (of a new task), the task recorded, the turn's first event published. */
  private async beginReplicatedTurn(live: LiveTask, isNew: boolean): Promise<void> {
    const c = this.coordinator!;
    if (isNew && !(await c.claim(live.owner, live.task.id))) throw new Error(`task id ${live.task.id} is taken`);
    await this.store.put(live.owner, live.task);
    c.beginTurn(live.task);
  }

  // ---------------------------------------------------------------- GetTask / ListTasks

  getTask(req: v1_0.GetTaskRequest, call: CallContext): Promise<v1_0.Task> {
    return this.book.getTask(req, call);
  }

  listTasks(req: v1_0.ListTasksRequest, call: CallContext): Promise<v1_0.ListTasksResponse> {
    return this.book.listTasks(req, call);
  }

  // ---------------------------------------------------------------- CancelTask / SubscribeToTask

  async cancelTask(req: v1_0.CancelTaskRequest, call: CallContext): Promise<v1_0.Task> {
    const elsewhere = !this.book.has(req.id) && (await this.coordinator?.cancelElsewhere(ownerOf(call), req.id, call));
    if (elsewhere) return view(elsewhere, undefined);
    const live = await this.book.toCancel(ownerOf(call), req.id);
    const abort = live.abort;
    const ctx = live.context;
    await finish(this.exec, live, S.CANCELED);
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
    if (this.coordinator && !this.book.has(req.id)) {
      // Not running here: the task's stream as the replica running it (if any) records it.
      const stored = await this.store.get(ownerOf(call), req.id);
      if (stored && !isTerminal(stored.status?.state)) return this.coordinator.subscribe(stored);
    }
    return this.book.subscribe(ownerOf(call), req.id, call.version);
  }

  // ---------------------------------------------------------------- push notifications, extended card

  private async pushTask(taskId: string, call: CallContext): Promise<v1_0.Task> {
    if (!this.pushNotifications) throw new A2AError("PushNotificationNotSupportedError", "This agent does not support push notifications");
    const task = await this.book.read(ownerOf(call), taskId);
    if (!task) throw taskNotFound(taskId);
    return task;
  }

  async createTaskPushNotificationConfig(
    req: v1_0.TaskPushNotificationConfig,
    call: CallContext,
  ): Promise<v1_0.TaskPushNotificationConfig> {
    await this.pushTask(req.taskId, call);
    await this.push.checkWebhook(req.url);
    return this.push.register(ownerOf(call), { ...req, tenant: "" }, policyOf(call.version).version);
  }

  async getTaskPushNotificationConfig(
    req: v1_0.GetTaskPushNotificationConfigRequest,
    call: CallContext,
  ): Promise<v1_0.TaskPushNotificationConfig> {
    await this.pushTask(req.taskId, call);
    // An id "" may name the task's sole (or first) config: 0.3's single-config form (L23, policy.ts).
    return this.push.get(ownerOf(call), req.taskId, req.id, policyOf(call.version).emptyConfigIdIsFirst);
  }

  async listTaskPushNotificationConfigs(
    req: v1_0.ListTaskPushNotificationConfigsRequest,
    call: CallContext,
  ): Promise<v1_0.ListTaskPushNotificationConfigsResponse> {
    await this.pushTask(req.taskId, call);
    return this.push.list(ownerOf(call), req);
  }

  async deleteTaskPushNotificationConfig(req: v1_0.DeleteTaskPushNotificationConfigRequest, call: CallContext): Promise<Empty> {
    await this.pushTask(req.taskId, call);
    await this.push.delete(ownerOf(call), req.taskId, req.id);
    return create(EmptySchema);
  }

  /** @deprecated the A2AHandler name is createTaskPushNotificationConfig */
  createPushConfig(req: v1_0.TaskPushNotificationConfig, call: CallContext): Promise<v1_0.TaskPushNotificationConfig> {
    return this.createTaskPushNotificationConfig(req, call);
  }
  /** @deprecated the A2AHandler name is getTaskPushNotificationConfig */
  getPushConfig(req: v1_0.GetTaskPushNotificationConfigRequest, call: CallContext): Promise<v1_0.TaskPushNotificationConfig> {
    return this.getTaskPushNotificationConfig(req, call);
  }
  /** @deprecated the A2AHandler name is listTaskPushNotificationConfigs */
  listPushConfigs(
    req: v1_0.ListTaskPushNotificationConfigsRequest,
    call: CallContext,
  ): Promise<v1_0.ListTaskPushNotificationConfigsResponse> {
    return this.listTaskPushNotificationConfigs(req, call);
  }
  /** @deprecated the A2AHandler name is deleteTaskPushNotificationConfig */
  deletePushConfig(req: v1_0.DeleteTaskPushNotificationConfigRequest, call: CallContext): Promise<Empty> {
    return this.deleteTaskPushNotificationConfig(req, call);
  }

  /** The agent's public card declaration, and whether it has an extended one (the front publishes both). */
  card(): { declaration: AgentCardInit; extended: boolean } {
    return { declaration: this.agent.card, extended: this.agent.extendedCard !== undefined };
  }

  /** The agent's extended card declaration; UnsupportedOperationError when it has none. */
  async getExtendedAgentCard(_req: v1_0.GetExtendedAgentCardRequest, _call: CallContext): Promise<AgentCardInit> {
    return this.extendedCardInit();
  }

  /** The agent's extended card (interfaces are filled in by the caller). */
  hasExtendedCard(): boolean {
    return this.agent.extendedCard !== undefined;
  }

  extendedCardInit(): AgentCardInit {
    if (!this.agent.extendedCard) throw new A2AError("UnsupportedOperationError", "This agent has no extended agent card");
    return this.agent.extendedCard;
  }

  /** Aborts every running task; they end FAILED. Streams still open are closed. */
  async close(): Promise<void> {
    this.book.closed = true;
    for (const l of this.book.entries()) l.abort?.abort(new Error("server shutting down"));
    this.book.closeStreams();
    await this.pushDelivery.close();
    await this.coordinator?.close();
    await this.store.close?.();
  }
}
