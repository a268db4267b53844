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
