import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2ATransportError, createA2AClient, textMessage } from "../../src/client/index.js";
import { card, ECHO_ID, frame, json, RPC, sse, stubFetch, task, type Seen } from "./client-stub.js";

const rpcCard = (streaming = true) =>
  card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "1.0" }], { capabilities: { streaming } });
const rpc = (result: unknown) => ({ jsonrpc: "2.0", id: ECHO_ID, result });
const status = (state: string) => ({ statusUpdate: { taskId: "t-1", contextId: "ctx", status: { state } } });
const chunk = (text: string) => ({
  artifactUpdate: { taskId: "t-1", contextId: "ctx", artifact: { artifactId: "a", parts: [{ text }] }, append: true },
});
const method = (r: Seen) => (r.body as { method: string }).method;

function summary(ev: v1_0.StreamResponse): string {
  switch (ev.payload.case) {
    case "task":
      return `task:${v1_0.TaskState[ev.payload.value.status!.state]}`;
    case "statusUpdate":
      return `status:${v1_0.TaskState[ev.payload.value.status!.state]}`;
    case "artifactUpdate":
      return `artifact:${ev.payload.value.artifact!.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("")}`;
    default:
      return ev.payload.case ?? "?";
  }
}

async function collect(it: AsyncIterable<v1_0.StreamResponse>): Promise<string[]> {
  const out: string[] = [];
  for await (const ev of it) out.push(summary(ev));
  return out;
}

describe("SSE parsing", () => {
  it("joins multi-line data, skips comments and honours retry/id fields", async () => {
    const body = JSON.stringify(rpc(status("TASK_STATE_COMPLETED")), null, 1).split("\n");
    const { fetch } = stubFetch(() =>
      sse([
        ": keep-alive\n\nretry: 1000\nid: 7\n",
        frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") })).slice(0, 20),
        frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") })).slice(20),
        body.map((l) => `data: ${l}\n`).join("") + "\n",
      ]),
    );
    const c = await createA2AClient(rpcCard(), { fetch });
    expect(await collect(c.sendStreamingMessage({ message: textMessage("x") }))).toEqual(["task:WORKING", "status:COMPLETED"]);
  });

  it("a message-only stream yields the one message", async () => {
    const { fetch } = stubFetch(() => sse([frame(rpc({ message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "hi" }] } }))]));
    const c = await createA2AClient(rpcCard(), { fetch });
    expect(await collect(c.sendStreamingMessage({ message: textMessage("x") }))).toEqual(["message"]);
  });

  it("an error item mid-stream is thrown as an A2AError", async () => {
    const { fetch } = stubFetch(() =>
      sse([
        frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") })),
        frame({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "boom" } }),
      ]),
    );
    const c = await createA2AClient(rpcCard(), { fetch });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const ev of c.sendStreamingMessage({ message: textMessage("x") })) seen.push(summary(ev));
    })().catch((e) => e);
    expect(seen).toEqual(["task:WORKING"]);
    expect(err).toMatchObject({ name: "InternalError", code: -32603, message: "boom" });
  });
});

describe("resubscription after a dropped stream", () => {
  it("re-reads the task, resubscribes and continues without duplicating the snapshot", async () => {
    const { fetch, seen } = stubFetch((r, n) => {
      if (n === 0)
        return sse(
          [frame(rpc({ task: task("t-1", "TASK_STATE_SUBMITTED") })), frame(rpc(status("TASK_STATE_WORKING"))), frame(rpc(chunk("one")))],
          { fail: true },
        );
      if (method(r) === "GetTask") return json(rpc(task("t-1", "TASK_STATE_WORKING")));
      return sse([
        frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") })),
        frame(rpc(chunk("two"))),
        frame(rpc(status("TASK_STATE_COMPLETED"))),
      ]);
    });
    const attempts: number[] = [];
    const c = await createA2AClient(rpcCard(), { fetch, resubscribe: { backoffMs: 1, onResubscribe: (i) => attempts.push(i.attempt) } });
    expect(await collect(c.sendStreamingMessage({ message: textMessage("x") }))).toEqual([
      "task:SUBMITTED",
      "status:WORKING",
      "artifact:one",
      "task:WORKING",
      "artifact:two",
      "status:COMPLETED",
    ]);
    expect(seen.map(method)).toEqual(["SendStreamingMessage", "GetTask", "SubscribeToTask"]);
    expect((seen[2]?.body as { params: { id: string } }).params.id).toBe("t-1");
    expect(attempts).toEqual([1]);
  });

  it("a task that finished while disconnected yields its terminal snapshot once and ends", async () => {
    const { fetch, seen } = stubFetch((r, n) => {
      if (n === 0) return sse([frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") }))], { fail: true });
      if (method(r) === "GetTask") return json(rpc(task("t-1", "TASK_STATE_COMPLETED")));
      throw new Error("must not subscribe to a finished task");
    });
    const c = await createA2AClient(rpcCard(), { fetch, resubscribe: { backoffMs: 1 } });
    expect(await collect(c.sendStreamingMessage({ message: textMessage("x") }))).toEqual(["task:WORKING", "task:COMPLETED"]);
    expect(seen.map(method)).toEqual(["SendStreamingMessage", "GetTask"]);
  });

  it("never yields a second terminal event (trailing Task snapshot)", async () => {
    const { fetch } = stubFetch(() =>
      sse([
        frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") })),
        frame(rpc(status("TASK_STATE_COMPLETED"))),
        frame(rpc({ task: task("t-1", "TASK_STATE_COMPLETED") })),
      ]),
    );
    const c = await createA2AClient(rpcCard(), { fetch });
    expect(await collect(c.sendStreamingMessage({ message: textMessage("x") }))).toEqual(["task:WORKING", "status:COMPLETED"]);
  });

  it("gives up after the configured number of attempts", async () => {
    const { fetch, seen } = stubFetch((r) => {
      if (method(r) === "GetTask") return json(rpc(task("t-1", "TASK_STATE_WORKING")));
      return sse([frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") }))], { fail: true });
    });
    const c = await createA2AClient(rpcCard(), { fetch, resubscribe: { maxAttempts: 2, backoffMs: 1 } });
    const err = await collect(c.sendStreamingMessage({ message: textMessage("x") })).catch((e) => e);
    expect(err).toBeInstanceOf(A2ATransportError);
    expect(err.message).toMatch(/gave up after 2 resubscription/);
    expect(seen.map(method)).toEqual(["SendStreamingMessage", "GetTask", "SubscribeToTask", "GetTask", "SubscribeToTask"]);
  });

  it("with resubscription off, a drop is thrown", async () => {
    const { fetch, seen } = stubFetch(() => sse([frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") }))], { fail: true }));
    const c = await createA2AClient(rpcCard(), { fetch });
    const err = await collect(c.sendStreamingMessage({ message: textMessage("x") }, { resubscribe: false })).catch((e) => e);
    expect(err).toMatchObject({ name: "A2ATransportError", kind: "network" });
    expect(seen).toHaveLength(1);
  });

  it("a stream that closes at INPUT_REQUIRED is complete, not dropped", async () => {
    const { fetch, seen } = stubFetch(() =>
      sse([frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") })), frame(rpc(status("TASK_STATE_INPUT_REQUIRED")))]),
    );
    const c = await createA2AClient(rpcCard(), { fetch });
    expect(await collect(c.sendStreamingMessage({ message: textMessage("x") }))).toEqual(["task:WORKING", "status:INPUT_REQUIRED"]);
    expect(seen).toHaveLength(1);
  });
});

describe("waitForTask", () => {
  it("polls GetTask with backoff when the card does not declare streaming", async () => {
    const states = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"];
    const { fetch, seen } = stubFetch((_r, n) => json(rpc(task("t-1", states[Math.min(n, 3)] ?? "TASK_STATE_COMPLETED"))));
    const c = await createA2AClient(rpcCard(false), { fetch });
    const t = await c.waitForTask("t-1", { intervalMs: 1 });
    expect(t.status?.state).toBe(v1_0.TaskState.COMPLETED);
    expect(seen.map(method)).toEqual(["GetTask", "GetTask", "GetTask", "GetTask"]);
  });

  it("subscribes when the card declares streaming", async () => {
    const { fetch, seen } = stubFetch((r) => {
      if (method(r) === "GetTask") return json(rpc(task("t-1", "TASK_STATE_WORKING")));
      return sse([
        frame(rpc({ task: task("t-1", "TASK_STATE_WORKING") })),
        frame(rpc({ task: task("t-1", "TASK_STATE_COMPLETED", { artifacts: [] }) })),
      ]);
    });
    const c = await createA2AClient(rpcCard(true), { fetch });
    const t = await c.waitForTask("t-1");
    expect(t.status?.state).toBe(v1_0.TaskState.COMPLETED);
    expect(seen.map(method)).toEqual(["GetTask", "SubscribeToTask"]);
  });

  it("stops at the states asked for, and can be aborted", async () => {
    const { fetch } = stubFetch(() => json(rpc(task("t-1", "TASK_STATE_WORKING"))));
    const c = await createA2AClient(rpcCard(false), { fetch });
    expect((await c.waitForTask("t-1", { until: [v1_0.TaskState.WORKING] })).status?.state).toBe(v1_0.TaskState.WORKING);
    const ac = new AbortController();
    const p = c.waitForTask("t-1", { signal: ac.signal, intervalMs: 5 });
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toMatchObject({ name: "A2ATransportError", kind: "aborted" });
  });
});

describe("applyStreamEvent", () => {
  it("joins appended chunks by artifactId and tracks the status", async () => {
    const { applyStreamEvent, artifactText } = await import("../../src/client/index.js");
    const { decode } = await import("../../src/runtime/protojson.js");
    const ev = (j: object) => decode(v1_0.StreamResponseSchema, j);
    const art = (id: string, text: string, append: boolean) => ({
      artifactUpdate: { taskId: "t-1", contextId: "ctx", artifact: { artifactId: id, parts: [{ text }] }, append },
    });
    let t: v1_0.Task | undefined;
    for (const e of [
      { task: task("t-1", "TASK_STATE_WORKING") },
      art("a", "Hel", false),
      art("b", "other", false),
      art("a", "lo", true),
      status("TASK_STATE_COMPLETED"),
    ])
      t = applyStreamEvent(t, ev(e));
    expect(t!.artifacts.map(artifactText)).toEqual(["Hello", "other"]);
    expect(t!.status?.state).toBe(v1_0.TaskState.COMPLETED);
    // a non-append update with the same id replaces the artifact
    t = applyStreamEvent(t, ev(art("a", "Bye", false)));
    expect(t!.artifacts.map(artifactText)).toEqual(["Bye", "other"]);
  });
});
