// One test per row of the loss register (LOSSY.md) that the codec seam implements rather than the
// data-model translators (those are in loss-register.test.ts): L1's routing, L5, L6, L10's trimming,
// L12, L13, L21's stream closing, L23's hand-over, L28. Each asserts the behaviour and that what is
// lost reaches the caller: DecodedCall.losses, HttpReply.losses, openStream's onLoss, WireRequest.losses
// or the returned event's losses.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decodeReply, decodeStreamEvent, encodeCall, type TargetLike } from "../../src/transport/client.js";
import { decodeCall, encodeError, encodeResult, openStream, type DecodedCall, type HttpReply } from "../../src/transport/server.js";
import { SseDecoder } from "../../src/transport/sse.js";
import { A2AError, VALUE_TYPE } from "../../src/versioning/errors.js";
import type { Loss } from "../../src/versioning/loss.js";

const S = v1_0.TaskState;
const ids = (losses: readonly Loss[] | undefined) => (losses ?? []).map((l) => l.id);
const rpcBody = (method: string, params: unknown, id: number | string = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

function rpc0_3(method: string, params: unknown): DecodedCall | HttpReply {
  return decodeCall(
    { method: "POST", url: "/", headers: { "content-type": "application/json" }, body: rpcBody(method, params) },
    { binding: "JSONRPC" },
  );
}
function asCall(r: DecodedCall | HttpReply): DecodedCall {
  if (r.kind !== "call") throw new Error(`expected a call, got ${r.body}`);
  return r;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests inspect wire JSON
function asReply(r: DecodedCall | HttpReply): { status: number; json: any } {
  if (r.kind !== "reply") throw new Error("expected a reply");
  return { status: r.status, json: JSON.parse(r.body) };
}
const frames = (text: string) => new SseDecoder().feed(text).map((e) => JSON.parse(e.data));
const statusEvent = (state: v1_0.TaskState) =>
  create(v1_0.StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: "t1", contextId: "c1", status: { state } } } });
const subscribeCall0_3 = () => asCall(rpc0_3("tasks/resubscribe", { id: "t1" }));
const target = (version: "1.0" | "0.3", binding: "JSONRPC" | "HTTP+JSON", tenant?: string): TargetLike => ({
  url: "https://agent.example/a2a",
  version,
  binding,
  tenant,
});

describe("loss register rows implemented by the codec seam", () => {
  it("L1: a 0.3 call has no tenant; a 1.0 tenant in a reply or a request to a 0.3 peer is dropped and reported", () => {
    // Server: a 0.3 request carries no tenant, so the call's tenant is "" (0.3 tenants are separate URLs).
    const call = asCall(rpc0_3("tasks/pushNotificationConfig/get", { id: "t1", pushNotificationConfigId: "c1" }));
    expect(call.tenant).toBe("");
    // A 1.0 result holding a tenant loses it on the way to the 0.3 client, and says so.
    const config = create(v1_0.TaskPushNotificationConfigSchema, { tenant: "acme", taskId: "t1", id: "c1", url: "https://h.example/w" });
    const reply = encodeResult(call, config as never);
    expect(JSON.parse(reply.body).result).not.toHaveProperty("tenant");
    expect(reply.losses?.find((l) => l.id === "L1")?.path).toBe("/tenant");
    // Client: a target tenant cannot travel to a 0.3 interface (its URL is the tenant's).
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      const wire = encodeCall(target("0.3", binding, "acme"), "GetTask", create(v1_0.GetTaskRequestSchema, { id: "t1" }));
      expect(wire.url + (wire.body ?? "")).not.toContain("acme");
      expect(wire.losses.filter((l) => l.id === "L1")).toHaveLength(1);
      // A tenant stamped on the request itself is reported once, by the translator.
      const stamped = encodeCall(
        target("0.3", binding, "acme"),
        "GetTask",
        create(v1_0.GetTaskRequestSchema, { id: "t1", tenant: "acme" }),
      );
      expect(stamped.losses.filter((l) => l.id === "L1")).toHaveLength(1);
    }
    expect(encodeCall(target("1.0", "HTTP+JSON", "acme"), "GetTask", create(v1_0.GetTaskRequestSchema, { id: "t1" })).losses).toEqual([]);
  });

  it("L5: final is synthesised on the last 0.3 status update; a 1.0 stream that ends without one is reported", () => {
    const lost: Loss[] = [];
    const s = openStream(subscribeCall0_3(), { onLoss: (l) => lost.push(l) });
    expect(frames(s.event(statusEvent(S.WORKING)).frames)[0].result).toMatchObject({ kind: "status-update", final: false });
    const done = s.event(statusEvent(S.COMPLETED));
    expect(done.close).toBe(true);
    expect(frames(done.frames)[0].result).toMatchObject({ final: true, status: { state: "completed" } });
    expect(lost).toEqual([]);
    // What the 1.0 side sends after the 0.3 stream ended is not sent, and that is reported.
    expect(s.event(statusEvent(S.WORKING)).frames).toBe("");
    expect(ids(lost)).toEqual(["L5"]);

    const cut: Loss[] = [];
    const open = openStream(subscribeCall0_3(), { onLoss: (l) => cut.push(l) });
    open.event(statusEvent(S.WORKING));
    expect(open.end()).toBe("");
    expect(ids(cut)).toEqual(["L5"]);
    expect(cut[0]?.direction).toBe("to-0.3");
  });

  it("L6: ListTasks in 0.3 is UnsupportedOperation (-32004), with the loss named in ErrorInfo", () => {
    for (const method of ["ListTasks", "tasks/list"]) {
      const r = asReply(rpc0_3(method, {}));
      expect(r.json.error.code).toBe(-32004);
      expect(r.json.error.data[0].metadata).toMatchObject({ loss: "L6" });
    }
    const rest = asReply(decodeCall({ method: "GET", url: "/v1/tasks", headers: {} }, { binding: "HTTP+JSON" }));
    expect(rest.status).toBe(400);
    expect(rest.json.error.details[0]).toMatchObject({ reason: "UNSUPPORTED_OPERATION", metadata: { loss: "L6" } });
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const)
      expect(() => encodeCall(target("0.3", binding), "ListTasks", create(v1_0.ListTasksRequestSchema, {}))).toThrowError(
        expect.objectContaining({ type: "UnsupportedOperationError", metadata: expect.objectContaining({ loss: "L6" }) }),
      );
  });

  it("L10: historyLength 0 to a 0.3 REST peer is omitted and reported, and the returned history is trimmed to none", () => {
    const t = target("0.3", "HTTP+JSON");
    const wire = encodeCall(t, "GetTask", create(v1_0.GetTaskRequestSchema, { id: "t1", historyLength: 0 }));
    expect(wire.url).toBe("https://agent.example/a2a/v1/tasks/t1");
    expect(ids(wire.losses)).toEqual(["L10"]);
    const task = {
      name: "tasks/t1",
      id: "t1",
      contextId: "c1",
      status: { state: "TASK_STATE_COMPLETED" },
      history: [{ messageId: "m1", role: "ROLE_USER", content: [{ text: "hi" }] }],
    };
    const trimmed = decodeReply(t, "GetTask", { status: 200, json: task }, { sent: wire.losses });
    expect(trimmed.history).toEqual([]);
    expect(trimmed.id).toBe("t1");
    // Without the L10 loss (any other historyLength) the history is the peer's.
    expect(decodeReply(t, "GetTask", { status: 200, json: task }).history).toHaveLength(1);
    // SendMessage: the configuration's historyLength, and the task inside the response.
    const send = create(v1_0.SendMessageRequestSchema, {
      message: { messageId: "m1", role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "hi" } }] },
      configuration: { historyLength: 0 },
    });
    const sent = encodeCall(t, "SendMessage", send);
    expect(sent.losses.find((l) => l.id === "L10")?.path).toBe("/configuration/historyLength");
    const r = decodeReply(t, "SendMessage", { status: 200, json: { task } }, { sent: sent.losses });
    expect(r.payload.case === "task" && r.payload.value.history).toEqual([]);
  });

  it("L12: -32008 and -32009 are sent to a 0.3 JSON-RPC peer as they are, and reported", () => {
    const ctx = { version: "0.3" as const, binding: "JSONRPC" as const, rpcId: 3 };
    for (const type of ["ExtensionSupportRequiredError", "VersionNotSupportedError"] as const) {
      const reply = encodeError(ctx, new A2AError(type));
      expect(JSON.parse(reply.body).error.code).toBe(type === "VersionNotSupportedError" ? -32009 : -32008);
      expect(reply.losses?.map((l) => [l.id, l.path])).toEqual([["L12", "/code"]]);
    }
    expect(encodeError(ctx, new A2AError("TaskNotFoundError")).losses).toBeUndefined();
    expect(encodeError({ ...ctx, version: "1.0" }, new A2AError("VersionNotSupportedError")).losses).toBeUndefined();
    // A header-less request naming an unknown version gets -32009 in the 0.3 envelope.
    const r = decodeCall(
      { method: "POST", url: "/", headers: { "A2A-Version": "0.9" }, body: rpcBody("tasks/get", { id: "t" }) },
      { binding: "JSONRPC" },
    );
    expect(asReply(r).json.error.code).toBe(-32009);
  });

  it("L13: an AUTH_REQUIRED update waits one event for its final flag, and the decision is reported", () => {
    const lost: Loss[] = [];
    const last = openStream(subscribeCall0_3(), { onLoss: (l) => lost.push(l) });
    expect(last.event(statusEvent(S.AUTH_REQUIRED))).toEqual({ frames: "", close: false });
    expect(frames(last.end())[0].result).toMatchObject({ final: true, status: { state: "auth-required" } });
    expect(lost.map((l) => [l.id, l.detail.includes("final=true")])).toEqual([["L13", true]]);

    const goesOn: Loss[] = [];
    const s = openStream(subscribeCall0_3(), { onLoss: (l) => goesOn.push(l) });
    s.event(statusEvent(S.AUTH_REQUIRED));
    const next = frames(s.event(statusEvent(S.WORKING)).frames);
    expect(next.map((f) => [f.result.status.state, f.result.final])).toEqual([
      ["auth-required", false],
      ["working", false],
    ]);
    expect(goesOn.map((l) => [l.id, l.detail.includes("final=false")])).toEqual([["L13", true]]);
  });

  it("L21: final is dropped towards 1.0 (reported) and the translated stream ends after it", () => {
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      const item = { taskId: "t", contextId: "c", final: true };
      const data =
        binding === "JSONRPC"
          ? { jsonrpc: "2.0", id: 1, result: { kind: "status-update", ...item, status: { state: "completed" } } }
          : { statusUpdate: { ...item, status: { state: "TASK_STATE_COMPLETED" } } };
      const d = decodeStreamEvent(target("0.3", binding), "SendStreamingMessage", data);
      if (!("event" in d)) throw d.error;
      expect(d.end).toBe(true);
      expect(d.event.payload.case).toBe("statusUpdate");
      expect(JSON.stringify(d.event.payload.value)).not.toContain("final");
      expect(d.losses.find((l) => l.id === "L21")?.detail).toContain("final=true");
    }
  });

  it('L23: a 0.3 push-config get without a config id reaches the server as id "" with the loss', () => {
    const call = asCall(rpc0_3("tasks/pushNotificationConfig/get", { id: "t1" }));
    expect(call.request).toMatchObject({ taskId: "t1", id: "" });
    expect(call.losses.find((l) => l.id === "L23")?.path).toBe("/pushNotificationConfigId");
    // With the id there is nothing to resolve.
    const withId = asCall(rpc0_3("tasks/pushNotificationConfig/get", { id: "t1", pushNotificationConfigId: "c1" }));
    expect(withId.request).toMatchObject({ taskId: "t1", id: "c1" });
    expect(ids(withId.losses)).not.toContain("L23");
  });

  it("L28: error.data is unwrapped for a 0.3 peer and wrapped when read from one", () => {
    const ctx = { version: "0.3" as const, binding: "JSONRPC" as const, rpcId: 1 };
    // 1.0 → 0.3: the ErrorInfo array is a legal 0.3 value and is kept …
    const kept = JSON.parse(encodeError(ctx, new A2AError("TaskNotFoundError", undefined, { taskId: "t" })).body).error;
    expect(kept.data[0]).toMatchObject({ reason: "TASK_NOT_FOUND", metadata: { taskId: "t" } });
    // … a single google.protobuf.Value detail (it came from 0.3) is unwrapped to the raw value.
    const fromPeer = new A2AError("TaskNotFoundError", "gone", {}, [{ "@type": VALUE_TYPE, value: { hint: "expired" } }]);
    expect(JSON.parse(encodeError(ctx, fromPeer).body).error).toEqual({ code: -32001, message: "gone", data: { hint: "expired" } });
    // 0.3 → 1.0 (client): a non-array data value becomes one Value detail.
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "gone", data: "expired" } });
    let err: unknown;
    try {
      decodeReply(target("0.3", "JSONRPC"), "GetTask", { status: 200, text: body });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).details).toEqual([{ "@type": VALUE_TYPE, value: "expired" }]);
  });
});
