// The D03-RPC translators on the worked examples of a2a-wire.md §9 and on the shape changes a user
// of a 0.3 JSON-RPC peer would notice.
import { describe, expect, it } from "vitest";
import { A2AError } from "../../src/versioning/errors.js";
import * as rpc from "../../src/versioning/rpc0_3.js";
import type * as v0_3 from "../../generated/v0_3/index.js";
import type * as v1_0 from "../../generated/v1_0/index.js";

const send0_3: v0_3.MessageSendParams = {
  message: {
    kind: "message",
    messageId: "m1",
    role: "user",
    parts: [
      { kind: "text", text: "Analyze" },
      { kind: "file", file: { bytes: "iVBORw0KGgo=", mimeType: "image/png", name: "in.png" } },
    ],
  },
  configuration: {
    blocking: true,
    historyLength: 5,
    pushNotificationConfig: { url: "https://client.example/hook", token: "t", authentication: { schemes: ["Bearer"], credentials: "abc" } },
  },
  metadata: {},
};
const send1_0: v1_0.SendMessageRequestJson = {
  message: {
    messageId: "m1",
    role: "ROLE_USER",
    parts: [{ text: "Analyze" }, { raw: "iVBORw0KGgo=", mediaType: "image/png", filename: "in.png" }],
  },
  configuration: {
    historyLength: 5,
    taskPushNotificationConfig: {
      url: "https://client.example/hook",
      token: "t",
      authentication: { scheme: "Bearer", credentials: "abc" },
    },
  },
  metadata: {},
};

describe("D03-RPC ⇄ 1.0", () => {
  it("upgrades the §9 send request to the 1.0 form, without losses", () => {
    const { value, losses } = rpc.upgradeSendMessageRequest(send0_3);
    expect(value).toEqual(send1_0);
    expect(losses).toEqual([]);
  });

  it("downgrades the §9 1.0 send request and always states blocking explicitly", () => {
    const { value } = rpc.downgradeSendMessageRequest(send1_0);
    expect(value).toEqual(send0_3);
    expect(rpc.downgradeSendMessageRequest({ message: send1_0.message }).value.configuration).toEqual({ blocking: true });
  });

  it("inverts blocking and returnImmediately", () => {
    const base = { message: send0_3.message };
    expect(rpc.upgradeSendMessageRequest({ ...base, configuration: { blocking: false } }).value.configuration).toEqual({
      returnImmediately: true,
    });
    expect(rpc.upgradeSendMessageRequest({ ...base, configuration: { blocking: true } }).value.configuration).toBeUndefined();
    expect(rpc.upgradeSendMessageRequest({ ...base, configuration: {} }).value.configuration).toBeUndefined();
    expect(
      rpc.downgradeSendMessageRequest({ message: send1_0.message, configuration: { returnImmediately: true } }).value.configuration,
    ).toEqual({ blocking: false });
  });

  it("maps every task state both ways", () => {
    const pairs: [v0_3.TaskState, v1_0.TaskStateJson][] = [
      ["submitted", "TASK_STATE_SUBMITTED"],
      ["working", "TASK_STATE_WORKING"],
      ["input-required", "TASK_STATE_INPUT_REQUIRED"],
      ["completed", "TASK_STATE_COMPLETED"],
      ["canceled", "TASK_STATE_CANCELED"],
      ["failed", "TASK_STATE_FAILED"],
      ["rejected", "TASK_STATE_REJECTED"],
      ["auth-required", "TASK_STATE_AUTH_REQUIRED"],
      ["unknown", "TASK_STATE_UNSPECIFIED"],
    ];
    for (const [s3, s1] of pairs) {
      expect(rpc.upgradeTaskStatus({ state: s3 }).value).toEqual({ state: s1 });
      expect(rpc.downgradeTaskStatus({ state: s1 }).value).toEqual({ state: s3 });
    }
  });

  it("translates the §9 response and the final status update", () => {
    const t = rpc.upgradeSendMessageResponse({
      kind: "task",
      id: "t1",
      contextId: "c1",
      status: { state: "completed", timestamp: "2025-04-02T16:59:35.331Z" },
    });
    expect(t.value).toEqual({
      task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED", timestamp: "2025-04-02T16:59:35.331Z" } },
    });
    const ev = rpc.downgradeStreamResponse(
      { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } },
      { final: true },
    );
    expect(ev.value).toEqual({ kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "completed" }, final: true });
  });

  it("rejects invalid input with InvalidParams naming the path, never an untyped exception", () => {
    const bad = { kind: "message", messageId: "m", role: "robot", parts: [] } as unknown as v0_3.Message;
    let err: unknown;
    try {
      rpc.upgradeMessage(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).code).toBe(-32602);
    expect((err as A2AError).message).toContain("/role");
  });

  it("rejects a 1.0 part that sets none of text, raw, url, data", () => {
    expect(() => rpc.downgradePart({ metadata: {} })).toThrow(/text.*raw.*url.*data/);
  });

  it("translates the push-config operations", () => {
    const cfg: v1_0.TaskPushNotificationConfigJson = { id: "p1", taskId: "t1", url: "https://h", authentication: { scheme: "Bearer" } };
    const down = rpc.downgradePushConfig(cfg).value;
    expect(down).toEqual({ taskId: "t1", pushNotificationConfig: { id: "p1", url: "https://h", authentication: { schemes: ["Bearer"] } } });
    expect(rpc.upgradePushConfig(down).value).toEqual(cfg);
    expect(rpc.upgradeGetPushConfigParams({ id: "t1", pushNotificationConfigId: "p1" }).value).toEqual({ taskId: "t1", id: "p1" });
    expect(rpc.downgradeGetPushConfigParams({ taskId: "t1", id: "p1" }).value).toEqual({ id: "t1", pushNotificationConfigId: "p1" });
    expect(rpc.upgradeListPushConfigResult([down]).value).toEqual({ configs: [cfg] });
    expect(rpc.downgradeListPushConfigResult({ configs: [cfg] }).value).toEqual([down]);
    expect(rpc.upgradeDeletePushConfigParams({ id: "t1", pushNotificationConfigId: "p1" }).value).toEqual({ taskId: "t1", id: "p1" });
    expect(rpc.downgradeDeletePushConfigResult({}).value).toBeNull();
    expect(rpc.upgradeDeletePushConfigResult(null).value).toEqual({});
  });

  it("webhook bodies: a 0.3 Task ⇄ a 1.0 StreamResponse", () => {
    const task: v0_3.Task = { kind: "task", id: "t1", contextId: "c1", status: { state: "working" } };
    const up = rpc.upgradePushPayload(task).value;
    expect(up).toEqual({ task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } });
    expect(rpc.downgradePushPayload(up).value).toEqual(task);
    const ev: v1_0.StreamResponseJson = { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } };
    expect(rpc.downgradePushPayload(ev).value).toBeUndefined();
    expect(rpc.downgradePushPayload(ev, up.task).value).toEqual(task);
  });
});
