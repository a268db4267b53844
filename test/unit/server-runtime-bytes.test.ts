// What one task may hold (issue 18): artifact bytes (the chunk over the limit is not kept and the
// task fails with a status message naming it), history bytes (the oldest messages are dropped), and
// ListTasks pages by bytes through the runtime; plus the fixture agent's own caps.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { inputRequired, reply, stream, type Agent } from "../../src/server/engine/agent.js";
import { createFixtureAgent, FIXTURE_LIMITS } from "../../src/server/fixture/fixture-agent.js";
import { firstText } from "../../src/server/engine/parts.js";
import { tooLargeFailure } from "../../src/server/engine/execute.js";
import { TaskRuntime, type CallContext } from "../../src/server/engine/runtime.js";
import { A2AError } from "../../src/versioning/errors.js";

const S = v1_0.TaskState;
const call: CallContext = { principal: "alice", version: "1.0", extensions: [] };
const silent = { error: () => {}, warn: () => {} };
let n = 0;
const send = (text: string, taskId = "") =>
  create(v1_0.SendMessageRequestSchema, {
    message: { messageId: `m-${++n}`, role: v1_0.Role.USER, parts: [{ content: { case: "text", value: text } }], taskId },
  });
async function task(rt: TaskRuntime, req: v1_0.SendMessageRequest): Promise<v1_0.Task> {
  const r = await rt.sendMessage(req, call);
  if (r.payload.case !== "task") throw new Error("expected a task");
  return r.payload.value;
}
const textOf = (p: v1_0.Part | undefined) => (p?.content.case === "text" ? p.content.value : "");
const statusText = (t: v1_0.Task) => (t.status?.message ? firstText(t.status.message) : "");

describe("artifact bytes per task", () => {
  const agent: Agent = {
    card: { name: "t", description: "t", version: "1", capabilities: { streaming: true } },
    handleMessage: (m) => {
      const [kind, size] = firstText(m).split(" ");
      const chunk = "y".repeat(Number(size));
      return kind === "reply" ? reply(chunk) : stream(Array.from({ length: 10 }, () => chunk));
    },
  };

  it("a stream whose chunks pass the limit fails with a message naming it; the chunks before are kept", async () => {
    const rt = new TaskRuntime({ agent, logger: silent, maxArtifactBytes: 5_000 });
    const t = await task(rt, send("stream 1000"));
    expect(t.status?.state).toBe(S.FAILED);
    expect(statusText(t)).toBe(tooLargeFailure(5_000));
    const kept = (t.artifacts[0]?.parts ?? []).map(textOf);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(10);
    expect(kept.every((x) => x.length === 1000)).toBe(true);
    // Streamed: the subscriber sees the same end.
    const events = [];
    for await (const e of await rt.sendStreamingMessage(send("stream 1000"), call)) events.push(e);
    const last = events.at(-1)?.payload;
    expect(last?.case === "statusUpdate" && last.value.status?.state).toBe(S.FAILED);
    const chunks = events.filter((e) => e.payload.case === "artifactUpdate");
    expect(chunks).toHaveLength(kept.length);
  });

  it("a reply over the limit keeps no artifact; one under it completes", async () => {
    const rt = new TaskRuntime({ agent, logger: silent, maxArtifactBytes: 5_000 });
    const over = await task(rt, send("reply 6000"));
    expect([over.status?.state, over.artifacts.length, statusText(over)]).toEqual([S.FAILED, 0, tooLargeFailure(5_000)]);
    const under = await task(rt, send("reply 4000"));
    expect([under.status?.state, textOf(under.artifacts[0]?.parts[0]).length]).toEqual([S.COMPLETED, 4000]);
  });
});

describe("history bytes per task", () => {
  it("the oldest messages are dropped once the history passes maxHistoryBytes; the newest stays", async () => {
    const asker: Agent = {
      card: { name: "t", description: "t", version: "1" },
      handleMessage: () => inputRequired("again?"),
    };
    const rt = new TaskRuntime({ agent: asker, logger: silent, maxHistoryBytes: 10_000 });
    let t = await task(rt, send("a".repeat(3000)));
    for (let i = 0; i < 5; i++) t = await task(rt, send(String(i).repeat(3000), t.id));
    const texts = t.history.map((m) => firstText(m));
    expect(texts[texts.length - 1]).toBe("again?");
    expect(texts).toContain("4".repeat(3000));
    expect(texts).not.toContain("a".repeat(3000));
    expect(texts.join("").length).toBeLessThan(10_000);
    // One message over the whole budget is still kept.
    t = await task(rt, send("z".repeat(20_000), t.id));
    expect(t.history.map((m) => firstText(m))).toEqual(["again?"]);
  });
});

describe("ListTasks through the runtime", () => {
  it("pages by maxListBytes when artifacts are included, by pageSize when not", async () => {
    const rt = new TaskRuntime({ agent: createFixtureAgent(), logger: silent, maxListBytes: 50_000 });
    for (let i = 0; i < 10; i++) await task(rt, send(`echo ${"e".repeat(20_000)}`));
    const withArtifacts = await rt.listTasks(create(v1_0.ListTasksRequestSchema, { pageSize: 100, includeArtifacts: true }), call);
    expect(withArtifacts.tasks.length).toBe(1); // history and artifact are ~20 KB each
    expect(withArtifacts.nextPageToken).not.toBe("");
    const without = await rt.listTasks(create(v1_0.ListTasksRequestSchema, { pageSize: 100 }), call);
    expect(without.tasks.length).toBe(2);
  });
});

describe("fixture agent caps", () => {
  it("stream <n> stops at maxChunks", async () => {
    const rt = new TaskRuntime({ agent: createFixtureAgent(), logger: silent });
    const t = await task(rt, send("stream 100000"));
    expect(t.status?.state).toBe(S.COMPLETED);
    expect(t.artifacts[0]?.parts).toHaveLength(FIXTURE_LIMITS.maxChunks);
    expect(textOf(t.artifacts[0]?.parts[0])).toBe(`chunk 1/${FIXTURE_LIMITS.maxChunks}`);
  });
});

describe("artifact bytes of the running tasks together", () => {
  // Each task streams one artifact chunk of the asked size (published at once, unlike a bare part,
  // which waits for the next item to know whether it is the last), then holds until `release()`.
  let gate!: () => void;
  let held = new Promise<void>((r) => (gate = r));
  const release = () => {
    gate();
    held = new Promise<void>((r) => (gate = r));
  };
  const agent: Agent = {
    card: { name: "t", description: "t", version: "1", capabilities: { streaming: true } },
    handleMessage: (m) => {
      const size = Number(firstText(m).split(" ")[1]);
      const wait = held;
      return stream(
        (async function* () {
          yield { artifact: { artifactId: "held", parts: ["y".repeat(size)] } };
          await wait;
        })(),
      );
    },
  };
  /** Starts a streamed task and reads until its chunk is kept; the stream stays open. */
  async function start(rt: TaskRuntime, size: number) {
    const events = await rt.sendStreamingMessage(send(`hold ${size}`), call);
    for (let e = await events.next(); !e.done && e.value.payload.case !== "artifactUpdate"; e = await events.next());
    return events;
  }

  it("a new turn is refused, retryable, while the running tasks hold more than the limit; then accepted again", async () => {
    const rt = new TaskRuntime({ agent, logger: silent, maxRunningTaskBytes: 10_000 });
    const open = [await start(rt, 6_000), await start(rt, 6_000)]; // the second starts at 6 KB held, under 10 KB
    const refused = await rt.sendMessage(send("hold 10"), call).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(A2AError);
    expect((refused as A2AError).type).toBe("InternalError");
    expect((refused as A2AError).message).toContain("maxRunningTaskBytes");
    expect((refused as A2AError).retryAfterSeconds, "retryable").toBe(1);
    // The running tasks go on and end; their bytes are freed with them.
    release();
    for (const s of open) for await (const e of s) void e;
    const t = await rt.sendStreamingMessage(send("hold 10"), call);
    release();
    const states = [];
    for await (const e of t) if (e.payload.case === "statusUpdate") states.push(e.payload.value.status?.state);
    expect(states.at(-1)).toBe(S.COMPLETED);
  });

  it("under the default limit (1 GiB) the same tasks all run", async () => {
    const rt = new TaskRuntime({ agent, logger: silent });
    const open = await Promise.all([start(rt, 6_000), start(rt, 6_000), start(rt, 6_000)]);
    release();
    for (const s of open) for await (const e of s) void e;
    expect(rt.liveTasks).toBe(0);
  });
});
