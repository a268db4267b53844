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
// setImmediate, and it deletes in batches of BATCH rows, one transaction and one event-loop turn
// each, so no request waits behind a long delete. Totals come from covering indexes (migration 3),
// never from reading a body.
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

const BATCH = 500;
const S = v1_0.TaskState;

export class RetentionSweeper {
  readonly maxTasks: number;
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  private readonly stmt;
  private writes = 0;
  private written = 0;
  private scheduled = false;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database.Database,
    /** Deletes one task with its push configs (inside the sweep's transaction). */
    private readonly remove: (owner: string, id: string) => void,
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
    if (this.maxAgeMs > 0) {
      this.timer = setInterval(() => this.schedule(), positive(opts.intervalMs, SQLITE_RETENTION_DEFAULTS.intervalMs));
      this.timer.unref();
    }
  }

  /** Called by each put with the row's size; schedules a sweep now and then. */
  noteWrite(size: number): void {
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

  private run(): void {
    if (!this.db.open) return;
    let more = false;
    try {
      more = this.step(Date.now()) === BATCH;
    } catch {
      // The next write or interval tries again; a failing store shows itself on the request path.
    }
    if (more) setImmediate(() => this.run());
    else this.scheduled = false;
  }

  /** Deletes up to one batch of what the limits say must go; returns how many rows it examined. */
  private step(now: number): number {
    const totals = this.stmt.totals.get()!;
    let overTasks = totals.n - this.maxTasks;
    let overBytes = totals.bytes - this.maxBytes;
    const cutoff = this.maxAgeMs > 0 ? now - this.maxAgeMs : -Infinity;
    if (overTasks <= 0 && overBytes <= 0 && cutoff === -Infinity) return 0;
    const rows = this.stmt.oldest.all(S.SUBMITTED, S.WORKING, BATCH);
    const doomed: typeof rows = [];
    for (const r of rows) {
      if (overTasks <= 0 && overBytes <= 0 && r.status_ms >= cutoff) break;
      doomed.push(r);
      overTasks--;
      overBytes -= r.size;
    }
    if (doomed.length) this.db.transaction(() => doomed.forEach((r) => this.remove(r.owner, r.id)))();
    return doomed.length;
  }

  /** Runs the policy to the end at once (tests, maintenance); returns the number of tasks deleted. */
  sweep(now = Date.now()): number {
    let deleted = 0;
    for (let n = this.step(now); n > 0; n = n === BATCH ? this.step(now) : 0) deleted += n;
    return deleted;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
