// A store that cannot be reached (issue 28, "Outages"): every binding tells the client to retry —
// HTTP+JSON 503 with Retry-After, JSON-RPC -32603 with `data.retryable` and the request's own id,
// gRPC UNAVAILABLE — and answers normally again once the store is back, without a restart. The
// PostgreSQL store marks its connection failures retryable (pg-store.ts isPgOutage); here a memory
// store throws the error pg throws for a refused connection, so the test needs no database.
// `make test-outage` stops a real PostgreSQL under load.
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { buildServer, createFixtureAgent, MemoryTaskStore } from "../../src/server/index.js";
import { isPgOutage } from "../../src/server/store/pg-store.js";
import { listen, type RunningServer } from "../support/servers.js";

/** What pg rejects with when the database refuses the connection, marked as pg-store.ts marks it. */
const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", retryable: true });

class FlakyStore extends MemoryTaskStore {
  down = false;
  override get(owner: string, id: string) {
    return this.down ? Promise.reject(refused()) : super.get(owner, id);
  }
  override put(owner: string, t: v1_0.Task) {
    return this.down ? Promise.reject(refused()) : super.put(owner, t);
  }
}

const store = new FlakyStore();
/** The replicas' stream count lives in the database too (cluster.ts): it fails with the store. */
const streamSlots = {
  acquire: () => (store.down ? Promise.reject(refused()) : Promise.resolve(true)),
  release: () => {},
};
let server: RunningServer;
let taskId: string;
const JSON_1_0 = { "content-type": "application/json", "A2A-Version": "1.0" };
const rpc = (method: string, params: unknown, id: number) =>
  fetch(server.url, { method: "POST", headers: JSON_1_0, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
const send = (id: number) => rpc("SendMessage", { message: { messageId: `m-${id}`, role: "ROLE_USER", parts: [{ text: "echo hi" }] } }, id);

beforeAll(async () => {
  server = await listen(await buildServer({ agent: createFixtureAgent(), versions: ["1.0", "0.3"], store, grpc: true, streamSlots }));
  taskId = ((await (await send(1)).json()) as { result: { task: { id: string } } }).result.task.id;
  store.down = true;
});
afterAll(() => server.close());

describe("the store is unreachable", () => {
  it("JSON-RPC: -32603 marked retryable, with the request's own id (GetTask and a blocking send)", async () => {
    for (const res of [await rpc("GetTask", { id: taskId }, 41), await send(42)]) {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: unknown; error: { code: number; data: { retryable: boolean; retryAfterSeconds: number } } };
      expect(body.error).toMatchObject({ code: -32603, data: { retryable: true, retryAfterSeconds: 1 } });
      expect([41, 42]).toContain(body.id);
      expect(res.headers.get("retry-after")).toBe("1");
    }
  });

  it("JSON-RPC streaming send: the error is marked retryable and carries the request's id", async () => {
    const res = await rpc("SendStreamingMessage", { message: { messageId: "m-44", role: "ROLE_USER", parts: [{ text: "echo hi" }] } }, 44);
    const text = await res.text();
    expect(res.headers.get("retry-after")).toBe("1");
    expect(JSON.parse(text)).toMatchObject({ id: 44, error: { code: -32603, data: { retryable: true } } });
  });

  it("HTTP+JSON: 503 with Retry-After (1.0 and 0.3)", async () => {
    for (const [path, version] of [
      [`/tasks/${taskId}`, "1.0"],
      [`/v1/tasks/${taskId}`, "0.3"],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { headers: { "A2A-Version": version } });
      expect(res.status, path).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
    }
  });

  it("gRPC: UNAVAILABLE", async () => {
    const client = createClient(v1_0.A2AService, createGrpcTransport({ baseUrl: server.url }));
    const err = await client.getTask({ id: taskId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
  });

  it("answers normally once the store is back, without a restart", async () => {
    store.down = false;
    const body = (await (await rpc("GetTask", { id: taskId }, 43)).json()) as { result: { id: string } };
    expect(body.result.id).toBe(taskId);
    store.down = true;
  });
});

describe("isPgOutage", () => {
  const pgError = (code: string, message = "x") => Object.assign(new Error(message), { code });
  it("is true for connection failures, shutdowns and the pool's own messages", () => {
    for (const e of [
      pgError("ECONNREFUSED"),
      pgError("08006"),
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("57P03", "the database system is starting up"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
    ])
      expect(isPgOutage(e), e.message).toBe(true);
  });
  it("is false for the request's own faults", () => {
    for (const e of [pgError("23505", "duplicate key"), pgError("22P02", "invalid input syntax"), new Error("boom"), "ECONNREFUSED"])
      expect(isPgOutage(e)).toBe(false);
  });
});
