// The task store for several replicas: PostgreSQL through `pg` (node-postgres, a Pool).
//
// PgTaskStore implements TaskStore with the semantics of SqliteTaskStore (test/unit/sqlite-store.test.ts
// runs the one contract suite against it too): rows hold the task's ProtoJSON (`body` without the
// artifacts, `artifacts` apart) and the columns ListTasks filters and sorts on, with the task's
// estimated size (task-size.ts) in covering indexes, so a page is sized before any body is read.
// Ids are compared as bytes (COLLATE "C"), like SQLite's BINARY collation.
//
// Commit before acknowledge, with group commit: a put's promise resolves after the COMMIT that holds
// it. Writes arriving while a commit is in flight wait and go together into the next one (one
// multi-row upsert, its own transaction); several writes of one task in a batch are coalesced (the
// last wins). Reads see pending writes (get) or wait for them (list), so a replica reads its own
// writes; another replica sees a write once its put has resolved.
//
// Retention (`retention`, the options of sqlite-retention.ts): beyond maxTasks or maxBytes, or older
// than maxAgeMs, finished and interrupted tasks go, oldest status first, with their push configs
// and events, in batches off the request path, until the totals are within the limits (as for
// SQLite); SUBMITTED and WORKING tasks stay.
//
// Schema: pg-migrations.ts, applied by PgTaskStore.open (and `a2a-toolkit migrate`).
import pg from "pg";
import * as v1_0 from "../../../generated/v1_0/index.js";
import { prepareConfig, type PushConfigStore, type PushWireVersion, type StoredPushConfig } from "../../push/config-store.js";
import { CommitBarrier } from "./commit-barrier.js";
import { migratePg, PG_MIGRATIONS, type PgMigration } from "./pg-migrations.js";
import {
  decodeRow,
  decodeRowOrSkip,
  decodeTask,
  logDamagedToStderr,
  pushConfigBody,
  rowOf,
  storedPushConfig,
  type DamagedRowLog,
  type PushConfigRow,
  type TaskRowParams,
} from "./sqlite-store.js";
import { SQLITE_RETENTION_DEFAULTS, type SqliteRetentionOptions } from "./sqlite-retention.js";
import { takePage, type TaskPage, type TaskQuery, type TaskStore } from "./store.js";

export interface PgTaskStoreOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Schema migrations (default PG_MIGRATIONS). */
  migrations?: readonly PgMigration[];
  /** How many tasks, bytes and how old the database keeps (SQLITE_RETENTION_DEFAULTS). */
  retention?: SqliteRetentionOptions;
  /** Where pool errors go (default console.error). */
  onError?: (e: unknown) => void;
  /** Where a row that no longer decodes is reported (default: a line on stderr naming the table and the row). */
  logDamaged?: DamagedRowLog;
}

// What a damaged-row log line names.
const PLACE = "PostgreSQL table a2a_tasks";

const S = v1_0.TaskState;
const BATCH = 500;

/** `postgres://…` or `postgresql://…`. */
export const isPostgresUrl = (s: string) => /^postgres(ql)?:\/\//.test(s);

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres://…";
  }
}

/**
 * Set by the replica's coordinator (cluster.ts): the writes of a task whose turn lease this replica
 * holds commit only while the lease row still names this replica.
 */
/** SQLSTATE classes and socket codes that say the database cannot be reached now. */
const OUTAGE_CODES = /^(08...|57P0[123]|53300|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;

/**
 * True for an error that means PostgreSQL is unreachable or restarting (not the request's fault):
 * a connection exception (SQLSTATE class 08), an administrator shutdown or a database starting
 * (57P01-57P03), too many connections (53300), a socket error, or the pool's own messages.
 */
export function isPgOutage(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && OUTAGE_CODES.test(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i.test(
    e.message,
  );
}

/**
 * The pool with its query and connect rejections marked `retryable: true` when they are outages,
 * so that every caller (store, coordinator) answers them as retryable (transport/server.ts
 * toA2AError, tasks.ts unrecordedError) instead of as a plain InternalError.
 */
function markOutages(pool: pg.Pool): pg.Pool {
  const mark = (e: unknown) => {
    if (isPgOutage(e)) Object.assign(e as Error, { retryable: true });
    throw e;
  };
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined;
  Object.assign(pool, {
    query: (...args: unknown[]) => query(...args).catch(mark),
    // pg-pool's own query() calls connect(callback): that form passes through unchanged.
    connect: (...args: unknown[]) => (args.length ? connect(...args) : connect()!.catch(mark)),
  });
  return pool;
}

/** A fenced write refused: this replica lost the task's lease (paused or stalled past it). */
export class LeaseLostError extends Error {
  readonly retryable = true;
  constructor(readonly taskId: string) {
    super(`not recorded: this replica no longer holds the lease of task ${taskId}`);
    this.name = "LeaseLostError";
  }
}

export interface WriteFence {
  replica: string;
  holds(taskId: string): boolean;
}

interface Pending {
  row: TaskRowParams;
  /** Written under this replica's lease (WriteFence). */
  fenced: boolean;
  waiters: { resolve(): void; reject(e: unknown): void }[];
}

export class PgTaskStore implements TaskStore {
  readonly pushConfigs: PgPushConfigStore;
  fence: WriteFence | undefined;
  /** Fenced writes refused because another replica had taken the lease (a replica paused past its lease). */
  fencedOut = 0;
  private readonly onError: (e: unknown) => void;
  private pending = new Map<string, Pending>();
  private committing = new Map<string, Pending>();
  private flushing: Promise<void> | undefined;
  private readonly barrier = new CommitBarrier();
  private closed = false;
  private readonly retention: Required<Pick<SqliteRetentionOptions, "maxTasks" | "maxBytes" | "maxAgeMs">>;
  private writes = 0;
  private written = 0;
  private sweeping = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly logDamaged: DamagedRowLog;

  private constructor(
    readonly pool: pg.Pool,
    opts: PgTaskStoreOptions,
  ) {
    this.pushConfigs = new PgPushConfigStore(pool);
    this.onError = opts.onError ?? ((e) => console.error("PostgreSQL store", e));
    this.logDamaged = opts.logDamaged ?? logDamagedToStderr;
    const r = opts.retention ?? {};
    const positive = (v: number | undefined, d: number) => (v !== undefined && v > 0 ? Math.floor(v) : d);
    this.retention = {
      maxTasks: positive(r.maxTasks, SQLITE_RETENTION_DEFAULTS.maxTasks),
      maxBytes: positive(r.maxBytes, SQLITE_RETENTION_DEFAULTS.maxBytes),
      maxAgeMs: Math.max(0, r.maxAgeMs ?? 0),
    };
    if (this.retention.maxAgeMs > 0) {
      this.timer = setInterval(() => this.scheduleSweep(), positive(r.intervalMs, SQLITE_RETENTION_DEFAULTS.intervalMs));
      this.timer.unref();
    }
  }

  /** Connects, brings the schema up to date (pg-migrations.ts) and returns the store. */
  static async open(url: string, opts: PgTaskStoreOptions = {}): Promise<PgTaskStore> {
    // A connection attempt to a database that does not answer fails after 5 s instead of waiting
    // for the kernel; the request then gets the retryable answer (markOutages).
    const pool = markOutages(new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, connectionTimeoutMillis: 5_000 }));
    pool.on("error", opts.onError ?? ((e) => console.error("PostgreSQL pool error", e)));
    try {
      await migratePg(pool, opts.migrations ?? PG_MIGRATIONS);
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw new Error(`PostgreSQL store ${redactUrl(url)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    return new PgTaskStore(pool, opts);
  }

  async get(owner: string, id: string): Promise<v1_0.Task | undefined> {
    const p = this.pending.get(id) ?? this.committing.get(id);
    if (p) return p.row.owner === owner ? decodeTask(p.row.body, p.row.artifacts) : undefined;
    const r = await this.pool.query<{ body: string; artifacts: string }>(
      "SELECT body, artifacts FROM a2a_tasks WHERE id = $1 AND owner = $2",
      [id, owner],
    );
    const row = r.rows[0];
    return row ? decodeRow(this.logDamaged, PLACE, id, row.body, row.artifacts) : undefined;
  }

  /** Resolves once the COMMIT holding this write is done (group commit; see the header comment). */
  put(owner: string, task: v1_0.Task): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the task store is closed"));
    const row = rowOf(owner, task); // serialised now: later changes to `task` do not reach the store
    this.noteWrite(row.size);
    return new Promise<void>((resolve, reject) => {
      const prev = this.pending.get(task.id);
      const fenced = this.fence?.holds(task.id) ?? false;
      this.pending.set(task.id, { row, fenced, waiters: [...(prev?.waiters ?? []), { resolve, reject }] });
      this.barrier.submit();
      this.flushing ??= this.flushLoop();
    });
  }

  /** Commits batches until nothing is pending; one commit in flight at a time. */
  private async flushLoop(): Promise<void> {
    // Let the writes of this event-loop turn join the first batch.
    await new Promise((r) => setImmediate(r));
    while (this.pending.size) {
      const batch = (this.committing = this.pending);
      const upTo = this.barrier.mark();
      this.pending = new Map();
      const rows = [...batch.values()].map((p) => p.row);
      try {
        // A fenced row is written only while its lease row names this replica, locked (FOR SHARE)
        // until the COMMIT: a replica taking the lease over (or failing the task) waits for it, and
        // once the lease has moved the row is left as the other replica recorded it. Lease rows are
        // locked in task_id order, as cluster.ts locks them (no deadlock with a renewal).
        const written = await this.pool.query<{ id: string }>(
          `WITH mine AS MATERIALIZED (SELECT task_id FROM a2a_turn_leases WHERE replica = $11 AND task_id = ANY($1::text[])
                                      ORDER BY task_id FOR SHARE)
           INSERT INTO a2a_tasks (id, owner, context_id, state, status_ms, body, artifacts, size, artifact_size)
           SELECT u.id, u.owner, u.context_id, u.state, u.status_ms, u.body, u.artifacts, u.size, u.artifact_size
           FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bool[])
             AS u(id, owner, context_id, state, status_ms, body, artifacts, size, artifact_size, fenced)
           WHERE NOT u.fenced OR u.id IN (SELECT task_id FROM mine)
           ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, context_id = excluded.context_id, state = excluded.state,
             status_ms = excluded.status_ms, body = excluded.body, artifacts = excluded.artifacts, size = excluded.size,
             artifact_size = excluded.artifact_size
           RETURNING id`,
          [
            rows.map((r) => r.id),
            rows.map((r) => r.owner),
            rows.map((r) => r.contextId),
            rows.map((r) => r.state),
            rows.map((r) => r.statusMs),
            rows.map((r) => r.body),
            rows.map((r) => r.artifacts),
            rows.map((r) => r.size),
            rows.map((r) => r.artifactSize),
            [...batch.values()].map((p) => p.fenced),
            this.fence?.replica ?? "",
          ],
        );
        const kept = new Set(written.rows.map((r) => r.id));
        if (written.rowCount !== rows.length) {
          const refused = rows.filter((r) => !kept.has(r.id)).map((r) => r.id);
          this.fencedOut += refused.length;
          this.onError(
            new Error(`not recorded: another replica holds the lease of task(s) ${refused.join(", ")} (this replica was paused past it)`),
          );
        }
        // A refused write rejects: what it reports must reach no client (recordTask answers the
        // caller with a retryable error instead).
        for (const p of batch.values())
          for (const w of p.waiters) {
            if (kept.has(p.row.id)) w.resolve();
            else w.reject(new LeaseLostError(p.row.id));
          }
      } catch (e) {
        for (const p of batch.values()) for (const w of p.waiters) w.reject(e);
      }
      this.committing = new Map();
      this.barrier.reached(upTo);
    }
    this.flushing = undefined;
  }

  /** Waits until every write made before this call is committed (or failed): TaskStore.settled. */
  settled(): Promise<void> {
    return this.barrier.wait();
  }

  async list(q: TaskQuery): Promise<TaskPage> {
    await this.settled(); // a list sees every write that came before it
    const where = ["owner = $1"];
    const params: unknown[] = [q.owner];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace("?", `$${params.length}`));
    };
    if (q.contextId) add("context_id = ?", q.contextId);
    if (q.state) add("state = ?", q.state);
    if (q.statusAfterMs !== undefined) add("status_ms >= ?", q.statusAfterMs);
    const filter = where.join(" AND ");
    const total = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM a2a_tasks WHERE ${filter}`, params);
    const pageParams = [...params];
    let pageFilter = filter;
    if (q.after) {
      pageParams.push(q.after.timestampMs, q.after.id);
      const [ms, id] = [`$${pageParams.length - 1}`, `$${pageParams.length}`];
      pageFilter += ` AND (status_ms < ${ms} OR (status_ms = ${ms} AND id < ${id}))`;
    }
    const pageSize = Math.max(0, Math.floor(q.pageSize));
    pageParams.push(pageSize + 1);
    // Sizes from the index first; then only the bodies that fit in maxBytes are read.
    const rows = (
      await this.pool.query<{ id: string; status_ms: string; size: string; artifact_size: string }>(
        `SELECT id, status_ms, size, artifact_size FROM a2a_tasks WHERE ${pageFilter}
         ORDER BY status_ms DESC, id DESC LIMIT $${pageParams.length}`,
        pageParams,
      )
    ).rows;
    const page = takePage(rows.slice(0, pageSize), q, (r) => (q.withArtifacts ? Number(r.size) : Number(r.size) - Number(r.artifact_size)));
    const more = rows.length > page.length;
    const last = page[page.length - 1];
    const bodies = page.length
      ? (
          await this.pool.query<{ id: string; body: string; artifacts: string | null }>(
            `SELECT id, body, ${q.withArtifacts ? "artifacts" : "NULL AS artifacts"} FROM a2a_tasks WHERE id = ANY($1::text[])`,
            [page.map((r) => r.id)],
          )
        ).rows
      : [];
    const byId = new Map(bodies.map((b) => [b.id, b]));
    return {
      tasks: page.flatMap((r) => {
        const b = byId.get(r.id); // gone between the two reads (retention, delete): left out
        // A damaged row is left out too (and logged): the rest of the owner's tasks still list.
        const task = b && decodeRowOrSkip(this.logDamaged, PLACE, r.id, b.body, b.artifacts);
        return task ? [task] : [];
      }),
      totalSize: Number(total.rows[0]?.n ?? 0),
      ...(more && last ? { next: { timestampMs: Number(last.status_ms), id: last.id } } : {}),
    };
  }

  /** Removes the task, its push configs and events. Returns whether the task existed. */
  async delete(owner: string, id: string): Promise<boolean> {
    await this.settled();
    const r = await this.pool.query(
      `WITH p AS (DELETE FROM a2a_push_configs WHERE owner = $1 AND task_id = $2),
            e AS (DELETE FROM a2a_task_events WHERE task_id = $2 AND EXISTS (SELECT 1 FROM a2a_tasks WHERE id = $2 AND owner = $1))
       DELETE FROM a2a_tasks WHERE id = $2 AND owner = $1`,
      [owner, id],
    );
    return (r.rowCount ?? 0) > 0;
  }

  /** The tasks recorded SUBMITTED or WORKING, with their owners (the gateway resumes them on start). */
  async listRunning(): Promise<{ owner: string; task: v1_0.Task }[]> {
    await this.settled();
    const r = await this.pool.query<{ id: string; owner: string; body: string; artifacts: string }>(
      "SELECT id, owner, body, artifacts FROM a2a_tasks WHERE state IN ($1, $2)",
      [S.SUBMITTED, S.WORKING],
    );
    return r.rows.flatMap((row) => {
      const task = decodeRowOrSkip(this.logDamaged, PLACE, row.id, row.body, row.artifacts);
      return task ? [{ owner: row.owner, task }] : [];
    });
  }

  private noteWrite(size: number): void {
    this.writes++;
    this.written += size;
    if (this.writes >= Math.max(1, this.retention.maxTasks / 100) || this.written >= this.retention.maxBytes / 100) this.scheduleSweep();
  }

  private scheduleSweep(): void {
    if (this.sweeping || this.closed) return;
    this.sweeping = true;
    this.writes = this.written = 0;
    setImmediate(() => {
      void this.sweep()
        .catch(() => undefined) // the next write or interval tries again
        .finally(() => (this.sweeping = false));
    });
  }

  /** Runs the retention policy to the end (batches of 500); returns how many tasks it deleted. */
  async sweep(now = Date.now()): Promise<number> {
    await this.settled();
    const { maxTasks, maxBytes, maxAgeMs } = this.retention;
    const cutoff = maxAgeMs > 0 ? now - maxAgeMs : -1;
    let deleted = 0;
    for (;;) {
      const r = await this.pool.query(
        // The oldest finished or interrupted tasks while the totals (running tasks counted) are over
        // a limit: the k-th oldest goes if k <= tasks over, or the bytes of those before it are
        // still short of the bytes over; and any older than the age limit.
        `WITH totals AS (SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM a2a_tasks),
         ranked AS (
           SELECT id, owner, status_ms, row_number() OVER w AS k, sum(size) OVER w - size AS before
           FROM a2a_tasks WHERE state NOT IN ($1, $2) WINDOW w AS (ORDER BY status_ms, id)
         ), doomed AS (
           SELECT r.id, r.owner FROM ranked r, totals t
           WHERE r.k <= t.n - $3 OR r.before < t.bytes - $4 OR r.status_ms < $5
           ORDER BY r.status_ms LIMIT ${BATCH}
         ), p AS (DELETE FROM a2a_push_configs c USING doomed d WHERE c.owner = d.owner AND c.task_id = d.id),
         e AS (DELETE FROM a2a_task_events v USING doomed d WHERE v.task_id = d.id)
         DELETE FROM a2a_tasks t USING doomed d WHERE t.id = d.id`,
        [S.SUBMITTED, S.WORKING, maxTasks, maxBytes, cutoff],
      );
      deleted += r.rowCount ?? 0;
      if ((r.rowCount ?? 0) < BATCH) return deleted;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.settled();
    this.closed = true;
    clearInterval(this.timer);
    await this.pool.end();
  }
}

/** Push configs in the store's database (`store.pushConfigs`); see src/push/config-store.ts. */
export class PgPushConfigStore implements PushConfigStore {
  constructor(private readonly pool: pg.Pool) {}

  private row(owner: string, r: PushConfigRow): StoredPushConfig {
    return storedPushConfig(owner, r);
  }

  async create(owner: string, config: v1_0.TaskPushNotificationConfig, version: PushWireVersion): Promise<StoredPushConfig> {
    const c = prepareConfig(config);
    const body = pushConfigBody(c);
    await this.pool.query(
      `INSERT INTO a2a_push_configs (owner, task_id, id, version, body) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (owner, task_id, id) DO UPDATE SET version = excluded.version, body = excluded.body`,
      [owner, c.taskId, c.id, version, body],
    );
    return { owner, version, config: c };
  }

  async get(owner: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const r = await this.pool.query<{ version: string; body: string }>(
      "SELECT version, body FROM a2a_push_configs WHERE owner = $1 AND task_id = $2 AND id = $3",
      [owner, taskId, id],
    );
    return r.rows[0] ? this.row(owner, r.rows[0]) : undefined;
  }

  async list(owner: string, taskId: string): Promise<StoredPushConfig[]> {
    const r = await this.pool.query<{ version: string; body: string }>(
      "SELECT version, body FROM a2a_push_configs WHERE owner = $1 AND task_id = $2 ORDER BY seq",
      [owner, taskId],
    );
    return r.rows.map((x) => this.row(owner, x));
  }

  async delete(owner: string, taskId: string, id: string): Promise<boolean> {
    const r = await this.pool.query("DELETE FROM a2a_push_configs WHERE owner = $1 AND task_id = $2 AND id = $3", [owner, taskId, id]);
    return (r.rowCount ?? 0) > 0;
  }

  async deleteForTask(owner: string, taskId: string): Promise<number> {
    const r = await this.pool.query("DELETE FROM a2a_push_configs WHERE owner = $1 AND task_id = $2", [owner, taskId]);
    return r.rowCount ?? 0;
  }
}
