// The gateway bounds what one task may hold, as the reference server does: a backend that streams
// more artifact bytes than maxArtifactBytes ends the gateway's task FAILED with the limit named
// (what came before is kept), and is asked to stop; history stays under maxHistoryBytes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, textMessage } from "../../src/client/index.js";
import { buildGateway } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { tooLargeFailure } from "../../src/server/engine/execute.js";
import { serverGroup } from "../support/servers.js";

const S = v1_0.TaskState;
const { listen, close: closeServers } = serverGroup();
let gateway: string;
const LIMIT = 20_000;

beforeAll(async () => {
  const backend = await listen(await buildServer({ agent: createFixtureAgent(), versions: ["1.0"] }));
  gateway = await listen(
    await buildGateway({ gateway: { backends: [{ name: "b", url: backend }] }, maxArtifactBytes: LIMIT, maxHistoryBytes: LIMIT }),
  );
});
afterAll(closeServers);

describe("gateway per-task limits", () => {
  it("fails a task whose backend streams past maxArtifactBytes, keeping what came before", { timeout: 20_000 }, async () => {
    const client = await createA2AClient(gateway, { versions: ["1.0"] });
    const sent = await client.sendMessage({ message: textMessage("stream 2000"), configuration: { returnImmediately: true } });
    expect(sent.payload.case).toBe("task");
    const id = sent.payload.case === "task" ? sent.payload.value.id : "";
    const task = await client.waitForTask(id, { timeoutMs: 15_000 });
    expect(task.status?.state).toBe(S.FAILED);
    const status = task.status?.message?.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
    expect(status).toBe(tooLargeFailure(LIMIT));
    const kept = task.artifacts.flatMap((a) => a.parts).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(2000);
  });

  it("keeps a task's history under maxHistoryBytes, dropping the oldest messages", { timeout: 20_000 }, async () => {
    const client = await createA2AClient(gateway, { versions: ["1.0"] });
    const big = "x".repeat(12_000); // two of them pass the limit: the first must go
    const first = await client.sendMessage({ message: textMessage(`ask ${big}`) });
    expect(first.payload.case).toBe("task");
    const t1 = first.payload.case === "task" ? first.payload.value : undefined;
    expect(t1?.status?.state).toBe(S.INPUT_REQUIRED);
    const second = await client.sendMessage({ message: textMessage(big, { taskId: t1!.id, contextId: t1!.contextId }) });
    const t2 = second.payload.case === "task" ? second.payload.value : undefined;
    const got = await client.getTask({ id: t2!.id });
    const bytes = got.history.reduce(
      (n, m) => n + m.parts.reduce((k, p) => k + (p.content.case === "text" ? p.content.value.length : 0), 0),
      0,
    );
    expect(bytes).toBeLessThanOrEqual(LIMIT);
    expect(got.history.length).toBeGreaterThan(0);
  });
});
