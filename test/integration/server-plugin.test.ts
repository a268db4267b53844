// The plugin mounted into an existing fastify app, the agent card, extensions, principals, the
// extended card, push-config answers and agent failures, over real sockets.
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a2aPlugin, createFixtureAgent, reply, type Agent } from "../../src/server/index.js";
import { postRpc } from "../support/rpc.js";
import { listen, type RunningServer } from "../support/servers.js";

type Json = Record<string, unknown>;
const V1 = { "content-type": "application/json", "A2A-Version": "1.0" };
const EXT = "https://example.com/ext/required/v1";
const OPT = "https://example.com/ext/optional/v1";

let app: FastifyInstance;
let server: RunningServer;
let base: string;
const seen: { extensions: readonly string[]; principal: string }[] = [];

const extAgent: Agent = {
  card: {
    name: "ext agent",
    description: "requires an extension",
    version: "1",
    capabilities: {
      extensions: [
        { uri: EXT, description: "must be activated", required: true },
        { uri: OPT, description: "optional" },
      ],
    },
  },
  handleMessage(m, ctx) {
    seen.push({ extensions: ctx.extensions, principal: ctx.principal });
    if (m.parts[0]?.content.value === "throw") throw new Error("internal detail that must not leak");
    return reply("ok");
  },
};

beforeAll(async () => {
  app = Fastify();
  app.get("/health", async () => ({ ok: true }));
  await app.register(a2aPlugin, {
    prefix: "/a2a",
    agent: createFixtureAgent(),
    authenticate: (req) => (req.headers.authorization?.startsWith("Bearer ") ? req.headers.authorization.slice(7) : undefined),
  });
  await app.register(a2aPlugin, { prefix: "/ext", agent: extAgent, versions: ["1.0", "0.3"] });
  server = await listen(app);
  base = server.url;
});
afterAll(() => server.close());

const as = (who: string) => ({ ...V1, authorization: `Bearer ${who}` });

const rpc = (path: string, method: string, params: Json, headers: Record<string, string>) =>
  postRpc<Json>(`${base}${path}`, method, params, headers);

const send = (text: string) => ({ message: { messageId: `p-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] } });

describe("mounted with a prefix in an existing app", () => {
  it("leaves the app's own routes alone and serves A2A under the prefix", async () => {
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ ok: true });
    const { body } = await rpc("/a2a", "SendMessage", send("echo mounted"), as("alice"));
    expect(body).toMatchObject({ result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
    const rest = await fetch(`${base}/a2a/message:send`, { method: "POST", headers: as("alice"), body: JSON.stringify(send("echo rest")) });
    expect(rest.status).toBe(200);
    const rest03 = await fetch(`${base}/a2a/v1/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer alice" },
      body: JSON.stringify({
        message: { messageId: "m03", role: "ROLE_USER", content: [{ text: "echo old" }] },
        configuration: { blocking: true },
      }),
    });
    expect(((await rest03.json()) as Json).task).toMatchObject({ status: { state: "TASK_STATE_COMPLETED" } });
  });

  it("the card's interfaces point under the prefix; 1.0 and 0.3 shapes by A2A-Version", async () => {
    const c1 = (await (await fetch(`${base}/a2a/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as Json;
    expect((c1.supportedInterfaces as Json[]).every((i) => i.url === `${base}/a2a`)).toBe(true);
    expect(c1.capabilities).toMatchObject({ streaming: true, extendedAgentCard: true });
    const c03 = (await (await fetch(`${base}/a2a/.well-known/agent-card.json`, { headers: { "A2A-Version": "0.3" } })).json()) as Json;
    expect(c03).toMatchObject({ url: `${base}/a2a`, preferredTransport: "JSONRPC", protocolVersion: expect.stringMatching(/^0\.3/) });
    expect(c03).not.toHaveProperty("supportedInterfaces");
    // Without A2A-Version: both (the 0.3 members and supportedInterfaces).
    const dual = (await (await fetch(`${base}/a2a/.well-known/agent-card.json`)).json()) as Json;
    expect(dual).toMatchObject({ ...c03, supportedInterfaces: c1.supportedInterfaces });
  });

  it("card caching: ETag and Cache-Control, 304 on If-None-Match", async () => {
    const r = await fetch(`${base}/a2a/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    expect(r.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const etag = r.headers.get("etag")!;
    expect(etag).toBeTruthy();
    const again = await fetch(`${base}/a2a/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0", "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});

describe("principals", () => {
  it("refuses an unauthenticated call with 401, and keeps each principal's tasks to itself", async () => {
    const anon = await fetch(`${base}/a2a`, {
      method: "POST",
      headers: V1,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
    });
    expect(anon.status).toBe(401);
    const { body } = await rpc("/a2a", "SendMessage", send("ask"), as("alice"));
    const id = ((body.result as Json).task as Json).id as string;
    expect((await rpc("/a2a", "GetTask", { id }, as("alice"))).body).toHaveProperty("result");
    expect((await rpc("/a2a", "GetTask", { id }, as("bob"))).body).toMatchObject({ error: { code: -32001 } });
    expect((await rpc("/a2a", "CancelTask", { id }, as("bob"))).body).toMatchObject({ error: { code: -32001 } });
    const list = (await rpc("/a2a", "ListTasks", {}, as("bob"))).body;
    expect(((list.result as Json).tasks as Json[] | undefined) ?? []).toHaveLength(0);
  });
});

describe("extended card and push configs", () => {
  it("GetExtendedAgentCard at 1.0 and 0.3; push-config operations of an agent without push answer PushNotificationNotSupported", async () => {
    const c1 = (await rpc("/a2a", "GetExtendedAgentCard", {}, as("alice"))).body;
    expect(((c1.result as Json).skills as Json[]).map((s) => s.id)).toContain("extended");
    const c03 = (
      await rpc("/a2a", "agent/getAuthenticatedExtendedCard", {}, { "content-type": "application/json", authorization: "Bearer a" })
    ).body;
    expect(c03.result).toMatchObject({ url: `${base}/a2a` });
    const rest = await fetch(`${base}/a2a/extendedAgentCard`, { headers: as("alice") });
    expect(rest.status).toBe(200);
    const push = await rpc(
      "/ext",
      "CreateTaskPushNotificationConfig",
      { taskId: "t", url: "https://example.com/hook" },
      { ...V1, "A2A-Extensions": EXT },
    );
    expect(push.body).toMatchObject({ error: { code: -32003 } });
    const list03 = await rpc(
      "/ext",
      "tasks/pushNotificationConfig/list",
      { id: "t" },
      { "content-type": "application/json", "X-A2A-Extensions": EXT },
    );
    expect(list03.body).toMatchObject({ error: { code: -32003 } });
  });

  it("an agent without an extended card answers UnsupportedOperation", async () => {
    expect((await rpc("/ext", "GetExtendedAgentCard", {}, { ...V1, "A2A-Extensions": EXT })).body).toMatchObject({
      error: { code: -32004 },
    });
    // 0.3 has its own code for it: AuthenticatedExtendedCardNotConfiguredError (0.3 §8.2).
    expect(
      (await rpc("/ext", "agent/getAuthenticatedExtendedCard", {}, { "content-type": "application/json", "X-A2A-Extensions": EXT })).body,
    ).toMatchObject({
      error: { code: -32007 },
    });
  });
});

describe("extensions", () => {
  it("a call that does not activate a required extension gets -32008", async () => {
    expect((await rpc("/ext", "SendMessage", send("hi"), V1)).body).toMatchObject({ error: { code: -32008 } });
    const rest = await fetch(`${base}/ext/message:send`, { method: "POST", headers: V1, body: JSON.stringify(send("hi")) });
    expect(rest.status).toBe(400);
    expect((((await rest.json()) as Json).error as Json).details).toEqual([
      expect.objectContaining({ reason: "EXTENSION_SUPPORT_REQUIRED" }),
    ]);
  });

  it("activated extensions reach the agent and are echoed; unknown ones are not", async () => {
    seen.length = 0;
    const { headers, body } = await rpc("/ext", "SendMessage", send("hi"), {
      ...V1,
      "A2A-Extensions": `${EXT}, ${OPT}, https://unknown.example/x`,
    });
    expect(body).toHaveProperty("result");
    expect(seen[0]?.extensions).toEqual([EXT, OPT]);
    expect(headers.get("a2a-extensions")).toBe(`${EXT}, ${OPT}`);
    const old = await rpc(
      "/ext",
      "message/send",
      { message: { kind: "message", messageId: "x", role: "user", parts: [{ kind: "text", text: "hi" }] } },
      { "content-type": "application/json", "X-A2A-Extensions": EXT },
    );
    expect(old.body).toHaveProperty("result");
    expect(old.headers.get("x-a2a-extensions")).toBe(EXT);
  });

  it("an exception in the agent fails the task with a generic message; details stay in the log", async () => {
    const { body } = await rpc("/ext", "SendMessage", send("throw"), { ...V1, "A2A-Extensions": EXT });
    const task = (body.result as Json).task as Json;
    expect((task.status as Json).state).toBe("TASK_STATE_FAILED");
    expect(JSON.stringify(body)).not.toContain("internal detail");
  });
});

describe("tenants", () => {
  it("a task created under one tenant is found there only", async () => {
    const post = await fetch(`${base}/a2a/acme/message:send`, {
      method: "POST",
      headers: as("alice"),
      body: JSON.stringify(send("echo tenant")),
    });
    expect(post.status).toBe(200);
    const id = (((await post.json()) as Json).task as Json).id as string;
    expect((await fetch(`${base}/a2a/acme/tasks/${id}`, { headers: as("alice") })).status).toBe(200);
    expect((await fetch(`${base}/a2a/other/tasks/${id}`, { headers: as("alice") })).status).toBe(404);
    expect((await fetch(`${base}/a2a/tasks/${id}`, { headers: as("alice") })).status).toBe(404);
    expect((await rpc("/a2a", "GetTask", { id, tenant: "acme" }, as("alice"))).body).toHaveProperty("result");
  });
});
