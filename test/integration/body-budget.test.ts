// Request bodies count in the process's memory budget (stream-budget.ts) with the stream buffers:
// a body that does not fit is refused with a retryable 503 in the binding's shape, on both
// adapters, and the budget is whole again afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import { ADAPTERS, startServer, type RunningServer } from "../support/servers.js";

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
