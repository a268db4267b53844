// The reference server's limits, each with a spec-shaped answer: body size (413), parts per message
// (InvalidParams), history kept per task (oldest dropped), push configs per task (InvalidParams) and
// open streams per principal (429) — set low here so that a few requests reach them.
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest";
import { bearerAuth } from "../../src/security/auth.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { postRpc } from "../support/rpc.js";
import { startServer, type RunningServer } from "../support/servers.js";

type Json = Record<string, unknown>;

let server: RunningServer;
let base: string;
beforeAll(async () => {
  server = await startServer("fastify", {
    agent: createFixtureAgent({ pushNotifications: true }),
    authenticators: [bearerAuth({ tokens: { a: "alice", b: "bob" } })],
    push: { allow: ["127.0.0.1"] },
    bodyLimit: 4096,
    maxPartsPerMessage: 2,
    maxHistory: 2,
    maxPushConfigsPerTask: 2,
    maxStreamsPerPrincipal: 2,
  });
  base = server.url;
});
afterAll(() => server.close());

const V1 = { "content-type": "application/json", "A2A-Version": "1.0", authorization: "Bearer a" };
let n = 0;
const rpc = (method: string, params: Json, headers: Record<string, string> = V1) =>
  postRpc<{ result?: Json; error?: { code: number; message: string } }>(`${base}/`, method, params, headers);
const msg = (parts: Json[], taskId?: string) => ({ messageId: `lim-${++n}`, role: "ROLE_USER", parts, ...(taskId ? { taskId } : {}) });

describe("limits", () => {
  it("a body over bodyLimit: 413 in the binding's shape", async () => {
    const big = "x".repeat(5000);
    const r = await fetch(`${base}/`, {
      method: "POST",
      headers: V1,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: msg([{ text: big }]) } }),
    });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { error: { code: number } }).error.code).toBe(-32600);
    const rest = await fetch(`${base}/message:send`, {
      method: "POST",
      headers: V1,
      body: JSON.stringify({ message: msg([{ text: big }]) }),
    });
    expect(rest.status).toBe(413);
    expect(await rest.json()).toMatchObject({ error: { code: 413 } });
  });

  it("more parts than maxPartsPerMessage: InvalidParams (1.0 and 0.3, JSON-RPC and HTTP+JSON)", async () => {
    const three = [{ text: "echo a" }, { text: "b" }, { text: "c" }];
    expect((await rpc("SendMessage", { message: msg(three) })).body.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/at most 2 parts/),
    });
    expect((await rpc("SendMessage", { message: msg(three.slice(0, 2)) })).body.result).toBeDefined();
    const v03 = await rpc(
      "message/send",
      { message: { kind: "message", messageId: `lim-${++n}`, role: "user", parts: three.map((p) => ({ kind: "text", ...p })) } },
      { "content-type": "application/json", authorization: "Bearer a" },
    );
    expect(v03.body.error?.code).toBe(-32602);
    const rest = await fetch(`${base}/message:send`, { method: "POST", headers: V1, body: JSON.stringify({ message: msg(three) }) });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT" } });
  });

  it("history keeps the newest maxHistory messages", async () => {
    const asked = (await rpc("SendMessage", { message: msg([{ text: "ask" }]) })).body.result!.task as Json;
    const id = asked.id as string;
    expect((asked.history as Json[]).length).toBe(2); // "ask" and the question
    const done = (await rpc("SendMessage", { message: msg([{ text: "follow-up" }], id) })).body.result!.task as {
      history: { role: string; parts: { text: string }[] }[];
    };
    expect(done.history.map((m) => m.parts[0]?.text)).toEqual(["What should I echo back?", "follow-up"]);
    const got = (await rpc("GetTask", { id })).body.result as { history: unknown[] };
    expect(got.history).toHaveLength(2);
  });

  it("push configs per task: the third is InvalidParams, replacing one is fine", async () => {
    const id = ((await rpc("SendMessage", { message: msg([{ text: "ask" }]) })).body.result!.task as Json).id as string;
    const create = (cid: string) => rpc("CreateTaskPushNotificationConfig", { taskId: id, id: cid, url: "http://127.0.0.1:9/h" });
    expect((await create("one")).body.result).toBeDefined();
    expect((await create("two")).body.result).toBeDefined();
    expect((await create("three")).body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/delete one first/) });
    expect((await create("two")).body.result).toBeDefined();
    await rpc("DeleteTaskPushNotificationConfig", { taskId: id, id: "one" });
    expect((await create("three")).body.result).toBeDefined();
  });

  it("open streams per principal: the third gets 429; another principal is not affected; closing one frees a place", async () => {
    const slow = (
      (await rpc("SendMessage", { message: msg([{ text: "slow 600000" }]), configuration: { returnImmediately: true } })).body.result!
        .task as Json
    ).id as string;
    const aborts: AbortController[] = [];
    const subscribe = async (headers: Record<string, string>) => {
      const ac = new AbortController();
      aborts.push(ac);
      return fetch(`${base}/tasks/${slow}:subscribe`, { headers, signal: ac.signal });
    };
    const s1 = await subscribe(V1);
    const s2 = await subscribe(V1);
    expect([s1.status, s2.status]).toEqual([200, 200]);
    const s3 = await subscribe(V1);
    expect(s3.status).toBe(429);
    expect(await s3.json()).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED" } });
    const rpc3 = await fetch(`${base}/`, {
      method: "POST",
      headers: V1,
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SubscribeToTask", params: { id: slow } }),
    });
    expect(rpc3.status).toBe(429);
    expect(await rpc3.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600 } });
    // bob has his own allowance.
    const B = { ...V1, authorization: "Bearer b" };
    const bobs = (
      (await rpc("SendMessage", { message: msg([{ text: "slow 600000" }]), configuration: { returnImmediately: true } }, B)).body.result!
        .task as Json
    ).id as string;
    const ac = new AbortController();
    aborts.push(ac);
    expect((await fetch(`${base}/tasks/${bobs}:subscribe`, { headers: B, signal: ac.signal })).status).toBe(200);
    await rpc("CancelTask", { id: bobs }, B);
    const [firstStream] = aborts;
    assert(firstStream);
    firstStream.abort();
    let again: Response | undefined;
    for (let i = 0; i < 200; i++) {
      again = await subscribe(V1);
      if (again.status === 200) break;
      await again.body?.cancel();
      await sleep(10);
    }
    expect(again!.status).toBe(200);
    await rpc("CancelTask", { id: slow });
    for (const ac of aborts) ac.abort();
  });

  it("without authentication the stream limit counts per client address", async () => {
    const open = await startServer("fastify", { agent: createFixtureAgent(), maxStreamsPerPrincipal: 1 });
    const port = open.port;
    const H = { "content-type": "application/json", "A2A-Version": "1.0" };
    const subscribeFrom = (localAddress: string, id: string) =>
      new Promise<http.IncomingMessage>((ok, fail) => {
        const req = http.request({ host: "127.0.0.1", port, path: `/tasks/${id}:subscribe`, headers: H, localAddress }, ok);
        req.on("error", fail);
        req.end();
      });
    try {
      const r = await fetch(`http://127.0.0.1:${port}/message:send`, {
        method: "POST",
        headers: H,
        body: JSON.stringify({ message: msg([{ text: "slow 600000" }]), configuration: { returnImmediately: true } }),
      });
      const id = ((await r.json()) as { task: { id: string } }).task.id;
      const first = await subscribeFrom("127.0.0.1", id);
      expect(first.statusCode).toBe(200);
      const second = await subscribeFrom("127.0.0.1", id);
      expect(second.statusCode).toBe(429);
      second.resume();
      const elsewhere = await subscribeFrom("127.0.0.2", id);
      expect(elsewhere.statusCode).toBe(200);
      first.destroy();
      elsewhere.destroy();
    } finally {
      await open.close();
    }
  });
});
