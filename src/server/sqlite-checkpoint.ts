// WAL checkpoints of the SQLite task store (sqlite-store.ts), off the request path.
//
// The store turns SQLite's automatic checkpoints off (`wal_autocheckpoint = 0`): with them on, the
// commit that crossed 1,000 WAL pages ran the checkpoint itself, inside a request's write (p99
// 0.9 ms, max 20 ms per put). Instead a timer (unref'd: it keeps no process alive) runs a PASSIVE
// checkpoint every `intervalMs`, between two event-loop turns. This process is the file's only
// writer and commits synchronously, so no write is under way then: the checkpoint copies every
// committed frame into the database, and the next commit starts the WAL over from its beginning.
// The WAL file therefore holds at most what is committed in one interval. When it has grown past
// `maxWalBytes` anyway (a burst), the checkpoint is TRUNCATE, which also cuts the file back to zero.
import { statSync } from "node:fs";
import type Database from "better-sqlite3";

export interface WalCheckpointOptions {
  /** How often to checkpoint, in ms (default 200). */
  intervalMs?: number;
  /** A WAL file larger than this is truncated by the next checkpoint (default 16 MiB). */
  maxWalBytes?: number;
}

export const CHECKPOINT_DEFAULTS = { intervalMs: 200, maxWalBytes: 16 * 1024 * 1024 } as const;

export class WalCheckpointer {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly wal: string | undefined;
  readonly maxWalBytes: number;
  /** Checkpoints run, and how many of them truncated the WAL. */
  readonly stats = { checkpoints: 0, truncations: 0, failures: 0 };

  constructor(
    private readonly db: Database.Database,
    opts: WalCheckpointOptions = {},
  ) {
    this.maxWalBytes = opts.maxWalBytes ?? CHECKPOINT_DEFAULTS.maxWalBytes;
    if (db.memory) return;
    this.wal = `${db.name}-wal`;
    this.timer = setInterval(() => this.run(), Math.max(1, opts.intervalMs ?? CHECKPOINT_DEFAULTS.intervalMs));
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

  /** One checkpoint now: PASSIVE, or TRUNCATE when the WAL file is over maxWalBytes. */
  run(): void {
    if (!this.db.open || !this.wal) return;
    const truncate = this.walBytes() > this.maxWalBytes;
    try {
      this.db.pragma(`wal_checkpoint(${truncate ? "TRUNCATE" : "PASSIVE"})`);
      this.stats.checkpoints++;
      if (truncate) this.stats.truncations++;
    } catch {
      // A failed checkpoint loses nothing (the WAL keeps the frames); the next tick tries again.
      this.stats.failures++;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
