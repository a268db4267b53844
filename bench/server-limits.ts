// The two findings of issue 18 at full size, against `a2a-toolkit serve` in a child process:
//
//   npx tsx bench/server-limits.ts [memory|list|both] [--node-args "--max-old-space-size=1024"]
//
// memory: `--store memory`, 200 × `stream 100000`, then 4,000 echoes of 1 MiB; prints the child's
//         RSS along the way and whether it still answers.
// list:   the default SQLite store, 100 × `stream 100000`, then GET /tasks?pageSize=100&
//         includeArtifacts=true alone and two at once, each while a second client sends GetTask
//         every 50 ms; prints time, bytes, RSS and that client's slowest answer.
// Run from a checkout's root (it starts that checkout's bin/a2a-toolkit.js), e.g. an older one to
// compare.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { flood, sendText, serveChild, type ServeChild } from "../test/support/serve-child.js";

const args = process.argv.slice(2);
const which = args.find((a) => !a.startsWith("--")) ?? "both";
const nodeArgsAt = args.indexOf("--node-args");
const nodeArgs = nodeArgsAt >= 0 ? (args[nodeArgsAt + 1] ?? "").split(" ").filter(Boolean) : [];
const MB = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const ECHO = `echo ${"x".repeat(1024 * 1024 - 400)}`;

function alive(s: ServeChild): boolean {
  return s.child.exitCode === null && s.child.signalCode === null;
}

async function memory(): Promise<void> {
  const s = await serveChild(["--store", "memory"], nodeArgs);
  console.log(`memory store; start RSS ${MB(s.rss())}`);
  let peak = 0;
  const sample = setInterval(() => alive(s) && (peak = Math.max(peak, s.rss())), 100);
  const t0 = Date.now();
  try {
    for (let done = 0; done < 200 && alive(s); done += 50) {
      const states = await flood(s.url, 50, () => "stream 100000", 4);
      console.log(`  ${done + 50} × stream 100000: RSS ${MB(s.rss())} (peak ${MB(peak)}), states ${JSON.stringify(states)}`);
    }
    for (let done = 0; done < 4000 && alive(s); done += 500) {
      const states = await flood(s.url, 500, () => ECHO, 8);
      console.log(`  ${done + 500} × 1 MiB echo: RSS ${MB(s.rss())} (peak ${MB(peak)}), states ${JSON.stringify(states)}`);
    }
  } catch (e) {
    console.log(`  requests failed: ${String(e)}`);
  }
  clearInterval(sample);
  const ok = alive(s) && (await sendText(s.url, "echo still here")).result?.task?.status.state === "TASK_STATE_COMPLETED";
  console.log(`  after ${((Date.now() - t0) / 1000).toFixed(0)} s: ${ok ? "answering" : "NOT answering"}; peak RSS ${MB(peak)}`);
  if (!alive(s)) console.log(`  exit: ${s.child.exitCode ?? s.child.signalCode}; ${s.stderr().split("\n").slice(-3).join(" | ")}`);
  await s.stop();
}

async function timedList(url: string): Promise<{ ms: number; bytes: number; tasks: number; next: boolean }> {
  const t = Date.now();
  const res = await fetch(`${url}/tasks?pageSize=100&includeArtifacts=true`, { headers: { "A2A-Version": "1.0" } });
  const body = await res.text();
  const parsed = JSON.parse(body) as { tasks?: unknown[]; nextPageToken?: string };
  return { ms: Date.now() - t, bytes: Buffer.byteLength(body), tasks: parsed.tasks?.length ?? 0, next: !!parsed.nextPageToken };
}

/** GetTask every 50 ms until stopped; resolves with the slowest answer's time. */
function prober(url: string, id: string): { stop: () => Promise<number> } {
  let running = true;
  let worst = 0;
  const loop = (async () => {
    while (running) {
      const t = Date.now();
      await fetch(`${url}/tasks/${id}?historyLength=0`, { headers: { "A2A-Version": "1.0" } }).then((r) => r.arrayBuffer());
      worst = Math.max(worst, Date.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return worst;
    },
  };
}

async function list(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "a2a-limits-"));
  const s = await serveChild(["--store", `sqlite:${join(dir, "a2a-data.db")}`], nodeArgs);
  try {
    await flood(s.url, 100, () => "stream 100000", 4);
    const small = (await sendText(s.url, "echo probe")).result!.task!.id;
    console.log(`sqlite store, 100 × stream 100000 stored; RSS ${MB(s.rss())}`);
    for (const parallel of [1, 2]) {
      const probe = prober(s.url, small);
      const lists = await Promise.all(Array.from({ length: parallel }, () => timedList(s.url)));
      const worst = await probe.stop();
      for (const l of lists)
        console.log(`  ${parallel} at once: ${l.ms} ms, ${MB(l.bytes)} (${l.bytes} bytes), ${l.tasks} tasks, nextPageToken ${l.next}`);
      console.log(`  meanwhile the slowest GetTask took ${worst} ms; RSS ${MB(s.rss())}`);
    }
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (which === "memory" || which === "both") await memory();
if (which === "list" || which === "both") await list();
