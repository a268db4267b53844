// Recording: the reference client talks to the reference server through the recording proxy on
// all four interfaces (multi-turn task, GetTask, a streamed task); the scenarios written are valid,
// and the suite runner replays them (`test --cases <dir> --only-cases`) against a fresh reference server, where they
// pass. Against a server with a fault the replay fails, so the recorded cases can fail.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, textMessage } from "../../src/client/index.js";
import { loadExtraCases } from "../../src/compliance/cases.js";
import { startRecorder, type Recorder } from "../../src/compliance/record.js";
import { runSuite } from "../../src/compliance/suite.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { startFaultyServer, startServer, type RunningServer } from "../support/servers.js";

const serve = () => startServer("fastify", { agent: createFixtureAgent() });

const matrix = [
  { version: "1.0", binding: "JSONRPC" },
  { version: "1.0", binding: "HTTP+JSON" },
  { version: "0.3", binding: "JSONRPC" },
  { version: "0.3", binding: "HTTP+JSON" },
] as const;

describe("recording proxy", () => {
  const out = mkdtempSync(join(tmpdir(), "a2a-recorded-"));
  let original: RunningServer;
  let recorder: Recorder;

  beforeAll(async () => {
    original = await serve();
    recorder = await startRecorder({ target: original.url, outDir: out });
    for (const { version, binding } of matrix) {
      const client = await createA2AClient(recorder.url, { version, bindings: [binding] });
      // A multi-turn task: input-required, then the follow-up completes it.
      const first = await client.sendMessage({ message: textMessage("ask") });
      const task = first.payload.value as v1_0.Task;
      expect(task.status?.state).toBe(v1_0.TaskState.INPUT_REQUIRED);
      const done = await client.sendMessage({ message: textMessage("blue", { taskId: task.id, contextId: task.contextId }) });
      expect((done.payload.value as v1_0.Task).status?.state).toBe(v1_0.TaskState.COMPLETED);
      await client.getTask({ id: task.id, historyLength: 1 });
      // A streamed task in its own conversation.
      const events = [];
      for await (const ev of client.sendStreamingMessage({ message: textMessage("stream 3") })) events.push(ev);
      expect(events.length).toBeGreaterThan(3);
    }
  }, 60_000);

  afterAll(async () => {
    await recorder?.close();
    await original?.close();
  });

  it("writes valid scenarios, one per conversation, with volatile values masked", () => {
    const files = recorder.files();
    expect(files).toHaveLength(8);
    const cases = loadExtraCases([out]);
    expect(cases.map((c) => `${c.version} ${c.binding} ${c.steps.length}`).sort()).toEqual(
      [
        "0.3 json-rpc 3",
        "0.3 json-rpc 1",
        "0.3 rest 3",
        "0.3 rest 1",
        "1.0 json-rpc 3",
        "1.0 json-rpc 1",
        "1.0 rest 3",
        "1.0 rest 1",
      ].sort(),
    );
    const [file] = files;
    assert(file);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("$capture:");
    expect(text).toMatch(/\{\{uuid:c\d+\}\}/);
    expect(text).toContain("$match: timestamp");
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it("replays against a fresh reference server and passes", { timeout: 60_000 }, async () => {
    const fresh = await serve();
    try {
      const report = await runSuite({ target: fresh.url, extraCasesDirs: [out], onlyExtraCases: true, streamTimeoutMs: 10_000 });
      expect(report.results.filter((r) => r.status !== "pass").map((r) => `${r.id}: ${r.status} ${r.reason}`)).toEqual([]);
      expect(report.summary.passed).toBe(8);
    } finally {
      await fresh.close();
    }
  });

  it("fails the replay against a server that reuses one task id", { timeout: 60_000 }, async () => {
    const faulty = await startFaultyServer({ agent: createFixtureAgent() }, ["task-id-reused"]);
    try {
      const report = await runSuite({ target: faulty.url, extraCasesDirs: [out], onlyExtraCases: true, streamTimeoutMs: 10_000 });
      expect(report.summary.failed).toBeGreaterThan(0);
    } finally {
      await faulty.close();
    }
  });
});
