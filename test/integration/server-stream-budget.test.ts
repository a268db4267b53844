// Issue 28, failure 3: clients that open a stream and never read it made memory grow without a
// bound across streams (100 non-reading SSE subscribers of `stream 100000`: 2.4 GB). With one
// stream buffer budget for the process (server/front/stream-budget.ts), a tiny one here, non-reading SSE
// and gRPC subscribers are cut when they fall behind their share: on reading again, the SSE client
// finds an error event and the end of the stream, the gRPC client RESOURCE_EXHAUSTED. Their tasks
// complete; the bytes the streams hold stay within the budget throughout; a client that reads
// keeps its stream. `make test-memory` runs the scale against `serve` and measures RSS.
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer, createFixtureAgent, StreamBudget } from "../../src/server/index.js";
import { postRpc } from "../support/rpc.js";
import { listen, type RunningServer } from "../support/servers.js";
import { grpcNonReader, readGrpc, readSse, sseData, sseNonReader, textRequest } from "../support/slow-readers.js";

const KiB = 1024;
const budget = new StreamBudget({ maxBytes: 128 * KiB, maxBytesPerStream: 64 * KiB });
const CHUNKS = 3000;
// An SSE client's kernel takes about 4 MB on loopback before the server's socket holds a byte (a
// stream that trickles out fills it): SSE non-readers need a longer stream to be held by the server.
const SSE_CHUNKS = 20_000;
const JSON_1_0 = { "content-type": "application/json", "A2A-Version": "1.0" };
let server: RunningServer;

beforeAll(async () => {
  server = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true, streamBudget: budget }));
});
afterAll(async () => server?.close());

type Listed = { result?: { tasks?: { id: string; status: { state: string }; artifacts?: { parts: { text?: string }[] }[] }[] } };

async function listTasks() {
  return (await postRpc<Listed>(`${server.url}/`, "ListTasks", { pageSize: 100 }, JSON_1_0)).body.result?.tasks ?? [];
}

/** The text of the last part of a task's first artifact. */
async function lastChunk(id: string) {
  type Got = { result?: { artifacts?: { parts: { text?: string }[] }[] } };
  return (await postRpc<Got>(`${server.url}/`, "GetTask", { id }, JSON_1_0)).body.result?.artifacts?.[0]?.parts.at(-1)?.text;
}

describe("one stream buffer budget for the process", () => {
  it("cuts non-reading SSE and gRPC subscribers with their binding's error; their tasks complete", async () => {
    const session = http2.connect(`http://127.0.0.1:${server.port}`);
    try {
      const sse = [sseNonReader(server.port, `stream ${SSE_CHUNKS}`), sseNonReader(server.port, `stream ${SSE_CHUNKS}`)];
      const grpc = [grpcNonReader(session, `stream ${CHUNKS}`), grpcNonReader(session, `stream ${CHUNKS}`)];
      // The tasks go on without their readers: all four complete, every chunk in the artifact.
      let tasks: Awaited<ReturnType<typeof listTasks>> = [];
      for (let i = 0; i < 600; i++) {
        tasks = await listTasks();
        if (tasks.length === 4 && tasks.every((t) => t.status.state === "TASK_STATE_COMPLETED")) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(tasks.map((t) => t.status.state)).toEqual(Array(4).fill("TASK_STATE_COMPLETED"));
      const last = (await Promise.all(tasks.map((t) => lastChunk(t.id)))).sort();
      expect(last).toEqual(
        [
          `chunk ${CHUNKS}/${CHUNKS}`,
          `chunk ${CHUNKS}/${CHUNKS}`,
          `chunk ${SSE_CHUNKS}/${SSE_CHUNKS}`,
          `chunk ${SSE_CHUNKS}/${SSE_CHUNKS}`,
        ].sort(),
      );

      // Reading now: the SSE stream ends with the error event, before the task's end.
      for (const text of await Promise.all(sse.map(readSse))) {
        const events = sseData(text);
        expect(events.length).toBeGreaterThan(0);
        expect(events.at(-1)?.error?.message).toMatch(/fell more than \d+ bytes behind/);
        expect(text).not.toContain("TASK_STATE_COMPLETED");
      }
      for (const r of await Promise.all(grpc.map(readGrpc))) {
        expect(r.status).toBe("8"); // RESOURCE_EXHAUSTED
        expect(r.message).toMatch(/fell more than \d+ bytes behind/);
        expect(r.count).toBeLessThan(CHUNKS);
      }
    } finally {
      session.destroy();
    }
    // The streams did hold bytes, never more than the budget (once the streams over their share were cut).
    expect(budget.peak).toBeGreaterThan(16 * KiB);
    expect(budget.peak).toBeLessThanOrEqual(budget.maxBytes);
    expect(budget.streams).toBe(0);
  }, 120_000);

  it("a client that reads keeps its stream under the same budget", async () => {
    const res = await fetch(`${server.url}/`, {
      method: "POST",
      headers: JSON_1_0,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "SendStreamingMessage", params: textRequest("stream 100") }),
    });
    const text = await res.text();
    expect(text).not.toContain("fell more than");
    expect(text).toContain("chunk 100/100");
    expect(text).toContain("TASK_STATE_COMPLETED");
  }, 60_000);

  it("a long stream of items at hand leaves the server answering other requests while it runs", async () => {
    // The fixture's `stream 20000` yields its chunks without waiting for anything: before the agent's
    // items were paced (execute.ts YIELD_EVERY), the whole turn ran in one event-loop turn, and a
    // GetTask sent after the task started was answered once it had COMPLETED.
    type Got = { result?: { id: string; status: { state: string }; artifacts?: { parts: unknown[] }[] } };
    const sent = await postRpc<{ result?: { task?: { id: string } } }>(
      `${server.url}/`,
      "SendMessage",
      { ...textRequest("stream 20000"), configuration: { returnImmediately: true } },
      JSON_1_0,
    );
    const id = sent.body.result!.task!.id;
    const during = (await postRpc<Got>(`${server.url}/`, "GetTask", { id }, JSON_1_0)).body.result;
    expect(during?.status.state).toBe("TASK_STATE_WORKING");
    expect(during?.artifacts?.[0]?.parts.length ?? 0).toBeLessThan(20_000);
    let last = during;
    for (let i = 0; i < 600 && last?.status.state !== "TASK_STATE_COMPLETED"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = (await postRpc<Got>(`${server.url}/`, "GetTask", { id }, JSON_1_0)).body.result;
    }
    expect(last?.status.state).toBe("TASK_STATE_COMPLETED");
    expect(last?.artifacts?.[0]?.parts.length).toBe(20_000);
  }, 60_000);
});
