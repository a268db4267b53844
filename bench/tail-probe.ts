// Where a server's latency tail comes from (issue 30): an env-gated probe for bench/server-targets.ts.
//
//   A2A_BENCH_PROBE=<out.json> npx tsx bench/server-targets.ts ours [sqlite <file>]
//   npx tsx bench/tail-probe.ts [--duration 5] [--runs 2]   # ours memory vs ours SQLite, one table
//
// In the server process it records, from its start (or the last SIGUSR2) until SIGTERM:
// event-loop delay (`monitorEventLoopDelay`, 1 ms resolution), GC pauses (PerformanceObserver
// 'gc'), and, on the SQLite store, each group commit (its time on the event loop and its batch
// size), each WAL checkpoint and each retention step (sqlite-retention.ts), by wrapping the
// store's prototype methods (nothing in src changes). On exit it writes the figures to the file.
// The driver starts both servers with the probe, loads each in turn with the blocking 1.0 send at
// 50 connections (a 2 s warm-up, SIGUSR2, then the runs), and prints what the probe saw.
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";
import { quantile } from "./stats.js";

/** What the probe writes. */
interface ProbeReport {
  loopDelay: { p50: number; p99: number; max: number; mean: number };
  gc: Series;
  flushMs: Series;
  batch: Series;
  checkpointMs: Series;
  sweepMs: Series;
}

interface Series {
  n: number;
  totalMs: number;
  p50: number;
  p99: number;
  max: number;
  /** How many took at least 5 / 10 / 20 ms. */
  over5: number;
  over10: number;
  over20: number;
}

function series(xs: number[]): Series {
  // A series can be empty (no checkpoints in a run, the memory store's commits): zeros then.
  const q = (p: number) => (xs.length ? Math.round(quantile(xs, p) * 100) / 100 : 0);
  return {
    n: xs.length,
    totalMs: Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100,
    p50: q(0.5),
    p99: q(0.99),
    max: q(1),
    over5: xs.filter((x) => x >= 5).length,
    over10: xs.filter((x) => x >= 10).length,
    over20: xs.filter((x) => x >= 20).length,
  };
}

/** Installs the probe in this process; writes `out` when the process exits. */
export async function installProbe(out: string): Promise<void> {
  const gc: number[] = [];
  const flushMs: number[] = [];
  const batch: number[] = [];
  const checkpointMs: number[] = [];
  const sweepMs: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push(e.duration);
  }).observe({ entryTypes: ["gc"] });

  const { SqliteTaskStore } = await import("../src/server/store/sqlite-store.js");
  const { WalCheckpointer } = await import("../src/server/store/sqlite-checkpoint.js");
  const proto = SqliteTaskStore.prototype as unknown as { flush(): void };
  const flush = proto.flush;
  proto.flush = function (this: { pending: Map<unknown, unknown> }) {
    const size = this.pending.size;
    if (!size) return flush.call(this);
    const t0 = performance.now();
    flush.call(this);
    flushMs.push(performance.now() - t0);
    batch.push(size);
  };
  const { RetentionSweeper } = await import("../src/server/store/sqlite-retention.js");
  const sweeper = RetentionSweeper.prototype as unknown as { step(...args: unknown[]): number };
  const step = sweeper.step;
  sweeper.step = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    const n = step.call(this, ...args);
    sweepMs.push(performance.now() - t0);
    return n;
  };
  const run = WalCheckpointer.prototype.run;
  // A2A_BENCH_CHECKPOINT_MODE=TRUNCATE|RESTART: an experiment, the checkpoint in that mode instead
  // (at every poll, whether or not anything was written).
  const mode = process.env.A2A_BENCH_CHECKPOINT_MODE;
  WalCheckpointer.prototype.run = function (this: InstanceType<typeof WalCheckpointer>) {
    const t0 = performance.now();
    const ran = this.stats.checkpoints + this.stats.failures;
    if (mode) (this as unknown as { db: { pragma(s: string): unknown } }).db.pragma(`wal_checkpoint(${mode})`);
    else run.call(this);
    // A poll with nothing written since does nothing and is not a checkpoint.
    if (mode || this.stats.checkpoints + this.stats.failures !== ran) checkpointMs.push(performance.now() - t0);
  };

  // SIGUSR2 (the driver, after a warm-up run): start over, so JIT warm-up is left out.
  process.on("SIGUSR2", () => {
    for (const xs of [gc, flushMs, batch, checkpointMs, sweepMs]) xs.length = 0;
    loop.reset();
  });
  process.on("exit", () => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const report: ProbeReport = {
      loopDelay: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max), mean: ms(loop.mean) },
      gc: series(gc),
      flushMs: series(flushMs),
      batch: series(batch),
      checkpointMs: series(checkpointMs),
      sweepMs: series(sweepMs),
    };
    writeFileSync(out, JSON.stringify(report));
  });
}

/** The driver: ours memory vs ours SQLite, each loaded in turn, the probe in each. */
async function main(): Promise<void> {
  const { mkdtempSync, readFileSync, rmSync } = await import("node:fs");
  const { tmpdir, loadavg } = await import("node:os");
  const { join } = await import("node:path");
  const { loadWithCpu, send1_0, startTarget, stopTarget } = await import("./targets.js");
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : dflt);
  const duration = opt("duration", 5);
  const runs = opt("runs", 2);
  const dir = mkdtempSync(join(tmpdir(), "a2a-tail-probe-"));
  const rows: string[] = [];
  const load0 = loadavg()[0]!.toFixed(1);
  for (const [name, store] of [
    ["memory", []],
    ["sqlite", ["sqlite", join(dir, "tasks.db")]],
  ] as const) {
    const out = join(dir, `${name}.json`);
    process.env.A2A_BENCH_PROBE = out;
    const t = await startTarget(["ours", ...store]);
    await loadWithCpu(t, send1_0, { "A2A-Version": "1.0" }, 2); // warm-up, not counted
    t.child.kill("SIGUSR2");
    const rs = [];
    for (let i = 0; i < runs; i++) rs.push(await loadWithCpu(t, send1_0, { "A2A-Version": "1.0" }, duration));
    await stopTarget(t);
    const p = JSON.parse(readFileSync(out, "utf8")) as ProbeReport;
    const rps = rs.map((r) => Math.round(r.requests.average)).join(", ");
    const p99 = rs.map((r) => r.latency.p99).join(", ");
    const s = (x: Series) =>
      `${x.n}; p50 ${x.p50}, p99 ${x.p99}, max ${x.max}; ≥5 ms ${x.over5}, ≥10 ms ${x.over10}; total ${Math.round(x.totalMs)} ms`;
    rows.push(
      `## ours ${name}: req/s ${rps}; p99 ms ${p99}`,
      `  event-loop delay ms: p50 ${p.loopDelay.p50}, p99 ${p.loopDelay.p99}, max ${p.loopDelay.max}`,
      `  GC pauses: ${s(p.gc)}`,
      `  group commits (ms): ${s(p.flushMs)}`,
      `  batch sizes: p50 ${p.batch.p50}, p99 ${p.batch.p99}, max ${p.batch.max}`,
      `  checkpoints (ms): ${s(p.checkpointMs)}`,
      `  retention steps (ms): ${s(p.sweepMs)}`,
    );
  }
  delete process.env.A2A_BENCH_PROBE;
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `load average ${load0} → ${loadavg()[0]!.toFixed(1)}; ${runs} runs of ${duration} s, 50 connections, blocking 1.0 SendMessage\n${rows.join("\n")}`,
  );
}

const { pathToFileURL } = await import("node:url");
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
