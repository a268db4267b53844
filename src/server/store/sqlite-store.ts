// The embedded persistent task store: SQLite through better-sqlite3 (one file, no server).
//
// SqliteTaskStore implements TaskStore with the semantics of MemoryTaskStore (test/unit/
// sqlite-store.test.ts runs one contract suite against both): `get` by owner, `put` creates or
// replaces (a task id is unique across owners; a put by another owner takes the id over), and
// `list` filters by owner, contextId, state and status time, ordered by status timestamp
// descending then id descending, with the same exclusive cursor and totalSize. Unlike the memory
// store, tasks leave by the retention policy (sqlite-retention.ts: count, bytes and age, run off
// the request path) or `delete`.
// One difference at the edge: ids are compared as UTF-8 bytes (SQLite's BINARY collation) while the
// memory store compares UTF-16 code units; the orders differ only between ids containing
// characters above U+FFFF and ids containing U+E000–U+FFFF, which generated ids never do.
//
// Storage: a task is one row holding its A2A 1.0 ProtoJSON (`encode` with the A2A overrides, read
// back with `decode`): `body` without the artifacts and `artifacts` (the array) apart, so a list
// without artifacts never reads them; plus the columns ListTasks filters and sorts on (owner,
// context_id, state, status_ms), indexed per owner, and the task's estimated size (`size`,
// `artifact_size`: task-size.ts, the memory store's measure, which counts each part's cost as well
// as its content), held in those indexes. ListTasks sizes a page from the index alone and reads
// only the bodies that fit in `maxBytes`, so a page of large tasks is short rather than huge.
// Rows are appended in write order (a rowid table, migration 4), so a new task dirties the table's
// last page rather than a random one; the indexes are the ones ListTasks, retention and recovery
// read, and recovery's is partial (running tasks only): a task written once, COMPLETED, never
// enters it.
//
// Group commit: `put` (and every push-config write) joins the next commit, which runs after the
// current event-loop turn, so the writes of every request that arrived in the same turn share one
// transaction; each write's promise settles only after that COMMIT (or its failure). Several puts
// of one task before the commit coalesce: the last state wins, so SUBMITTED → WORKING → COMPLETED
// within one batch is one row write, serialised once, at commit time (put keeps a shallow snapshot,
// as MemoryTaskStore does). Reads see pending writes: `get` returns the pending snapshot, `list`,
// `listRunning`, `recoverInterrupted`, `delete` and push-config reads commit what is pending first.
// The runtime writes a reply, the first event of a stream and every status update only once the
// put that records it has resolved, so nothing a client is told is uncommitted. A batch the
// database refuses is retried write by write, so only the refused write fails. WAL checkpoints
// never run inside a commit (sqlite-checkpoint.ts).
//
// Durability: WAL journal with `synchronous = NORMAL` by default. In WAL mode NORMAL never corrupts
// the file and never loses a committed transaction when the *process* dies (the case
// recoverInterrupted is for); only an OS crash or power loss can roll back the last transactions
// before a checkpoint. FULL adds an fsync per commit, which costs several times the write throughput
// (bench/store.ts) for protection against power loss: pass `synchronous: "FULL"` when that matters.
//
// Schema versions: migrations.ts (`user_version`); opening an older file upgrades it in place.
// Opening also runs `PRAGMA quick_check` (checkIntegrity): a damaged, garbage or truncated file is
// refused with a StoreFileError naming the file and saying what to do, before anything is served.
//
// After a restart, tasks that were SUBMITTED or WORKING have no process running them any more:
// `recoverInterrupted(message)` fails them with a generic status message (call it once on start,
// before serving). INPUT_REQUIRED / AUTH_REQUIRED tasks wait for the caller and are left alone.
// Hence one server process per database file: a second process calling recoverInterrupted would
// fail the tasks the first one is still running (other readers, e.g. the sqlite3 shell, are fine).
// A server that can take such tasks up again (the gateway, which follows remote tasks) reads them
// with `listRunning()` instead; the same one-process-per-file rule holds.
import { randomUUID } from "node:crypto";
import { resolve as resolvePath } from "node:path";
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import Database from "better-sqlite3";
import * as v1_0 from "../../../generated/v1_0/index.js";
import { decode, encode } from "../../runtime/protojson.js";
import { writeJsonText } from "../../runtime/json-writer.js";
import { A2AError } from "../../versioning/errors.js";
import { knownVersion } from "../../versioning/policy.js";
import { prepareConfig, type PushConfigStore, type PushWireVersion, type StoredPushConfig } from "../../push/config-store.js";
import { migrate, TASK_STORE_MIGRATIONS, type Migration } from "./migrations.js";
import { WalCheckpointer, type WalCheckpointOptions } from "./sqlite-checkpoint.js";
import { RetentionSweeper, type SqliteRetentionOptions } from "./sqlite-retention.js";
import { statusTimeMs, takePage, type TaskPage, type TaskQuery, type TaskStore } from "./store.js";
import { artifactsBytes, taskBytes } from "./task-size.js";

export interface SqliteTaskStoreOptions {
  /** "NORMAL" (default) or "FULL"; see the header comment. */
  synchronous?: "NORMAL" | "FULL";
  /** When WAL checkpoints run and how large the WAL may grow (sqlite-checkpoint.ts; CHECKPOINT_DEFAULTS). */
  checkpoint?: WalCheckpointOptions;
  /** Milliseconds to wait for another connection's write lock (default 5,000). */
  busyTimeoutMs?: number;
  /** Schema migrations (default TASK_STORE_MIGRATIONS); tests pass their own lists. */
  migrations?: readonly Migration[];
  /** How many tasks, bytes and how old the file keeps (sqlite-retention.ts; SQLITE_RETENTION_DEFAULTS). */
  retention?: SqliteRetentionOptions;
  /**
   * Run `PRAGMA quick_check` when opening (default true): a damaged file is refused with a
   * StoreFileError instead of failing requests one by one later. It reads the whole file (about
   * 0.5 s per 100 MB on the development machine).
   */
  checkIntegrity?: boolean;
  /** Where a row that no longer decodes is reported (default: a line on stderr naming the file and the row). */
  logDamaged?: DamagedRowLog;
}

/** The store's file cannot be used: damaged, not a database, unreadable. The message names the file and says what to do. */
export class StoreFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
    damaged: boolean,
  ) {
    super(
      `SQLite store ${file}: ${problem}.` +
        (damaged
          ? " Nothing was served from it. Restore it from a backup, or move it away to start with an empty store" +
            ` (\`sqlite3 ${file} .recover\` may save what is still readable).`
          : ""),
    );
    this.name = "StoreFileError";
  }
}

/** Opens `file` and runs `setup`; any failure becomes a StoreFileError naming the file. */
function openChecked(file: string, setup: (db: Database.Database) => void): Database.Database {
  const name = file === ":memory:" || file === "" ? file : resolvePath(file);
  let db: Database.Database | undefined;
  try {
    db = new Database(file);
    setup(db);
    return db;
  } catch (e) {
    db?.close();
    // MigrationError (a newer schema, a failed migration) says what it is already.
    if (!(e instanceof Database.SqliteError || e instanceof TypeError)) throw e;
    const code = (e as { code?: string }).code ?? "";
    const damaged = code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB");
    throw new StoreFileError(name, e instanceof Error ? e.message : String(e), damaged);
  }
}

/** Refuses a damaged file: `PRAGMA quick_check` answers "ok" or lists the problems. */
function quickCheck(db: Database.Database): void {
  const rows = db.pragma("quick_check(5)", { simple: false }) as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((r) => r !== "ok");
  if (problems.length)
    throw new StoreFileError(resolvePath(db.name), `the file is damaged (integrity check: ${problems.join("; ")})`, true);
}

export const DEFAULT_RECOVERY_MESSAGE = "The server stopped while this task was running; the task did not finish.";

/** A row's `body` and `artifacts`; `artifacts` is NULL in rows written before migration 3 (body has them). */
export const decodeTask = (body: string, artifacts?: string | null) => {
  const json = JSON.parse(body) as Record<string, unknown>;
  if (artifacts) json.artifacts = JSON.parse(artifacts);
  return decode(v1_0.TaskSchema, json);
};

/**
 * A stored row that no longer decodes (damaged by hand or by a disk fault the file's integrity
 * check cannot see). Only that task is affected: GetTask (and every call on the task) answers
 * InternalError naming its id, since the task exists but cannot be read (TaskNotFound would tell
 * the client it is gone, and a retry would succeed at nothing); ListTasks leaves the row out and
 * logs it; recovery on start skips it and logs it.
 */
export function damagedTaskError(id: string): A2AError {
  return new A2AError("InternalError", `Task ${id} is damaged in storage and cannot be read`, { taskId: id });
}

/** Where damaged rows are reported. */
export type DamagedRowLog = (line: string) => void;
/** The default: an error-level JSON line on stderr, in the shape of the server's log lines. */
export const logDamagedToStderr: DamagedRowLog = (msg) => process.stderr.write(`${JSON.stringify({ level: 50, time: Date.now(), msg })}\n`);

/**
 * decodeTask for a row of `place` (the SQLite file or the PostgreSQL table): a row that does not
 * decode is logged (place, id, the parser's complaint) and answered with damagedTaskError.
 */
export function decodeRow(log: DamagedRowLog, place: string, id: string, body: string, artifacts?: string | null): v1_0.Task {
  try {
    return decodeTask(body, artifacts);
  } catch (e) {
    log(`damaged task row: ${place}, row id ${JSON.stringify(id)}: ${e instanceof Error ? e.message : String(e)}`);
    throw damagedTaskError(id);
  }
}

/** decodeRow, or undefined for a damaged row (logged): for lists and recovery, which go on. */
export function decodeRowOrSkip(log: DamagedRowLog, place: string, id: string, body: string, artifacts?: string | null) {
  try {
    return decodeRow(log, place, id, body, artifacts);
  } catch {
    return undefined;
  }
}

interface TaskRow {
  id: string;
  status_ms: number;
  size: number;
  artifact_size: number;
}

interface Waiter {
  resolve(): void;
  reject(e: unknown): void;
}

/** A task write waiting for the next commit: the last one of a task wins. */
interface PendingTask {
  owner: string;
  /** A shallow snapshot taken by put (as MemoryTaskStore keeps), serialised when the batch commits. */
  task: v1_0.Task;
  waiters: Waiter[];
}

/** Another write waiting for the next commit (push configs); `result` is what run returned. */
interface PendingOp {
  run(): unknown;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/** What SqlitePushConfigStore writes through: the task store's group commit. */
export interface SqliteWriter {
  /** Runs `run` in the next commit's transaction; settles after that COMMIT with what it returned. */
  write<T>(run: () => T): Promise<T>;
  /** Commits what is pending now (a read that must see it calls this first). */
  flush(): void;
}

export class SqliteTaskStore implements TaskStore, SqliteWriter {
  readonly db: Database.Database;
  /** Push-notification configs in the same file. */
  readonly pushConfigs: SqlitePushConfigStore;
  private readonly stmt;
  // ListTasks statements by filter shape (at most 16 shapes).
  private readonly listStmts = new Map<string, Database.Statement>();
  // Writes waiting for the next group commit: tasks by id (the last write of a task wins), then other writes.
  private pending = new Map<string, PendingTask>();
  private ops: PendingOp[] = [];
  private settledWaiters: (() => void)[] = [];
  private commitScheduled = false;
  readonly retention: RetentionSweeper;
  readonly checkpoints: WalCheckpointer;
  private readonly logDamaged: DamagedRowLog;
  // What a damaged-row log line names: the file.
  private readonly place: string;

  /** `file`: a path, or ":memory:" for a private in-memory database. */
  constructor(file: string, opts: SqliteTaskStoreOptions = {}) {
    this.db = openChecked(file, (db) => {
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${opts.synchronous === "FULL" ? "FULL" : "NORMAL"}`);
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
      // Checkpoints run on WalCheckpointer's timer, never inside a commit.
      db.pragma("wal_autocheckpoint = 0");
      if (opts.checkIntegrity !== false) quickCheck(db);
      migrate(db, opts.migrations ?? TASK_STORE_MIGRATIONS);
    });
    const db = this.db;
    this.logDamaged = opts.logDamaged ?? logDamagedToStderr;
    this.place = `SQLite file ${file === ":memory:" ? file : resolvePath(file)}, table tasks`;
    this.stmt = {
      get: db.prepare<[string, string], { body: string; artifacts: string | null }>(
        "SELECT body, artifacts FROM tasks WHERE id = ? AND owner = ?",
      ),
      put: db.prepare(
        `INSERT INTO tasks (id, owner, context_id, state, status_ms, body, artifacts, size, artifact_size)
         VALUES (@id, @owner, @contextId, @state, @statusMs, @body, @artifacts, @size, @artifactSize)
         ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, context_id = excluded.context_id, state = excluded.state,
           status_ms = excluded.status_ms, body = excluded.body, artifacts = excluded.artifacts, size = excluded.size,
           artifact_size = excluded.artifact_size`,
      ),
      delete: db.prepare<[string, string], { size: number }>("DELETE FROM tasks WHERE id = ? AND owner = ? RETURNING size"),
      // The stored sizes of the tasks a batch is about to write (a JSON array of ids): retention's totals.
      sizes: db.prepare<[string], { id: string; size: number }>("SELECT id, size FROM tasks WHERE id IN (SELECT value FROM json_each(?))"),
      // Literal states: the partial index tasks_running (migration 4) serves only a query that names them.
      running: db.prepare<[], { id: string; owner: string; body: string; artifacts: string | null }>(
        `SELECT id, owner, body, artifacts FROM tasks WHERE state IN (${v1_0.TaskState.SUBMITTED}, ${v1_0.TaskState.WORKING})`,
      ),
      body: db.prepare<[string], { body: string; artifacts?: string | null }>("SELECT body FROM tasks WHERE id = ?"),
      bodyWithArtifacts: db.prepare<[string], { body: string; artifacts: string | null }>("SELECT body, artifacts FROM tasks WHERE id = ?"),
    };
    this.pushConfigs = new SqlitePushConfigStore(db, this);
    this.retention = new RetentionSweeper(db, (owner, id) => this.deleteSync(owner, id), opts.retention);
    this.checkpoints = new WalCheckpointer(db, opts.checkpoint);
  }

  async get(owner: string, id: string): Promise<v1_0.Task | undefined> {
    const pending = this.pending.get(id);
    if (pending) return pending.owner === owner ? pending.task : undefined;
    const row = this.stmt.get.get(id, owner);
    return row ? decodeRow(this.logDamaged, this.place, id, row.body, row.artifacts) : undefined;
  }

  /**
   * Records the task in the next group commit; resolves after that COMMIT (rejects if it failed).
   * Reads see the write at once.
   */
  put(owner: string, task: v1_0.Task): Promise<void> {
    if (!this.db.open) return Promise.reject(new Error("the task store is closed"));
    // Later changes to `task` do not reach the store (the runtime replaces status objects and
    // appends to history and artifacts rather than changing what is there; see MemoryTaskStore.put).
    const snapshot: v1_0.Task = { ...task, history: [...task.history], artifacts: [...task.artifacts] };
    return new Promise<void>((resolve, reject) => {
      const prev = this.pending.get(task.id);
      if (prev) {
        prev.owner = owner;
        prev.task = snapshot;
        prev.waiters.push({ resolve, reject });
      } else this.pending.set(task.id, { owner, task: snapshot, waiters: [{ resolve, reject }] });
      this.scheduleCommit();
    });
  }

  /** @internal SqliteWriter, for the push-config store. */
  write<T>(run: () => T): Promise<T> {
    if (!this.db.open) return Promise.reject(new Error("the task store is closed"));
    return new Promise<T>((resolve, reject) => {
      this.ops.push({ run, resolve: resolve, reject });
      this.scheduleCommit();
    });
  }

  /** Resolves once every write made so far has been committed (or has failed). */
  settled(): Promise<void> {
    if (!this.pending.size && !this.ops.length) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  private scheduleCommit(): void {
    if (this.commitScheduled) return;
    this.commitScheduled = true;
    this.deferCommit(() => {
      this.commitScheduled = false;
      this.flush();
    });
  }

  /**
   * When the pending writes are committed: after the current event-loop turn, so that every write
   * of the turn (every request that arrived with it) shares the transaction. Tests override it to
   * hold a commit back.
   */
  protected deferCommit(commit: () => void): void {
    setImmediate(commit);
  }

  /**
   * Commits every pending write in one transaction, then settles their promises. When the batch
   * fails, each write is retried in its own transaction, so only the one the database refuses fails.
   */
  flush(): void {
    if (!this.pending.size && !this.ops.length) return;
    const settled = this.settledWaiters;
    this.settledWaiters = [];
    try {
      this.commit();
    } finally {
      for (const s of settled) s();
    }
  }

  private commit(): void {
    const tasks = [...this.pending.values()];
    const ops = this.ops;
    this.pending = new Map();
    this.ops = [];
    const rows: TaskRowParams[] = [];
    const results: unknown[] = [];
    let before: Map<string, number> | undefined;
    try {
      this.db.transaction(() => {
        before = this.storedSizes(tasks.map((p) => p.task.id));
        for (const p of tasks) {
          const row = rowOf(p.owner, p.task);
          this.stmt.put.run(row);
          rows.push(row);
        }
        for (const op of ops) results.push(op.run());
      })();
    } catch {
      if (!this.db.open) {
        const closed = new Error("the task store is closed");
        for (const p of tasks) for (const w of p.waiters) w.reject(closed);
        for (const op of ops) op.reject(closed);
        return;
      }
      return this.oneByOne(tasks, ops);
    }
    for (const row of rows) this.retention.noteWrite(row.size, before?.get(row.id));
    for (const p of tasks) for (const w of p.waiters) w.resolve();
    ops.forEach((op, i) => op.resolve(results[i]));
  }

  private oneByOne(tasks: PendingTask[], ops: PendingOp[]): void {
    for (const p of tasks) {
      try {
        const row = rowOf(p.owner, p.task);
        const before = this.db.transaction(() => {
          const sizes = this.storedSizes([row.id]);
          this.stmt.put.run(row);
          return sizes;
        })();
        this.retention.noteWrite(row.size, before.get(row.id));
        for (const w of p.waiters) w.resolve();
      } catch (e) {
        for (const w of p.waiters) w.reject(e);
      }
    }
    for (const op of ops) {
      try {
        op.resolve(this.db.transaction(() => op.run())());
      } catch (e) {
        op.reject(e);
      }
    }
  }

  private writeTask(owner: string, task: v1_0.Task): void {
    this.stmt.put.run(rowOf(owner, task));
  }

  /** The stored size of each of `ids` that has a row. */
  private storedSizes(ids: string[]): Map<string, number> {
    return new Map(this.stmt.sizes.all(JSON.stringify(ids)).map((r) => [r.id, r.size]));
  }

  /** Removes the task and its push configs. Returns whether the task existed. */
  async delete(owner: string, id: string): Promise<boolean> {
    this.flush();
    const size = this.db.transaction(() => this.deleteSync(owner, id))();
    if (size !== undefined) this.retention.noteDelete(size);
    return size !== undefined;
  }

  /** Deletes the task's row and push configs; returns the row's stored size, undefined without one. */
  private deleteSync(owner: string, id: string): number | undefined {
    this.pushConfigs.deleteForTaskSync(owner, id);
    return this.stmt.delete.get(id, owner)?.size;
  }

  async list(q: TaskQuery): Promise<TaskPage> {
    this.flush(); // a list sees every write that came before it
    const where = ["owner = @owner"];
    const params: Record<string, string | number> = { owner: q.owner };
    if (q.contextId) {
      where.push("context_id = @contextId");
      params.contextId = q.contextId;
    }
    if (q.state) {
      where.push("state = @state");
      params.state = q.state;
    }
    if (q.statusAfterMs !== undefined) {
      where.push("status_ms >= @after");
      params.after = q.statusAfterMs;
    }
    const filter = where.join(" AND ");
    const total = (this.prepared(`SELECT count(*) AS n FROM tasks WHERE ${filter}`).get(params) as { n: number }).n;
    let pageFilter = filter;
    if (q.after) {
      pageFilter += " AND (status_ms < @cursorMs OR (status_ms = @cursorMs AND id < @cursorId))";
      params.cursorMs = q.after.timestampMs;
      params.cursorId = q.after.id;
    }
    const pageSize = Math.max(0, Math.floor(q.pageSize));
    params.limit = pageSize + 1;
    // Sizes from the index first; then only the bodies that fit in maxBytes are read and decoded.
    const rows = this.prepared(
      `SELECT id, status_ms, size, artifact_size FROM tasks WHERE ${pageFilter} ORDER BY status_ms DESC, id DESC LIMIT @limit`,
    ).all(params) as TaskRow[];
    const page = takePage(rows.slice(0, pageSize), q, (r) => (q.withArtifacts ? r.size : r.size - r.artifact_size));
    const more = rows.length > page.length;
    const last = page[page.length - 1];
    const read = q.withArtifacts ? this.stmt.bodyWithArtifacts : this.stmt.body;
    return {
      // A damaged row is left out (and logged): the rest of the owner's tasks still list.
      tasks: page.flatMap((r) => {
        const row = read.get(r.id)!;
        const task = decodeRowOrSkip(this.logDamaged, this.place, r.id, row.body, row.artifacts);
        return task ? [task] : [];
      }),
      totalSize: total,
      ...(more && last ? { next: { timestampMs: last.status_ms, id: last.id } } : {}),
    };
  }

  private prepared(sql: string): Database.Statement {
    let s = this.listStmts.get(sql);
    if (!s) this.listStmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /**
   * The tasks left SUBMITTED or WORKING, with their owners, unchanged (for a server that can take
   * them up again, as the gateway does: it follows their remote tasks again). Call on start, before
   * serving, in place of recoverInterrupted.
   */
  listRunning(): { owner: string; task: v1_0.Task }[] {
    this.flush();
    return this.stmt.running.all().flatMap((row) => {
      const task = decodeRowOrSkip(this.logDamaged, this.place, row.id, row.body, row.artifacts);
      return task ? [{ owner: row.owner, task }] : [];
    });
  }

  /**
   * Fails every task left SUBMITTED or WORKING (by a process that is gone): state FAILED, a new
   * status timestamp and an agent status message with `message` (also appended to the history, as
   * the runtime does with status messages). Call once on start, before serving. Returns the ids.
   */
  recoverInterrupted(message: string = DEFAULT_RECOVERY_MESSAGE): string[] {
    this.flush();
    const failed = this.db
      .transaction(() => {
        const rows = this.stmt.running.all();
        const done: string[] = [];
        for (const row of rows) {
          // A damaged row is skipped (logged): it stays as it is, and every other task recovers.
          const task = decodeRowOrSkip(this.logDamaged, this.place, row.id, row.body, row.artifacts);
          if (!task) continue;
          done.push(row.id);
          const status = create(v1_0.MessageSchema, {
            messageId: randomUUID(),
            role: v1_0.Role.AGENT,
            taskId: task.id,
            contextId: task.contextId,
            parts: [create(v1_0.PartSchema, { content: { case: "text", value: message } })],
          });
          task.status = create(v1_0.TaskStatusSchema, { state: v1_0.TaskState.FAILED, message: status, timestamp: timestampNow() });
          task.history.push(status);
          this.writeTask(row.owner, task);
        }
        return done;
      })
      .immediate();
    this.retention.recount(); // the failed tasks' sizes changed
    return failed;
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.flush();
    this.retention.close();
    this.checkpoints.close();
    this.db.close();
  }
}

export interface TaskRowParams {
  id: string;
  owner: string;
  contextId: string;
  state: number;
  statusMs: number;
  body: string;
  artifacts: string;
  size: number;
  artifactSize: number;
}

export function rowOf(owner: string, task: v1_0.Task): TaskRowParams {
  // Written as text in one pass (json-writer.ts): the task's ProtoJSON without its artifacts (an
  // empty list is not written), and the artifacts as a ProtoJSON array.
  const body = writeJsonText(v1_0.TaskSchema, { ...task, artifacts: [] }, v1_0.alwaysEmit);
  const artifacts = `[${task.artifacts.map((a) => writeJsonText(v1_0.ArtifactSchema, a, v1_0.alwaysEmit)).join(",")}]`;
  const artifactSize = artifactsBytes(task.artifacts);
  return {
    id: task.id,
    owner,
    contextId: task.contextId,
    state: task.status?.state ?? v1_0.TaskState.UNSPECIFIED,
    statusMs: statusTimeMs(task),
    body,
    artifacts,
    size: taskBytes(task, artifactSize),
    artifactSize,
  };
}

/** A push config as both SQL stores keep it: the wire version it was set with and its 1.0 ProtoJSON. */
export interface PushConfigRow {
  version: string;
  body: string;
}

export function storedPushConfig(owner: string, r: PushConfigRow): StoredPushConfig {
  return { owner, version: knownVersion(r.version), config: decode(v1_0.TaskPushNotificationConfigSchema, JSON.parse(r.body)) };
}

export function pushConfigBody(c: v1_0.TaskPushNotificationConfig): string {
  return JSON.stringify(encode(v1_0.TaskPushNotificationConfigSchema, c, { alwaysEmit: v1_0.alwaysEmit }));
}

/** Push configs in a SqliteTaskStore's file (`store.pushConfigs`); see src/push/config-store.ts. */
export class SqlitePushConfigStore implements PushConfigStore {
  private readonly stmt;

  constructor(
    db: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    this.stmt = {
      upsert: db.prepare(
        `INSERT INTO push_configs (owner, task_id, id, version, seq, body)
         VALUES (@owner, @taskId, @id, @version, (SELECT coalesce(max(seq), 0) + 1 FROM push_configs), @body)
         ON CONFLICT (owner, task_id, id) DO UPDATE SET version = excluded.version, body = excluded.body`,
      ),
      get: db.prepare<[string, string, string], { version: string; body: string }>(
        "SELECT version, body FROM push_configs WHERE owner = ? AND task_id = ? AND id = ?",
      ),
      list: db.prepare<[string, string], { version: string; body: string }>(
        "SELECT version, body FROM push_configs WHERE owner = ? AND task_id = ? ORDER BY seq",
      ),
      delete: db.prepare<[string, string, string]>("DELETE FROM push_configs WHERE owner = ? AND task_id = ? AND id = ?"),
      deleteForTask: db.prepare<[string, string]>("DELETE FROM push_configs WHERE owner = ? AND task_id = ?"),
    };
  }

  private row(owner: string, r: PushConfigRow): StoredPushConfig {
    return storedPushConfig(owner, r);
  }

  async create(owner: string, config: v1_0.TaskPushNotificationConfig, version: PushWireVersion): Promise<StoredPushConfig> {
    const c = prepareConfig(config);
    const body = pushConfigBody(c);
    await this.writer.write(() => this.stmt.upsert.run({ owner, taskId: c.taskId, id: c.id, version, body }));
    return { owner, version, config: c };
  }

  async get(owner: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    this.writer.flush(); // sees every write that came before it
    const r = this.stmt.get.get(owner, taskId, id);
    return r ? this.row(owner, r) : undefined;
  }

  async list(owner: string, taskId: string): Promise<StoredPushConfig[]> {
    this.writer.flush();
    return this.stmt.list.all(owner, taskId).map((r) => this.row(owner, r));
  }

  delete(owner: string, taskId: string, id: string): Promise<boolean> {
    return this.writer.write(() => this.stmt.delete.run(owner, taskId, id).changes > 0);
  }

  deleteForTask(owner: string, taskId: string): Promise<number> {
    return this.writer.write(() => this.deleteForTaskSync(owner, taskId));
  }

  /** @internal for SqliteTaskStore.delete's transaction. */
  deleteForTaskSync(owner: string, taskId: string): number {
    return this.stmt.deleteForTask.run(owner, taskId).changes;
  }
}
