// The book-keeping of live tasks that the reference server's TaskRuntime and the gateway's runtime
// share: which tasks are held in memory (running or streamed) and by whom, the rules a follow-up
// message, a cancel and a subscription meet, history trimming, the views a response gets, and
// GetTask / ListTasks over the live copies and the TaskStore.
//
// What a turn is differs (an agent call, a message forwarded to a backend) and stays with each
// runtime; an entry (`LiveEntry`) carries the common fields and each runtime adds optional ones.
//
// Rules:
// - Tasks belong to an owner (ownerOf: the principal within the request's tenant); another owner
//   gets TaskNotFound, as for a task that does not exist.
// - An entry lives while a turn runs (`busy`) or a stream listens; then it is forgotten and the
//   store's copy is the task.
// - History keeps the newest message always; beyond maxHistory messages or maxHistoryBytes the
//   oldest are dropped.
import { clone, create } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { randomUUID } from "node:crypto";
import * as v1_0 from "../../../generated/v1_0/index.js";
import { A2AError, invalidParams, isRetryableCause, retryable } from "../../versioning/errors.js";
import { policyOf } from "../../versioning/policy.js";
import { endsStream, isTerminal } from "../../versioning/stream.js";
import { Channel, type ChannelByteLimit, type Subscription } from "./channel.js";
import type { ListCursor, TaskStore } from "../store/store.js";
import { artifactBytes, artifactsBytes, historyBytes, messageBytes, partsBytes } from "../store/task-size.js";

/** Who is calling and how: what the transport layer learnt about the request. */
export interface CallContext {
  /** Authenticated principal; tasks are visible to their owner only. */
  principal: string;
  /** Wire version of the request (a ProtocolVersion; its rules: src/versioning/policy.ts). */
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

/** A task held in memory: the authoritative copy while it is here. */
export interface LiveEntry {
  owner: string;
  task: v1_0.Task;
  channel: Channel<v1_0.StreamResponse>;
  /** A turn is in progress. */
  busy: boolean;
  /** Estimated bytes of task.artifacts (task-size.ts). */
  artifactBytes: number;
  /** The book's total of its live tasks' artifact bytes, kept by keepArtifact as the artifacts change. */
  tally?: ByteTally;
  /** Resolves when the current turn ends (blocking callers wait on it). */
  turnDone?: Promise<void>;
  endTurn?: () => void;
  /** Events waiting for the COMMIT of a status before them (publishInOrder). */
  held?: Promise<void>;
  /** The last write failed (recordTask; the caller is not told the task): true, or the retryable error (LeaseLostError, an outage) it failed with. */
  unrecorded?: boolean | Error;
}

/** What a caller gets instead of a task whose last change could not be written (recordTask). */
export function unrecordedError(cause?: unknown): A2AError {
  // A replica past its lease (pg-store.ts LeaseLostError): another replica has the task; retry there.
  if (isRetryableCause(cause) && cause.name === "LeaseLostError")
    return retryable(new A2AError("InternalError", "This replica no longer holds the task's lease; retry the request."));
  // The store could not be reached (pg-store.ts marks an outage retryable).
  if (isRetryableCause(cause))
    return retryable(
      new A2AError("InternalError", "The task store is unavailable, so the task's last change was not recorded; retry the request."),
    );
  return new A2AError("InternalError", "The server could not record the task's state; its last change may be lost.");
}

/**
 * Writes the entry's task; settles after the COMMIT, rejecting as the store did. A change that
 * could not be written is never reported as made: `onError` is called (to log it), the entry is
 * marked `unrecorded` (a blocking caller then gets unrecordedError() instead of the task), its
 * streams end with that error, and the status event waiting for this write is not published
 * (publishInOrder).
 */
export function recordTask(store: TaskStore, entry: LiveEntry, onError: (err: unknown) => void): Promise<void> {
  const put = store.put(entry.owner, entry.task);
  put.catch((err: unknown) => {
    onError(err);
    entry.unrecorded = isRetryableCause(err) ? err : true;
    entry.channel.fail(unrecordedError(err));
  });
  return put;
}

export interface TaskBookOptions {
  store: TaskStore;
  /** Events one stream subscriber may fall behind before it is disconnected. */
  maxBufferedEvents: number;
  /** Byte limit of each stream subscriber's buffer (channel.ts). */
  bufferBytes: ChannelByteLimit<v1_0.StreamResponse>;
  maxHistory: number;
  maxHistoryBytes: number;
  /** Estimated bytes of the tasks of one ListTasks page. */
  maxListBytes: number;
}

/** A running total of bytes, shared by a book and its entries. */
export interface ByteTally {
  bytes: number;
}

const PAGE_SIZE_DEFAULT = 50;
const PAGE_SIZE_MAX = 100;

/** The live tasks of one runtime; `E` is the runtime's entry, whose own fields are optional. */
export class TaskBook<E extends LiveEntry> {
  private readonly live = new Map<string, E>();
  readonly store: TaskStore;
  /** Set by close(): no new turn starts. */
  closed = false;
  /**
   * Estimated artifact bytes of every task held live (task-size.ts; within about 1 % of their heap,
   * docs/limits.md): what the running tasks hold together, which the runtime bounds for new turns.
   */
  readonly taskBytes: ByteTally = { bytes: 0 };

  constructor(private readonly opts: TaskBookOptions) {
    this.store = opts.store;
  }

  /**
   * A new task or context id: a UUID whose leading 48 bits are the time in ms (RFC 9562 version 7),
   * so ids made one after the other sort together. The SQLite store keeps unique indexes on the task
   * id and the context id; a random (version 4) id put every new task on a random page of both,
   * which cost each send two whole 4 KiB pages of write-ahead log (bench/store-wal.ts). Ids stay
   * opaque to clients: nothing reads the time back out of them.
   *
   * The random bits (rand_a, the variant, rand_b) are those of crypto.randomUUID, which Node serves
   * from a buffered pool (about 0.3 µs); the uuid package's v7 asks crypto.getRandomValues for fresh
   * bytes on every call (about 5 µs, 6 % of a blocking send in process, two ids per new task).
   */
  newId(): string {
    const ms = Date.now();
    if (ms !== this.idMs) {
      this.idMs = ms;
      const hex = ms.toString(16).padStart(12, "0");
      this.idPrefix = `${hex.slice(0, 8)}-${hex.slice(8)}-7`;
    }
    // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; its time-less tail after the version digit.
    return this.idPrefix + randomUUID().slice(15);
  }
  private idMs = -1;
  private idPrefix = "";

  get size(): number {
    return this.live.size;
  }

  has(id: string): boolean {
    return this.live.has(id);
  }

  entries(): IterableIterator<E> {
    return this.live.values();
  }

  /** Holds `task` as live for `owner`. */
  track(owner: string, task: v1_0.Task): E {
    const entry = {
      owner,
      task,
      busy: false,
      artifactBytes: artifactsBytes(task.artifacts),
      tally: this.taskBytes,
      channel: new Channel<v1_0.StreamResponse>(this.opts.maxBufferedEvents, () => this.forgetIfIdle(entry), this.opts.bufferBytes),
    } as E;
    this.live.set(task.id, entry);
    this.taskBytes.bytes += entry.artifactBytes;
    return entry;
  }

  /** The live copy of a task, loading it from the store if needed; undefined if not visible to `owner`. */
  async acquire(owner: string, id: string): Promise<E | undefined> {
    const found = this.live.get(id);
    if (found) return found.owner === owner ? found : undefined;
    const stored = await this.store.get(owner, id);
    if (!stored) return undefined;
    const again = this.live.get(id);
    if (again) return again.owner === owner ? again : undefined;
    return this.track(owner, clone(v1_0.TaskSchema, stored));
  }

  /** acquire(), or TaskNotFound. */
  async require(owner: string, id: string): Promise<E> {
    const entry = await this.acquire(owner, id);
    if (!entry) throw taskNotFound(id);
    return entry;
  }

  /** The task as `owner` may see it: the live copy, else the store's. */
  async read(owner: string, id: string): Promise<v1_0.Task | undefined> {
    const found = this.live.get(id);
    if (found) return found.owner === owner ? found.task : undefined;
    return this.store.get(owner, id);
  }

  /** The entry of a follow-up message's task, now busy; TaskNotFound or the follow-up rule it breaks. */
  async continueWith(owner: string, incoming: v1_0.Message): Promise<E> {
    const entry = await this.require(owner, incoming.taskId);
    const problem = followUpProblem(entry, incoming);
    if (problem) {
      this.forgetIfIdle(entry);
      throw problem;
    }
    entry.busy = true;
    return entry;
  }

  /** Marks the start of a turn on `entry`: `turnDone` resolves when endTurn() is called. */
  openTurn(entry: E): void {
    entry.busy = true;
    entry.unrecorded = false;
    entry.turnDone = new Promise<void>((resolve) => (entry.endTurn = resolve));
  }

  /** The turn is over (or never started): allow the next message; forget the task if nobody listens. */
  release(entry: E, turnEnded = true): void {
    entry.busy = false;
    if (turnEnded) entry.endTurn?.();
    this.forgetIfIdle(entry);
  }

  forgetIfIdle(entry: E): void {
    if (!entry.busy && entry.channel.size === 0 && this.live.get(entry.task.id) === entry) {
      this.live.delete(entry.task.id);
      this.taskBytes.bytes -= entry.artifactBytes;
    }
  }

  /** The entry of a task to cancel; TaskNotFound, or TaskNotCancelable when it is terminal. */
  async toCancel(owner: string, id: string): Promise<E> {
    const entry = await this.require(owner, id);
    const state = entry.task.status?.state;
    if (isTerminal(state)) {
      this.forgetIfIdle(entry);
      throw new A2AError("TaskNotCancelableError", `Task ${id} is in a terminal state (${v1_0.TaskState[state!]}) and cannot be canceled`, {
        taskId: id,
      });
    }
    return entry;
  }

  /**
   * A stream of the task's events, beginning with the current Task. A terminal task gets what the
   * request's version says (policy.ts subscribeToFinished: 1.0 UnsupportedOperation, 0.3 the Task).
   */
  async subscribe(owner: string, id: string, version: string): Promise<AsyncIterableIterator<v1_0.StreamResponse>> {
    const entry = await this.require(owner, id);
    if (isTerminal(entry.task.status?.state)) {
      this.forgetIfIdle(entry);
      return items(policyOf(version).subscribeToFinished(clone(v1_0.TaskSchema, entry.task)));
    }
    const sub = entry.channel.subscribe([taskEvent(entry.task)], endsStream);
    await this.store.settled?.(); // the live copy may be ahead of its COMMIT by one batch
    return sub;
  }

  /** A new subscription to a live entry, beginning with its current Task. */
  stream(entry: E): Subscription<v1_0.StreamResponse> {
    return entry.channel.subscribe([taskEvent(entry.task)], endsStream);
  }

  /** Appends to the history, dropping the oldest messages beyond maxHistory or maxHistoryBytes (never the newest). */
  addHistory(task: v1_0.Task, message: v1_0.Message): void {
    const h = task.history;
    h.push(message);
    let bytes = historyBytes(h);
    let drop = Math.max(0, h.length - this.opts.maxHistory);
    if (drop) for (const m of h.slice(0, drop)) bytes -= messageBytes(m);
    for (let m = h[drop]; m && bytes > this.opts.maxHistoryBytes && drop < h.length - 1; m = h[++drop]) bytes -= messageBytes(m);
    if (drop) h.splice(0, drop);
  }

  async getTask(req: v1_0.GetTaskRequest, call: CallContext): Promise<v1_0.Task> {
    if (req.historyLength !== undefined && req.historyLength < 0) throw invalidParams("/historyLength", "must not be negative");
    const task = await this.read(ownerOf(call), req.id);
    if (!task) throw taskNotFound(req.id);
    const shown = view(task, req.historyLength);
    await this.store.settled?.(); // a live copy may be ahead of its COMMIT by one batch
    return shown;
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
      maxBytes: this.opts.maxListBytes,
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

  /** No new turn; every open stream ends (after what it has buffered). The runtime stops its turns. */
  closeStreams(): void {
    this.closed = true;
    for (const e of this.live.values()) e.channel.close();
  }
}

/**
 * Runs `publish` (an event to the entry's streams) once `recorded`, the put of the status it
 * reports, has been committed, and after every event queued before it; at once when nothing waits;
 * never when that put failed. So a status update never reaches a client before its COMMIT (or
 * without one) and no event overtakes one that waits.
 */
export function publishInOrder(entry: LiveEntry, publish: () => void, recorded?: Promise<unknown>): void {
  if (!recorded && !entry.held) return publish();
  const held: Promise<void> = (entry.held ?? Promise.resolve())
    .then(() => recorded)
    // An event whose write failed is not published (recordTask has ended the streams).
    .then(publish, () => undefined)
    .then(() => {
      if (entry.held === held) entry.held = undefined;
    });
  entry.held = held;
}

/**
 * Keeps an artifact (chunk) in the entry's task: its parts appended to the artifact of its id
 * (`append`), or it replaces that artifact, or it is added. False, keeping nothing, when that would
 * take the task's artifacts over `maxBytes` (the caller fails the task). `artifact` is measured (the
 * chunk as published); `own` is the copy the task keeps of it.
 */
export function keepArtifact(entry: LiveEntry, artifact: v1_0.Artifact, own: v1_0.Artifact, append: boolean, maxBytes: number): boolean {
  const list = entry.task.artifacts;
  const i = list.findIndex((x) => x.artifactId === artifact.artifactId);
  const have = list[i];
  const bytes =
    have && append
      ? entry.artifactBytes + partsBytes(artifact.parts)
      : entry.artifactBytes + artifactBytes(artifact) - (have ? artifactBytes(have) : 0);
  if (bytes > maxBytes) return false;
  if (entry.tally) entry.tally.bytes += bytes - entry.artifactBytes;
  entry.artifactBytes = bytes;
  if (have && append) have.parts.push(...own.parts);
  else if (have) list[i] = own;
  else list.push(own);
  return true;
}

/**
 * The refusal of a new turn while the running tasks hold more than `maxBytes` together (retryable:
 * nothing of it was done; the running tasks go on and free their bytes as they end).
 */
export function runningTasksFull(maxBytes: number): A2AError {
  return retryable(
    new A2AError(
      "InternalError",
      `The running tasks hold more than this server's limit of ${maxBytes} bytes (maxRunningTaskBytes); retry when some have ended.`,
    ),
  );
}

export function taskNotFound(id: string): A2AError {
  return new A2AError("TaskNotFoundError", `Task ${id} not found`, { taskId: id });
}

export function taskEvent(task: v1_0.Task): v1_0.StreamResponse {
  return create(v1_0.StreamResponseSchema, { payload: { case: "task", value: clone(v1_0.TaskSchema, task) } });
}

/** A copy of the task for a response: history trimmed to `historyLength`, artifacts optional. */
export function view(task: v1_0.Task, historyLength: number | undefined, includeArtifacts = true): v1_0.Task {
  const history = historyLength === undefined ? task.history : historyLength === 0 ? [] : task.history.slice(-historyLength);
  return { ...task, history: [...history], artifacts: includeArtifacts ? [...task.artifacts] : [] };
}

/** A stream of one event (a bare Message). */
export function once<T>(item: T): AsyncIterableIterator<T> {
  return items([item]);
}

/** A stream of these events, then the end (a finished task's Task). */
export function items<T>(list: readonly T[]): AsyncIterableIterator<T> {
  let i = 0;
  return {
    next: async () => {
      if (i >= list.length) return { value: undefined, done: true };
      // In range: checked above.
      return { value: list[i++]!, done: false };
    },
    return: async () => {
      i = list.length;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
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
 * still running, or the message names another context.
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
