// Interop: the reference client against the official @a2a-js/sdk 1.3.0 server, A2A 1.0 and 0.3,
// JSON-RPC and HTTP+JSON, over real sockets on 127.0.0.1.
import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2ACardError, A2AError, A2ATransportError, createA2AClient, textMessage, type A2AClient } from "../../src/client/index.js";
import { startSdkServer, type SdkServer } from "./client-sdk-server.js";
import { urlOf } from "../support/fetch-input.js";

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

const artifactText = (t: v1_0.Task) =>
  t.artifacts.flatMap((a) => a.parts.map((p) => (p.content.case === "text" ? p.content.value : ""))).join("");
const terminal = (e: string) => /COMPLETED|FAILED|CANCELED|REJECTED/.test(e);

let server: SdkServer;
beforeAll(async () => {
  server = await startSdkServer(["1.0", "0.3"]);
});
afterAll(async () => {
  await server.close();
});

const matrix = [
  { version: "1.0", binding: "JSONRPC" },
  { version: "1.0", binding: "HTTP+JSON" },
  { version: "0.3", binding: "JSONRPC" },
  { version: "0.3", binding: "HTTP+JSON" },
] as const;

describe.each(matrix)("official SDK server, A2A $version over $binding", ({ version, binding }) => {
  let client: A2AClient;
  const subscribes: string[] = [];
  let resubscribing = false;
  beforeEach(() => {
    server.resetGates();
    resubscribing = false;
  });
  beforeAll(async () => {
    // Wraps fetch to open the gates of slow tasks once a resubscription's stream is established.
    const watching: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const body = typeof init?.body === "string" ? init.body : "";
      if (/SubscribeToTask|tasks\/resubscribe/.test(body) || urlOf(input).includes(":subscribe")) {
        subscribes.push(urlOf(input));
        if (resubscribing) server.release(3);
      }
      return res;
    };
    client = await createA2AClient(server.url, { version, bindings: [binding], fetch: watching, resubscribe: { backoffMs: 10 } });
  });

  it("chose the interface asked for", () => {
    expect(client.target).toMatchObject({ version, binding });
  });

  it("SendMessage: a task with an artifact, and a bare message", async () => {
    const res = await client.sendMessage({ message: textMessage("task one") });
    expect(res.payload.case).toBe("task");
    const t = res.payload.value as v1_0.Task;
    expect(t.status?.state).toBe(S.COMPLETED);
    expect(artifactText(t)).toBe("echo: task one");
    const m = await client.sendMessage({ message: textMessage("hello you") });
    expect(m.payload.case).toBe("message");
    expect((m.payload.value as v1_0.Message).parts[0]?.content.value).toBe("hi: hello you");
  });

  it("SendStreamingMessage: task first, chunks, one terminal event", async () => {
    const events: string[] = [];
    for await (const ev of client.sendStreamingMessage({ message: textMessage("task streamed") })) events.push(describeEvent(ev));
    expect(events[0]).toMatch(/^task:/);
    expect(events).toContain("artifact:echo: task streamed");
    expect(events.filter(terminal)).toEqual([events[events.length - 1]]);
    expect(events[events.length - 1]).toMatch(/COMPLETED/);
  });

  it("multi-turn: INPUT_REQUIRED, then the follow-up completes the same task", async () => {
    const first = await client.sendMessage({ message: textMessage("ask me") });
    const t1 = first.payload.value as v1_0.Task;
    expect(t1.status?.state).toBe(S.INPUT_REQUIRED);
    const second = await client.sendMessage({ message: textMessage("blue", { taskId: t1.id, contextId: t1.contextId }) });
    const t2 = second.payload.value as v1_0.Task;
    expect(t2.id).toBe(t1.id);
    expect(t2.status?.state).toBe(S.COMPLETED);
    expect(artifactText(t2)).toContain("answer: blue");
  });

  it("GetTask, and TaskNotFoundError for an unknown id", async () => {
    const res = await client.sendMessage({ message: textMessage("task get") });
    const id = (res.payload.value as v1_0.Task).id;
    const t = await client.getTask({ id });
    expect(t.id).toBe(id);
    expect(t.status?.state).toBe(S.COMPLETED);
    const err = await client.getTask({ id: "no-such-task" }).catch((e) => e);
    expect(err).toBeInstanceOf(A2AError);
    expect(err).toMatchObject({ name: "TaskNotFoundError", code: -32001 });
  });

  it("returnImmediately, then CancelTask; TaskNotCancelableError for a completed task", async () => {
    const res = await client.sendMessage({ message: textMessage("slow 3"), configuration: { returnImmediately: true } });
    const t = res.payload.value as v1_0.Task;
    expect([S.SUBMITTED, S.WORKING]).toContain(t.status?.state);
    const canceled = await client.cancelTask({ id: t.id });
    expect(canceled.status?.state).toBe(S.CANCELED);
    expect((await client.getTask({ id: t.id })).status?.state).toBe(S.CANCELED);
    const done = await client.sendMessage({ message: textMessage("task done") });
    const doneId = (done.payload.value as v1_0.Task).id;
    await expect(client.cancelTask({ id: doneId })).rejects.toMatchObject({ name: "TaskNotCancelableError", code: -32002 });
  });

  it("waitForTask follows a task started with returnImmediately to the end", async () => {
    const res = await client.sendMessage({ message: textMessage("slow 2"), configuration: { returnImmediately: true } });
    const id = (res.payload.value as v1_0.Task).id;
    const seen: v1_0.TaskState[] = [];
    const waiting = client.waitForTask(id, { onUpdate: (t) => seen.push(t.status!.state), intervalMs: 20 });
    server.release(3); // two chunks and the completion
    const done = await waiting;
    expect(done.status?.state).toBe(S.COMPLETED);
    expect(artifactText(done)).toBe("chunk0 chunk1 ");
  });

  it("SubscribeToTask streams a running task to its end", async () => {
    const res = await client.sendMessage({ message: textMessage("slow 2"), configuration: { returnImmediately: true } });
    const id = (res.payload.value as v1_0.Task).id;
    const events: string[] = [];
    for await (const ev of client.subscribeToTask({ id })) {
      events.push(describeEvent(ev));
      if (events.length === 1) server.release(3); // subscribed: let it run (two chunks, completion)
    }
    expect(events[0]).toMatch(/^task:(SUBMITTED|WORKING)/);
    expect(events.filter(terminal)).toEqual(["status:COMPLETED"]);
    expect(events.join(" ")).toMatch(/chunk1/);
  });

  it("resubscribes after the connection is killed mid-stream, without a duplicate terminal event", async () => {
    const before = subscribes.length;
    const events: string[] = [];
    resubscribing = true;
    server.release(1);
    for await (const ev of client.sendStreamingMessage({ message: textMessage("slow 3") }, { resubscribe: { backoffMs: 10 } })) {
      const d = describeEvent(ev);
      events.push(d);
      if (d === "artifact:chunk0 ") server.dropConnections();
    }
    expect(subscribes.length).toBe(before + 1);
    expect(events[0]).toMatch(/^task:/);
    expect(events.filter(terminal)).toEqual([events[events.length - 1]]);
    expect(events[events.length - 1]).toMatch(/COMPLETED/);
    // After the drop the client re-read the task (snapshot) and got the remaining chunks live.
    const after = events.slice(events.indexOf("artifact:chunk0 ") + 1);
    expect(after[0]).toBe("task:WORKING");
    expect(after).toContain("artifact:chunk2 ");
  });

  it("push notification configs: create, get, list, delete", async () => {
    const res = await client.sendMessage({ message: textMessage("task push") });
    const taskId = (res.payload.value as v1_0.Task).id;
    const created = await client.createTaskPushNotificationConfig({ taskId, id: "cfg-1", url: "http://127.0.0.1:1/hook", token: "tok" });
    expect(created).toMatchObject({ taskId, id: "cfg-1", url: "http://127.0.0.1:1/hook" });
    const got = await client.getTaskPushNotificationConfig({ taskId, id: "cfg-1" });
    expect(got.url).toBe("http://127.0.0.1:1/hook");
    const listed = await client.listTaskPushNotificationConfigs({ taskId });
    expect(listed.configs.map((c) => c.id)).toEqual(["cfg-1"]);
    await client.deleteTaskPushNotificationConfig({ taskId, id: "cfg-1" });
    const after = await client.listTaskPushNotificationConfigs({ taskId });
    expect(after.configs).toEqual([]);
  });

  it("GetExtendedAgentCard", async () => {
    const card = await client.getExtendedAgentCard();
    expect(card.name).toMatch(/SDK test agent/);
  });

  it(
    version === "1.0" ? "ListTasks lists the tasks" : "ListTasks fails with UnsupportedOperationError (0.3 has no such operation)",
    async () => {
      if (version === "1.0") {
        const res = await client.listTasks({ pageSize: 100 });
        expect(res.tasks.length).toBeGreaterThan(0);
      } else {
        await expect(client.listTasks({})).rejects.toMatchObject({ name: "UnsupportedOperationError", code: -32004 });
      }
    },
  );
});

describe("version negotiation against a 0.3-only server", () => {
  let old: SdkServer;
  beforeAll(async () => {
    old = await startSdkServer(["0.3"]);
  });
  afterAll(async () => {
    await old.close();
  });

  it("a client that supports both versions talks 0.3 to it", async () => {
    const c = await createA2AClient(old.url);
    expect(c.target.version).toBe("0.3");
    const res = await c.sendMessage({ message: textMessage("task old") });
    expect(artifactText(res.payload.value as v1_0.Task)).toBe("echo: task old");
  });

  it("reads the 0.3-shaped card served to a header-less request", async () => {
    const c = await createA2AClient(old.url, { versions: ["0.3"], bindings: ["HTTP+JSON"] });
    expect(c.target).toMatchObject({ version: "0.3", binding: "HTTP+JSON" });
    const t = await c.sendMessage({ message: textMessage("task rest") });
    expect((t.payload.value as v1_0.Task).status?.state).toBe(S.COMPLETED);
  });

  it("a client pinned to 1.0 refuses it with a clear error instead of falling back", async () => {
    const err = await createA2AClient(old.url, { version: "1.0" }).catch((e) => e);
    expect(err).toBeInstanceOf(A2ACardError);
    expect(err.kind).toBe("no-compatible-interface");
    expect(err.message).toMatch(/pinned to A2A 1\.0 and does not fall back/);
    expect(err.message).toMatch(/JSONRPC 0\.3/);
  });
});

describe("tenant", () => {
  let tenanted: SdkServer;
  beforeAll(async () => {
    tenanted = await startSdkServer(["1.0"], { tenant: "acme" });
  });
  afterAll(async () => {
    await tenanted.close();
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("echoes the interface's tenant over %s; the SDK scopes tasks by it", async (binding) => {
    const urls: string[] = [];
    const bodies: string[] = [];
    const spy: typeof fetch = (input, init) => {
      if (!urlOf(input).includes("/.well-known/")) {
        urls.push(urlOf(input));
        bodies.push(typeof init?.body === "string" ? init.body : "");
      }
      return fetch(input, init);
    };
    const c = await createA2AClient(tenanted.url, { bindings: [binding], fetch: spy });
    expect(c.target.tenant).toBe("acme");
    const t = (await c.sendMessage({ message: textMessage("task tenant") })).payload.value as v1_0.Task;
    expect((await c.getTask({ id: t.id })).id).toBe(t.id);
    expect(urls).toHaveLength(2);
    if (binding === "HTTP+JSON") expect(urls.every((u) => u.includes("/a2a/rest/acme/"))).toBe(true);
    else expect(bodies.every((b) => JSON.parse(b).params.tenant === "acme")).toBe(true);
  });
});

describe("failures", () => {
  it("an unreachable agent is a transport error", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const err = await createA2AClient(`http://127.0.0.1:${port}`).catch((e) => e);
    expect(err).toBeInstanceOf(A2ATransportError);
    expect(err.kind).toBe("network");
    expect(err.message).toMatch(/ECONNREFUSED/);
  });
});
