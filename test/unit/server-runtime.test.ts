import { create, toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { setTimeout as sleep } from "node:timers/promises";
import { assert, describe, expect, it, vi } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError, toJsonRpcError, toRestError } from "../../src/versioning/errors.js";
import { grpcStatusOf } from "../../src/versioning/grpc.js";
import { LeaseLostError } from "../../src/server/store/pg-store.js";
import { reply, stream, type Agent } from "../../src/server/engine/agent.js";
import { ASK_QUESTION, AUTH_PROMPT, createFixtureAgent, FAIL_TEXT } from "../../src/server/fixture/fixture-agent.js";
import { GENERIC_FAILURE, TIMEOUT_FAILURE } from "../../src/server/engine/execute.js";
import { TaskRuntime, type CallContext } from "../../src/server/engine/runtime.js";
import { MemoryTaskStore } from "../../src/server/store/store.js";

const S = v1_0.TaskState;
const call: CallContext = { principal: "alice", version: "1.0", extensions: [] };
const silent = { error: () => {}, warn: () => {} };

let n = 0;
function send(
  text: string,
  init: Partial<{ taskId: string; contextId: string; messageId: string }> = {},
  config: MessageInitShape<typeof v1_0.SendMessageConfigurationSchema> = {},
) {
  return create(v1_0.SendMessageRequestSchema, {
    message: {
      messageId: init.messageId ?? `m-${++n}`,
      role: v1_0.Role.USER,
      parts: [{ content: { case: "text", value: text } }],
      taskId: init.taskId ?? "",
      contextId: init.contextId ?? "",
    },
    configuration: config,
  });
}

function text(p: v1_0.Part | undefined): string | undefined {
  return p?.content.case === "text" ? p.content.value : undefined;
}

async function task(rt: TaskRuntime, req: v1_0.SendMessageRequest, c = call): Promise<v1_0.Task> {
  const r = await rt.sendMessage(req, c);
  if (r.payload.case !== "task") throw new Error(`expected a task, got ${r.payload.case}`);
  return r.payload.value;
}

async function collect(it: AsyncIterable<v1_0.StreamResponse>): Promise<v1_0.StreamResponse[]> {
  const out: v1_0.StreamResponse[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const fixture = () => new TaskRuntime({ agent: createFixtureAgent(), logger: silent });

describe("fixture behaviours through the runtime", () => {
  it("echo completes with an artifact holding the text, and history has the user message", async () => {
    const t = await task(fixture(), send("echo hello world"));
    expect(t.status?.state).toBe(S.COMPLETED);
    expect(t.artifacts).toHaveLength(1);
    expect(text(t.artifacts[0]?.parts[0])).toBe("hello world");
    expect(t.id).not.toBe("");
    expect(t.contextId).not.toBe("");
    expect(t.history[0]?.messageId).toMatch(/^m-/);
    expect(t.history[0]?.taskId).toBe(t.id);
  });

  it("any other text is echoed whole", async () => {
    const t = await task(fixture(), send("what is this"));
    expect(text(t.artifacts[0]?.parts[0])).toBe("what is this");
  });

  it("msg answers with a bare agent message and stores no task", async () => {
    const rt = fixture();
    const r = await rt.sendMessage(send("msg hi there"), call);
    expect(r.payload.case).toBe("message");
    const m = r.payload.value as v1_0.Message;
    expect(m.role).toBe(v1_0.Role.AGENT);
    expect(text(m.parts[0])).toBe("hi there");
    expect(m.taskId).toBe("");
    const list = await rt.listTasks(create(v1_0.ListTasksRequestSchema, {}), call);
    expect(list.totalSize).toBe(0);
  });

  it("ask goes input-required, then the follow-up completes it with the follow-up's text", async () => {
    const rt = fixture();
    const first = await task(rt, send("ask"));
    expect(first.status?.state).toBe(S.INPUT_REQUIRED);
    expect(text(first.status?.message?.parts[0])).toBe(ASK_QUESTION);
    const second = await task(rt, send("my answer", { taskId: first.id }));
    expect(second.id).toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect(second.status?.state).toBe(S.COMPLETED);
    expect(text(second.artifacts[0]?.parts[0])).toBe("my answer");
    // user, agent question, user follow-up
    expect(second.history.map((m) => m.role)).toEqual([v1_0.Role.USER, v1_0.Role.AGENT, v1_0.Role.USER]);
  });

  it("auth goes auth-required with a status message, then completes", async () => {
    const rt = fixture();
    const first = await task(rt, send("auth"));
    expect(first.status?.state).toBe(S.AUTH_REQUIRED);
    expect(text(first.status?.message?.parts[0])).toBe(AUTH_PROMPT);
    const second = await task(rt, send("token", { taskId: first.id }));
    expect(second.status?.state).toBe(S.COMPLETED);
  });

  it("fail fails with a status message", async () => {
    const t = await task(fixture(), send("fail"));
    expect(t.status?.state).toBe(S.FAILED);
    expect(text(t.status?.message?.parts[0])).toBe(FAIL_TEXT);
  });

  it("parts answers with text, url, bytes and data parts", async () => {
    const t = await task(fixture(), send("parts"));
    expect(t.artifacts[0]?.parts.map((p) => p.content.case)).toEqual(["text", "url", "raw", "data"]);
  });

  it("stream n sends the task, working, n chunks of one artifact with append/lastChunk, then completed", async () => {
    const rt = fixture();
    const events = await collect(await rt.sendStreamingMessage(send("stream 4"), call));
    expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", ...Array(4).fill("artifactUpdate"), "statusUpdate"]);
    const chunks = events.filter((e) => e.payload.case === "artifactUpdate").map((e) => e.payload.value as v1_0.TaskArtifactUpdateEvent);
    expect(new Set(chunks.map((c) => c.artifact?.artifactId)).size).toBe(1);
    expect(chunks.map((c) => c.append)).toEqual([false, true, true, true]);
    expect(chunks.map((c) => c.lastChunk)).toEqual([false, false, false, true]);
    expect(chunks.map((c) => text(c.artifact?.parts[0]))).toEqual(["chunk 1/4", "chunk 2/4", "chunk 3/4", "chunk 4/4"]);
    const last = events.at(-1)!.payload.value as v1_0.TaskStatusUpdateEvent;
    expect(last.status?.state).toBe(S.COMPLETED);
    const first = events[0]?.payload;
    assert(first?.case === "task");
    const t = await rt.getTask(create(v1_0.GetTaskRequestSchema, { id: first.value.id }), call);
    expect(t.artifacts[0]?.parts).toHaveLength(4);
  });

  it("a message-only stream is exactly one Message", async () => {
    const events = await collect(await fixture().sendStreamingMessage(send("msg x"), call));
    expect(events.map((e) => e.payload.case)).toEqual(["message"]);
  });

  it("slow with returnImmediately answers at once with a working task that later completes", async () => {
    const rt = fixture();
    const t = await task(rt, send("slow 300", {}, { returnImmediately: true }));
    expect(t.status?.state).toBe(S.WORKING);
    const sub = await rt.subscribeToTask(create(v1_0.SubscribeToTaskRequestSchema, { id: t.id }), call);
    const events = await collect(sub);
    expect(events[0]?.payload.case).toBe("task");
    expect((events.at(-1)!.payload.value as v1_0.TaskStatusUpdateEvent).status?.state).toBe(S.COMPLETED);
  });

  it("cancel aborts a slow task through its signal and ends CANCELED; canceling again is TaskNotCancelable", async () => {
    let aborted = false;
    const handled: string[] = [];
    const agent: Agent = {
      card: { name: "a", description: "", version: "1", capabilities: { streaming: true } },
      handleMessage: (_m, ctx) =>
        stream(
          (async function* () {
            await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => ((aborted = true), resolve())));
            yield "too late";
          })(),
        ),
      handleCancel: (ctx) => {
        handled.push(ctx.taskId);
      },
    };
    const rt = new TaskRuntime({ agent, logger: silent });
    const t = await task(rt, send("x", {}, { returnImmediately: true }));
    const canceled = await rt.cancelTask(create(v1_0.CancelTaskRequestSchema, { id: t.id }), call);
    expect(canceled.status?.state).toBe(S.CANCELED);
    expect(aborted).toBe(true);
    expect(handled).toEqual([t.id]);
    await sleep(10);
    const after = await rt.getTask(create(v1_0.GetTaskRequestSchema, { id: t.id }), call);
    expect(after.status?.state).toBe(S.CANCELED);
    expect(after.artifacts).toHaveLength(0);
    await expect(rt.cancelTask(create(v1_0.CancelTaskRequestSchema, { id: t.id }), call)).rejects.toMatchObject({
      type: "TaskNotCancelableError",
    });
  });

  it("a streaming subscriber sees the cancel as the final event", async () => {
    const rt = fixture();
    const it1 = await rt.sendStreamingMessage(send("slow 60000"), call);
    const first = await it1.next();
    const id = ((first.value as v1_0.StreamResponse).payload.value as v1_0.Task).id;
    await rt.cancelTask(create(v1_0.CancelTaskRequestSchema, { id }), call);
    const rest = await collect(it1);
    expect((rest.at(-1)!.payload.value as v1_0.TaskStatusUpdateEvent).status?.state).toBe(S.CANCELED);
  });

  it("refuses a part whose media type its input modes (text/plain) do not cover, and creates no task", async () => {
    const rt = fixture();
    const withPart = (mediaType: string) => {
      const req = send("echo media");
      req.message!.parts.push(create(v1_0.PartSchema, { mediaType, content: { case: "raw", value: new Uint8Array([1]) } }));
      return req;
    };
    await expect(rt.sendMessage(withPart("application/pdf"), call)).rejects.toMatchObject({ type: "ContentTypeNotSupportedError" });
    expect((await rt.listTasks(create(v1_0.ListTasksRequestSchema, {}), call)).tasks).toEqual([]);
    // Parameters and case do not matter; a part without a media type is taken.
    expect((await task(rt, withPart("Text/Plain; charset=utf-8"))).status?.state).toBe(S.COMPLETED);
    expect((await task(rt, withPart(""))).status?.state).toBe(S.COMPLETED);
  });

  it("keeps any agent's card: default text/plain, declared modes and skills' modes, wildcards (no task for a refusal)", async () => {
    const agent = (card: Partial<Agent["card"]>): TaskRuntime =>
      new TaskRuntime({
        agent: { card: { name: "a", description: "d", version: "1", ...card }, handleMessage: () => reply("ok") },
        logger: silent,
      });
    const withPart = (mediaType: string) => {
      const req = send("hi");
      req.message!.parts.push(create(v1_0.PartSchema, { mediaType, content: { case: "raw", value: new Uint8Array([1]) } }));
      return req;
    };
    const plain = agent({});
    await expect(plain.sendMessage(withPart("image/png"), call)).rejects.toMatchObject({ type: "ContentTypeNotSupportedError" });
    expect((await plain.listTasks(create(v1_0.ListTasksRequestSchema, {}), call)).tasks).toEqual([]);
    expect((await task(plain, withPart("text/plain"))).status?.state).toBe(S.COMPLETED);
    const images = agent({
      defaultInputModes: ["text/plain"],
      skills: [{ id: "s", name: "s", description: "d", tags: [], inputModes: ["image/*"] }],
    });
    expect((await task(images, withPart("image/png"))).status?.state).toBe(S.COMPLETED);
    await expect(images.sendMessage(withPart("application/pdf"), call)).rejects.toMatchObject({ type: "ContentTypeNotSupportedError" });
    expect((await task(agent({ defaultInputModes: ["*/*"] }), withPart("application/pdf"))).status?.state).toBe(S.COMPLETED);
  });
});

describe("input modes: the runtime holds any agent to its card", () => {
  const withPart = (mediaType: string) => {
    const req = send("hello");
    req.message!.parts.push(create(v1_0.PartSchema, { mediaType, content: { case: "raw", value: new Uint8Array([1]) } }));
    return req;
  };
  const seen: string[] = [];
  const agentWith = (card: Agent["card"]): TaskRuntime =>
    new TaskRuntime({
      agent: { card, handleMessage: (m) => (seen.push(m.messageId), reply("ok")) },
      logger: silent,
    });

  it("a card that declares no input modes (text/plain by default): another media type is refused before the agent sees it", async () => {
    seen.length = 0;
    const rt = agentWith({ name: "plain", description: "declares nothing", version: "1" });
    const refused = rt.sendMessage(withPart("image/png"), call);
    await expect(refused).rejects.toMatchObject({ type: "ContentTypeNotSupportedError" });
    await expect(refused).rejects.toThrow("This agent accepts text/plain (its card's input modes); part 1 has media type image/png");
    expect(seen).toEqual([]);
    expect((await task(rt, withPart("text/plain"))).status?.state).toBe(S.COMPLETED);
  });

  it("declared modes, wildcards and a skill's own modes widen what is accepted", async () => {
    const rt = agentWith({
      name: "wide",
      description: "images and a skill for PDFs",
      version: "1",
      defaultInputModes: ["text/plain", "image/*"],
      skills: [{ id: "pdf", name: "pdf", description: "reads PDFs", tags: [], inputModes: ["application/pdf"] }],
    });
    for (const ok of ["image/png", "application/pdf", "text/plain"]) expect((await task(rt, withPart(ok))).status?.state).toBe(S.COMPLETED);
    await expect(rt.sendMessage(withPart("audio/ogg"), call)).rejects.toMatchObject({ type: "ContentTypeNotSupportedError" });
    const any = agentWith({ name: "any", description: "takes anything", version: "1", defaultInputModes: ["*/*"] });
    expect((await task(any, withPart("audio/ogg"))).status?.state).toBe(S.COMPLETED);
  });
});

describe("task rules", () => {
  it("a message to a terminal task is UnsupportedOperation; to an unknown task TaskNotFound", async () => {
    const rt = fixture();
    const t = await task(rt, send("echo a"));
    await expect(rt.sendMessage(send("again", { taskId: t.id }), call)).rejects.toMatchObject({ type: "UnsupportedOperationError" });
    await expect(rt.sendMessage(send("x", { taskId: "nope" }), call)).rejects.toMatchObject({ type: "TaskNotFoundError" });
  });

  it("a contextId that differs from the task's is rejected; the task's contextId is inferred otherwise", async () => {
    const rt = fixture();
    const t = await task(rt, send("ask", { contextId: "ctx-1" }));
    expect(t.contextId).toBe("ctx-1");
    await expect(rt.sendMessage(send("x", { taskId: t.id, contextId: "other" }), call)).rejects.toMatchObject({
      type: "InvalidParamsError",
    });
    const done = await task(rt, send("x", { taskId: t.id }));
    expect(done.contextId).toBe("ctx-1");
  });

  it("new task and context ids are version-7 UUIDs that sort by the millisecond they were made in", async () => {
    const rt = fixture();
    const made: v1_0.Task[] = [];
    // A faked clock, a few ms between tasks (within one ms the order is random): the store's id
    // indexes rely on ids made close in time sorting next to each other.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      for (let i = 0; i < 5; i++) {
        made.push(await task(rt, send("echo a")));
        vi.setSystemTime(Date.now() + 3);
      }
    } finally {
      vi.useRealTimers();
    }
    for (const ids of [made.map((t) => t.id), made.map((t) => t.contextId)]) {
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect([...ids].sort()).toEqual(ids);
    }
  });

  it("tasks of another principal are not found", async () => {
    const rt = fixture();
    const t = await task(rt, send("ask"));
    const bob = { ...call, principal: "bob" };
    await expect(rt.getTask(create(v1_0.GetTaskRequestSchema, { id: t.id }), bob)).rejects.toMatchObject({ type: "TaskNotFoundError" });
    await expect(rt.sendMessage(send("x", { taskId: t.id }), bob)).rejects.toMatchObject({ type: "TaskNotFoundError" });
    await expect(rt.cancelTask(create(v1_0.CancelTaskRequestSchema, { id: t.id }), bob)).rejects.toMatchObject({
      type: "TaskNotFoundError",
    });
    expect((await rt.listTasks(create(v1_0.ListTasksRequestSchema, {}), bob)).totalSize).toBe(0);
  });

  it("historyLength trims history to the most recent messages; 0 returns none", async () => {
    const rt = fixture();
    const t = await task(rt, send("ask"));
    await task(rt, send("answer", { taskId: t.id }));
    const get = (historyLength?: number) => rt.getTask(create(v1_0.GetTaskRequestSchema, { id: t.id, historyLength }), call);
    expect((await get()).history).toHaveLength(3);
    expect((await get(1)).history.map((m) => text(m.parts[0]))).toEqual(["answer"]);
    expect((await get(0)).history).toHaveLength(0);
    await expect(get(-1)).rejects.toMatchObject({ type: "InvalidParamsError" });
  });

  it("SubscribeToTask: unknown → TaskNotFound; terminal → UnsupportedOperation at 1.0, the Task then close at 0.3", async () => {
    const rt = fixture();
    const t = await task(rt, send("echo a"));
    const sub = (id: string, version = "1.0") =>
      rt.subscribeToTask(create(v1_0.SubscribeToTaskRequestSchema, { id }), { ...call, version });
    await expect(sub("nope")).rejects.toMatchObject({ type: "TaskNotFoundError" });
    await expect(sub(t.id)).rejects.toMatchObject({ type: "UnsupportedOperationError" });
    const events = await collect(await sub(t.id, "0.3"));
    expect(events.map((e) => e.payload.case)).toEqual(["task"]);
  });

  it("an exception in the agent fails the task with a generic message; an A2AError is the answer", async () => {
    const logged: unknown[] = [];
    const agent: Agent = {
      card: { name: "a", description: "", version: "1" },
      handleMessage: (m) => {
        if (text(m.parts[0]) === "a2a") throw new A2AError("ContentTypeNotSupportedError", "no images");
        throw new Error("secret database password in stack");
      },
    };
    const rt = new TaskRuntime({ agent, logger: { error: (o) => logged.push(o), warn: () => {} } });
    const t = await task(rt, send("boom"));
    expect(t.status?.state).toBe(S.FAILED);
    expect(text(t.status?.message?.parts[0])).toBe(GENERIC_FAILURE);
    expect(JSON.stringify(toJson(v1_0.TaskSchema, t))).not.toContain("secret");
    expect(logged).toHaveLength(1);
    await expect(rt.sendMessage(send("a2a"), call)).rejects.toMatchObject({ type: "ContentTypeNotSupportedError" });
  });

  it("an exception inside a stream fails the task after the chunks already sent", async () => {
    const agent: Agent = {
      card: { name: "a", description: "", version: "1", capabilities: { streaming: true } },
      handleMessage: () =>
        stream(
          (async function* () {
            yield "one";
            throw new Error("boom");
          })(),
        ),
    };
    const rt = new TaskRuntime({ agent, logger: silent });
    const events = await collect(await rt.sendStreamingMessage(send("x"), call));
    const last = events.at(-1)!.payload.value as v1_0.TaskStatusUpdateEvent;
    expect(last.status?.state).toBe(S.FAILED);
    expect(events.some((e) => e.payload.case === "artifactUpdate")).toBe(true);
  });

  it("a bare message answering a follow-up is rejected and leaves the task as it was", async () => {
    let calls = 0;
    const agent: Agent = {
      card: { name: "a", description: "", version: "1" },
      handleMessage: () => (++calls === 1 ? { kind: "inputRequired", parts: ["?"] } : { kind: "message", parts: ["no"] }),
    };
    const rt = new TaskRuntime({ agent, logger: silent });
    const t = await task(rt, send("x"));
    await expect(rt.sendMessage(send("y", { taskId: t.id }), call)).rejects.toMatchObject({ type: "InvalidAgentResponseError" });
    const after = await rt.getTask(create(v1_0.GetTaskRequestSchema, { id: t.id }), call);
    expect(after.status?.state).toBe(S.INPUT_REQUIRED);
    expect(after.history).toHaveLength(2);
  });

  it("streaming without the capability is UnsupportedOperation", async () => {
    const agent: Agent = { card: { name: "a", description: "", version: "1" }, handleMessage: () => reply("x") };
    const rt = new TaskRuntime({ agent, logger: silent });
    await expect(rt.sendStreamingMessage(send("x"), call)).rejects.toMatchObject({ type: "UnsupportedOperationError" });
  });

  it("two subscribers get the same events; one that stops reading does not hold up the other", async () => {
    const rt = fixture();
    const t = await task(rt, send("ask"));
    const a = await rt.subscribeToTask(create(v1_0.SubscribeToTaskRequestSchema, { id: t.id }), call);
    const b = await rt.subscribeToTask(create(v1_0.SubscribeToTaskRequestSchema, { id: t.id }), call);
    await a.next(); // a reads only the snapshot, then goes quiet
    await task(rt, send("answer", { taskId: t.id }));
    const eventsB = await collect(b);
    expect(eventsB.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const eventsA = await collect(a);
    expect(eventsA.map((e) => e.payload.case)).toEqual(eventsB.slice(1).map((e) => e.payload.case));
  });
});

describe("a write the store refuses", () => {
  /** A store that refuses to write a task in `state` (a full disk, say); every other write is kept. */
  class RefusingStore extends MemoryTaskStore {
    constructor(private readonly state: v1_0.TaskState) {
      super();
    }
    override put(owner: string, t: v1_0.Task): Promise<void> {
      if (t.status?.state === this.state) return Promise.reject(new Error("disk full"));
      return super.put(owner, t);
    }
  }
  const runtime = (state: v1_0.TaskState) => {
    const store = new RefusingStore(state);
    return { rt: new TaskRuntime({ agent: createFixtureAgent(), store, logger: silent }) };
  };

  it("a blocking send whose COMPLETED is not written answers InternalError, not the completed task", async () => {
    const { rt } = runtime(S.COMPLETED);
    await expect(rt.sendMessage(send("echo hi"), call)).rejects.toMatchObject({ type: "InternalError" });
    // What is kept (and read back) is the last change written: WORKING.
    const { tasks } = await rt.listTasks(create(v1_0.ListTasksRequestSchema, {}), call);
    expect(tasks.map((t) => t.status?.state)).toEqual([S.WORKING]);
  });

  it("a stream gets the WORKING it was recorded with, then InternalError, and never the unwritten COMPLETED", async () => {
    const { rt } = runtime(S.COMPLETED);
    const seen: v1_0.StreamResponse[] = [];
    const events = await rt.sendStreamingMessage(send("stream 2"), call);
    await expect(
      (async () => {
        for await (const e of events) seen.push(e);
      })(),
    ).rejects.toMatchObject({ type: "InternalError" });
    const states = seen.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states).toContain(S.WORKING);
    expect(states).not.toContain(S.COMPLETED);
  });

  it("a returnImmediately send whose WORKING is not written is refused", async () => {
    const { rt } = runtime(S.WORKING);
    await expect(rt.sendMessage(send("slow", {}, { returnImmediately: true }), call)).rejects.toThrow("disk full");
  });
});

describe("a replica past its lease (its write fenced out)", () => {
  /** A store whose lease check fails after the write (pg-store.ts LeaseLostError) for a task in `state`. */
  class FencedStore extends MemoryTaskStore {
    constructor(private readonly state: v1_0.TaskState) {
      super();
    }
    override put(owner: string, t: v1_0.Task): Promise<void> {
      if (t.status?.state === this.state) return Promise.reject(new LeaseLostError(t.id));
      return super.put(owner, t);
    }
  }
  const runtime = (state: v1_0.TaskState) =>
    new TaskRuntime({ agent: createFixtureAgent(), store: new FencedStore(state), logger: silent });
  const retryableError = { type: "InternalError", retryAfterSeconds: 1 };

  it("a blocking send answers the retryable error, not the COMPLETED it could not record", async () => {
    const err = await runtime(S.COMPLETED)
      .sendMessage(send("echo hi"), call)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toMatchObject(retryableError);
    // Each binding says "retry": JSON-RPC -32603 with data.retryable, HTTP 503, gRPC UNAVAILABLE.
    const e = err as A2AError;
    expect(toJsonRpcError(e)).toMatchObject({ code: -32603, data: { retryable: true } });
    expect(toRestError(e).status).toBe(503);
    expect(grpcStatusOf("1.0", e).code).toBe(14);
  });

  it("a stream ends with the retryable error and never shows the unrecorded COMPLETED", async () => {
    const seen: v1_0.StreamResponse[] = [];
    const events = await runtime(S.COMPLETED).sendStreamingMessage(send("stream 2"), call);
    await expect(
      (async () => {
        for await (const e of events) seen.push(e);
      })(),
    ).rejects.toMatchObject(retryableError);
    const states = seen.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states).not.toContain(S.COMPLETED);
  });

  it("a returnImmediately send whose WORKING is fenced out gets the retryable error, not a task id", async () => {
    await expect(runtime(S.WORKING).sendMessage(send("slow", {}, { returnImmediately: true }), call)).rejects.toMatchObject(retryableError);
  });
});

describe("task timeout", () => {
  it("a turn that runs too long fails with a generic message and aborts the agent's signal", async () => {
    let aborted = false;
    const agent: Agent = {
      card: { name: "a", description: "", version: "1" },
      handleMessage: (_m, ctx) =>
        stream(
          (async function* () {
            await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => ((aborted = true), resolve())));
          })(),
        ),
    };
    const rt = new TaskRuntime({ agent, logger: silent, taskTimeoutMs: 50 });
    const t = await task(rt, send("x"));
    expect(t.status?.state).toBe(S.FAILED);
    expect(text(t.status?.message?.parts[0])).toBe(TIMEOUT_FAILURE);
    expect(aborted).toBe(true);
  });
});

describe("ListTasks", () => {
  it("pages newest first with an always-present nextPageToken, filters, and omits artifacts by default", async () => {
    const rt = fixture();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await task(rt, send(`echo ${i}`, { contextId: i % 2 ? "odd" : "even" }))).id);
      await sleep(2);
    }
    const list = (init: MessageInitShape<typeof v1_0.ListTasksRequestSchema>) =>
      rt.listTasks(create(v1_0.ListTasksRequestSchema, init), call);
    const p1 = await list({ pageSize: 2 });
    expect(p1.totalSize).toBe(5);
    expect(p1.tasks.map((t) => t.id)).toEqual([ids[4], ids[3]]);
    expect(p1.tasks[0]?.artifacts).toHaveLength(0);
    expect(p1.nextPageToken).not.toBe("");
    const p2 = await list({ pageSize: 2, pageToken: p1.nextPageToken });
    const p3 = await list({ pageSize: 2, pageToken: p2.nextPageToken });
    expect([...p2.tasks, ...p3.tasks].map((t) => t.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(p3.nextPageToken).toBe("");
    expect((await list({ contextId: "odd" })).tasks.map((t) => t.id)).toEqual([ids[3], ids[1]]);
    expect((await list({ includeArtifacts: true, pageSize: 1 })).tasks[0]?.artifacts).toHaveLength(1);
    expect((await list({ status: S.WORKING })).totalSize).toBe(0);
    await expect(list({ pageSize: 150 })).rejects.toMatchObject({ type: "InvalidParamsError" });
    await expect(list({ pageToken: "garbage" })).rejects.toMatchObject({ type: "InvalidParamsError" });
  });
});

describe("MemoryTaskStore retention", () => {
  it("keeps at most maxTasks, evicting the least recently written", async () => {
    const store = new MemoryTaskStore({ maxTasks: 3 });
    const rt = new TaskRuntime({ agent: createFixtureAgent(), store, logger: silent });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await task(rt, send(`echo ${i}`))).id);
    expect(store.size).toBe(3);
    await expect(rt.getTask(create(v1_0.GetTaskRequestSchema, { id: ids[0] }), call)).rejects.toMatchObject({ type: "TaskNotFoundError" });
    expect((await rt.getTask(create(v1_0.GetTaskRequestSchema, { id: ids[4] }), call)).status?.state).toBe(S.COMPLETED);
    expect(rt.liveTasks).toBe(0);
  });

  it("evicts in least-recently-written order over many rewrites (the Map's table is compacted many times meanwhile)", async () => {
    const max = 50;
    const store = new MemoryTaskStore({ maxTasks: max });
    const model: string[] = []; // least recently written first
    let seed = 20261130;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    for (let i = 0; i < 20_000; i++) {
      // Mostly rewrites of recent tasks, sometimes a new one: both orders of the queue move.
      const id = rand(4) === 0 ? `t${i}` : (model[model.length - 1 - rand(Math.min(model.length, 80))] ?? `t${i}`);
      await store.put("o", create(v1_0.TaskSchema, { id, contextId: "c", status: { state: S.WORKING } }));
      const at = model.indexOf(id);
      if (at >= 0) model.splice(at, 1);
      model.push(id);
      if (model.length > max) model.shift();
    }
    expect(store.size).toBe(max);
    for (const id of model) expect(await store.get("o", id), id).toBeDefined();
  });
});
