// The front (src/server/front/front.ts) over an A2AHandler that is not the TaskRuntime: requests in,
// replies and SSE frames out, no framework and no socket. What a new binding or framework relies on.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { A2AHandler, HandlerContext } from "../../src/server/engine/handler.js";
import { createFront, type FrontRequest, type FrontStream } from "../../src/server/front/front.js";
import type { HttpReply } from "../../src/transport/server.js";
import { A2AError } from "../../src/versioning/errors.js";

const task = (id: string) => create(v1_0.TaskSchema, { id, contextId: "c1", status: { state: v1_0.TaskState.COMPLETED } });
const statusEvent = (id: string, state: v1_0.TaskState) =>
  create(v1_0.StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: id, contextId: "c1", status: { state } } } });

function stubHandler() {
  const seen: HandlerContext[] = [];
  let returned = false;
  const unsupported = async (): Promise<never> => {
    throw new A2AError("UnsupportedOperationError", "not in this stub");
  };
  const handler: A2AHandler = {
    sendMessage: unsupported,
    getTask: async (req, ctx) => {
      seen.push(ctx);
      return task(req.id);
    },
    listTasks: unsupported,
    cancelTask: unsupported,
    sendStreamingMessage: async (_req, ctx) => {
      seen.push(ctx);
      let n = 0;
      return {
        next: async () =>
          n++ < 2
            ? { done: false, value: statusEvent("t1", n === 1 ? v1_0.TaskState.WORKING : v1_0.TaskState.COMPLETED) }
            : { done: true, value: undefined },
        return: async () => {
          returned = true;
          return { done: true, value: undefined };
        },
      };
    },
    subscribeToTask: async (_req, ctx) => {
      seen.push(ctx);
      return {
        next: () => new Promise(() => {}), // a task that never produces another event
        return: async () => {
          returned = true;
          return { done: true, value: undefined };
        },
      };
    },
    createTaskPushNotificationConfig: unsupported,
    getTaskPushNotificationConfig: unsupported,
    listTaskPushNotificationConfigs: unsupported,
    deleteTaskPushNotificationConfig: unsupported,
    getExtendedAgentCard: unsupported,
    card: () => ({
      declaration: { name: "stub", description: "a stub", version: "1", capabilities: { streaming: true } },
      extended: false,
    }),
    close: async () => {},
  };
  return { handler, seen, returned: () => returned };
}

const request = (over: Partial<FrontRequest<null>>): FrontRequest<null> => ({
  method: "POST",
  url: "/",
  headers: { "content-type": "application/json", "a2a-version": "1.0" },
  origin: "http://a2a.test",
  clientAddress: "127.0.0.1",
  signal: new AbortController().signal,
  raw: null,
  ...over,
});

async function frames(r: HttpReply | FrontStream): Promise<string[]> {
  if (r.kind !== "stream") throw new Error(`expected a stream, got ${r.status} ${r.body}`);
  const out: string[] = [];
  for await (const f of r.frames) out.push(typeof f === "string" ? f : Buffer.from(f).toString());
  return out;
}

describe("createFront over a custom A2AHandler", () => {
  it("answers a 1.0 JSON-RPC GetTask from the handler, with the call's context", async () => {
    const { handler, seen } = stubHandler();
    const front = createFront({ handler });
    const r = await front.handle(request({ body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "t9" } }) }));
    expect(r.kind).toBe("reply");
    const body = JSON.parse((r as HttpReply).body) as { id: number; result: { id: string; status: { state: string } } };
    expect(body).toMatchObject({ id: 3, result: { id: "t9", status: { state: "TASK_STATE_COMPLETED" } } });
    expect(seen[0]).toMatchObject({ principal: "anonymous", version: "1.0", extensions: [], tenant: "" });
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it("answers the same handler in 0.3, and its errors in the 0.3 shape", async () => {
    const { handler, seen } = stubHandler();
    const front = createFront({ handler });
    const rpc = JSON.stringify({ jsonrpc: "2.0", id: "a", method: "tasks/get", params: { id: "t2" } });
    const got = (await front.handle(request({ headers: { "content-type": "application/json" }, body: rpc }))) as HttpReply;
    expect(JSON.parse(got.body)).toMatchObject({ id: "a", result: { id: "t2", kind: "task", status: { state: "completed" } } });
    expect(seen[0]?.version).toBe("0.3");
    const cancel = (await front.handle(request({ url: "/v1/tasks/t2:cancel", headers: {}, body: "{}" }))) as HttpReply;
    expect(cancel.status).toBe(400); // UnsupportedOperationError's HTTP status in src/versioning/errors.ts
    expect(JSON.parse(cancel.body)).toMatchObject({ code: -32004 });
  });

  it("streams the handler's events as SSE frames and ends the iterator when the stream ends", async () => {
    const { handler, returned } = stubHandler();
    const front = createFront({ handler, sseKeepAliveMs: 0 });
    const body = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } });
    const out = await frames(await front.handle(request({ url: "/message:stream", body })));
    expect(
      out.map((f) => (JSON.parse(f.replace(/^data: /, "")) as { statusUpdate: { status: { state: string } } }).statusUpdate.status.state),
    ).toEqual(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
    expect(returned()).toBe(true);
  });

  it("a client that goes away ends a quiet stream: the signal returns the handler's iterator", async () => {
    const { handler, returned } = stubHandler();
    const front = createFront({ handler, sseKeepAliveMs: 0 });
    const gone = new AbortController();
    const r = await front.handle(request({ method: "GET", url: "/tasks/t1:subscribe", signal: gone.signal, body: undefined }));
    const collected = frames(r);
    gone.abort();
    expect(await collected).toEqual([]);
    expect(returned()).toBe(true);
  });
});
