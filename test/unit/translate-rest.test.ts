// The D03-PB (0.3 HTTP+JSON) translators: the places where the v0.3.0 proto differs from both the
// 0.3 JSON-RPC schema and 1.0 (a2a-wire.md §2.14).
import { describe, expect, it } from "vitest";
import * as rest from "../../src/versioning/rest0_3.js";
import type * as v0_3 from "../../generated/v0_3/index.js";

describe("D03-PB ⇄ 1.0", () => {
  it("renames content ⇄ parts and spells CANCELLED with a double L", () => {
    const task: v0_3.pb.TaskJson = {
      id: "t1",
      contextId: "c1",
      status: { state: "TASK_STATE_CANCELLED", message: { messageId: "m", role: "ROLE_AGENT", content: [{ text: "stopped" }] } },
    };
    const up = rest.upgradeTask(task).value;
    expect(up).toEqual({
      id: "t1",
      contextId: "c1",
      status: { state: "TASK_STATE_CANCELED", message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "stopped" }] } },
    });
    expect(rest.downgradeTask(up).value).toEqual(task);
  });

  it("maps file parts to raw/url and data parts to Value", () => {
    const parts: v0_3.pb.PartJson[] = [
      { file: { fileWithBytes: "iVBORw0KGgo=", mimeType: "image/png" } },
      { file: { fileWithUri: "https://x/y.pdf" } },
      { data: { data: { a: 1 } } },
    ];
    expect(parts.map((p) => rest.upgradePart(p).value)).toEqual([
      { raw: "iVBORw0KGgo=", mediaType: "image/png" },
      { url: "https://x/y.pdf" },
      { data: { a: 1 } },
    ]);
  });

  it("task and config resource names ⇄ ids", () => {
    expect(rest.upgradeGetTaskRequest({ name: "tasks/t1", historyLength: 3 }).value).toEqual({ id: "t1", historyLength: 3 });
    // historyLength=0 asks for no history; absent for all of it (docs/policies.md, issue 14)
    expect(rest.upgradeGetTaskRequest({ name: "tasks/t1", historyLength: 0 }).value).toEqual({ id: "t1", historyLength: 0 });
    expect(rest.upgradeGetTaskRequest({ name: "tasks/t1" }).value).toEqual({ id: "t1" });
    expect(rest.downgradeCancelTaskRequest({ id: "t1" }).value).toEqual({ name: "tasks/t1" });
    expect(rest.upgradeGetPushConfigParams({ name: "tasks/t1/pushNotificationConfigs/p1" }).value).toEqual({ taskId: "t1", id: "p1" });
    expect(() => rest.upgradeGetTaskRequest({ name: "t1" })).toThrow(/tasks\/\{id\}/);
  });

  it("create push config: {parent, configId, config} ⇄ the flat 1.0 config", () => {
    const up = rest.upgradeCreatePushConfigParams({
      parent: "tasks/t1",
      configId: "p1",
      config: { name: "tasks/t1/pushNotificationConfigs/p1", pushNotificationConfig: { url: "https://h", token: "tok" } },
    }).value;
    expect(up).toEqual({ id: "p1", taskId: "t1", url: "https://h", token: "tok" });
    expect(rest.downgradeCreatePushConfigParams(up).value).toEqual({
      parent: "tasks/t1",
      configId: "p1",
      config: { name: "tasks/t1/pushNotificationConfigs/p1", pushNotificationConfig: { id: "p1", url: "https://h", token: "tok" } },
    });
  });

  it("blocking: true stays blocking; the stream response keeps its oneof shape", () => {
    const req = rest.upgradeSendMessageRequest({
      message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hi" }] },
      configuration: { blocking: true },
    });
    expect(req.value.configuration).toBeUndefined();
    expect(req.losses).toEqual([]);
    const ev = rest.downgradeStreamResponse(
      { artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ text: "x" }] }, lastChunk: true } },
      { final: false },
    );
    expect(ev.value).toEqual({
      artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ text: "x" }] }, lastChunk: true },
    });
  });
});

describe("D03-PB fields added after v0.3.0", () => {
  it("accepts Part.metadata, FilePart.name and AgentCard.iconUrl on input (SDK 0.3.x protos), without reporting them lost", () => {
    const part = {
      file: { fileWithUri: "https://x/a.pdf", mimeType: "application/pdf", name: "a.pdf" },
      metadata: { k: "v" },
    } as v0_3.pb.PartJson;
    const r = rest.upgradePart(part);
    expect(r.value).toEqual({ url: "https://x/a.pdf", mediaType: "application/pdf", filename: "a.pdf", metadata: { k: "v" } });
    expect(r.losses).toEqual([]);
    const card = rest.upgradeAgentCard({
      protocolVersion: "0.3",
      name: "A",
      description: "d",
      url: "https://a",
      version: "1",
      capabilities: {},
      iconUrl: "https://a/icon.png",
    } as v0_3.pb.AgentCardJson);
    expect(card.value.iconUrl).toBe("https://a/icon.png");
  });
});
