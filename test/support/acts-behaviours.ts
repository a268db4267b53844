// What an agent implementing the ACTS SUT behaviour contract (ACTS §11.2, plus tck-auth-required,
// which the corpus uses) does for each prefix, checked through the reference client: one check per
// prefix, run by the test files of the agents that claim it (the fixture agent, the official SDK
// 1.3.0 and 0.3.14 servers around their §11.2 executors). The checks ask what the corpus asks of
// the behaviour and what §11.2's one line promises, nothing that depends on wall-clock speed.
import { expect } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { textMessage, type A2AClient } from "../../src/client/index.js";

const S = v1_0.TaskState;

async function send(client: A2AClient, text: string, more: { taskId?: string; returnImmediately?: boolean } = {}) {
  const res = await client.sendMessage({
    message: textMessage(text, { taskId: more.taskId }),
    ...(more.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
  return res.payload;
}

async function task(client: A2AClient, text: string, more: { taskId?: string; returnImmediately?: boolean } = {}): Promise<v1_0.Task> {
  const p = await send(client, text, more);
  expect(p.case).toBe("task");
  return p.value as v1_0.Task;
}

const artifactParts = (t: v1_0.Task) => t.artifacts.flatMap((a) => a.parts);
const partsText = (parts: v1_0.Part[] | undefined) => (parts ?? []).map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
const userTexts = (t: v1_0.Task) => t.history.filter((m) => m.role === v1_0.Role.USER).map((m) => partsText(m.parts));

async function events(stream: AsyncIterable<v1_0.StreamResponse>): Promise<v1_0.StreamResponse[]> {
  const all: v1_0.StreamResponse[] = [];
  for await (const ev of stream) all.push(ev);
  return all;
}

function stateOf(ev: v1_0.StreamResponse): v1_0.TaskState | undefined {
  if (ev.payload.case === "task") return ev.payload.value.status?.state;
  if (ev.payload.case === "statusUpdate") return ev.payload.value.status?.state;
  return undefined;
}

/** The 0.3 protobuf shapes (HTTP+JSON, gRPC) have no file name (loss register L11). */
const dropsFileName = (client: A2AClient) => client.target.version === "0.3" && client.target.binding !== "JSONRPC";

/** The checks by prefix; `run(client)` throws (a failed expect) when the agent does otherwise. */
export const ACTS_BEHAVIOUR_CHECKS: Record<string, (client: A2AClient) => Promise<void>> = {
  "tck-complete-task": async (client) => {
    const t = await task(client, "tck-complete-task hello world");
    expect(t.status?.state).toBe(S.COMPLETED);
    expect(t.id).not.toBe("");
    expect(t.status?.timestamp).toBeDefined();
    // "with a text response message": the agent's text, in the final status (an echo has none there).
    expect(partsText(t.status?.message?.parts)).not.toBe("");
    // CORE-SEND-002: a terminal task takes no follow-up (1.0: UnsupportedOperationError; 0.3 §7.1: "an error").
    const refused = send(client, "tck-complete-task terminal follow-up", { taskId: t.id });
    if (client.target.version === "1.0") await expect(refused).rejects.toMatchObject({ name: "UnsupportedOperationError" });
    else await expect(refused).rejects.toThrow();
  },
  "tck-message-response": async (client) => {
    const p = await send(client, "tck-message-response hello");
    expect(p.case).toBe("message");
    expect((p.value as v1_0.Message).role).toBe(v1_0.Role.AGENT);
    expect(partsText((p.value as v1_0.Message).parts)).not.toBe("");
  },
  "tck-artifact-text": async (client) => {
    const t = await task(client, "tck-artifact-text hello");
    expect(t.status?.state).toBe(S.COMPLETED);
    const texts = artifactParts(t).flatMap((p) => (p.content.case === "text" ? [p.content.value] : []));
    expect(texts.filter((x) => x !== "" && x !== "tck-artifact-text hello")).not.toEqual([]);
  },
  "tck-artifact-file": async (client) => {
    const t = await task(client, "tck-artifact-file document");
    expect(t.status?.state).toBe(S.COMPLETED);
    const file = artifactParts(t).find((p) => p.content.case === "raw");
    if (!dropsFileName(client)) expect(file?.filename).not.toBe("");
    expect(file?.mediaType).not.toBe("");
    expect((file?.content.value as Uint8Array).length).toBeGreaterThan(0);
  },
  "tck-artifact-file-url": async (client) => {
    const t = await task(client, "tck-artifact-file-url document");
    expect(t.status?.state).toBe(S.COMPLETED);
    const file = artifactParts(t).find((p) => p.content.case === "url");
    expect(file?.content.value).toMatch(/^https?:\/\//);
    if (!dropsFileName(client)) expect(file?.filename).not.toBe("");
  },
  "tck-artifact-data": async (client) => {
    const t = await task(client, "tck-artifact-data structured");
    expect(t.status?.state).toBe(S.COMPLETED);
    const data = artifactParts(t).find((p) => p.content.case === "data");
    expect(data?.content.value).toMatchObject({ kind: { case: "structValue" } });
  },
  "tck-task-failure": async (client) => {
    const t = await task(client, "tck-task-failure trigger error");
    expect(t.status?.state).toBe(S.FAILED);
    expect(partsText(t.status?.message?.parts)).not.toBe("");
  },
  "tck-reject-task": async (client) => {
    const t = await task(client, "tck-reject-task please");
    expect(t.status?.state).toBe(S.REJECTED);
  },
  "tck-input-required": async (client) => {
    const t = await task(client, "tck-input-required question");
    expect(t.status?.state).toBe(S.INPUT_REQUIRED);
    const done = await task(client, "the answer", { taskId: t.id });
    expect(done.id).toBe(t.id);
    expect(done.status?.state).toBe(S.COMPLETED);
  },
  "tck-auth-required": async (client) => {
    const t = await task(client, "tck-auth-required trigger auth");
    expect(t.status?.state).toBe(S.AUTH_REQUIRED);
    expect(partsText(t.status?.message?.parts)).not.toBe("");
    const done = await task(client, "credentials", { taskId: t.id });
    expect(done.status?.state).toBe(S.COMPLETED);
  },
  "tck-multi-turn": async (client) => {
    const t = await task(client, "tck-multi-turn first msg");
    expect(t.status?.state).toBe(S.INPUT_REQUIRED);
    const again = await task(client, "tck-multi-turn follow up msg", { taskId: t.id });
    expect([again.id, again.contextId, again.status?.state]).toEqual([t.id, t.contextId, S.INPUT_REQUIRED]);
    const done = await task(client, "done", { taskId: t.id });
    expect([done.id, done.contextId, done.status?.state]).toEqual([t.id, t.contextId, S.COMPLETED]);
    expect(userTexts(await client.getTask({ id: t.id, historyLength: 100 }))).toEqual([
      "tck-multi-turn first msg",
      "tck-multi-turn follow up msg",
      "done",
    ]);
  },
  "tck-long-running": async (client) => {
    const t = await task(client, "tck-long-running start process", { returnImmediately: true });
    expect([S.SUBMITTED, S.WORKING]).toContain(t.status?.state);
    const done = await client.waitForTask(t.id);
    expect(done.status?.state).toBe(S.COMPLETED);
    expect(partsText(artifactParts(done))).not.toMatch(/^(tck-long-running start process)?$/);
  },
  "tck-cancel": async (client) => {
    const t = await task(client, "tck-cancel start", { returnImmediately: true });
    expect([S.SUBMITTED, S.WORKING]).toContain(t.status?.state);
    expect((await client.getTask({ id: t.id })).status?.state).toBe(S.WORKING);
    const canceled = await client.cancelTask({ id: t.id });
    expect([canceled.id, canceled.status?.state]).toEqual([t.id, S.CANCELED]);
  },
  "tck-stream-basic": async (client) => {
    const all = await events(client.sendStreamingMessage({ message: textMessage("tck-stream-basic generate output") }));
    const cases = all.map((e) => e.payload.case);
    expect(cases[0]).toBe("task");
    expect(all.some((e) => stateOf(e) === S.WORKING)).toBe(true);
    const artifact = cases.indexOf("artifactUpdate");
    expect(artifact).toBeGreaterThan(0);
    expect(stateOf(all.at(-1)!)).toBe(S.COMPLETED);
    expect(all.findIndex((e) => stateOf(e) === S.WORKING)).toBeLessThan(artifact);
    const streamed = all.flatMap((e) => (e.payload.case === "artifactUpdate" ? (e.payload.value.artifact?.parts ?? []) : []));
    expect(partsText(streamed)).not.toMatch(/^(tck-stream-basic generate output)?$/);
  },
  "tck-stream-chunked": async (client) => {
    const all = await events(client.sendStreamingMessage({ message: textMessage("tck-stream-chunked multi-part") }));
    const chunks = all.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(new Set(chunks.map((c) => c.artifact?.artifactId)).size).toBe(1);
    expect(chunks.slice(1).every((c) => c.append)).toBe(true);
    expect(chunks.at(-1)?.lastChunk).toBe(true);
    expect(stateOf(all.at(-1)!)).toBe(S.COMPLETED);
  },
};

/** Every prefix the checks cover: §11.2's fourteen and tck-auth-required. */
export const ACTS_CHECKED_PREFIXES = Object.keys(ACTS_BEHAVIOUR_CHECKS);
