// Task store write throughput: SQLite against memory, in the same run
// (run: npx tsx bench/store.ts [--tasks N] [--json]).
//
// One "send" is what the runtime writes for a blocking SendMessage answered with an artifact: three
// puts of the same task (SUBMITTED with the user message, WORKING, COMPLETED with the agent's
// status message and a one-part artifact), then a GetTask read. Two shapes: one sender after
// another (the cost one request adds), and 50 concurrent senders (like the server benchmark's 50
// connections). Reported: sends per second and µs per send for MemoryTaskStore, SqliteTaskStore on
// a file with synchronous=NORMAL (the default) and FULL, and each store's ratio to memory. Every
// put awaits its group commit (the puts of one event-loop turn share a transaction), so one sender
// pays three commits per send and 50 senders share them. Median of 3 rounds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../generated/v1_0/index.js";
import { SqliteTaskStore } from "../src/server/store/sqlite-store.js";
import { MemoryTaskStore, type TaskStore } from "../src/server/store/store.js";
import { median } from "./stats.js";

const args = process.argv.slice(2);
const json = args.includes("--json");
const tasksArg = args.indexOf("--tasks");
const N = tasksArg >= 0 ? Number(args[tasksArg + 1]) : 5000;
const CONCURRENT = 50;
const ROUNDS = 3;

const text = (s: string) => create(v1_0.PartSchema, { content: { case: "text", value: s } });

async function send(store: TaskStore, i: number): Promise<void> {
  const id = `task-${i}-${Math.random().toString(36).slice(2)}`;
  const user = create(v1_0.MessageSchema, {
    messageId: `m-${i}`,
    role: v1_0.Role.USER,
    taskId: id,
    contextId: "ctx",
    parts: [text(`echo hello number ${i}, please answer`)],
  });
  const task = create(v1_0.TaskSchema, {
    id,
    contextId: "ctx",
    status: { state: v1_0.TaskState.SUBMITTED, timestamp: timestampNow() },
    history: [user],
  });
  await store.put("bench", task);
  task.status = create(v1_0.TaskStatusSchema, { state: v1_0.TaskState.WORKING, timestamp: timestampNow() });
  await store.put("bench", task);
  const agent = create(v1_0.MessageSchema, {
    messageId: `a-${i}`,
    role: v1_0.Role.AGENT,
    taskId: id,
    contextId: "ctx",
    parts: [text("done")],
  });
  task.artifacts = [create(v1_0.ArtifactSchema, { artifactId: "a1", parts: [text(`hello number ${i}, please answer`)] })];
  task.history = [...task.history, agent];
  task.status = create(v1_0.TaskStatusSchema, { state: v1_0.TaskState.COMPLETED, timestamp: timestampNow(), message: agent });
  await store.put("bench", task);
  if (!(await store.get("bench", id))) throw new Error("lost a task");
}

async function measure(make: () => TaskStore, senders: number): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const store = make();
    for (let i = 0; i < 200; i++) await send(store, i); // warm-up
    const t0 = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: senders }, async () => {
        while (next < N) await send(store, next++);
      }),
    );
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await store.close?.();
  }
  return median(times);
}

const dir = mkdtempSync(join(tmpdir(), "a2a-bench-store-"));
let n = 0;
try {
  const stores: [string, () => TaskStore][] = [
    ["memory", () => new MemoryTaskStore({ maxTasks: 1_000_000 })],
    ["sqlite NORMAL", () => new SqliteTaskStore(join(dir, `${++n}.db`))],
    ["sqlite FULL", () => new SqliteTaskStore(join(dir, `${++n}.db`), { synchronous: "FULL" })],
  ];
  const rows: { senders: number; store: string; sendsPerSec: number; usPerSend: number; slowdownVsMemory: number }[] = [];
  for (const senders of [1, CONCURRENT]) {
    let base = 0;
    for (const [store, make] of stores) {
      const ms = await measure(make, senders);
      base ||= ms;
      rows.push({
        senders,
        store,
        sendsPerSec: Math.round((N / ms) * 1000),
        usPerSend: Math.round((ms * 1000) / N),
        slowdownVsMemory: Number((ms / base).toFixed(1)),
      });
    }
  }
  if (json) console.log(JSON.stringify({ tasks: N, rounds: ROUNDS, node: process.version, results: rows }, null, 2));
  else {
    console.log(`${N} SendMessage-like writes (3 puts + 1 get each), median of ${ROUNDS} rounds, Node ${process.version}`);
    for (const r of rows)
      console.log(
        `${String(r.senders).padStart(2)} sender(s)  ${r.store.padEnd(20)} ${String(r.sendsPerSec).padStart(8)} sends/s ${String(r.usPerSend).padStart(6)} µs/send  ×${r.slowdownVsMemory} memory`,
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
