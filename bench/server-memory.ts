// Memory with 100,000 tasks through the in-memory task store:
//
//   node --expose-gc --import tsx bench/server-memory.ts [--tasks 100000] [--http]
//
// Sends one echo message per task (each task ends COMPLETED with one artifact and two history
// entries) through the runtime, or with --http through a real server over JSON-RPC, and prints the
// heap after a full GC at checkpoints. With the default retention (10,000 tasks) the heap should
// level off once the store is full instead of growing with the number of tasks.
import { create } from "@bufbuild/protobuf";
import * as v1_0 from "../generated/v1_0/index.js";
import { buildServer, firstText, MemoryTaskStore, reply, TaskRuntime, type Agent } from "../src/server/index.js";

const args = process.argv.slice(2);
const TASKS = Number(args[args.indexOf("--tasks") + 1]) || 100_000;
const HTTP = args.includes("--http");
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  process.stderr.write("run with node --expose-gc --import tsx bench/server-memory.ts\n");
  process.exit(2);
}

const agent: Agent = {
  card: { name: "memory bench", description: "echo", version: "1" },
  handleMessage: (m) => reply(firstText(m)),
};
const store = new MemoryTaskStore();
const checkpoints = new Set([0, 1_000, 10_000, 25_000, 50_000, 75_000, TASKS]);
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

function report(done: number): void {
  gc!();
  const m = process.memoryUsage();
  process.stdout.write(`| ${done.toLocaleString("en")} | ${store.size.toLocaleString("en")} | ${mb(m.heapUsed)} | ${mb(m.rss)} |\n`);
}

process.stdout.write(`${HTTP ? "over HTTP (JSON-RPC 1.0)" : "through the runtime"}, store maxTasks ${store.maxTasks}\n\n`);
process.stdout.write("| tasks sent | tasks stored | heap used MB | rss MB |\n|---|---|---|---|\n");

if (HTTP) {
  const app = await buildServer({ agent, store });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/`;
  report(0);
  const CONCURRENCY = 32;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < TASKS) {
      const i = next++;
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "SendMessage",
          params: { message: { messageId: `m${i}`, role: "ROLE_USER", parts: [{ text: `task number ${i}` }] } },
        }),
      });
      await res.arrayBuffer();
      done++;
    }
  };
  const timer = setInterval(() => {
    for (const c of checkpoints)
      if (c && done >= c) {
        checkpoints.delete(c);
        report(c);
      }
  }, 50);
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  clearInterval(timer);
  report(done);
  await app.close();
} else {
  const rt = new TaskRuntime({ agent, store, logger: { error: () => {}, warn: () => {} } });
  const call = { principal: "bench", version: "1.0", extensions: [] };
  for (let i = 0; i <= TASKS; i++) {
    if (checkpoints.has(i)) report(i);
    if (i === TASKS) break;
    await rt.sendMessage(
      create(v1_0.SendMessageRequestSchema, {
        message: { messageId: `m${i}`, role: v1_0.Role.USER, parts: [{ content: { case: "text", value: `task number ${i}` } }] },
      }),
      call,
    );
  }
  process.stdout.write(`\ntasks held by the runtime afterwards: ${rt.liveTasks}\n`);
}
