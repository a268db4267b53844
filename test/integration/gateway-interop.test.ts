// The translating gateway end to end: the official SDK's 0.3 compat client reaches a 1.0-only
// reference server through it, and our 1.0 client reaches a 0.3-only reference server, for send,
// stream, multi-turn, cancel and get on both bindings; correlation metadata; a backend killed
// mid-task fails the local task with a generic message.
import { TaskState as SdkState, type StreamResponse, type Task as SdkTask } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest";
import { asTask, sdkClientFor, sdkRequest } from "../support/sdk-client.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, textMessage, type A2AClient } from "../../src/client/index.js";
import { BACKEND_FAILURE, buildGateway, META_BACKEND, META_REMOTE_CONTEXT, META_REMOTE_TASK } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { serverGroup } from "../support/servers.js";

const S = v1_0.TaskState;
const { listen, close: closeServers } = serverGroup();
let backend1_0: string;
let backend0_3: string;
let gateway: string;

beforeAll(async () => {
  backend1_0 = await listen(await buildServer({ agent: createFixtureAgent(), versions: ["1.0"] }));
  backend0_3 = await listen(await buildServer({ agent: createFixtureAgent(), versions: ["0.3"] }));
  gateway = await listen(
    await buildGateway({
      gateway: {
        default: "new",
        backends: [
          { name: "new", url: backend1_0, description: "1.0-only fixture", keywords: ["fixture"] },
          { name: "old", url: backend0_3 },
        ],
      },
    }),
  );
});
afterAll(closeServers);

describe("gateway card", () => {
  it("publishes both backends' skills, tagged with the agent_id, in both card shapes", async () => {
    const c1 = (await (await fetch(`${gateway}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as {
      skills: { id: string; tags: string[] }[];
      supportedInterfaces: { protocolVersion: string }[];
    };
    expect(c1.skills.length).toBeGreaterThanOrEqual(2);
    expect(c1.skills.some((s) => s.id.startsWith("new/") && s.tags.includes("agent_id:new") && s.tags.includes("fixture"))).toBe(true);
    expect(c1.skills.some((s) => s.id.startsWith("old/") && s.tags.includes("agent_id:old"))).toBe(true);
    expect(new Set(c1.supportedInterfaces.map((i) => i.protocolVersion))).toEqual(new Set(["1.0", "0.3"]));
    const c03 = (await (await fetch(`${gateway}/.well-known/agent-card.json`)).json()) as { protocolVersion: string; skills: unknown[] };
    expect(c03.protocolVersion).toMatch(/^0\.3/);
    expect(c03.skills).toHaveLength(c1.skills.length);
  });
});

// ------------------------------------------------------------------ our 1.0 client → gateway → 0.3-only backend

describe.each(["JSONRPC", "HTTP+JSON"] as const)("1.0 client over %s to a 0.3-only backend", (binding) => {
  let client: A2AClient;
  let direct: A2AClient;
  const toOld = (text: string, ids: { taskId?: string } = {}) => ({ ...textMessage(text, ids), metadata: { agent_id: "old" } });
  beforeAll(async () => {
    client = await createA2AClient(gateway, { version: "1.0", bindings: [binding] });
    direct = await createA2AClient(backend0_3);
    expect(direct.version).toBe("0.3");
  });

  it("send: the gateway's own task, completed, with the remote ids in its metadata; get", async () => {
    const r = await client.sendMessage({ message: toOld("echo through the gateway") });
    const t = r.payload.value as v1_0.Task;
    expect(r.payload.case).toBe("task");
    expect(t.status?.state).toBe(S.COMPLETED);
    expect(t.artifacts[0]?.parts[0]?.content.value).toBe("through the gateway");
    expect(t.metadata?.[META_BACKEND]).toBe("old");
    const remoteId = t.metadata?.[META_REMOTE_TASK] as string;
    expect(remoteId).toBeTruthy();
    expect(remoteId).not.toBe(t.id);
    const remote = await direct.getTask({ id: remoteId });
    expect(remote.status?.state).toBe(S.COMPLETED);
    expect(remote.contextId).toBe(t.metadata?.[META_REMOTE_CONTEXT]);
    const again = await client.getTask({ id: t.id });
    expect(again.status?.state).toBe(S.COMPLETED);
    expect(again.artifacts[0]?.parts[0]?.content.value).toBe("through the gateway");
  });

  it("a bare message from the backend is a bare message", async () => {
    const r = await client.sendMessage({ message: toOld("msg plain") });
    expect(r.payload.case).toBe("message");
    expect((r.payload.value as v1_0.Message).parts[0]?.content.value).toBe("plain");
  });

  it("stream: task first, the remote chunks re-published in order, completed last", async () => {
    const events: v1_0.StreamResponse[] = [];
    for await (const ev of client.sendStreamingMessage({ message: toOld("stream 4") })) events.push(ev);
    const first = events[0]?.payload;
    assert(first?.case === "task", "the stream starts with the task");
    const localId = first.value.id;
    const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.map((c) => c.artifact?.parts[0]?.content.value)).toEqual(["chunk 1/4", "chunk 2/4", "chunk 3/4", "chunk 4/4"]);
    expect(chunks.every((c) => c.taskId === localId)).toBe(true);
    expect(chunks.at(-1)?.lastChunk).toBe(true);
    const last = events.at(-1)!.payload;
    expect(last.case === "statusUpdate" && last.value.status?.state).toBe(S.COMPLETED);
  });

  it("multi-turn: input-required passes through and the follow-up continues the remote task", async () => {
    const first = (await client.sendMessage({ message: toOld("ask") })).payload.value as v1_0.Task;
    expect(first.status?.state).toBe(S.INPUT_REQUIRED);
    expect(first.status?.message?.parts[0]?.content.value).toBe("What should I echo back?");
    const second = (await client.sendMessage({ message: textMessage("the answer", { taskId: first.id }) })).payload.value as v1_0.Task;
    expect(second.id).toBe(first.id);
    expect(second.status?.state).toBe(S.COMPLETED);
    expect(second.artifacts[0]?.parts[0]?.content.value).toBe("the answer");
    expect(second.metadata?.[META_REMOTE_TASK]).toBe(first.metadata?.[META_REMOTE_TASK]);
    expect((await direct.getTask({ id: first.metadata?.[META_REMOTE_TASK] as string })).status?.state).toBe(S.COMPLETED);
  });

  it("multi-turn on a stream: the stream ends at input-required, the follow-up stream completes", async () => {
    const events: v1_0.StreamResponse[] = [];
    for await (const ev of client.sendStreamingMessage({ message: toOld("ask") })) events.push(ev);
    const last = events.at(-1)!.payload;
    expect(last.case === "statusUpdate" && last.value.status?.state).toBe(S.INPUT_REQUIRED);
    const first = events[0]?.payload;
    assert(first?.case === "task", "the stream starts with the task");
    const id = first.value.id;
    const more: v1_0.StreamResponse[] = [];
    for await (const ev of client.sendStreamingMessage({ message: textMessage("streamed answer", { taskId: id }) })) more.push(ev);
    const end = more.at(-1)!.payload;
    expect(end.case === "statusUpdate" && end.value.status?.state).toBe(S.COMPLETED);
  });

  it("cancel: the local task is canceled and the cancel reaches the backend", async () => {
    const started = (await client.sendMessage({ message: toOld("slow 60000"), configuration: { returnImmediately: true } })).payload
      .value as v1_0.Task;
    expect(started.status?.state).toBe(S.WORKING);
    const canceled = await client.cancelTask({ id: started.id });
    expect(canceled.status?.state).toBe(S.CANCELED);
    const remote = await direct.getTask({ id: started.metadata?.[META_REMOTE_TASK] as string });
    expect(remote.status?.state).toBe(S.CANCELED);
    expect((await client.getTask({ id: started.id })).status?.state).toBe(S.CANCELED);
  });
});

// ------------------------------------------------------------------ the official SDK's 0.3 client → gateway → 1.0-only backend

/** A message routed to the 1.0-only backend by its agent_id. */
const routed = (text: string, opts: Parameters<typeof sdkRequest>[1] = {}) => sdkRequest(text, { ...opts, metadata: { agent_id: "new" } });

function text(t: SdkTask): string | undefined {
  const c = t.artifacts[0]?.parts[0]?.content;
  return c?.$case === "text" ? c.value : undefined;
}

describe.each(["JSONRPC", "HTTP+JSON"] as const)("@a2a-js/sdk 0.3 client over %s to a 1.0-only backend", (binding) => {
  let client: Client;
  let direct: A2AClient;
  beforeAll(async () => {
    client = (await sdkClientFor(gateway, binding, "0.3")).client;
    direct = await createA2AClient(backend1_0, { version: "1.0" });
  });

  it("send and get", async () => {
    const t = asTask(await client.sendMessage(routed("echo from a 0.3 client")));
    expect(t.status?.state).toBe(SdkState.TASK_STATE_COMPLETED);
    expect(text(t)).toBe("from a 0.3 client");
    const again = await client.getTask({ tenant: "", id: t.id, historyLength: undefined });
    expect(again.id).toBe(t.id);
    expect(text(again)).toBe("from a 0.3 client");
    const remoteId = again.metadata?.[META_REMOTE_TASK] as string;
    expect((await direct.getTask({ id: remoteId })).status?.state).toBe(S.COMPLETED);
  });

  it("stream", async () => {
    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(routed("stream 3"))) events.push(e);
    expect(events[0]?.payload?.$case).toBe("task");
    const chunks = events.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.map((c) => (c.artifact?.parts[0]?.content as { value: string } | undefined)?.value)).toEqual([
      "chunk 1/3",
      "chunk 2/3",
      "chunk 3/3",
    ]);
    const last = events.at(-1)!.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(SdkState.TASK_STATE_COMPLETED);
  });

  it("multi-turn", async () => {
    const first = asTask(await client.sendMessage(routed("ask")));
    expect(first.status?.state).toBe(SdkState.TASK_STATE_INPUT_REQUIRED);
    const second = asTask(await client.sendMessage(routed("sdk reply", { taskId: first.id })));
    expect(second.id).toBe(first.id);
    expect(second.status?.state).toBe(SdkState.TASK_STATE_COMPLETED);
    expect(text(second)).toBe("sdk reply");
  });

  it("cancel reaches the backend", async () => {
    const t = asTask(await client.sendMessage(routed("slow 60000", { blocking: false })));
    expect(t.status?.state).toBe(SdkState.TASK_STATE_WORKING);
    const c = await client.cancelTask({ tenant: "", id: t.id, metadata: undefined });
    expect(c.status?.state).toBe(SdkState.TASK_STATE_CANCELED);
    const remoteId = c.metadata?.[META_REMOTE_TASK] as string;
    expect((await direct.getTask({ id: remoteId })).status?.state).toBe(S.CANCELED);
  });
});

// ------------------------------------------------------------------ failures

describe("backend failures", () => {
  it("an unknown agent_id is InvalidParams naming the agents", async () => {
    const client = await createA2AClient(gateway, { version: "1.0" });
    await expect(client.sendMessage({ message: { ...textMessage("echo x"), metadata: { agent_id: "nobody" } } })).rejects.toMatchObject({
      name: "InvalidParamsError",
      message: expect.stringMatching(/new, old/),
    });
  });

  it.each(["1.0", "0.3"] as const)("killing a %s backend mid-task fails the local task with the generic message", async (version) => {
    const backendApp = await buildServer({ agent: createFixtureAgent(), versions: [version] });
    const url = await listen(backendApp);
    const gw = await listen(
      await buildGateway({ gateway: { backends: [{ name: "doomed", url, requestTimeoutMs: 5000 }] }, logger: false }),
    );
    const client = await createA2AClient(gw, { version: "1.0" });
    const started = (await client.sendMessage({ message: textMessage("slow 60000"), configuration: { returnImmediately: true } })).payload
      .value as v1_0.Task;
    expect(started.status?.state).toBe(S.WORKING);
    await backendApp.close();
    const ended = await client.waitForTask(started.id, { signal: AbortSignal.timeout(20_000) });
    expect(ended.status?.state).toBe(S.FAILED);
    expect(ended.status?.message?.parts[0]?.content.value).toBe(BACKEND_FAILURE);
    expect(JSON.stringify(ended.status?.message?.parts.map((p) => p.content.value))).not.toMatch(/ECONNREFUSED|fetch failed|127\.0\.0\.1/);
  });

  it("a backend that is down when a message arrives fails the new task", async () => {
    const gw = await listen(await buildGateway({ gateway: { backends: [{ name: "gone", url: "http://127.0.0.1:9/" }] } }));
    const client = await createA2AClient(gw, { version: "1.0" });
    const r = await client.sendMessage({ message: textMessage("echo x") });
    expect((r.payload.value as v1_0.Task).status?.state).toBe(S.FAILED);
  });

  it("the caller's deadline (metadata.a2a_timeout_ms) shortens the backend's", async () => {
    const client = await createA2AClient(gateway, { version: "1.0" });
    const r = await client.sendMessage({ message: textMessage("slow 60000"), metadata: { a2a_timeout_ms: 300 } });
    const t = r.payload.value as v1_0.Task;
    expect(t.status?.state).toBe(S.FAILED);
    expect(t.status?.message?.parts[0]?.content.value).toBe("The task did not finish in time.");
  });

  it("a followed turn that misses the deadline is canceled on the backend", async () => {
    const client = await createA2AClient(gateway, { version: "1.0" });
    const direct = await createA2AClient(backend1_0, { version: "1.0" });
    const r = await client.sendMessage({
      message: textMessage("slow 60000"),
      metadata: { a2a_timeout_ms: 300 },
      configuration: { returnImmediately: true },
    });
    const t = await client.waitForTask((r.payload.value as v1_0.Task).id, { signal: AbortSignal.timeout(15_000) });
    expect(t.status?.state).toBe(S.FAILED);
    const remote = await direct.waitForTask(t.metadata?.[META_REMOTE_TASK] as string, { signal: AbortSignal.timeout(15_000) });
    expect(remote.status?.state).toBe(S.CANCELED);
  });

  it("the per-backend deadline fails the task with the timeout message", async () => {
    const gw = await listen(await buildGateway({ gateway: { backends: [{ name: "slowpoke", url: backend1_0, timeoutMs: 300 }] } }));
    const client = await createA2AClient(gw, { version: "1.0" });
    const r = await client.sendMessage({ message: textMessage("slow 60000") });
    const t = r.payload.value as v1_0.Task;
    expect(t.status?.state).toBe(S.FAILED);
    expect(t.status?.message?.parts[0]?.content.value).toBe("The task did not finish in time.");
  });
});

describe("ownership", () => {
  it("the caller's principal owns the gateway's tasks: another principal gets TaskNotFound", async () => {
    const gw = await listen(
      await buildGateway({
        gateway: { backends: [{ name: "new", url: backend1_0 }] },
        authenticate: (req) => ({ "Bearer alice": "alice", "Bearer bob": "bob" })[req.headers.authorization ?? ""],
      }),
    );
    const alice = await createA2AClient(gw, { version: "1.0", credentials: { bearer: "alice" } });
    const bob = await createA2AClient(gw, { version: "1.0", credentials: { bearer: "bob" } });
    const t = (await alice.sendMessage({ message: textMessage("ask") })).payload.value as v1_0.Task;
    expect(t.status?.state).toBe(S.INPUT_REQUIRED);
    await expect(bob.getTask({ id: t.id })).rejects.toMatchObject({ name: "TaskNotFoundError" });
    await expect(bob.cancelTask({ id: t.id })).rejects.toMatchObject({ name: "TaskNotFoundError" });
    await expect(bob.sendMessage({ message: textMessage("hijack", { taskId: t.id }) })).rejects.toMatchObject({
      name: "TaskNotFoundError",
    });
    expect((await bob.listTasks({})).tasks.map((x) => x.id)).not.toContain(t.id);
    expect((await alice.listTasks({})).tasks.map((x) => x.id)).toContain(t.id);
    const done = (await alice.sendMessage({ message: textMessage("mine", { taskId: t.id }) })).payload.value as v1_0.Task;
    expect(done.status?.state).toBe(S.COMPLETED);
    await expect(fetch(`${gw}/tasks/${t.id}`, { headers: { "A2A-Version": "1.0" } })).resolves.toMatchObject({ status: 401 });
  });
});

describe("a backend without streaming: the gateway polls", () => {
  let client: A2AClient;
  let direct: A2AClient;
  beforeAll(async () => {
    const agent = createFixtureAgent();
    agent.card.capabilities = { ...agent.card.capabilities, streaming: false };
    const url = await listen(await buildServer({ agent, versions: ["0.3"] }));
    direct = await createA2AClient(url);
    expect(direct.canStream).toBe(false);
    const gw = await listen(await buildGateway({ gateway: { backends: [{ name: "poll", url }] } }));
    client = await createA2AClient(gw, { version: "1.0" });
  });

  it("returnImmediately: the task is followed by polling until it completes", async () => {
    const started = (await client.sendMessage({ message: textMessage("slow 300"), configuration: { returnImmediately: true } })).payload
      .value as v1_0.Task;
    expect(started.status?.state).toBe(S.WORKING);
    const done = await client.waitForTask(started.id, { signal: AbortSignal.timeout(15_000) });
    expect(done.status?.state).toBe(S.COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content.value).toBe("done after 300 ms");
  });

  it("a streaming caller gets the polled states, ending with completed", async () => {
    const events: v1_0.StreamResponse[] = [];
    for await (const ev of client.sendStreamingMessage({ message: textMessage("echo polled") })) events.push(ev);
    expect(events[0]?.payload.case).toBe("task");
    const art = events.find((e) => e.payload.case === "artifactUpdate");
    expect(art?.payload.case === "artifactUpdate" && art.payload.value.artifact?.parts[0]?.content.value).toBe("polled");
    const last = events.at(-1)!.payload;
    expect(last.case === "statusUpdate" && last.value.status?.state).toBe(S.COMPLETED);
  });

  it("multi-turn and cancel", async () => {
    const events: v1_0.StreamResponse[] = [];
    for await (const ev of client.sendStreamingMessage({ message: textMessage("ask") })) events.push(ev);
    const last = events.at(-1)!.payload;
    expect(last.case === "statusUpdate" && last.value.status?.state).toBe(S.INPUT_REQUIRED);
    const first = events[0]?.payload;
    assert(first?.case === "task", "the stream starts with the task");
    const id = first.value.id;
    const done = (await client.sendMessage({ message: textMessage("polled answer", { taskId: id }) })).payload.value as v1_0.Task;
    expect(done.status?.state).toBe(S.COMPLETED);
    const slow = (await client.sendMessage({ message: textMessage("slow 60000"), configuration: { returnImmediately: true } })).payload
      .value as v1_0.Task;
    expect((await client.cancelTask({ id: slow.id })).status?.state).toBe(S.CANCELED);
    expect((await direct.getTask({ id: slow.metadata?.[META_REMOTE_TASK] as string })).status?.state).toBe(S.CANCELED);
  });
});
