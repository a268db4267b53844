// Retention of the SQLite task store (sqlite-store.ts): keeps the file from growing without end.
//
// Policy (README "Task store and retention"): when the file holds more than `maxTasks` tasks or
// more than `maxBytes` of tasks (the stored `size` column: task-size.ts estimates, at least the
// ProtoJSON's length except for raw bytes, which base64 makes 4/3 longer), or tasks
// whose status is older than `maxAgeMs`, the tasks with the oldest status are deleted, with their
// push configs, until it is back within every limit. Tasks SUBMITTED or WORKING are never deleted
// (the runtime is running them); interrupted tasks (INPUT_REQUIRED, AUTH_REQUIRED) are, like
// finished ones: a caller that comes back for a deleted task gets TaskNotFound, as with the memory
// store's eviction. Deleted rows' pages are reused by later writes, so the file stops growing at
// about the budget (it does not shrink; VACUUM it offline for that).
//
// Off the request path: a write only counts itself; every `maxTasks / 100` writes or `maxBytes /
// 100` bytes written (and every `intervalMs`, for the age limit) a sweep is scheduled with
// setImmediate. The sweep deletes what is over in batches of BATCH rows, one transaction and one
// event-loop turn each, so no request waits behind a long delete. The totals it compares with the
// limits are counted once when the store opens (count(*) over a covering index, about 3 ms at
// 100,000 tasks), then kept up to date by the store after each commit: a batch of puts reads the
// stored sizes of its tasks first (one query), so it knows which it inserts and how each size
// changes, and a delete returns the size it removed. Every delete counts, the caller's too, so no
// sweep deletes more than the limits ask. Until 2026-12-05 a sweep counted before each batch or
// once per sweep and deleted 500 rows a turn; those 3–11 ms turns set the server's p99 latency
// (bench/README.md, "Where the SQLite store's tail came from").
import type Database from "better-sqlite3";
import * as v1_0 from "../../../generated/v1_0/index.js";

export interface SqliteRetentionOptions {
  /** Most tasks kept (default 100,000). */
  maxTasks?: number;
  /** Most estimated bytes of tasks kept (default 1 GiB). */
  maxBytes?: number;
  /** Delete tasks whose status is older than this many ms (default 0: no age limit). */
  maxAgeMs?: number;
  /** How often to check the age limit, in ms (default 60,000). */
  intervalMs?: number;
}

export const SQLITE_RETENTION_DEFAULTS = { maxTasks: 100_000, maxBytes: 1024 * 1024 * 1024, maxAgeMs: 0, intervalMs: 60_000 } as const;

// Rows deleted per transaction and event-loop turn. A row with its index entries and push configs
// takes about 20 µs to delete at 100,000 tasks, so a batch holds the event loop about 1 ms.
const BATCH = 50;

interface SweepPlan {
  overTasks: number;
  overBytes: number;
  /** Tasks whose status is older than this (epoch ms) go; -Infinity without an age limit. */
  cutoff: number;
}
const S = v1_0.TaskState;

export class RetentionSweeper {
  readonly maxTasks: number;
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  private readonly stmt;
  // How many tasks the file holds and their bytes: counted once on open (count(*) over an index,
  // about 3 ms at 100,000 tasks), then kept by noteWrite and noteDelete after each commit.
  private totals = { n: 0, bytes: 0 };
  private writes = 0;
  private written = 0;
  private scheduled = false;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database.Database,
    /** Deletes one task with its push configs (inside the sweep's transaction); returns its stored size, undefined without a row. */
    private readonly remove: (owner: string, id: string) => number | undefined,
    opts: SqliteRetentionOptions = {},
  ) {
    const positive = (v: number | undefined, d: number) => (v !== undefined && v > 0 ? Math.floor(v) : d);
    this.maxTasks = positive(opts.maxTasks, SQLITE_RETENTION_DEFAULTS.maxTasks);
    this.maxBytes = positive(opts.maxBytes, SQLITE_RETENTION_DEFAULTS.maxBytes);
    this.maxAgeMs = Math.max(0, opts.maxAgeMs ?? SQLITE_RETENTION_DEFAULTS.maxAgeMs);
    this.stmt = {
      totals: db.prepare<[], { n: number; bytes: number }>("SELECT count(*) AS n, total(size) AS bytes FROM tasks"),
      oldest: db.prepare<[number, number, number], { id: string; owner: string; status_ms: number; size: number }>(
        "SELECT id, owner, status_ms, size FROM tasks WHERE state NOT IN (?, ?) ORDER BY status_ms LIMIT ?",
      ),
    };
    this.recount();
    if (this.maxAgeMs > 0) {
      this.timer = setInterval(() => this.schedule(), positive(opts.intervalMs, SQLITE_RETENTION_DEFAULTS.intervalMs));
      this.timer.unref();
    }
  }

  /** Counts the tasks and their bytes in the file (on open, and after writes that did not go through noteWrite). */
  recount(): void {
    this.totals = this.stmt.totals.get() ?? { n: 0, bytes: 0 };
  }

  /**
   * Called after each committed put with the row's size and the size the row had before (undefined
   * when the put inserted it); schedules a sweep now and then.
   */
  noteWrite(size: number, before: number | undefined): void {
    if (before === undefined) this.totals.n++;
    this.totals.bytes += size - (before ?? 0);
    this.writes++;
    this.written += size;
    if (this.writes >= Math.max(1, this.maxTasks / 100) || this.written >= this.maxBytes / 100) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.writes = this.written = 0;
    setImmediate(() => this.run());
  }

  /** Called after a committed delete of a task with this stored size. */
  noteDelete(size: number): void {
    this.totals.n--;
    this.totals.bytes -= size;
  }

  private run(): void {
    if (!this.db.open) return;
    let more = false;
    try {
      const plan = this.measure(Date.now());
      more = plan !== undefined && this.step(plan) === BATCH;
    } catch {
      // The next write or interval tries again; a failing store shows itself on the request path.
    }
    if (more) setImmediate(() => this.run());
    else this.scheduled = false;
  }

  /** How far over its limits the store is now; undefined when within them and with no age limit. */
  private measure(now: number): SweepPlan | undefined {
    const totals = this.totals;
    const plan = {
      overTasks: totals.n - this.maxTasks,
      overBytes: totals.bytes - this.maxBytes,
      cutoff: this.maxAgeMs > 0 ? now - this.maxAgeMs : -Infinity,
    };
    return plan.overTasks <= 0 && plan.overBytes <= 0 && plan.cutoff === -Infinity ? undefined : plan;
  }

  /** Deletes up to one batch of what `plan` says must go; returns how many it deleted. */
  private step(plan: SweepPlan): number {
    const rows = this.stmt.oldest.all(S.SUBMITTED, S.WORKING, BATCH);
    let { overTasks, overBytes } = plan;
    const doomed: typeof rows = [];
    for (const r of rows) {
      if (overTasks <= 0 && overBytes <= 0 && r.status_ms >= plan.cutoff) break;
      doomed.push(r);
      overTasks--;
      overBytes -= r.size;
    }
    if (!doomed.length) return 0;
    const sizes = this.db.transaction(() => doomed.map((r) => this.remove(r.owner, r.id)))();
    for (const size of sizes) if (size !== undefined) this.noteDelete(size);
    return doomed.length;
  }

  /** Runs the policy to the end at once (tests, maintenance); returns the number of tasks deleted. */
  sweep(now = Date.now()): number {
    for (let deleted = 0; ;) {
      const plan = this.measure(now);
      const n = plan ? this.step(plan) : 0;
      deleted += n;
      if (n < BATCH) return deleted;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
