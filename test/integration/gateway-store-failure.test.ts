// A write the gateway's store refuses (a full disk, say) is reported to nobody as made, as with the
// reference server (src/server/engine/tasks.ts recordTask): a blocking caller gets InternalError instead of
// the task, a stream ends with InternalError and never carries the unwritten status.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, textMessage } from "../../src/client/index.js";
import { buildGateway } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent, MemoryTaskStore } from "../../src/server/index.js";
import { serverGroup } from "../support/servers.js";

const S = v1_0.TaskState;
const { listen, close: closeServers } = serverGroup();
let gateway: string;

/** Refuses to write a COMPLETED task; every other write is kept. */
class RefusingStore extends MemoryTaskStore {
  override put(owner: string, t: v1_0.Task): Promise<void> {
    if (t.status?.state === S.COMPLETED) return Promise.reject(new Error("disk full"));
    return super.put(owner, t);
  }
}

beforeAll(async () => {
  const backend = await listen(await buildServer({ agent: createFixtureAgent(), versions: ["1.0"] }));
  gateway = await listen(await buildGateway({ gateway: { backends: [{ name: "b", url: backend }] }, store: new RefusingStore() }));
});
afterAll(closeServers);

describe("gateway: a task write the store refuses", () => {
  it("a blocking send answers InternalError, not the completed task", { timeout: 20_000 }, async () => {
    const client = await createA2AClient(gateway, { versions: ["1.0"] });
    await expect(client.sendMessage({ message: textMessage("echo hi") })).rejects.toMatchObject({ type: "InternalError" });
  });

  it("a stream ends with InternalError and never carries the unwritten COMPLETED", { timeout: 20_000 }, async () => {
    const client = await createA2AClient(gateway, { versions: ["1.0"] });
    const states: (v1_0.TaskState | undefined)[] = [];
    await expect(
      (async () => {
        for await (const e of client.sendStreamingMessage({ message: textMessage("stream 3") }))
          if (e.payload.case === "statusUpdate") states.push(e.payload.value.status?.state);
      })(),
    ).rejects.toMatchObject({ type: "InternalError" });
    expect(states).not.toContain(S.COMPLETED);
  });
});
