// The gateway's task runtime: an A2AHandler that the reference server's front serves exactly like a
// TaskRuntime (so callers speak 1.0 or 0.3, JSON-RPC or HTTP+JSON), keeping its tasks in the same
// TaskBook (src/server/engine/tasks.ts: principals own tasks, follow-up and terminal rules, views and
// subscriptions are the server's), but a turn is not an agent call: it is a message forwarded to a backend
// agent, in that backend's own version and binding (the reference client), and the remote task
// followed until it is terminal or interrupted.
//
// Rules (README "Gateway"):
// - Routing: `message.metadata.agent_id`, else `metadata.agent_id` of the request, names the
//   backend (its configured name, or the id of a skill the gateway publishes for it). Without one
//   the configured default backend is used (the only backend when there is just one). An unknown
//   agent_id, or none when there is no default, is InvalidParamsError.
// - A new message creates a local task (its own id; the caller's contextId, else a fresh one) once
//   the backend has answered with its task; a bare Message from the backend is answered as is and
//   creates no task. The local task's metadata holds the correlation: `a2a_task_id`,
//   `a2a_context_id` (the remote side's ids) and `a2a_backend` (the backend's name).
// - A follow-up message (`taskId` of a local task) is forwarded with the remote task's and context's
//   ids, so input-required and auth-required pass through in both directions. Follow-up rules
//   (unknown, terminal, busy, other contextId) are the reference server's.
// - A blocking caller's turn is one blocking SendMessage to the backend (the caller waits for the
//   end anyway; a remote task still running when that answer comes is followed as below).
//   `returnImmediately` and streaming callers get the local task as soon as the backend has
//   answered with its task (returnImmediately, or the first event of a stream), and the remote task
//   is followed: by subscribing when the backend's card declares streaming (the client
//   resubscribes after a drop), else by polling GetTask with backoff (250 ms × 1.5 up to 5 s).
//   Remote status and artifact updates are re-published on the local task with the local ids.
// - A turn has a deadline: the backend's `timeoutMs` (default 5 minutes), or less when the request
//   carries `metadata.a2a_timeout_ms`. A backend that cannot be reached, answers something that is
//   not A2A, fails mid-stream or misses the deadline ends the local task FAILED with a generic
//   status message; the details go to the log only. An A2A error with which the backend refuses the
//   message itself (InvalidParams …) is passed to the caller, and the local task is unchanged.
//   A turn that misses its deadline while the remote task is being followed is also canceled on the
//   backend, best effort (a blocking call that never answered leaves no remote id to cancel).
// - CancelTask cancels the local task at once and then forwards CancelTask to the backend, best
//   effort: a backend that cannot be reached or refuses is logged, the local task stays CANCELED.
// - Restart: a task the gateway was following is recorded WORKING with its correlation; a gateway
//   started again on the same persistent store takes it up (`resume`: read the remote task, then
//   follow it as above, under a fresh deadline). One whose backend is no longer configured (or
//   without a remote id) is failed with RESUME_FAILURE.
// - Replicas (`coordinator`, PostgreSQL): a followed task has a lease (claimed before the task is
//   recorded, released after its turn's last write; kept on close() so that it expires); only its
//   holder follows the backend. Another replica serves SubscribeToTask from the recorded events
//   and forwards CancelTask to the holder; a replica that finds an expired lease takes it over and
//   resumes the task (resume) instead of failing it.
// - Not carried: push notifications (the gateway card does not declare them), `referenceTaskIds`
//   (local ids mean nothing to a backend; they are dropped), the extended card.
import { clone, create, type JsonObject } from "@bufbuild/protobuf";
import { timestampNow, type Empty } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { Agent, AgentCardInit } from "../server/engine/agent.js";
import type { A2AHandler } from "../server/engine/handler.js";
import { TIMEOUT_FAILURE } from "../server/engine/execute.js";
import { DEFAULT_LIMITS, type Logger } from "../server/engine/runtime.js";
import { isTerminal } from "../versioning/stream.js";
import { claimFollowUp, type TurnCoordinator } from "../server/engine/coordinator.js";
import { MemoryTaskStore, type TaskStore } from "../server/store/store.js";
import { once, ownerOf, TaskBook, unrecordedError, view, type CallContext } from "../server/engine/tasks.js";
import { eventBytes } from "../server/store/task-size.js";
import { A2AError, invalidParams } from "../versioning/errors.js";
import type { Backend } from "./backends.js";
import { BACKEND_FAILURE, cancelRemote, startFollowing } from "./follow.js";
import { answerTooLarge } from "./http-fetch.js";
import { endTurn, fail, openTurn, releaseTurn, setLocalStatus, type GatewayTask, type Mirror } from "./mirror.js";
import { clip, numberAt, openRemote, stringAt, turnClock, type RemoteStart, type TaskStart, type TurnClock } from "./remote.js";

const S = v1_0.TaskState;

/** Status message of a local task whose backend failed (follow.ts; details are logged, never sent). */
export { BACKEND_FAILURE };
/** Status message of a task left running by a previous gateway process that cannot be followed again. */
export const RESUME_FAILURE = "The gateway stopped while this task was running and cannot follow it again; the task did not finish.";
export const META_REMOTE_TASK = "a2a_task_id";
export const META_REMOTE_CONTEXT = "a2a_context_id";
export const META_BACKEND = "a2a_backend";
/** Request metadata key a caller may use to shorten the turn's deadline (ms). */
export const META_CALLER_TIMEOUT = "a2a_timeout_ms";

export interface GatewayRuntimeOptions {
  /** The gateway's card (an Agent may be given; only its card is read). */
  agent: Pick<Agent, "card">;
  backends: readonly Backend[];
  /** Backend for messages without agent_id (default: the only backend, if there is one). */
  defaultBackend?: string;
  store?: TaskStore;
  logger?: Logger;
  maxBufferedEvents?: number;
  /** Per task, as on the reference server (defaults there): history bytes (oldest dropped), artifact bytes (task fails). */
  maxHistoryBytes?: number;
  maxArtifactBytes?: number;
  /**
   * Several gateway replicas on one store acting as one (the PgCoordinator of src/server/replicas/cluster.ts,
   * started with `takeOver` calling resume): a followed task's lease, events for subscribers on
   * other replicas, cancels forwarded. Default: one process.
   */
  coordinator?: TurnCoordinator;
}

/** What beginning a turn gives the caller: the backend's bare Message, or the local task (and its stream). */
type Turn =
  | { kind: "message"; message: v1_0.Message }
  | { kind: "task"; g: GatewayTask; subscription?: AsyncIterableIterator<v1_0.StreamResponse>; shown?: v1_0.Task };

/** A turn being begun: what the steps of `begin` hand on to each other. */
interface Opening {
  req: v1_0.SendMessageRequest;
  call: CallContext;
  owner: string;
  backend: Backend;
  /** The follow-up's task (busy until the turn ends); none for a new message. */
  existing?: GatewayTask;
  localTaskId: string;
  localContextId: string;
  /** (owner, backend, local contextId): the key of the remote context this conversation uses (`contexts`). */
  contextKey: string;
  deadlineMs: number;
  clock: TurnClock;
  streaming: boolean;
  /** One blocking SendMessage to the backend: neither streaming nor returnImmediately. */
  blocking: boolean;
}

export class GatewayRuntime implements A2AHandler {
  /** The gateway's card. */
  readonly agent: Pick<Agent, "card">;
  readonly store: TaskStore;
  /** Live tasks, ownership, follow-up / cancel / subscribe rules, history, GetTask and ListTasks (shared with TaskRuntime). */
  private readonly book: TaskBook<GatewayTask>;
  /** What mirror.ts and follow.ts use of this runtime: its tasks, log, replicas and artifact limit. */
  private readonly mirror: Mirror;
  private readonly backends = new Map<string, Backend>();
  /** agent_id → backend: backend names and the ids of the skills published for them. */
  private readonly routes = new Map<string, Backend>();
  private readonly defaultBackend: Backend | undefined;
  /** (owner, backend, local contextId) → remote contextId, so one local conversation stays one remote one. */
  private readonly contexts = new Map<string, string>();
  private readonly logger: Logger;
  private readonly coordinator: TurnCoordinator | undefined;

  constructor(opts: GatewayRuntimeOptions) {
    // The limits as on the reference server (runtime.ts RuntimeOptions and DEFAULT_LIMITS).
    const limit = (v: number | undefined, d: number) => (v === undefined || !(v >= 1) ? d : Math.floor(v));
    this.agent = opts.agent;
    this.store = opts.store ?? new MemoryTaskStore();
    this.book = new TaskBook<GatewayTask>({
      store: this.store,
      maxBufferedEvents: opts.maxBufferedEvents ?? 100_000,
      bufferBytes: { maxBytes: DEFAULT_LIMITS.maxBufferedBytes, sizeOf: eventBytes },
      maxHistory: DEFAULT_LIMITS.maxHistory,
      maxHistoryBytes: limit(opts.maxHistoryBytes, DEFAULT_LIMITS.maxHistoryBytes),
      maxListBytes: DEFAULT_LIMITS.maxListBytes,
    });
    this.coordinator = opts.coordinator;
    this.coordinator?.attach({ cancel: (id, call) => this.cancelTask(create(v1_0.CancelTaskRequestSchema, { id }), call) });
    this.logger = opts.logger ?? { error: (o, m) => console.error(m ?? "", o), warn: (o, m) => console.warn(m ?? "", o) };
    const maxArtifactBytes = limit(opts.maxArtifactBytes, DEFAULT_LIMITS.maxArtifactBytes);
    this.mirror = { book: this.book, logger: this.logger, coordinator: this.coordinator, maxArtifactBytes };
    for (const b of opts.backends) {
      this.backends.set(b.name, b);
      this.routes.set(b.name, b);
    }
    const only = opts.backends.length === 1 ? opts.backends[0] : undefined;
    const name = opts.defaultBackend ?? only?.name;
    this.defaultBackend = name === undefined ? undefined : this.backends.get(name);
    if (name !== undefined && !this.defaultBackend) throw new Error(`default backend "${name}" is not configured`);
  }

  /** Makes `agentId` (a published skill id) route to `backend`, unless it already routes somewhere. */
  addRoute(agentId: string, backend: Backend): void {
    if (!this.routes.has(agentId)) this.routes.set(agentId, backend);
  }

  /** The backend a new message goes to (see the routing rule above). */
  route(req: v1_0.SendMessageRequest): Backend {
    const id = stringAt(req.message?.metadata, "agent_id") ?? stringAt(req.metadata, "agent_id");
    const known = () => [...this.backends.keys()].join(", ");
    if (id === undefined || id === "") {
      if (this.defaultBackend) return this.defaultBackend;
      throw invalidParams("/message/metadata/agent_id", `is required: this gateway has no default agent (agents: ${known()})`);
    }
    const b = this.routes.get(id);
    if (!b) throw invalidParams("/message/metadata/agent_id", `"${clip(id)}" names no agent of this gateway (agents: ${known()})`);
    return b;
  }

  // ---------------------------------------------------------------- SendMessage / SendStreamingMessage

  async sendMessage(req: v1_0.SendMessageRequest, call: CallContext): Promise<v1_0.SendMessageResponse> {
    const turn = await this.begin(req, call, false);
    if (turn.kind === "message") return create(v1_0.SendMessageResponseSchema, { payload: { case: "message", value: turn.message } });
    const historyLength = req.configuration?.historyLength;
    if (!turn.shown) await turn.g.turnDone;
    if (!turn.shown && turn.g.unrecorded) throw unrecordedError();
    return create(v1_0.SendMessageResponseSchema, { payload: { case: "task", value: view(turn.shown ?? turn.g.task, historyLength) } });
  }

  async sendStreamingMessage(req: v1_0.SendMessageRequest, call: CallContext): Promise<AsyncIterableIterator<v1_0.StreamResponse>> {
    const turn = await this.begin(req, call, true);
    if (turn.kind === "message") return once(create(v1_0.StreamResponseSchema, { payload: { case: "message", value: turn.message } }));
    return turn.subscription!;
  }

  /**
   * A turn: the request checked, the backend chosen (the follow-up's task's, or the route's), the
   * message forwarded, then a bare Message answered as it is, or the local task admitted, the
   * remote task followed and the caller given its first reply.
   */
  private async begin(req: v1_0.SendMessageRequest, call: CallContext, streaming: boolean): Promise<Turn> {
    const incoming = this.checkSend(req);
    const owner = ownerOf(call);
    const { existing, backend } = await this.resolve(req, incoming, owner);
    const callerMs = numberAt(req.metadata, META_CALLER_TIMEOUT);
    const deadlineMs = Math.min(backend.turnTimeoutMs, callerMs && callerMs > 0 ? callerMs : Infinity);
    const localContextId = existing?.task.contextId ?? (incoming.contextId || this.book.newId());
    const o: Opening = {
      req,
      call,
      owner,
      backend,
      existing,
      localTaskId: existing?.task.id ?? this.book.newId(),
      localContextId,
      contextKey: `${owner}\u001f${backend.name}\u001f${localContextId}`,
      deadlineMs,
      clock: turnClock(deadlineMs),
      streaming,
      blocking: !streaming && req.configuration?.returnImmediately !== true,
    };
    const { outgoing, userMessage } = this.messages(o, incoming);
    // A cancel of a continued task while the backend is being asked aborts the call.
    if (existing) existing.follower = o.clock.follower;
    const { start, failure } = await this.forward(o, outgoing);
    if (start?.kind !== "task") clearTimeout(o.clock.timer);
    if (start?.kind === "message") return this.bareMessage(o, start.message);
    const live = await this.admit(o, start, userMessage);
    return this.launch(o, live, start, failure);
  }

  /** The request's message, once the request passes the checks that need no task (throws the refusal). */
  private checkSend(req: v1_0.SendMessageRequest): v1_0.Message {
    if (this.book.closed) throw new A2AError("UnsupportedOperationError", "The gateway is shutting down");
    const incoming = req.message;
    if (!incoming) throw invalidParams("/message", 'required field "message" is missing');
    if (req.configuration?.taskPushNotificationConfig)
      throw new A2AError("PushNotificationNotSupportedError", "This gateway does not support push notifications");
    if (req.configuration?.historyLength !== undefined && req.configuration.historyLength < 0)
      throw invalidParams("/configuration/historyLength", "must not be negative");
    return incoming;
  }

  /** The follow-up's task (now busy) and its backend, else the backend the route names. */
  private async resolve(
    req: v1_0.SendMessageRequest,
    incoming: v1_0.Message,
    owner: string,
  ): Promise<{ existing?: GatewayTask; backend: Backend }> {
    if (!incoming.taskId) return { backend: this.route(req) };
    const existing = await this.book.continueWith(owner, incoming);
    const backend = this.backends.get(stringAt(existing.task.metadata, META_BACKEND) ?? "");
    if (!backend) {
      this.book.release(existing, false);
      throw new A2AError("UnsupportedOperationError", `The agent of task ${existing.task.id} is no longer configured on this gateway`);
    }
    if (this.coordinator) await claimFollowUp(this.coordinator, this.store, existing, incoming, () => releaseTurn(this.mirror, existing));
    return { existing, backend };
  }

  /** The message as the backend gets it (the remote ids, no referenceTaskIds) and as the local history keeps it. */
  private messages(o: Opening, incoming: v1_0.Message): { outgoing: v1_0.Message; userMessage: v1_0.Message } {
    const g = o.existing;
    const outgoing = clone(v1_0.MessageSchema, incoming);
    outgoing.taskId = g ? (stringAt(g.task.metadata, META_REMOTE_TASK) ?? "") : "";
    outgoing.contextId = g ? (stringAt(g.task.metadata, META_REMOTE_CONTEXT) ?? "") : (this.contexts.get(o.contextKey) ?? "");
    outgoing.referenceTaskIds = [];
    const userMessage = incoming;
    userMessage.taskId = o.localTaskId;
    userMessage.contextId = o.localContextId;
    return { outgoing, userMessage };
  }

  /**
   * Forwards the message: the backend's first answer, or the failure text when it gave none (the
   * details logged). An A2A error refusing the message is thrown to the caller (the follow-up's
   * task released, unchanged).
   */
  private async forward(o: Opening, outgoing: v1_0.Message): Promise<{ start?: RemoteStart; failure?: string }> {
    const signal = o.clock.follower.signal;
    try {
      return { start: await openRemote(o.backend, outgoing, o.req, signal, o.call.extensions, o.blocking) };
    } catch (e) {
      if (e instanceof A2AError && !signal.aborted) {
        if (o.existing) releaseTurn(this.mirror, o.existing);
        this.logger.warn({ err: e, backend: o.backend.name, taskId: o.localTaskId }, "backend refused the message");
        throw new A2AError(e.type, e.message, e.metadata);
      }
      const log = { err: e, backend: o.backend.name, taskId: o.localTaskId, deadlineMs: o.deadlineMs };
      this.logger.error(log, "backend failed before answering");
      return { failure: answerTooLarge(e)?.message ?? (o.clock.deadline.aborted ? TIMEOUT_FAILURE : BACKEND_FAILURE) };
    }
  }

  /** A bare Message answers a new message as it is (in the local context); for a follow-up it is InvalidAgentResponse. */
  private bareMessage(o: Opening, message: v1_0.Message): Turn {
    if (o.existing) {
      releaseTurn(this.mirror, o.existing);
      throw new A2AError("InvalidAgentResponseError", `The agent answered a message for task ${o.localTaskId} with a bare message`, {
        taskId: o.localTaskId,
      });
    }
    const m = clone(v1_0.MessageSchema, message);
    m.contextId = o.localContextId;
    m.taskId = "";
    return { kind: "message", message: m };
  }

  /**
   * The local task the turn runs on: the follow-up's with the message in its history, or a new
   * SUBMITTED one (its lease claimed, with replicas); the remote ids in its metadata.
   */
  private async admit(o: Opening, start: TaskStart | undefined, userMessage: v1_0.Message): Promise<GatewayTask> {
    let g = o.existing;
    if (g) {
      if (isTerminal(g.task.status?.state)) {
        // Canceled while the backend was being asked: the message is not taken.
        o.clock.follower.abort();
        this.book.forgetIfIdle(g);
        throw new A2AError("UnsupportedOperationError", `Task ${o.localTaskId} was canceled while this message was being forwarded`);
      }
      this.book.addHistory(g.task, userMessage);
      g.staleStatusId = g.task.status?.message?.messageId;
    } else {
      const metadata: JsonObject = { [META_BACKEND]: o.backend.name };
      if (start) {
        metadata[META_REMOTE_TASK] = start.task.id;
        metadata[META_REMOTE_CONTEXT] = start.task.contextId;
        if (start.task.contextId) this.remember(o.contextKey, start.task.contextId);
      }
      const task = create(v1_0.TaskSchema, {
        id: o.localTaskId,
        contextId: o.localContextId,
        status: { state: S.SUBMITTED, timestamp: timestampNow() },
        history: [userMessage],
        metadata,
      });
      if (this.coordinator && !(await this.coordinator.claim(o.owner, o.localTaskId))) throw new Error(`task id ${o.localTaskId} is taken`);
      g = this.book.track(o.owner, task);
    }
    if (start && g.task.metadata) {
      g.task.metadata[META_REMOTE_TASK] = start.task.id;
      g.task.metadata[META_REMOTE_CONTEXT] = start.task.contextId;
    }
    return g;
  }

  /**
   * Opens the turn on the local task, starts following the remote task (or fails the turn when the
   * backend gave no answer), and gives the caller its first reply.
   */
  private async launch(o: Opening, live: GatewayTask, start: TaskStart | undefined, failure: string | undefined): Promise<Turn> {
    openTurn(this.mirror, live, o.clock.follower);
    this.coordinator?.beginTurn(live.task);
    const subscription = o.streaming ? this.book.stream(live) : undefined;
    if (!start) {
      await fail(this.mirror, live, failure ?? BACKEND_FAILURE);
    } else {
      setLocalStatus(this.mirror, live, S.WORKING);
      startFollowing(this.mirror, live, o.backend, start, o.clock);
    }
    // A returnImmediately reply (the task as recorded now) and a stream's first event wait for the
    // COMMIT of that put; a blocking caller waits for the turn's last one (endTurn).
    const shown = !o.streaming && !o.blocking ? view(live.task, undefined) : undefined;
    if (!o.blocking) await live.written;
    // The turn's first events readable by every replica before the caller hears of the task.
    if (!o.blocking && this.coordinator) await this.coordinator.settled();
    return { kind: "task", g: live, subscription, shown };
  }

  // ---------------------------------------------------------------- resuming after a restart

  /**
   * Takes up a task a previous gateway process left SUBMITTED or WORKING (read from a persistent
   * store on start, before serving; `SqliteTaskStore.listRunning()`): the task is live again and its
   * remote task is followed as after a returnImmediately send (a GetTask first, then subscribing
   * when the backend streams, else polling), under a fresh turn deadline of the backend's
   * `timeoutMs`. A task whose metadata names no remote task (a task is recorded only once its backend
   * has answered, so only a file written otherwise holds one) or a backend no longer configured
   * ends FAILED with RESUME_FAILURE. Resolves true when
   * the task is followed again, false when it was failed (or is already live here).
   */
  async resume(owner: string, task: v1_0.Task): Promise<boolean> {
    if (this.book.closed || this.book.has(task.id)) return false;
    if (this.coordinator) {
      // Replicas: only the lease holder follows (a lease another replica holds: not ours to resume).
      if (!(await this.coordinator.claim(owner, task.id, 0))) return false;
      task = (await this.store.get(owner, task.id)) ?? task;
    }
    const state = task.status?.state;
    if (state !== S.SUBMITTED && state !== S.WORKING) {
      this.coordinator?.release(task.id);
      return false;
    }
    const g = this.book.track(owner, clone(v1_0.TaskSchema, task));
    this.coordinator?.beginTurn(g.task);
    const backendName = stringAt(g.task.metadata, META_BACKEND) ?? "";
    const backend = this.backends.get(backendName);
    const remoteTaskId = stringAt(g.task.metadata, META_REMOTE_TASK) ?? "";
    const remoteContextId = stringAt(g.task.metadata, META_REMOTE_CONTEXT) ?? "";
    if (!backend || !remoteTaskId) {
      openTurn(this.mirror, g, undefined);
      this.logger.error(
        { backend: backendName, taskId: g.task.id, remoteTaskId, configured: backend !== undefined },
        "cannot follow a task left running by a previous process",
      );
      await fail(this.mirror, g, RESUME_FAILURE);
      return false;
    }
    if (remoteContextId) this.remember(`${owner}\u001f${backend.name}\u001f${g.task.contextId}`, remoteContextId);
    // The last agent message was the remote side's (a local one only ends a task): a snapshot still
    // showing it adds nothing, and an interrupted one is the previous turn's.
    let lastAgent: string | undefined;
    for (const m of g.task.history) if (m.role === v1_0.Role.AGENT) lastAgent = m.messageId;
    g.remoteStatusId = lastAgent;
    g.staleStatusId = lastAgent;
    const clock = turnClock(backend.turnTimeoutMs);
    openTurn(this.mirror, g, clock.follower);
    if (state === S.SUBMITTED) setLocalStatus(this.mirror, g, S.WORKING);
    const remote = create(v1_0.TaskSchema, { id: remoteTaskId, contextId: remoteContextId });
    startFollowing(this.mirror, g, backend, { kind: "task", task: remote, resume: true }, clock);
    return true;
  }

  private remember(key: string, remoteContextId: string): void {
    this.contexts.delete(key);
    this.contexts.set(key, remoteContextId);
    if (this.contexts.size > 100_000) this.contexts.delete(this.contexts.keys().next().value as string);
  }

  // ---------------------------------------------------------------- GetTask / ListTasks / CancelTask / SubscribeToTask

  getTask(req: v1_0.GetTaskRequest, call: CallContext): Promise<v1_0.Task> {
    return this.book.getTask(req, call);
  }

  listTasks(req: v1_0.ListTasksRequest, call: CallContext): Promise<v1_0.ListTasksResponse> {
    return this.book.listTasks(req, call);
  }

  async cancelTask(req: v1_0.CancelTaskRequest, call: CallContext): Promise<v1_0.Task> {
    const elsewhere = !this.book.has(req.id) && (await this.coordinator?.cancelElsewhere(ownerOf(call), req.id, call));
    if (elsewhere) return view(elsewhere, undefined);
    const g = await this.book.toCancel(ownerOf(call), req.id);
    const follower = g.follower;
    setLocalStatus(this.mirror, g, S.CANCELED);
    await endTurn(this.mirror, g);
    follower?.abort(new Error("canceled by the caller"));
    // Best effort: the local task is CANCELED whatever the backend says.
    const remoteId = stringAt(g.task.metadata, META_REMOTE_TASK);
    const backend = this.backends.get(stringAt(g.task.metadata, META_BACKEND) ?? "");
    if (remoteId && backend) await cancelRemote(this.mirror, backend, g.task.id, remoteId);
    return view(g.task, undefined);
  }

  async subscribeToTask(req: v1_0.SubscribeToTaskRequest, call: CallContext): Promise<AsyncIterableIterator<v1_0.StreamResponse>> {
    if (this.coordinator && !this.book.has(req.id)) {
      // Followed by another replica (if any): the task's stream as that replica records it.
      const stored = await this.store.get(ownerOf(call), req.id);
      if (stored && !isTerminal(stored.status?.state)) return this.coordinator.subscribe(stored);
    }
    return this.book.subscribe(ownerOf(call), req.id, call.version);
  }

  // ---------------------------------------------------------------- not carried: push notifications, the extended card

  createTaskPushNotificationConfig(_req: v1_0.TaskPushNotificationConfig, _call: CallContext): Promise<v1_0.TaskPushNotificationConfig> {
    return noPush();
  }

  getTaskPushNotificationConfig(
    _req: v1_0.GetTaskPushNotificationConfigRequest,
    _call: CallContext,
  ): Promise<v1_0.TaskPushNotificationConfig> {
    return noPush();
  }

  listTaskPushNotificationConfigs(
    _req: v1_0.ListTaskPushNotificationConfigsRequest,
    _call: CallContext,
  ): Promise<v1_0.ListTaskPushNotificationConfigsResponse> {
    return noPush();
  }

  deleteTaskPushNotificationConfig(_req: v1_0.DeleteTaskPushNotificationConfigRequest, _call: CallContext): Promise<Empty> {
    return noPush();
  }

  async getExtendedAgentCard(_req: v1_0.GetExtendedAgentCardRequest, _call: CallContext): Promise<AgentCardInit> {
    throw new A2AError("UnsupportedOperationError", "This agent has no extended agent card");
  }

  card(): { declaration: AgentCardInit; extended: boolean } {
    return { declaration: this.agent.card, extended: false };
  }

  /** Number of tasks currently held in memory (being followed or streamed). */
  get liveTasks(): number {
    return this.book.size;
  }

  /**
   * Stops following every remote task and closes streams. The tasks being followed are left in the
   * store as last recorded (WORKING): a gateway started again on the same store resumes them.
   */
  async close(): Promise<void> {
    this.book.closed = true;
    for (const g of this.book.entries()) g.follower?.abort(new Error("gateway shutting down"));
    this.book.closeStreams();
    await this.coordinator?.close();
    await this.store.close?.();
  }
}

/** What the push-notification operations answer: the gateway's card does not declare them. */
async function noPush(): Promise<never> {
  throw new A2AError("PushNotificationNotSupportedError", "This agent does not support push notifications");
}
