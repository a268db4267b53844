// Task persistence for the reference server: the TaskStore interface and its in-memory
// implementation.
//
// Retention policy of MemoryTaskStore: it keeps at most `maxTasks` tasks (default 10,000) and at most
// `maxBytes` of them (default 128 MiB, estimated as in task-size.ts once per write). Writing a task
// moves it to the back of the queue; when a write would exceed either limit, the least recently
// written tasks are evicted (whatever their state) and later reads of them answer TaskNotFound. The
// task just written is always kept, even alone over `maxBytes` (the runtime bounds one task's size).
// Tasks that are running are also held by the runtime, which rewrites them on every status change,
// so in practice eviction takes finished and abandoned interrupted tasks first. Memory is therefore
// bounded by maxBytes (plus one task), however many tasks pass through and however large they are.
import { timestampMs } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../../generated/v1_0/index.js";
import { artifactsBytes, taskBytes } from "./task-size.js";

/** Position in the ListTasks order (status timestamp descending, then id descending). */
export interface ListCursor {
  timestampMs: number;
  id: string;
}

export interface TaskQuery {
  owner: string;
  contextId?: string;
  /** TaskState.UNSPECIFIED: any state. */
  state?: v1_0.TaskState;
  /** Only tasks whose status timestamp is at or after this instant (ms since the epoch). */
  statusAfterMs?: number;
  pageSize: number;
  /** Start after this position (exclusive). */
  after?: ListCursor;
  /**
   * End the page early once its tasks hold this many bytes (the store's own measure of a task; a
   * page holds at least one task). Default: no limit.
   */
  maxBytes?: number;
  /** The caller will return the tasks' artifacts: count them against maxBytes (default false). */
  withArtifacts?: boolean;
}

export interface TaskPage {
  tasks: v1_0.Task[];
  /** Matching tasks before pagination. */
  totalSize: number;
  /** Position of the last task of the page when more follow, else undefined. */
  next?: ListCursor;
}

export interface TaskStore {
  /** The task if it exists and belongs to `owner`. The result must not be mutated. */
  get(owner: string, id: string): Promise<v1_0.Task | undefined>;
  /** Creates or replaces the task. The store must not be affected by later changes to `task`'s fields. */
  put(owner: string, task: v1_0.Task): Promise<void>;
  list(query: TaskQuery): Promise<TaskPage>;
  /** Resolves once every put made so far has settled (a store that commits later than put returns). */
  settled?(): Promise<void>;
  close?(): Promise<void>;
}

export function statusTimeMs(task: v1_0.Task): number {
  return task.status?.timestamp ? timestampMs(task.status.timestamp) : 0;
}

/** Sort order of ListTasks: newest status first; ties broken by id, descending. */
export function compareForList(a: ListCursor, b: ListCursor): number {
  if (a.timestampMs !== b.timestampMs) return b.timestampMs - a.timestampMs;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

interface Entry {
  owner: string;
  task: v1_0.Task;
  key: ListCursor;
  /** Estimated size when written (task-size.ts), and the part of it that is artifacts. */
  bytes: number;
  artifactBytes: number;
}

export interface MemoryTaskStoreOptions {
  /** Most tasks kept at once (default 10,000). */
  maxTasks?: number;
  /** Most estimated bytes of tasks kept at once (default 128 MiB; task-size.ts). */
  maxBytes?: number;
}

export const MEMORY_STORE_DEFAULTS = { maxTasks: 10_000, maxBytes: 128 * 1024 * 1024 } as const;

export class MemoryTaskStore implements TaskStore {
  readonly maxTasks: number;
  readonly maxBytes: number;
  private totalBytes = 0;
  // Map iteration order is insertion order: re-inserting on write makes the first key the least
  // recently written task.
  private readonly tasks = new Map<string, Entry>();
  // Where eviction left off. Starting a fresh iterator each time would step over every slot that
  // earlier deletions left at the front of the Map's table (until V8 compacts it): thousands per
  // write once the store is full. Everything before this iterator's position has been deleted and
  // re-inserted tasks land behind it, so its next key is always the least recently written.
  private oldest: IterableIterator<string> | undefined;

  constructor(opts: MemoryTaskStoreOptions = {}) {
    this.maxTasks = Math.max(1, opts.maxTasks ?? MEMORY_STORE_DEFAULTS.maxTasks);
    this.maxBytes = Math.max(1, opts.maxBytes ?? MEMORY_STORE_DEFAULTS.maxBytes);
  }

  get size(): number {
    return this.tasks.size;
  }

  /** Estimated bytes of the tasks kept. */
  get bytes(): number {
    return this.totalBytes;
  }

  async get(owner: string, id: string): Promise<v1_0.Task | undefined> {
    const e = this.tasks.get(id);
    return e && e.owner === owner ? e.task : undefined;
  }

  async put(owner: string, task: v1_0.Task): Promise<void> {
    // A shallow snapshot: the runtime replaces status objects and appends to history rather than
    // changing what is there, so sharing messages and artifacts is safe and saves a deep copy per
    // write (only the parts list of an artifact still being streamed can grow afterwards).
    const copy: v1_0.Task = { ...task, history: [...task.history], artifacts: [...task.artifacts] };
    const artifactBytes = artifactsBytes(copy.artifacts);
    const bytes = taskBytes(copy, artifactBytes);
    const prev = this.tasks.get(task.id);
    if (prev) {
      this.totalBytes -= prev.bytes;
      this.tasks.delete(task.id);
    }
    this.tasks.set(task.id, { owner, task: copy, key: { timestampMs: statusTimeMs(copy), id: copy.id }, bytes, artifactBytes });
    this.totalBytes += bytes;
    while (this.tasks.size > this.maxTasks || (this.totalBytes > this.maxBytes && this.tasks.size > 1)) {
      let next = this.oldest?.next();
      if (!next || next.done) next = (this.oldest = this.tasks.keys()).next();
      const id = next.value as string;
      this.totalBytes -= this.tasks.get(id)!.bytes;
      this.tasks.delete(id);
    }
  }

  async list(q: TaskQuery): Promise<TaskPage> {
    const matching: Entry[] = [];
    for (const e of this.tasks.values()) {
      if (e.owner !== q.owner) continue;
      if (q.contextId && e.task.contextId !== q.contextId) continue;
      if (q.state && e.task.status?.state !== q.state) continue;
      if (q.statusAfterMs !== undefined && e.key.timestampMs < q.statusAfterMs) continue;
      matching.push(e);
    }
    matching.sort((a, b) => compareForList(a.key, b.key));
    let start = 0;
    if (q.after) {
      const after = q.after;
      start = matching.findIndex((e) => compareForList(after, e.key) < 0);
      if (start < 0) start = matching.length;
    }
    const page = takePage(matching.slice(start, start + q.pageSize), q, (e) => (q.withArtifacts ? e.bytes : e.bytes - e.artifactBytes));
    const more = start + page.length < matching.length;
    const last = page.at(-1);
    return {
      tasks: page.map((e) => e.task),
      totalSize: matching.length,
      ...(more && last ? { next: last.key } : {}),
    };
  }
}

/** The leading items of `items` that fit in q.maxBytes (at least one). */
export function takePage<T>(items: T[], q: Pick<TaskQuery, "maxBytes">, bytes: (item: T) => number): T[] {
  if (q.maxBytes === undefined) return items;
  let total = 0;
  for (const [i, item] of items.entries()) {
    total += bytes(item);
    if (total > q.maxBytes && i > 0) return items.slice(0, i);
  }
  return items;
}
