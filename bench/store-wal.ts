// The SQLite default's write-ahead log over a long run, through the runtime (no HTTP):
//
//   node --expose-gc --import tsx bench/store-wal.ts [--sends 100000] [--src <dir>]
//
// 50 concurrent senders send blocking echo messages (each task ends COMPLETED with one artifact and
// two history entries) through TaskRuntime on a SqliteTaskStore file as `serve` opens it. Two parts:
//
// 1. WAL bytes per send: checkpoints are switched off for a window of 10,000 sends (the WAL then
//    never starts over), so the WAL file's growth divided by the sends is what each send appends.
// 2. The long run: `--sends` sends with the store's own checkpoint policy; the WAL file's size is
//    sampled every 1,000 sends (largest reported), the event loop's longest delay and p99 (the forced GCs
//    left out), and RSS after a full GC every 2,500 sends: at 20,000
//    and at the end, each the median of the five samples up to it.
//
// `--src` runs the same against another checkout's src/ (for "before" figures), e.g.
//   git archive 75fb6f4 src generated | tar -x -C .old && node --expose-gc --import tsx bench/store-wal.ts --src .old/src
// (the directory must sit inside this worktree so that node_modules resolves). Writes only the
// temporary database, removed at the end.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { create } from "@bufbuild/protobuf";
import { median } from "./stats.js";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SENDS = Number(opt("sends") ?? 100_000);
const SRC = resolve(opt("src") ?? "src");
const WINDOW = 10_000;
const CONCURRENT = 50;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  process.stderr.write("run with node --expose-gc --import tsx bench/store-wal.ts\n");
  process.exit(2);
}

// Typed as this checkout's modules: an older --src is expected to offer the same few names.
const load = (p: string): Promise<unknown> => import(pathToFileURL(join(SRC, p)).href);
const server = (await load("server/index.ts")) as typeof import("../src/server/index.js");
const { SqliteTaskStore } = (await load("server/store/sqlite-store.ts")) as typeof import("../src/server/store/sqlite-store.js");
const v1_0 = (await load("../generated/v1_0/index.ts")) as typeof import("../generated/v1_0/index.js");

const dir = mkdtempSync(join(tmpdir(), "a2a-bench-wal-"));
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
const walSize = (file: string) => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

/** Sends `n` echo messages, `CONCURRENT` at a time; calls `every(done)` after each 1,000. */
async function send(rt: { sendMessage(req: unknown, call: unknown): Promise<unknown> }, n: number, every?: (done: number) => void) {
  const call = { principal: "bench", version: "1.0", extensions: [] };
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await rt.sendMessage(
        create(v1_0.SendMessageRequestSchema, {
          message: { messageId: `m${i}`, role: v1_0.Role.USER, parts: [{ content: { case: "text", value: `task number ${i}` } }] },
        }),
        call,
      );
      if (++done % 1000 === 0) every?.(done);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, worker));
}

const agent = {
  card: { name: "wal bench", description: "echo", version: "1" },
  handleMessage: (m: import("../generated/v1_0/index.js").Message) => server.reply(server.firstText(m)),
};
const quiet = { error: () => {}, warn: () => {} };

try {
  // 1. WAL bytes per send, checkpoints off.
  {
    const file = join(dir, "window.db");
    const store = new SqliteTaskStore(file);
    store.db.pragma("wal_autocheckpoint = 0");
    store.checkpoints?.close();
    const rt = new server.TaskRuntime({ agent, store, logger: quiet });
    await send(rt, 2_000); // the first pages of every index exist
    const before = walSize(file);
    const t0 = performance.now();
    await send(rt, WINDOW);
    const ms = performance.now() - t0;
    const perSend = (walSize(file) - before) / WINDOW;
    process.stdout.write(
      `WAL bytes per send (checkpoints off, ${WINDOW.toLocaleString("en")} sends after 2,000): ${perSend.toFixed(0)} ` +
        `(${(perSend / (4096 + 24)).toFixed(2)} pages); ${((ms / WINDOW) * 1000).toFixed(1)} µs per send\n`,
    );
    await store.close();
  }
  // 2. The long run with the store's own checkpoints.
  {
    const file = join(dir, "long.db");
    const store = new SqliteTaskStore(file);
    const rt = new server.TaskRuntime({ agent, store, logger: quiet });
    let maxWal = 0;
    // RSS after a full GC every 2,500 sends. One sample moves by several MiB with where V8's young
    // generation and the allocator happen to be, so "RSS at n" is the median of the five samples
    // from n − 10,000 to n (the heap used is taken at the same points).
    const samples: { done: number; rss: number; heap: number }[] = [];
    // The event loop's longest delay over the run (1 ms resolution): checkpoints on the event loop show here.
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const t0 = performance.now();
    await send(rt, SENDS, (done) => {
      maxWal = Math.max(maxWal, walSize(file));
      if (done % 2_500 === 0) {
        delay.disable(); // the forced full GC is the bench's own stall
        gc();
        delay.enable();
        const { rss, heapUsed } = process.memoryUsage();
        samples.push({ done, rss, heap: heapUsed });
      }
    });
    const s = (performance.now() - t0) / 1000;
    delay.disable();
    const at = (n: number, key: "rss" | "heap") => median(samples.filter((x) => x.done >= n - 10_000 && x.done <= n).map((x) => x[key]));
    const end = samples.at(-1)?.done ?? SENDS;
    const [rss20k, rssEnd] = [at(20_000, "rss"), at(end, "rss")];
    process.stdout.write(
      `${SENDS.toLocaleString("en")} sends in ${s.toFixed(1)} s (${(SENDS / s).toFixed(0)}/s): largest WAL file ${mb(maxWal)} MiB; ` +
        `RSS ${mb(rss20k)} MiB at 20,000, ${mb(rssEnd)} MiB at ${end.toLocaleString("en")} (${(rssEnd / rss20k).toFixed(3)}×; ` +
        `medians of 5 samples after a full GC); heap used ${mb(at(20_000, "heap"))} / ${mb(at(end, "heap"))} MiB; ` +
        `database ${mb(statSync(file).size)} MiB\n` +
        `event-loop delay: longest ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms\n` +
        `RSS every 10,000 sends, MiB: ${samples
          .filter((x) => x.done % 10_000 === 0)
          .map((x) => mb(x.rss))
          .join(", ")}\n`,
    );
    const c = store.checkpoints?.stats;
    if (c)
      process.stdout.write(
        `checkpoints: ${c.checkpoints} (${c.failures} failed), ${(c.ms / 1000).toFixed(1)} s on the event loop, the longest ${c.maxMs.toFixed(0)} ms\n`,
      );
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
