// Request bodies count in the process's memory budget (stream-budget.ts) with the stream buffers:
// a body that does not fit is refused with a retryable 503 in the binding's shape, on both
// adapters, and the budget is whole again afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import { ADAPTERS, startServer, type RunningServer } from "../support/servers.js";

const V1 = { "content-type": "application/json", "A2A-Version": "1.0" };
const send = (base: string, text: string) =>
  fetch(`${base}/`, {
    method: "POST",
    headers: V1,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: `b-${text.length}-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] } },
    }),
  });

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
});
