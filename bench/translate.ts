// Translation cost, 0.3 ⇄ 1.0 (run: npx tsx bench/translate.ts [--json]).
//
// Measures µs per call of the public translators (input validation, translation, output validation
// included) on a realistic Task — 10 history messages, 3 artifacts each with a text, a file and a data
// part — in both directions for both 0.3 dialects, and a 100-event stream (task snapshot, status
// updates, artifact chunks, final update) translated event by event. Median of several rounds.
import * as v0_3 from "../generated/v0_3/index.js";
import * as v1_0 from "../generated/v1_0/index.js";
import * as rest from "../src/versioning/rest0_3.js";
import * as rpc from "../src/versioning/rpc0_3.js";
import { median } from "./stats.js";

const ts = (s: number) => new Date(Date.UTC(2025, 3, 2, 16, 0, s)).toISOString();

function task1_0(): v1_0.TaskJson {
  const history: v1_0.MessageJson[] = Array.from({ length: 10 }, (_, i) => ({
    messageId: `m${i}`,
    contextId: "ctx-1",
    taskId: "task-1",
    role: i % 2 === 0 ? "ROLE_USER" : "ROLE_AGENT",
    parts: [{ text: `Message ${i}: ${"lorem ipsum dolor sit amet ".repeat(4)}` }],
    metadata: { turn: i },
  }));
  const artifacts: v1_0.ArtifactJson[] = Array.from({ length: 3 }, (_, i) => ({
    artifactId: `a${i}`,
    name: `result-${i}`,
    description: "generated output",
    parts: [
      { text: "Summary of the findings. ".repeat(8) },
      { raw: Buffer.alloc(512, i).toString("base64"), mediaType: "application/octet-stream", filename: `blob-${i}.bin` },
      { data: { score: 0.9 - i / 10, labels: ["a", "b", "c"], nested: { ok: true, count: i } } },
    ],
  }));
  return {
    id: "task-1",
    contextId: "ctx-1",
    status: {
      state: "TASK_STATE_COMPLETED",
      timestamp: ts(59),
      message: { messageId: "done", role: "ROLE_AGENT", parts: [{ text: "done" }] },
    },
    artifacts,
    history,
    metadata: { tenantHint: "x", priority: 3 },
  };
}

function stream1_0(): { event: v1_0.StreamResponseJson; final: boolean }[] {
  const t = task1_0();
  const events: { event: v1_0.StreamResponseJson; final: boolean }[] = [
    {
      event: {
        task: {
          id: t.id,
          contextId: t.contextId,
          status: { state: "TASK_STATE_SUBMITTED", timestamp: ts(0) },
          history: t.history!.slice(0, 1),
        },
      },
      final: false,
    },
  ];
  for (let i = 1; i < 99; i++) {
    events.push(
      i % 3 === 0
        ? {
            event: {
              statusUpdate: { taskId: t.id!, contextId: t.contextId!, status: { state: "TASK_STATE_WORKING", timestamp: ts(i % 60) } },
            },
            final: false,
          }
        : {
            event: {
              artifactUpdate: {
                taskId: t.id!,
                contextId: t.contextId!,
                artifact: { artifactId: "a0", parts: [{ text: `chunk ${i} `.repeat(10) }] },
                append: i > 1,
              },
            },
            final: false,
          },
    );
  }
  events.push({
    event: { statusUpdate: { taskId: t.id!, contextId: t.contextId!, status: { state: "TASK_STATE_COMPLETED", timestamp: ts(59) } } },
    final: true,
  });
  return events;
}

/** Median µs per call over `rounds` rounds of `iterations` calls. */
function measure(fn: () => void, iterations: number, rounds = 7): number {
  for (let i = 0; i < iterations; i++) fn(); // warm-up
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    samples.push(((performance.now() - t0) * 1000) / iterations);
  }
  return median(samples);
}

const task = task1_0();
const taskRpc: v0_3.Task = rpc.downgradeTask(task).value;
const taskPb: v0_3.pb.TaskJson = rest.downgradeTask(task).value;
const events = stream1_0();
const eventsRpc = events.map((e) => rpc.downgradeStreamResponse(e.event, { final: e.final }).value);
const eventsPb = events.map((e) => rest.downgradeStreamResponse(e.event, { final: e.final }).value);

const results: Record<string, number> = {
  "Task 1.0 → 0.3 JSON-RPC (downgradeTask)": measure(() => rpc.downgradeTask(task), 500),
  "Task 0.3 JSON-RPC → 1.0 (upgradeTask)": measure(() => rpc.upgradeTask(taskRpc), 500),
  "Task 1.0 → 0.3 HTTP+JSON (downgradeTask)": measure(() => rest.downgradeTask(task), 500),
  "Task 0.3 HTTP+JSON → 1.0 (upgradeTask)": measure(() => rest.upgradeTask(taskPb), 500),
  // For scale: the generated validators alone on the same task (each translation runs two).
  "  of which: validate the 1.0 Task (v1_0.validators.Task)": measure(() => v1_0.validators.Task(task), 500),
  "  of which: validate the 0.3 Task (v0_3.validators.Task)": measure(() => v0_3.validators.Task(taskRpc), 500),
  "100-event stream 1.0 → 0.3 JSON-RPC": measure(() => events.forEach((e) => rpc.downgradeStreamResponse(e.event, { final: e.final })), 50),
  "100-event stream 0.3 JSON-RPC → 1.0": measure(() => eventsRpc.forEach((e) => rpc.upgradeStreamResponse(e)), 50),
  "100-event stream 1.0 → 0.3 HTTP+JSON": measure(
    () => events.forEach((e) => rest.downgradeStreamResponse(e.event, { final: e.final })),
    50,
  ),
  "100-event stream 0.3 HTTP+JSON → 1.0": measure(() => eventsPb.forEach((e) => rest.upgradeStreamResponse(e)), 50),
};

const size = JSON.stringify(task).length;
if (process.argv.includes("--json")) console.log(JSON.stringify({ taskBytes: size, microsecondsPerCall: results }, null, 2));
else {
  console.log(`Task: 10 history messages, 3 artifacts (text + 512-byte file + data), ${size} bytes of 1.0 JSON`);
  console.log(`node ${process.version}; median of 7 rounds; µs per call (stream: per 100 events)`);
  for (const [k, v] of Object.entries(results)) console.log(`${v.toFixed(1).padStart(10)} µs  ${k}`);
}
