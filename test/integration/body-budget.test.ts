// Request bodies count in the process's memory budget (stream-budget.ts) with the stream buffers:
// a body that does not fit is refused with a retryable 503 in the binding's shape, on both
// adapters, and the budget is whole again afterwards. gRPC request messages too (the unary fast
// path and connect-node's streams): refused UNAVAILABLE.
import http2 from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { buildServer, createFixtureAgent, StreamBudget } from "../../src/server/index.js";
import { ADAPTERS, listen, startServer, type RunningServer } from "../support/servers.js";

const V1 = { "content-type": "application/json", "A2A-Version": "1.0" };
const sendBody = (text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: `b-${text.length}-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] } },
  });
const send = (base: string, text: string) => fetch(`${base}/`, { method: "POST", headers: V1, body: sendBody(text) });
/** The same body without Content-Length (chunked): counted as it arrives, not declared up front. */
const sendChunked = (base: string, text: string) => {
  const bytes = new TextEncoder().encode(sendBody(text));
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 1024) c.enqueue(bytes.subarray(i, i + 1024));
      c.close();
    },
  });
  return fetch(`${base}/`, { method: "POST", headers: V1, body, duplex: "half" } as RequestInit);
};

describe.each(ADAPTERS)("a body over the memory budget (%s)", (adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(adapter, { agent: createFixtureAgent(), maxStreamBufferBytes: 4096 });
  });
  afterAll(() => server.close());

  it("is refused with a retryable 503; a body within it is served, before and after", async () => {
    expect((await send(server.url, "echo small")).status).toBe(200);
    const big = await send(server.url, "x".repeat(20_000));
    expect(big.status).toBe(503);
    const body = (await big.json()) as { error: { code: number; message: string; data?: unknown } };
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toMatch(/memory budget/);
    expect(JSON.stringify(body.error.data)).toMatch(/retryable/);
    const after = await send(server.url, "echo small");
    expect(after.status).toBe(200);
    expect(((await after.json()) as { result?: unknown }).result).toBeDefined();
  });

  it("counts a body of unknown length (chunked) as it arrives: refused over the budget, served within it", async () => {
    const big = await sendChunked(server.url, "x".repeat(20_000));
    expect(big.status).toBe(503);
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(/memory budget/);
    const small = await sendChunked(server.url, "echo small");
    expect(small.status).toBe(200);
    expect(((await small.json()) as { result?: unknown }).result).toBeDefined();
  });
});

describe("a gRPC request message over the memory budget", () => {
  const budget = new StreamBudget({ maxBytes: 65_536 });
  let server: RunningServer;
  let session: http2.ClientHttp2Session;
  beforeAll(async () => {
    server = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true, streamBudget: budget }));
    session = http2.connect(`http://127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    session.close();
    await server.close();
  });

  /** A 1.0 SendMessageRequest with one text part as one gRPC message to `rpc`: grpc-status and grpc-message. */
  const call = (rpc: string, text: string) =>
    new Promise<{ status: string; message: string }>((resolve, reject) => {
      const msg = toBinary(
        v1_0.SendMessageRequestSchema,
        create(v1_0.SendMessageRequestSchema, {
          message: { messageId: crypto.randomUUID(), role: v1_0.Role.USER, parts: [{ content: { case: "text", value: text } }] },
        }),
      );
      const frame = Buffer.alloc(5 + msg.length);
      frame.writeUInt32BE(msg.length, 1);
      frame.set(msg, 5);
      const req = session.request({
        ":method": "POST",
        ":path": `/lf.a2a.v1.A2AService/${rpc}`,
        "content-type": "application/grpc",
        te: "trailers",
      });
      let headers: http2.IncomingHttpHeaders = {};
      req.on("response", (h) => (headers = h));
      req.on("trailers", (t) => (headers = { ...headers, ...t }));
      req.on("data", () => {});
      req.on("end", () =>
        resolve({ status: String(headers["grpc-status"]), message: decodeURIComponent(String(headers["grpc-message"] ?? "")) }),
      );
      req.on("error", reject);
      req.end(frame);
    });

  it.each(["SendMessage", "SendStreamingMessage"])(
    "%s: UNAVAILABLE naming the budget; a message within it is served, before and after",
    async (rpc) => {
      expect((await call(rpc, "echo small")).status).toBe("0");
      const big = await call(rpc, "x".repeat(200_000));
      expect(big.status).toBe("14");
      expect(big.message).toMatch(/memory budget \(65536 bytes/);
      expect((await call(rpc, "echo small")).status).toBe("0");
      expect(budget.heldBytes).toBe(0);
    },
  );
});
