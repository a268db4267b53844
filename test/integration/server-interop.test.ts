// Interop proof: the official @a2a-js/sdk client drives our server over JSON-RPC and HTTP+JSON at
// 1.0, and through its 0.3 compat transports at 0.3 — send, stream, multi-turn, cancel, get, errors;
// over the fastify and the node:http adapter.
import { Message, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asTask, sdkClientFor, sdkRequest } from "../support/sdk-client.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { ADAPTERS, startServer, type RunningServer } from "../support/servers.js";

let server: RunningServer;
let base: string;

function artifactText(t: Task): string | undefined {
  const c = t.artifacts[0]?.parts[0]?.content;
  return c?.$case === "text" ? c.value : undefined;
}

async function collect(it: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of it) out.push(e);
  return out;
}

describe.each(ADAPTERS)("over %s", (adapter) => {
  beforeAll(async () => {
    server = await startServer(adapter, { agent: createFixtureAgent() });
    base = server.url;
  });
  afterAll(() => server.close());

  describe.each([
    ["JSONRPC", "1.0"],
    ["HTTP+JSON", "1.0"],
    ["JSONRPC", "0.3"],
    ["HTTP+JSON", "0.3"],
  ] as const)("@a2a-js/sdk client, %s %s", (binding, version) => {
    let client: Client;
    beforeAll(async () => {
      client = (await sdkClientFor(base, binding, version)).client;
    });

    it("sends a message and gets the completed task; gets it again", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("echo from the sdk")));
      expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactText(t)).toBe("from the sdk");
      const again = await client.getTask({ tenant: "", id: t.id, historyLength: undefined });
      expect(again.id).toBe(t.id);
      expect(artifactText(again)).toBe("from the sdk");
    });

    it("gets a bare message back for msg", async () => {
      const r = await client.sendMessage(sdkRequest("msg hello sdk"));
      expect("messageId" in r && !("status" in r)).toBe(true);
      const c = (r as Message).parts[0]?.content;
      expect(c?.$case === "text" && c.value).toBe("hello sdk");
    });

    it("streams: task first, chunks in order, completed last", async () => {
      const events = await collect(client.sendMessageStream(sdkRequest("stream 5")));
      expect(events[0]?.payload?.$case).toBe("task");
      const chunks = events.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [e.payload.value] : []));
      expect(chunks.map((c) => (c.artifact?.parts[0]?.content as { value: string } | undefined)?.value)).toEqual(
        [1, 2, 3, 4, 5].map((i) => `chunk ${i}/5`),
      );
      expect(chunks.at(-1)?.lastChunk).toBe(true);
      const last = events.at(-1)!.payload;
      expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("multi-turn: input-required, then completes in the same task", async () => {
      const first = asTask(await client.sendMessage(sdkRequest("ask")));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const second = asTask(await client.sendMessage(sdkRequest("my reply", { taskId: first.id })));
      expect(second.id).toBe(first.id);
      expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactText(second)).toBe("my reply");
    });

    it("cancels a running task", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("slow 60000", { blocking: false })));
      expect(t.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      const c = await client.cancelTask({ tenant: "", id: t.id, metadata: undefined });
      expect(c.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it("surfaces errors: unknown task, cancel of a finished task", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("echo done")));
      await expect(client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(client.cancelTask({ tenant: "", id: t.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
      await expect(client.sendMessage(sdkRequest("more", { taskId: t.id }))).rejects.toBeInstanceOf(UnsupportedOperationError);
    });
  });
});
