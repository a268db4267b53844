// WAL checkpoints of the SQLite task store (sqlite-store.ts), off the request path.
//
// The store turns SQLite's automatic checkpoints off (`wal_autocheckpoint = 0`): with them on, the
// commit that crossed 1,000 WAL pages ran the checkpoint itself, inside a request's write (p99
// 0.9 ms, max 20 ms per put). Instead a timer (unref'd: it keeps no process alive) looks at the WAL
// file every `pollMs`, between two event-loop turns, and checkpoints when it holds `walBytes` or
// more, or anything at all `intervalMs` after the last checkpoint. This process is the file's only
// writer and commits synchronously, so no write is under way then: the checkpoint (TRUNCATE) copies
// every committed frame into the database and cuts the WAL file back to zero, so the file's size
// is what was committed since. The WAL therefore stays below `walBytes` plus what is committed
// until the next poll runs (one interval, more when the event loop is busy).
//
// A checkpoint stalls the event loop for as long as it takes to copy the WAL's distinct pages into
// the database (fsync is cheap next to it here), so the default checkpoints at every poll that finds
// a non-empty WAL: many short stalls rather than a few long ones. Against a checkpoint a second,
// over HTTP (50 connections of blocking sends): p99 35 ms instead of 53, the same req/s within the
// runs' spread; over 100,000 sends through the runtime (bench/store-wal.ts): the longest checkpoint
// 31–37 ms instead of 83, the largest WAL file 8–11 MiB instead of 19 (bench/README.md). Polling
// every 25 ms rather than 100 (2026-12-05, bench/tail-probe.ts, a full store at 12–17k sends/s):
// checkpoints of p50 6.8 ms instead of 19–23 (about 4 ms of each is the fsyncs of the WAL and the
// database, whatever the size), four times as many, and the server's p99 11–13 ms instead of 25–28.
// In a closed loop of 50 connections a stall of S ms every T ms delays about 50 requests by S, so
// at these rates any stall that comes more than every 300 ms or so sets the p99.
//
// Two ways of moving the copying to a worker thread with its own connection were measured and not
// kept (bench/README.md, "Checkpoints in a worker thread"). PASSIVE checkpoints alone never bound the
// WAL: SQLite starts it over only when a write begins with every frame copied, which steady writes
// never allow (59–104 MiB). PASSIVE passes followed by a TRUNCATE in the worker while the group
// commit waits (so the event loop never waits for the worker's lock) bound it, but the hold lasts as
// long as the TRUNCATE's fsyncs (40–110 ms on a shared disk), so requests still wait; in two loaded
// HTTP runs the p99 moved with the load, not with the change, while the copying twice cost the
// server about 5–20 µs of CPU per send and the req/s ratio to the SDK fell (2.36–2.38× vs 2.77–2.83×).
import { statSync } from "node:fs";
import type Database from "better-sqlite3";

export interface WalCheckpointOptions {
  /** Checkpoint once the WAL file holds this many bytes (default 16 MiB). */
  walBytes?: number;
  /** Checkpoint a non-empty WAL at least this often, in ms (default 25: at every poll). */
  intervalMs?: number;
  /** How often to look at the WAL file, in ms (default 25). */
  pollMs?: number;
}

export const CHECKPOINT_DEFAULTS = { walBytes: 16 * 1024 * 1024, intervalMs: 25, pollMs: 25 } as const;

export class WalCheckpointer {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly wal: string | undefined;
  private readonly walLimit: number;
  private readonly intervalMs: number;
  private last = Date.now();
  /** Checkpoints run, how many failed (the next poll tries again), the ms they took in all, the longest. */
  readonly stats = { checkpoints: 0, failures: 0, ms: 0, maxMs: 0 };

  constructor(
    private readonly db: Database.Database,
    opts: WalCheckpointOptions = {},
  ) {
    this.walLimit = opts.walBytes ?? CHECKPOINT_DEFAULTS.walBytes;
    this.intervalMs = opts.intervalMs ?? CHECKPOINT_DEFAULTS.intervalMs;
    if (db.memory) return;
    this.wal = `${db.name}-wal`;
    this.timer = setInterval(() => this.poll(), Math.max(1, opts.pollMs ?? CHECKPOINT_DEFAULTS.pollMs));
    this.timer.unref();
  }

  /** Bytes in the WAL file now (0 without one). */
  walBytes(): number {
    try {
      return this.wal ? statSync(this.wal).size : 0;
    } catch {
      return 0;
    }
  }

  private poll(): void {
    const bytes = this.walBytes();
    if (bytes >= this.walLimit || (bytes > 0 && Date.now() - this.last >= this.intervalMs)) this.run();
  }

  /** One checkpoint now (TRUNCATE). */
  run(): void {
    if (!this.db.open || !this.wal) return;
    const t0 = performance.now();
    try {
      this.db.pragma("wal_checkpoint(TRUNCATE)");
      this.stats.checkpoints++;
    } catch {
      // A failed checkpoint loses nothing (the WAL keeps the frames); the next poll tries again.
      this.stats.failures++;
    }
    this.last = Date.now();
    const ms = performance.now() - t0;
    this.stats.ms += ms;
    this.stats.maxMs = Math.max(this.stats.maxMs, ms);
  }

  close(): void {
    clearInterval(this.timer);
  }
}
