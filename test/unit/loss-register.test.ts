// One test per row of the loss register (LOSSY.md) that the data-model translators implement:
// the documented behaviour, and the Loss with that id beside the value. Rows owned by the codec
// seam (L1's routing, L5, L6, L10's trimming, L12, L13, L21's stream closing, L23, L28) are tested in
// loss-register-codec.test.ts.
import { describe, expect, it } from "vitest";
import type * as v0_3 from "../../generated/v0_3/index.js";
import type * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError } from "../../src/versioning/errors.js";
import { readFileSync } from "node:fs";
import { LOSS_REGISTER, type Loss } from "../../src/versioning/loss.js";
import * as rest from "../../src/versioning/rest0_3.js";
import * as rpc from "../../src/versioning/rpc0_3.js";

const ids = (losses: Loss[]) => losses.map((l) => l.id);
const one = (losses: Loss[], id: string) => {
  const found = losses.filter((l) => l.id === id);
  expect(found, `expected a ${id} loss in ${JSON.stringify(losses)}`).not.toHaveLength(0);
  return found[0];
};
function thrown(f: () => unknown): A2AError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(A2AError);
    return e as A2AError;
  }
  throw new Error("expected an A2AError");
}

const msg1: v1_0.MessageJson = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const msg3: v0_3.Message = { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] };
const card1: v1_0.AgentCardJson = {
  name: "A",
  description: "d",
  supportedInterfaces: [
    { url: "https://a.example/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "https://a.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
  ],
  version: "1",
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
};
const card3: v0_3.AgentCard = {
  protocolVersion: "0.3.0",
  name: "A",
  description: "d",
  url: "https://a.example/a2a",
  version: "1",
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
};

describe("loss register", () => {
  it("L1: tenant is dropped towards 0.3 and reported", () => {
    const r = rpc.downgradeGetTaskRequest({ tenant: "acme", id: "t1" });
    expect(r.value).toEqual({ id: "t1" });
    expect(one(r.losses, "L1")?.path).toBe("/tenant");
    const c = rpc.downgradeAgentCard({ ...card1, supportedInterfaces: [{ ...card1.supportedInterfaces![1], tenant: "acme" }] });
    expect(c.value.url).toBe("https://a.example/a2a");
    expect(one(c.losses, "L1")?.path).toBe("/supportedInterfaces/0/tenant");
  });

  it("L2: only 0.x interfaces reach a 0.3 card; the others are reported; none at all is an error", () => {
    const { value, losses } = rpc.downgradeAgentCard(card1);
    expect(value.url).toBe("https://a.example/a2a");
    expect(value.additionalInterfaces).toBeUndefined();
    expect(one(losses, "L2")?.path).toBe("/supportedInterfaces/0");
    const e = thrown(() => rpc.downgradeAgentCard({ ...card1, supportedInterfaces: card1.supportedInterfaces!.slice(0, 1) }));
    expect(e.metadata.loss).toBe("L2");
  });

  it("L3: mediaType/filename of text and data parts ride in a reserved metadata key (RPC) and come back; D03-PB drops them", () => {
    const part: v1_0.PartJson = { text: "# hi", mediaType: "text/markdown", filename: "r.md" };
    const down = rpc.downgradePart(part);
    expect(down.value).toEqual({
      kind: "text",
      text: "# hi",
      metadata: { "a2a-toolkit/part": { mediaType: "text/markdown", filename: "r.md" } },
    });
    expect(one(down.losses, "L3")?.direction).toBe("to-0.3");
    expect(rpc.upgradePart(down.value).value).toEqual(part);
    const pb = rest.downgradePart(part);
    expect(pb.value).toEqual({ text: "# hi" });
    expect(ids(pb.losses)).toContain("L3");
  });

  it("L4: non-object data is wrapped as {value} with data_part_compat and unwrapped on the way back", () => {
    const part: v1_0.PartJson = { data: [1, 2, 3] };
    const down = rpc.downgradePart(part);
    expect(down.value).toEqual({ kind: "data", data: { value: [1, 2, 3] }, metadata: { data_part_compat: true } });
    expect(one(down.losses, "L4")?.path).toBe("/data");
    expect(rpc.upgradePart(down.value).value).toEqual(part);
    const pb = rest.downgradePart({ data: "text" });
    expect(pb.value).toEqual({ data: { data: { value: "text" } } });
    expect(ids(pb.losses)).toEqual(["L4"]);
  });

  it("L7: push-config list paging is dropped towards 0.3 and a further page is reported", () => {
    const p = rpc.downgradeListPushConfigParams({ taskId: "t1", pageSize: 10, pageToken: "x" });
    expect(p.value).toEqual({ id: "t1" });
    expect(ids(p.losses)).toContain("L7");
    const r = rpc.downgradeListPushConfigResult({ configs: [{ taskId: "t1", id: "p", url: "https://h" }], nextPageToken: "more" });
    expect(r.value).toHaveLength(1);
    expect(one(r.losses, "L7")?.path).toBe("/nextPageToken");
  });

  it("L8: the deviceCode flow and pkceRequired are dropped towards 0.3; a scheme left without a flow is not shown", () => {
    const card: v1_0.AgentCardJson = {
      ...card1,
      securitySchemes: {
        dev: {
          oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: "https://d", tokenUrl: "https://t", scopes: {} } } },
        },
        code: {
          oauth2SecurityScheme: {
            flows: { authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: {}, pkceRequired: true } },
          },
        },
      },
    };
    const paths = [
      "/securitySchemes/dev/oauth2SecurityScheme/flows/deviceCode",
      "/securitySchemes/dev",
      "/securitySchemes/code/oauth2SecurityScheme/flows/authorizationCode/pkceRequired",
    ];
    const { value, losses } = rpc.downgradeAgentCard(card);
    expect(value.securitySchemes).toEqual({
      code: { type: "oauth2", flows: { authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: {} } } },
    });
    expect(losses.filter((l) => l.id === "L8").map((l) => l.path)).toEqual(paths);
    const pb = rest.downgradeAgentCard(card);
    expect(pb.value.securitySchemes).toEqual({
      code: {
        oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: {} } } },
      },
    });
    expect(pb.losses.filter((l) => l.id === "L8").map((l) => l.path)).toEqual(paths);
  });

  it("L9: card signatures are dropped in both directions", () => {
    const sig = { protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2ln" };
    const down = rpc.downgradeAgentCard({ ...card1, signatures: [sig] });
    expect(down.value.signatures).toBeUndefined();
    expect(ids(down.losses)).toContain("L9");
    const up = rpc.upgradeAgentCard({ ...card3, signatures: [sig] });
    expect(up.value.signatures).toBeUndefined();
    expect(ids(up.losses)).toContain("L9");
  });

  it("L10: historyLength 0 cannot be sent to D03-PB (0 = unlimited); it is omitted and reported so the caller trims", () => {
    const r = rest.downgradeGetTaskRequest({ id: "t1", historyLength: 0 });
    expect(r.value).toEqual({ name: "tasks/t1" });
    expect(one(r.losses, "L10")?.path).toBe("/historyLength");
    expect(rpc.downgradeGetTaskRequest({ id: "t1", historyLength: 0 }).value).toEqual({ id: "t1", historyLength: 0 });
  });

  it("L11: D03-PB (v0.3.0 proto) has no referenceTaskIds, part metadata, file name, iconUrl", () => {
    const m = rest.downgradeMessage({
      ...msg1,
      referenceTaskIds: ["t0"],
      parts: [{ raw: "AAE=", filename: "a.bin", metadata: { k: 1 } }],
    });
    expect(m.value).toEqual({ messageId: "m1", role: "ROLE_USER", content: [{ file: { fileWithBytes: "AAE=" } }] });
    expect(m.losses.filter((l) => l.id === "L11").map((l) => l.path)).toEqual([
      "/referenceTaskIds",
      "/parts/0/metadata",
      "/parts/0/filename",
    ]);
    expect(ids(rest.downgradeAgentCard({ ...card1, iconUrl: "https://i" }).losses)).toContain("L11");
  });

  it("L14: stateTransitionHistory is dropped towards 1.0", () => {
    const r = rpc.upgradeAgentCard({ ...card3, capabilities: { stateTransitionHistory: true, streaming: true } });
    expect(r.value.capabilities).toEqual({ streaming: true });
    expect(one(r.losses, "L14")?.path).toBe("/capabilities/stateTransitionHistory");
  });

  it("L15: only the first push authentication scheme survives towards 1.0", () => {
    const r = rpc.upgradePushConfig({
      taskId: "t1",
      pushNotificationConfig: { url: "https://h", authentication: { schemes: ["Bearer", "Basic"], credentials: "c" } },
    });
    expect(r.value.authentication).toEqual({ scheme: "Bearer", credentials: "c" });
    expect(one(r.losses, "L15")?.detail).toContain("Basic");
  });

  it("L16: several OAuth flows in one scheme become one (authorizationCode > clientCredentials > password > implicit)", () => {
    const r = rpc.upgradeAgentCard({
      ...card3,
      securitySchemes: {
        o: {
          type: "oauth2",
          flows: {
            implicit: { authorizationUrl: "https://a", scopes: {} },
            clientCredentials: { tokenUrl: "https://t", scopes: { read: "r" } },
          },
        },
      },
    });
    expect(r.value.securitySchemes!.o).toEqual({
      oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://t", scopes: { read: "r" } } } },
    });
    expect(one(r.losses, "L16")?.detail).toContain("implicit");
    const none = rpc.upgradeAgentCard({ ...card3, securitySchemes: { o: { type: "oauth2", flows: {} } } });
    expect(none.value.securitySchemes).toEqual({});
    expect(one(none.losses, "L16")?.path).toBe("/securitySchemes/o/flows");
  });

  it("L17: metadata on tasks/get, resubscribe and push-config get/list/delete params is dropped towards 1.0", () => {
    const md = { metadata: { trace: "x" } };
    expect(one(rpc.upgradeGetTaskRequest({ id: "t1", ...md }).losses, "L17")?.path).toBe("/metadata");
    expect(ids(rpc.upgradeSubscribeToTaskRequest({ id: "t1", ...md }).losses)).toEqual(["L17"]);
    expect(ids(rpc.upgradeGetPushConfigParams({ id: "t1", pushNotificationConfigId: "p", ...md }).losses)).toEqual(["L17"]);
    expect(ids(rpc.upgradeListPushConfigParams({ id: "t1", ...md }).losses)).toEqual(["L17"]);
    expect(ids(rpc.upgradeDeletePushConfigParams({ id: "t1", pushNotificationConfigId: "p", ...md }).losses)).toEqual(["L17"]);
    expect(rpc.upgradeGetTaskRequest({ id: "t1", ...md }).value).toEqual({ id: "t1" });
    // cancel keeps it: 1.0 CancelTaskRequest has metadata
    const cancel = rpc.upgradeCancelTaskRequest({ id: "t1", ...md });
    expect({ value: cancel.value, losses: cancel.losses }).toEqual({ value: { id: "t1", ...md }, losses: [] });
  });

  it("L18: card protocolVersion 0.3.0 becomes interface protocolVersion 0.3", () => {
    const r = rpc.upgradeAgentCard(card3);
    expect(r.value.supportedInterfaces).toEqual([{ url: "https://a.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "0.3" }]);
    expect(one(r.losses, "L18")?.path).toBe("/protocolVersion");
    expect(rpc.upgradeAgentCard({ ...card3, protocolVersion: "0.3" }).losses).toEqual([]);
  });

  it("L19: timestamps without zone or with offsets become UTC with Z; >9 fractional digits are truncated", () => {
    const up = (timestamp: string) => rpc.upgradeTaskStatus({ state: "working", timestamp });
    expect(up("2025-04-02T16:59:25.331844").value.timestamp).toBe("2025-04-02T16:59:25.331844Z");
    expect(up("2025-04-02T18:59:25+02:00").value.timestamp).toBe("2025-04-02T16:59:25Z");
    expect(up("2025-04-02T16:59:25.1234567891Z").value.timestamp).toBe("2025-04-02T16:59:25.123456789Z");
    for (const ts of ["2025-04-02T16:59:25.331844", "2025-04-02T18:59:25+02:00", "2025-04-02T16:59:25.1234567891Z"])
      expect(ids(up(ts).losses)).toEqual(["L19"]);
    expect(up("2025-04-02T16:59:25.331Z").losses).toEqual([]);
    expect(ids(rest.upgradeTaskStatus({ state: "TASK_STATE_WORKING", timestamp: "2025-04-02T18:59:25+02:00" }).losses)).toEqual(["L19"]);
    expect(thrown(() => up("yesterday")).message).toContain("/timestamp");
  });

  it("L20: kind discriminators are stripped towards 1.0 and re-derived towards 0.3; nothing is lost, so nothing is reported", () => {
    const up = rpc.upgradeMessage(msg3);
    expect(up.value).toEqual(msg1);
    expect(up.losses).toEqual([]);
    expect(rpc.downgradeMessage(up.value).value).toEqual(msg3);
  });

  it("L21: final is dropped towards 1.0 and reported with its value", () => {
    const r = rpc.upgradeStatusUpdate({ kind: "status-update", taskId: "t", contextId: "c", status: { state: "completed" }, final: true });
    expect(r.value).toEqual({ taskId: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } });
    expect(one(r.losses, "L21")?.detail).toContain("final=true");
    expect(rest.downgradeStatusUpdate(r.value, true).value.final).toBe(true);
  });

  it("L22: D03-PB blocking false/absent is ambiguous: non-blocking by default, configurable, reported", () => {
    const req: v0_3.pb.SendMessageRequestJson = { message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hi" }] } };
    const r = rest.upgradeSendMessageRequest(req);
    expect(r.value.configuration).toEqual({ returnImmediately: true });
    expect(ids(r.losses)).toEqual(["L22"]);
    expect(rest.upgradeSendMessageRequest(req, { blockingDefault: true }).value.configuration).toBeUndefined();
  });

  it('L23: get push config without pushNotificationConfigId is sent with id "" and reported for resolution', () => {
    const r = rpc.upgradeGetPushConfigParams({ id: "t1" });
    expect(r.value).toEqual({ taskId: "t1", id: "" });
    expect(one(r.losses, "L23")?.path).toBe("/pushNotificationConfigId");
  });

  it("L24: unknown fields are dropped and reported with their path, both directions", () => {
    const up = rpc.upgradeMessage({ ...msg3, "x-vendor": 1 } as v0_3.Message);
    expect(up.value).toEqual(msg1);
    expect(one(up.losses, "L24")?.path).toBe("/x-vendor");
    const down = rest.downgradeTask({ id: "t", status: { state: "TASK_STATE_WORKING" }, extra: true } as v1_0.TaskJson);
    expect(one(down.losses, "L24")?.path).toBe("/extra");
  });

  it("L25: integers beyond 2^53 inside metadata/data are passed on and reported", () => {
    const big = 2 ** 60;
    const r = rpc.upgradeMessage({ ...msg3, metadata: { n: big } });
    expect(r.value.metadata).toEqual({ n: big });
    expect(one(r.losses, "L25")?.path).toBe("/metadata/n");
  });

  it('L26: a 1.0 task without contextId gets contextId "" in 0.3 JSON-RPC', () => {
    const r = rpc.downgradeTask({ id: "t", status: { state: "TASK_STATE_SUBMITTED" } });
    expect(r.value.contextId).toBe("");
    expect(one(r.losses, "L26")?.path).toBe("/contextId");
  });

  it("L27: an empty 0.3 parts array cannot become a 1.0 message or artifact: InvalidParams carrying the loss id", () => {
    const e = thrown(() => rpc.upgradeMessage({ ...msg3, parts: [] }));
    expect(e.code).toBe(-32602);
    expect(e.metadata.loss).toBe("L27");
    expect(e.message).toContain("/parts");
    expect(thrown(() => rest.upgradeArtifact({ artifactId: "a", parts: [] })).metadata.loss).toBe("L27");
  });

  it("LOSSY.md has one row for each of L1..L28", () => {
    const doc = readFileSync(new URL("../../LOSSY.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| (L\d+) \|/gm)].map((m) => m[1]);
    const all = Array.from({ length: 28 }, (_, i) => `L${i + 1}`);
    expect(rows).toEqual(all);
    expect(Object.keys(LOSS_REGISTER)).toEqual(all);
  });
});
