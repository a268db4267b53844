// Interop, judged from outside: the official @a2a-js/sdk 1.3.0 client (its ClientFactory with the
// 1.0 transports and their 0.3 compat transports, JSON-RPC and REST; one client per interface the
// card advertises) exercises every operation the agent advertises, against the `serve` server and
// through the gateway in front of a 1.0-only backend; `serve` over the fastify and the node:http adapter. Each `it` is one check; a check the card does
// not advertise (push, extended card, ListTasks in 0.3) is skipped, not passed.
import { Message, TaskState, type AgentCard, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asTask, sdkListRequest, sdkClientFor, sdkRequest } from "../support/sdk-client.js";
import { serverGroup } from "../support/servers.js";
import { buildGateway } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { bearerAuth } from "../../src/security/auth.js";

/** The token the served agent accepts for its extended card. */
const CARD_TOKEN = "card-t0ken";

const { listen, start, close: closeServers } = serverGroup();
const TARGETS = ["serve", "serve over node:http", "gateway"] as const;
const urls: Record<(typeof TARGETS)[number], string> = { serve: "", "serve over node:http": "", gateway: "" };

beforeAll(async () => {
  // What `a2a-toolkit serve --push --allow-webhook 127.0.0.1` starts: the fixture agent, 1.0 and 0.3 on one port.
  // The extended card needs a credential (1.0.1 §13.3; serve --extended-card-token).
  urls.serve = await listen(
    await buildServer({
      agent: createFixtureAgent({ pushNotifications: true }),
      push: { allow: ["127.0.0.1"] },
      extendedCardAuthenticators: [bearerAuth({ tokens: { [CARD_TOKEN]: "carol" } })],
    }),
  );
  const overNode = await start("node:http", {
    agent: createFixtureAgent({ pushNotifications: true }),
    push: { allow: ["127.0.0.1"] },
    extendedCardAuthenticators: [bearerAuth({ tokens: { [CARD_TOKEN]: "carol" } })],
  });
  urls["serve over node:http"] = overNode.url;
  const backend = await listen(await buildServer({ agent: createFixtureAgent(), versions: ["1.0"] }));
  urls.gateway = await listen(await buildGateway({ gateway: { backends: [{ name: "new", url: backend }] } }));
});
afterAll(closeServers);

const texts = (t: Task) => t.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")));

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

function stateOf(e: StreamResponse): TaskState | undefined {
  const p = e.payload;
  if (p?.$case === "task") return p.value.status?.state;
  if (p?.$case === "statusUpdate") return p.value.status?.state;
  return undefined;
}

const streamedText = (events: StreamResponse[]) =>
  events.flatMap((e) =>
    e.payload?.$case === "artifactUpdate" ? (e.payload.value.artifact?.parts ?? []).map((p) => (p.content as { value: string }).value) : [],
  );

const interfaces = [
  ["JSONRPC", "1.0"],
  ["HTTP+JSON", "1.0"],
  ["JSONRPC", "0.3"],
  ["HTTP+JSON", "0.3"],
] as const;

describe.each(TARGETS)("@a2a-js/sdk client → %s", (target) => {
  describe.each(interfaces)("%s %s", (binding, version) => {
    let client: Client;
    let card: AgentCard;
    const get = (id: string, historyLength?: number) => client.getTask({ tenant: "", id, historyLength });

    beforeAll(async () => {
      ({ client, card } = await sdkClientFor(urls[target], binding, version));
    });

    it("send (blocking): the completed task with its artifact", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("echo blocking")));
      expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(texts(t)).toEqual(["blocking"]);
    });

    it("send: a bare Message comes back as a Message", async () => {
      const r = await client.sendMessage(sdkRequest("msg plain"));
      expect("messageId" in r && !("status" in r)).toBe(true);
      expect((r as Message).parts[0]?.content).toMatchObject({ $case: "text", value: "plain" });
    });

    it("send (non-blocking) returns the working task, which then completes", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("slow 200", { blocking: false })));
      expect(t.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      const done = await collect(client.resubscribeTask({ tenant: "", id: t.id }));
      expect(stateOf(done.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("stream: task first, chunks in order, completed last", async () => {
      const events = await collect(client.sendMessageStream(sdkRequest("stream 3")));
      expect(events[0]?.payload?.$case).toBe("task");
      expect(streamedText(events)).toEqual(["chunk 1/3", "chunk 2/3", "chunk 3/3"]);
      expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("multi-turn (send): input-required, then the follow-up completes the same task", async () => {
      const first = asTask(await client.sendMessage(sdkRequest("ask")));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const second = asTask(await client.sendMessage(sdkRequest("blue", { taskId: first.id, contextId: first.contextId })));
      expect(second.id).toBe(first.id);
      expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(texts(second)).toEqual(["blue"]);
    });

    it("multi-turn (stream): the first stream ends at input-required, the streaming follow-up completes", async () => {
      const first = await collect(client.sendMessageStream(sdkRequest("ask")));
      expect(stateOf(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const opening = first[0]?.payload;
      const task = opening?.$case === "task" ? opening.value : undefined;
      expect(task).toBeDefined();
      const more = await collect(client.sendMessageStream(sdkRequest("green", { taskId: task!.id, contextId: task!.contextId })));
      expect(streamedText(more)).toEqual(["green"]);
      expect(stateOf(more.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("get: the task with its history; historyLength 1 and 0 trim it", async () => {
      const first = asTask(await client.sendMessage(sdkRequest("ask")));
      await client.sendMessage(sdkRequest("red", { taskId: first.id, contextId: first.contextId }));
      const all = await get(first.id);
      expect(all.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(all.history.length).toBeGreaterThanOrEqual(2);
      expect((await get(first.id, 1)).history).toHaveLength(1);
      expect((await get(first.id, 0)).history).toEqual([]);
    });

    it("get of an unknown task: TaskNotFoundError", async () => {
      await expect(get("no-such-task")).rejects.toBeInstanceOf(TaskNotFoundError);
    });

    it("list (1.0): the tasks, including one just created", async (ctx) => {
      if (version !== "1.0") return ctx.skip(); // 0.3 has no ListTasks
      const t = asTask(await client.sendMessage(sdkRequest("echo listed")));
      const page = await client.listTasks(sdkListRequest(t.contextId));
      expect(page.tasks.map((x) => x.id)).toEqual([t.id]);
    });

    it("cancel of a running task: canceled", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("slow 60000", { blocking: false })));
      const c = await client.cancelTask({ tenant: "", id: t.id, metadata: undefined });
      expect(c.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await get(t.id)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it("cancel of a finished task: TaskNotCancelableError", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("echo done")));
      await expect(client.cancelTask({ tenant: "", id: t.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
    });

    it("cancel of an unknown task: TaskNotFoundError", async () => {
      await expect(client.cancelTask({ tenant: "", id: "no-such-task", metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    });

    it("a message to a finished task: UnsupportedOperationError", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("echo over")));
      await expect(client.sendMessage(sdkRequest("more", { taskId: t.id }))).rejects.toBeInstanceOf(UnsupportedOperationError);
    });

    it("subscribe to a running task: the task, then its updates to completed", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("slow 300", { blocking: false })));
      const events = await collect(client.resubscribeTask({ tenant: "", id: t.id }));
      expect(events[0]?.payload?.$case).toBe("task");
      expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await get(t.id)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("push configs (when declared): create, get, list, delete", async (ctx) => {
      if (!card.capabilities?.pushNotifications) return ctx.skip();
      const t = asTask(await client.sendMessage(sdkRequest("echo push")));
      const cfg = { tenant: "", id: "cfg-1", taskId: t.id, url: "http://127.0.0.1:9/hook", token: "tok", authentication: undefined };
      expect(await client.createTaskPushNotificationConfig(cfg)).toMatchObject({ taskId: t.id, id: "cfg-1", url: cfg.url });
      expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: t.id, id: "cfg-1" })).toMatchObject({ url: cfg.url });
      const listed = await client.listTaskPushNotificationConfig({ tenant: "", taskId: t.id, pageSize: 0, pageToken: "" });
      expect(listed.configs.map((c) => c.id)).toEqual(["cfg-1"]);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: t.id, id: "cfg-1" });
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId: t.id, pageSize: 0, pageToken: "" })).configs).toEqual([]);
    });

    it("extended card (when declared)", async (ctx) => {
      if (!card.capabilities?.extendedAgentCard) return ctx.skip();
      await expect(client.getAgentCard()).rejects.toThrow();
      const extended = await client.getAgentCard({ serviceParameters: { authorization: `Bearer ${CARD_TOKEN}` } });
      expect(extended.skills.map((s) => s.id)).toContain("extended");
    });
  });
});
