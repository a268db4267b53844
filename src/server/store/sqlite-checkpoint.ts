// WAL checkpoints of the SQLite task store (sqlite-store.ts), off the event loop.
//
// The store turns SQLite's automatic checkpoints off (`wal_autocheckpoint = 0`): with them on, the
// commit that crossed 1,000 WAL pages ran the checkpoint itself, inside a request's write (p99
// 0.9 ms, max 20 ms per put). Run on a timer between event-loop turns instead, a TRUNCATE
// checkpoint every 100 ms still stalled the event loop for as long as it took to copy the WAL's
// pages into the database: 31–37 ms at the longest under load, which set the HTTP p99
// (bench/README.md).
//
// So the copying runs in a worker thread with its own connection to the file, in two steps:
//
// 1. PASSIVE checkpoints copy what is in the WAL while the store goes on committing (a passive
//    checkpoint takes no lock a writer needs). Alone they never bound the WAL: SQLite starts the WAL
//    over only when a write begins with every frame copied, and under steady writes new frames
//    always arrive while the copy runs (a worker doing only this let the WAL grow to 59–104 MiB).
//    Another passive pass follows while more than `catchUpBytes` came in during the last one.
// 2. Then the store holds its group commit back (`holding`: writes wait, the event loop does not),
//    and the worker runs a TRUNCATE checkpoint: it copies only what came in since step 1, and cuts
//    the WAL file back to zero. The hold ends with its reply, and the held writes commit together.
//    Nothing is lost or acknowledged early: a put still settles only after its COMMIT.
//
// A timer (unref'd: it keeps no process alive) looks at the WAL file every `pollMs` and starts such
// a cycle when the WAL holds `walBytes` or more, or anything at all `intervalMs` after the last one
// ended. The WAL therefore stays below `walBytes` plus what is committed while a cycle runs. The
// worker is unref'd too while it has nothing to answer; closing the store ends it. Should the worker
// fail, checkpoints run on the event loop as before (TRUNCATE, between two turns), so the WAL stays
// bounded either way.
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

export interface WalCheckpointOptions {
  /** Start a checkpoint once the WAL file holds this many bytes (default 16 MiB). */
  walBytes?: number;
  /** Checkpoint a non-empty WAL at least this often, in ms (default 100: at every poll). */
  intervalMs?: number;
  /** How often to look at the WAL file, in ms (default 100). */
  pollMs?: number;
  /** Hold writes for the final TRUNCATE only once fewer than this many bytes arrived during the last passive pass (default 1 MiB). */
  catchUpBytes?: number;
}

export const CHECKPOINT_DEFAULTS = { walBytes: 16 * 1024 * 1024, intervalMs: 100, pollMs: 100, catchUpBytes: 1024 * 1024 } as const;

/** At most this many passive passes before the hold, however fast the WAL grows. */
const MAX_PASSES = 4;

type Mode = "PASSIVE" | "TRUNCATE";
/** The worker's answer: `wal_checkpoint`'s row (busy, frames in the WAL, frames copied), or an error. */
interface Reply {
  ms: number;
  busy?: number;
  log?: number;
  checkpointed?: number;
  error?: string;
}

// CommonJS, run with `eval`: no file to find next to this module, in src/ (tsx) or dist/.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
parentPort.on("message", (mode) => {
  if (mode === "close") { db.close(); parentPort.close(); return; }
  const t0 = performance.now();
  try {
    const r = db.pragma("wal_checkpoint(" + mode + ")")[0];
    parentPort.postMessage({ ms: performance.now() - t0, busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ ms: performance.now() - t0, error: String(e && e.message || e) });
  }
});`;

export class WalCheckpointer {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly wal: string | undefined;
  private readonly walLimit: number;
  private readonly intervalMs: number;
  private readonly catchUpBytes: number;
  private worker: Worker | undefined;
  private answer: ((r: Reply) => void) | undefined;
  private exited: Promise<void> | undefined;
  private running = false;
  // The worker starts with the first cycle: a store that is opened and closed again never pays for it.
  private started = false;
  private closed = false;
  private last = Date.now();
  /** True while the worker's TRUNCATE runs: the store's group commit waits until `onRelease`. */
  holding = false;
  /**
   * Cycles run, how many failed (the next poll tries again), the ms writes were held in all and the
   * longest hold (the only part a request can wait for), and the worker's ms in all (off the event loop).
   */
  readonly stats = { checkpoints: 0, failures: 0, ms: 0, maxMs: 0, workerMs: 0 };

  constructor(
    private readonly db: Database.Database,
    opts: WalCheckpointOptions = {},
    /** Called when a hold ends (the store commits what waited). */
    private readonly onRelease: () => void = () => {},
  ) {
    this.walLimit = opts.walBytes ?? CHECKPOINT_DEFAULTS.walBytes;
    this.intervalMs = opts.intervalMs ?? CHECKPOINT_DEFAULTS.intervalMs;
    this.catchUpBytes = opts.catchUpBytes ?? CHECKPOINT_DEFAULTS.catchUpBytes;
    if (db.memory) return;
    this.wal = `${db.name}-wal`;
    this.timer = setInterval(() => this.poll(), Math.max(1, opts.pollMs ?? CHECKPOINT_DEFAULTS.pollMs));
    this.timer.unref();
  }

  private startWorker(): Worker | undefined {
    try {
      const busyTimeoutMs = Number(this.db.pragma("busy_timeout", { simple: true })) || 0;
      const module = createRequire(import.meta.url).resolve("better-sqlite3");
      const worker = new Worker(WORKER, { eval: true, workerData: { file: this.db.name, module, busyTimeoutMs } });
      worker.unref();
      worker.on("message", (r: Reply) => this.answer?.(r));
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      this.exited = exited;
      // A worker that fails (or exits unasked) is dropped: checkpoints go back to the event loop.
      worker.once("error", () => this.dropWorker(worker));
      void exited.then(() => this.dropWorker(worker));
      return worker;
    } catch {
      return undefined;
    }
  }

  private dropWorker(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.answer?.({ ms: 0, error: "the checkpoint worker stopped" });
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
    if (this.running || !this.db.open) return;
    const bytes = this.walBytes();
    if (bytes >= this.walLimit || (bytes > 0 && Date.now() - this.last >= this.intervalMs)) void this.run();
  }

  /** One cycle now: passive passes in the worker, then TRUNCATE with the writes held (or on the event loop without a worker). */
  async run(): Promise<void> {
    if (this.running || this.closed || !this.db.open || !this.wal) return;
    this.running = true;
    if (!this.started) {
      this.started = true;
      this.worker = this.startWorker();
    }
    try {
      if (!this.worker) return this.runHere();
      let ok = true;
      for (let pass = 0; pass < MAX_PASSES; pass++) {
        const before = this.walBytes();
        const r = await this.ask("PASSIVE");
        if (r.error || !this.worker) ok = false;
        if (!ok || this.walBytes() - before < this.catchUpBytes) break;
      }
      if (ok && !this.closed) {
        const t0 = performance.now();
        this.holding = true;
        let r: Reply;
        try {
          r = await this.ask("TRUNCATE");
        } finally {
          this.holding = false;
          this.noteHold(performance.now() - t0);
          this.onRelease();
        }
        ok = !r.error && r.busy === 0;
      }
      if (ok) this.stats.checkpoints++;
      else this.stats.failures++;
    } finally {
      this.running = false;
      this.last = Date.now();
    }
  }

  private ask(mode: Mode): Promise<Reply> {
    const worker = this.worker;
    if (!worker) return Promise.resolve({ ms: 0, error: "no checkpoint worker" });
    return new Promise<Reply>((resolve) => {
      // Referenced while it owes an answer: a put waiting on a hold keeps the process alive.
      worker.ref();
      this.answer = (r) => {
        this.answer = undefined;
        worker.unref();
        this.stats.workerMs += r.ms;
        resolve(r);
      };
      worker.postMessage(mode);
    });
  }

  /** The fallback: TRUNCATE on this connection, between two event-loop turns (no write is under way then). */
  private runHere(): void {
    const t0 = performance.now();
    try {
      this.db.pragma("wal_checkpoint(TRUNCATE)");
      this.stats.checkpoints++;
    } catch {
      // A failed checkpoint loses nothing (the WAL keeps the frames); the next poll tries again.
      this.stats.failures++;
    }
    this.noteHold(performance.now() - t0);
  }

  private noteHold(ms: number): void {
    this.stats.ms += ms;
    this.stats.maxMs = Math.max(this.stats.maxMs, ms);
  }

  /** Stops the timer and the worker (after the checkpoint it may be running); resolves once the worker has exited. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const worker = this.worker;
    if (worker && !this.closed) {
      worker.ref();
      worker.postMessage("close");
    }
    this.closed = true;
    await this.exited;
  }
}
