// WAL checkpoints of the SQLite task store (sqlite-store.ts), off the request path.
//
// The store turns SQLite's automatic checkpoints off (`wal_autocheckpoint = 0`): with them on, the
// commit that crossed 1,000 WAL pages ran the checkpoint itself, inside a request's write (p99
// 0.9 ms, max 20 ms per put). Instead a timer (unref'd: it keeps no process alive) runs a PASSIVE
// checkpoint every `pollMs`, between two event-loop turns. This process is the file's only writer
// and commits synchronously, so no write is under way then, and with no other process reading, the
// checkpoint copies every committed frame into the database. The next write then starts the WAL
// over from its first frame, writing over the same file rather than growing a new one; the first
// commit after that cuts the file back to `walBytes` (`journal_size_limit`) if it grew past it. So
// the WAL file holds what was committed between two polls, or `walBytes`, whichever is larger. A
// poll with nothing written since the last complete checkpoint (SQLite's `total_changes()` the
// same) does nothing. PASSIVE never waits: while another process holds a read transaction, the
// frames it may still read stay in the WAL and a later poll copies them (a TRUNCATE would block
// the event loop for up to the busy timeout instead).
//
// A checkpoint stalls the event loop for as long as it takes to fsync the WAL, copy its distinct
// pages into the database and fsync that, so it runs at every poll: many short stalls rather than
// a few long ones. Before each one the poll hands the WAL file to `fdatasync` on libuv's thread
// pool and checkpoints when that returns, so SQLite's own fsync of the WAL finds little left to
// write (durability is SQLite's as before: this only moves the disk's work off the event loop). In
// a closed loop of 50 connections a stall of S ms every T ms delays about 50 requests by S, so at
// these rates any stall that comes more than every 300 ms or so sets the p99.
// Measured over HTTP at 50 connections (bench/README.md): a TRUNCATE at every 100 ms poll rather
// than once a second, p99 35 ms instead of 53. With bench/tail-probe.ts (a full store, 14–20k
// sends/s, 2026-12-05, pairs run back to back on a quiet machine): a TRUNCATE every 25 ms took p50
// 6.9 ms (longest 8.8) and the server's p99 was 11–13 ms; PASSIVE every 25 ms, the file reused,
// p50 2.7–3.0 ms and p99 7–8 ms; with the fdatasync first, p50 1.8 ms and p99 6–7 ms.
//
// Two ways of moving the copying to a worker thread with its own connection were measured and not
// kept (bench/README.md, "Checkpoints in a worker thread"). PASSIVE checkpoints in a worker never
// bound the WAL: SQLite starts it over only when a write begins with every frame copied, which
// steady writes from another thread never allow (59–104 MiB). PASSIVE passes followed by a
// TRUNCATE in the worker while the group commit waits bound it, but the hold lasts as long as the
// TRUNCATE's fsyncs (40–110 ms on a shared disk), so requests still wait.
import { closeSync, fdatasync, openSync } from "node:fs";
import type Database from "better-sqlite3";

export interface WalCheckpointOptions {
  /** The WAL file is cut back to this many bytes when a checkpoint lets it start over (default 16 MiB). */
  walBytes?: number;
  /** How often to checkpoint, in ms (default 25). */
  pollMs?: number;
}

export const CHECKPOINT_DEFAULTS = { walBytes: 16 * 1024 * 1024, pollMs: 25 } as const;

export class WalCheckpointer {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly changes: Database.Statement<[], number> | undefined;
  // Rows this connection had changed at the last checkpoint, and whether that one copied every frame.
  private changedAtLast = -1;
  private caughtUp = false;
  // The WAL file, opened for the fdatasync before each checkpoint; whether one is under way.
  private walFd: number | undefined;
  private syncing = false;
  /** Checkpoints run, how many failed (the next poll tries again), the ms they took in all, the longest. */
  readonly stats = { checkpoints: 0, failures: 0, ms: 0, maxMs: 0 };

  constructor(
    private readonly db: Database.Database,
    opts: WalCheckpointOptions = {},
  ) {
    if (db.memory) return;
    db.pragma(`journal_size_limit = ${Math.max(0, Math.floor(opts.walBytes ?? CHECKPOINT_DEFAULTS.walBytes))}`);
    this.changes = db.prepare<[], number>("SELECT total_changes()").pluck();
    this.timer = setInterval(() => this.poll(), Math.max(1, opts.pollMs ?? CHECKPOINT_DEFAULTS.pollMs));
    this.timer.unref();
  }

  /** SQLite's `total_changes()` now if a checkpoint is due (a write since the last one that copied every frame), else undefined. */
  private due(): number | undefined {
    if (!this.changes || !this.db.open) return undefined;
    const changed = this.changes.get() ?? 0;
    return changed === this.changedAtLast && this.caughtUp ? undefined : changed;
  }

  /** The timer: the WAL's new frames to disk on libuv's thread pool, then the checkpoint on the event loop. */
  private poll(): void {
    if (this.syncing || this.due() === undefined) return;
    try {
      this.walFd ??= openSync(`${this.db.name}-wal`, "r");
    } catch {
      return this.run(); // no WAL file (yet): nothing to flush
    }
    this.syncing = true;
    // An error here (EIO) is SQLite's to meet and report in its own sync; the checkpoint runs regardless.
    fdatasync(this.walFd, () => {
      this.syncing = false;
      if (this.db.open) this.run();
      else this.closeFd();
    });
  }

  /** One checkpoint now (PASSIVE), unless nothing was written since the last one copied every frame. */
  run(): void {
    const changed = this.due();
    if (changed === undefined) return;
    const t0 = performance.now();
    try {
      const [r] = this.db.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number; checkpointed: number }[];
      this.changedAtLast = changed;
      this.caughtUp = r !== undefined && r.log === r.checkpointed;
      this.stats.checkpoints++;
    } catch {
      // A failed checkpoint loses nothing (the WAL keeps the frames); the next poll tries again.
      this.stats.failures++;
    }
    const ms = performance.now() - t0;
    this.stats.ms += ms;
    this.stats.maxMs = Math.max(this.stats.maxMs, ms);
  }

  private closeFd(): void {
    if (this.walFd === undefined) return;
    closeSync(this.walFd);
    this.walFd = undefined;
  }

  close(): void {
    clearInterval(this.timer);
    if (!this.syncing) this.closeFd(); // else the fdatasync's callback closes it
  }
}
