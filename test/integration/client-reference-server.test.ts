// The reference client against the toolkit's own reference server (src/server, fixture agent):
// A2A 1.0 and 0.3, JSON-RPC and HTTP+JSON, real sockets on 127.0.0.1.
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2ACardError, A2ATransportError, createA2AClient, textMessage, type A2AClient } from "../../src/client/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { bearerAuth } from "../../src/security/auth.js";
import { startServer, type RunningServer } from "../support/servers.js";

const S = v1_0.TaskState;

function describeEvent(ev: v1_0.StreamResponse): string {
  switch (ev.payload.case) {
    case "task":
      return `task:${S[ev.payload.value.status!.state]}`;
    case "statusUpdate":
      return `status:${S[ev.payload.value.status!.state]}`;
    case "artifactUpdate":
      return `artifact:${ev.payload.value.artifact!.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("")}`;
    default:
      return ev.payload.case ?? "?";
  }
}
const terminal = (e: string) => /COMPLETED|FAILED|CANCELED|REJECTED/.test(e);
const text = (t: v1_0.Task) => t.artifacts.flatMap((a) => a.parts.map((p) => (p.content.case === "text" ? p.content.value : ""))).join("|");

/** The extended card needs a credential (1.0.1 §13.3): the server accepts this bearer token for it. */
const CARD_TOKEN = "card-t0ken";

interface Running {
  url: string;
  app: FastifyInstance;
  sockets: Set<Socket>;
}

async function start(versions?: ("1.0" | "0.3")[]): Promise<Running> {
  const app = await buildServer({
    agent: createFixtureAgent(),
    versions,
    extendedCardAuthenticators: [bearerAuth({ tokens: { [CARD_TOKEN]: "carol" } })],
  });
  const sockets = new Set<Socket>();
  app.server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return { url, app, sockets };
}

let server: Running;
beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server.app.close();
});

const matrix = [
  { version: "1.0", binding: "JSONRPC" },
  { version: "1.0", binding: "HTTP+JSON" },
  { version: "0.3", binding: "JSONRPC" },
  { version: "0.3", binding: "HTTP+JSON" },
] as const;

describe.each(matrix)("reference server, A2A $version over $binding", ({ version, binding }) => {
  let client: A2AClient;
  beforeAll(async () => {
    client = await createA2AClient(server.url, { version, bindings: [binding], resubscribe: { backoffMs: 10 } });
  });

  it("SendMessage: task with artifact, bare message, failure", async () => {
    expect(client.target).toMatchObject({ version, binding });
    const t = (await client.sendMessage({ message: textMessage("echo hi there") })).payload.value as v1_0.Task;
    expect(t.status?.state).toBe(S.COMPLETED);
    expect(text(t)).toBe("hi there");
    const m = await client.sendMessage({ message: textMessage("msg direct") });
    expect(m.payload.case).toBe("message");
    const f = (await client.sendMessage({ message: textMessage("fail") })).payload.value as v1_0.Task;
    expect(f.status?.state).toBe(S.FAILED);
  });

  it("SendStreamingMessage: chunks in order, one terminal event", async () => {
    const events: string[] = [];
    for await (const ev of client.sendStreamingMessage({ message: textMessage("stream 3") })) events.push(describeEvent(ev));
    expect(events[0]).toMatch(/^task:/);
    expect(events.filter((e) => e.startsWith("artifact:"))).toEqual(["artifact:chunk 1/3", "artifact:chunk 2/3", "artifact:chunk 3/3"]);
    expect(events.filter(terminal)).toEqual(["status:COMPLETED"]);
  });

  it("multi-turn, GetTask, TaskNotFoundError", async () => {
    const t1 = (await client.sendMessage({ message: textMessage("ask") })).payload.value as v1_0.Task;
    expect(t1.status?.state).toBe(S.INPUT_REQUIRED);
    const t2 = (await client.sendMessage({ message: textMessage("green", { taskId: t1.id }) })).payload.value as v1_0.Task;
    expect(t2.id).toBe(t1.id);
    expect(t2.status?.state).toBe(S.COMPLETED);
    expect(text(await client.getTask({ id: t1.id }))).toBe("green");
    await expect(client.getTask({ id: "nope" })).rejects.toMatchObject({ name: "TaskNotFoundError", code: -32001 });
  });

  it("multi-turn on a stream: the streaming follow-up of an input-required task carries the answer", async () => {
    const first: string[] = [];
    let id = "";
    for await (const ev of client.sendStreamingMessage({ message: textMessage("ask") })) {
      if (ev.payload.case === "task") id = ev.payload.value.id;
      first.push(describeEvent(ev));
    }
    expect(first.at(-1)).toMatch(/INPUT_REQUIRED/);
    const more: string[] = [];
    for await (const ev of client.sendStreamingMessage({ message: textMessage("streamed", { taskId: id }) })) more.push(describeEvent(ev));
    expect(more).toContain("artifact:streamed");
    expect(more.at(-1)).toBe("status:COMPLETED");
  });

  it("GetTask with historyLength 0 returns no history, whatever the dialect can carry (L10)", async () => {
    const t = (await client.sendMessage({ message: textMessage("echo remember") })).payload.value as v1_0.Task;
    expect((await client.getTask({ id: t.id })).history.length).toBeGreaterThan(0);
    expect((await client.getTask({ id: t.id, historyLength: 0 })).history).toEqual([]);
  });

  it("returnImmediately + CancelTask; TaskNotCancelableError afterwards", async () => {
    const t = (await client.sendMessage({ message: textMessage("slow 60000"), configuration: { returnImmediately: true } })).payload
      .value as v1_0.Task;
    expect([S.SUBMITTED, S.WORKING]).toContain(t.status?.state);
    expect((await client.cancelTask({ id: t.id })).status?.state).toBe(S.CANCELED);
    await expect(client.cancelTask({ id: t.id })).rejects.toMatchObject({ name: "TaskNotCancelableError" });
  });

  it("waitForTask and SubscribeToTask follow a running task", async () => {
    const a = (await client.sendMessage({ message: textMessage("slow 100"), configuration: { returnImmediately: true } })).payload
      .value as v1_0.Task;
    const done = await client.waitForTask(a.id);
    expect(done.status?.state).toBe(S.COMPLETED);
    const b = (await client.sendMessage({ message: textMessage("slow 100"), configuration: { returnImmediately: true } })).payload
      .value as v1_0.Task;
    const events: string[] = [];
    for await (const ev of client.subscribeToTask({ id: b.id })) events.push(describeEvent(ev));
    expect(events[events.length - 1]).toMatch(/COMPLETED/);
    expect(events.filter(terminal)).toHaveLength(1);
  });

  it("resubscribes after the server kills the connection mid-stream", async () => {
    const resubscribed: number[] = [];
    const events: string[] = [];
    const stream = client.sendStreamingMessage(
      { message: textMessage("slow 300") },
      { resubscribe: { backoffMs: 10, onResubscribe: (i) => resubscribed.push(i.attempt) } },
    );
    for await (const ev of stream) {
      events.push(describeEvent(ev));
      if (events.length === 1) for (const s of server.sockets) s.destroy();
    }
    expect(resubscribed).toEqual([1]);
    expect(events.filter(terminal)).toEqual([events[events.length - 1]]);
    expect(events[events.length - 1]).toMatch(/COMPLETED/);
  });

  it("push-config operations reach the server and get its PushNotificationNotSupportedError", async () => {
    const raw = await createA2AClient(server.url, { version, bindings: [binding], checkCapabilities: false });
    const t = (await raw.sendMessage({ message: textMessage("echo x") })).payload.value as v1_0.Task;
    const no = { name: "PushNotificationNotSupportedError", code: -32003 };
    await expect(raw.createTaskPushNotificationConfig({ taskId: t.id, url: "https://hooks.example/x" })).rejects.toMatchObject(no);
    await expect(raw.getTaskPushNotificationConfig({ taskId: t.id, id: "c" })).rejects.toMatchObject(no);
    await expect(raw.listTaskPushNotificationConfigs({ taskId: t.id })).rejects.toMatchObject(no);
    await expect(raw.deleteTaskPushNotificationConfig({ taskId: t.id, id: "c" })).rejects.toMatchObject(no);
  });

  it("GetExtendedAgentCard needs the credential; ListTasks (1.0) or UnsupportedOperationError (0.3)", async () => {
    await expect(client.getExtendedAgentCard()).rejects.toMatchObject({ status: 401 });
    const card = await client.getExtendedAgentCard({}, { headers: { authorization: `Bearer ${CARD_TOKEN}` } });
    expect(card.skills.map((s) => s.id)).toContain("extended");
    expect(client.card.skills.map((s) => s.id)).not.toContain("extended");
    await client.useExtendedCard({ headers: { authorization: `Bearer ${CARD_TOKEN}` } });
    expect(client.card.skills.map((s) => s.id)).toContain("extended");
    if (version === "1.0") expect((await client.listTasks({ pageSize: 100 })).tasks.length).toBeGreaterThan(0);
    else await expect(client.listTasks({})).rejects.toMatchObject({ name: "UnsupportedOperationError", code: -32004 });
  });
});

describe("extensions and tenant", () => {
  const EXT = "https://example.com/ext/required/v1";
  let ext: RunningServer;
  beforeAll(async () => {
    const base = createFixtureAgent();
    const agent = {
      ...base,
      card: { ...base.card, capabilities: { ...base.card.capabilities, extensions: [{ uri: EXT, required: true }] } },
      handleMessage: (m: v1_0.Message, ctx: Parameters<typeof base.handleMessage>[1]) =>
        base.handleMessage(
          { ...m, parts: [{ ...m.parts[0], content: { case: "text", value: `echo ${ctx.extensions.join(",")}` } }] } as v1_0.Message,
          ctx,
        ),
    };
    ext = await startServer("fastify", { agent });
  });
  afterAll(() => ext.close());

  it.each(["1.0", "0.3"] as const)("A2A %s: the activated extensions reach the agent; without them the agent refuses", async (version) => {
    const without = await createA2AClient(ext.url, { version });
    await expect(without.sendMessage({ message: textMessage("hi") })).rejects.toMatchObject({ name: "ExtensionSupportRequiredError" });
    const withExt = await createA2AClient(ext.url, { version, extensions: [EXT] });
    const t = (await withExt.sendMessage({ message: textMessage("hi") })).payload.value as v1_0.Task;
    expect(text(t)).toBe(EXT);
  });
});

describe("credentials", () => {
  let secured: RunningServer;
  beforeAll(async () => {
    const base = createFixtureAgent();
    const agent = {
      ...base,
      card: {
        ...base.card,
        securitySchemes: {
          bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
          key: { apiKeySecurityScheme: { location: "header", name: "X-Agent-Key" } },
        },
      },
    };
    secured = await startServer("fastify", {
      agent,
      authenticate: (req) =>
        req.headers.authorization === "Bearer s3cret" ? "alice" : req.headers["x-agent-key"] === "k-1" ? "bob" : undefined,
    });
  });
  afterAll(() => secured.close());

  it.each(["1.0", "0.3"] as const)(
    "A2A %s: 401 without credentials is a transport error; bearer and API key get through",
    async (version) => {
      const anon = await createA2AClient(secured.url, { version });
      const err = await anon.sendMessage({ message: textMessage("echo x") }).catch((e) => e);
      expect(err).toBeInstanceOf(A2ATransportError);
      expect(err).toMatchObject({ kind: "http", status: 401 });
      expect(err.message).toMatch(/credentials required or refused; the card declares security schemes bearer, key/);
      const bearer = await createA2AClient(secured.url, { version, credentials: { bearer: "s3cret" } });
      expect(text((await bearer.sendMessage({ message: textMessage("echo a") })).payload.value as v1_0.Task)).toBe("a");
      const key = await createA2AClient(secured.url, { version, credentials: { apiKey: "k-1" } });
      expect(text((await key.sendMessage({ message: textMessage("echo b") })).payload.value as v1_0.Task)).toBe("b");
    },
  );
});

describe("aborting and leaving streams", () => {
  it("an AbortSignal ends a stream with an aborted transport error; the task keeps running", async () => {
    const client = await createA2AClient(server.url);
    const ac = new AbortController();
    let taskId = "";
    const err = await (async () => {
      for await (const ev of client.sendStreamingMessage({ message: textMessage("slow 60000") }, { signal: ac.signal })) {
        if (ev.payload.case === "task") taskId = ev.payload.value.id;
        ac.abort();
      }
    })().catch((e) => e);
    expect(err).toMatchObject({ name: "A2ATransportError", kind: "aborted" });
    expect((await client.getTask({ id: taskId })).status?.state).toBe(S.WORKING);
    await client.cancelTask({ id: taskId });
  });

  it("leaving the loop early closes the stream and the client stays usable", async () => {
    const client = await createA2AClient(server.url, { bindings: ["HTTP+JSON"] });
    for await (const ev of client.sendStreamingMessage({ message: textMessage("stream 1000") }))
      if (ev.payload.case === "artifactUpdate") break;
    const t = (await client.sendMessage({ message: textMessage("echo still here") })).payload.value as v1_0.Task;
    expect(text(t)).toBe("still here");
  });
});

describe("reference server serving 0.3 only", () => {
  let old: Running;
  beforeAll(async () => {
    old = await start(["0.3"]);
  });
  afterAll(async () => {
    await old.app.close();
  });

  it("a dual-version client talks 0.3 to it; a client pinned to 1.0 refuses it", async () => {
    const c = await createA2AClient(old.url);
    expect(c.target.version).toBe("0.3");
    const t = (await c.sendMessage({ message: textMessage("echo old") })).payload.value as v1_0.Task;
    expect(text(t)).toBe("old");
    const err = await createA2AClient(old.url, { version: "1.0" }).catch((e) => e);
    expect(err).toBeInstanceOf(A2ACardError);
    expect(err.message).toMatch(/pinned to A2A 1\.0 and does not fall back/);
  });
});
