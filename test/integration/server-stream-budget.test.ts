// Issue 28, failure 3: clients that open a stream and never read it made memory grow without a
// bound across streams (100 non-reading SSE subscribers of `stream 100000`: 2.4 GB). With one
// stream buffer budget for the process (server/stream-budget.ts), a tiny one here, non-reading SSE
// and gRPC subscribers are cut when they fall behind their share: on reading again, the SSE client
// finds an error event and the end of the stream, the gRPC client RESOURCE_EXHAUSTED. Their tasks
// complete; the bytes the streams hold stay within the budget throughout; a client that reads
// keeps its stream. `make test-memory` runs the scale against `serve` and measures RSS.
import http2 from "node:http2";
import net from "node:net";
import { fromBinary, fromJson, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { buildServer, createFixtureAgent, StreamBudget } from "../../src/server/index.js";
import { postRpc } from "../support/rpc.js";
import { listen, type RunningServer } from "../support/servers.js";

const KiB = 1024;
const budget = new StreamBudget({ maxBytes: 64 * KiB, maxBytesPerStream: 32 * KiB });
const CHUNKS = 1500;
const JSON_1_0 = { "content-type": "application/json", "A2A-Version": "1.0" };
let server: RunningServer;

beforeAll(async () => {
  server = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true, streamBudget: budget }));
});
afterAll(async () => server?.close());

const request = (text: string) => ({ message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] } });

/** A JSON-RPC SendStreamingMessage on a raw socket that is not read (beyond node's own 16 KiB). */
function sseNonReader(text: string): net.Socket {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: request(text) });
  const socket = net.connect(server.port, "127.0.0.1");
  socket.write(
    `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.pause();
  return socket;
}

/** Everything the socket gives until the server ends the response (the last chunk of chunked encoding). */
function readAll(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.endsWith("\r\n0\r\n\r\n")) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.once("close", () => resolve(text));
    socket.resume();
  });
}

/** A gRPC SendStreamingMessage (1.0) whose response stream is not read (its trailers are noted as they come). */
function grpcNonReader(
  session: http2.ClientHttp2Session,
  text: string,
): http2.ClientHttp2Stream & { trailers?: http2.IncomingHttpHeaders } {
  const msg = toBinary(v1_0.SendMessageRequestSchema, fromJson(v1_0.SendMessageRequestSchema, request(text)));
  const frame = Buffer.alloc(5 + msg.length);
  frame.writeUInt32BE(msg.length, 1);
  frame.set(msg, 5);
  const stream = session.request({
    ":method": "POST",
    ":path": "/lf.a2a.v1.A2AService/SendStreamingMessage",
    "content-type": "application/grpc",
    te: "trailers",
  });
  stream.end(frame);
  stream.pause();
  stream.once("trailers", (t) => Object.assign(stream, { trailers: t }));
  return stream;
}

/** The gRPC stream read to its end: the messages (1.0 StreamResponse) and grpc-status. */
function readGrpc(stream: ReturnType<typeof grpcNonReader>): Promise<{ events: v1_0.StreamResponse[]; status: string; message: string }> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    stream.on("data", (d: Buffer) => (buf = Buffer.concat([buf, d])));
    stream.once("close", () => {
      const events: v1_0.StreamResponse[] = [];
      for (let at = 0; at + 5 <= buf.length;) {
        const n = buf.readUInt32BE(at + 1);
        events.push(fromBinary(v1_0.StreamResponseSchema, buf.subarray(at + 5, at + 5 + n)));
        at += 5 + n;
      }
      const t = stream.trailers ?? {};
      resolve({ events, status: String(t["grpc-status"]), message: decodeURIComponent(String(t["grpc-message"] ?? "")) });
    });
    stream.resume();
  });
}

type Listed = { result?: { tasks?: { id: string; status: { state: string }; artifacts?: { parts: { text?: string }[] }[] }[] } };

async function listTasks() {
  return (
    (await postRpc<Listed>(`${server.url}/`, "ListTasks", { pageSize: 100, includeArtifacts: true }, JSON_1_0)).body.result?.tasks ?? []
  );
}

describe("one stream buffer budget for the process", () => {
  it("cuts non-reading SSE and gRPC subscribers with their binding's error; their tasks complete", async () => {
    const session = http2.connect(`http://127.0.0.1:${server.port}`);
    try {
      const sse = [sseNonReader(`stream ${CHUNKS}`), sseNonReader(`stream ${CHUNKS}`), sseNonReader(`stream ${CHUNKS}`)];
      const grpc = [grpcNonReader(session, `stream ${CHUNKS}`), grpcNonReader(session, `stream ${CHUNKS}`)];
      // The tasks go on without their readers: all five complete, every chunk in the artifact.
      let tasks: Awaited<ReturnType<typeof listTasks>> = [];
      for (let i = 0; i < 600; i++) {
        tasks = await listTasks();
        if (tasks.length === 5 && tasks.every((t) => t.status.state === "TASK_STATE_COMPLETED")) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(tasks.map((t) => t.status.state)).toEqual(Array(5).fill("TASK_STATE_COMPLETED"));
      for (const t of tasks) expect(t.artifacts?.[0]?.parts.at(-1)?.text).toBe(`chunk ${CHUNKS}/${CHUNKS}`);

      // Reading now: the SSE stream ends with the error event, before the task's end.
      for (const text of await Promise.all(sse.map(readAll))) {
        const events = [...text.matchAll(/^data: (.*)$/gm)].map(
          (m) => JSON.parse(m[1]!) as { error?: { message: string }; result?: unknown },
        );
        expect(events.length).toBeGreaterThan(0);
        expect(events.at(-1)?.error?.message).toMatch(/fell more than \d+ bytes behind/);
        expect(text).not.toContain("TASK_STATE_COMPLETED");
      }
      for (const r of await Promise.all(grpc.map(readGrpc))) {
        expect(r.status).toBe("8"); // RESOURCE_EXHAUSTED
        expect(r.message).toMatch(/fell more than \d+ bytes behind/);
        expect(r.events.length).toBeLessThan(CHUNKS);
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
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "SendStreamingMessage", params: request("stream 100") }),
    });
    const text = await res.text();
    expect(text).not.toContain("fell more than");
    expect(text).toContain("chunk 100/100");
    expect(text).toContain("TASK_STATE_COMPLETED");
  }, 60_000);
});
