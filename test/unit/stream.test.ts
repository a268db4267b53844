import { create } from "@bufbuild/protobuf";
import { assert, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decodeStreamEvent } from "../../src/transport/client.js";
import { decodeCall, openStream, type DecodedCall } from "../../src/transport/server.js";
import { SseDecoder } from "../../src/transport/sse.js";
import { A2AError } from "../../src/versioning/errors.js";
import { endsStream, FinalCloser, FinalFlagger, finalFor0_3, subscribeToFinishedTask } from "../../src/versioning/stream.js";

const S = v1_0.TaskState;
const status = (state: v1_0.TaskState) =>
  create(v1_0.StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: "t1", contextId: "c1", status: { state } } } });
const taskEvent = (state: v1_0.TaskState) =>
  create(v1_0.StreamResponseSchema, { payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state } } } });
const messageEvent = create(v1_0.StreamResponseSchema, {
  payload: { case: "message", value: { messageId: "m", role: v1_0.Role.AGENT, parts: [{ content: { case: "text", value: "hi" } }] } },
});

describe("0.3 final flag from 1.0 states (§5.4)", () => {
  it.each([
    ["COMPLETED", S.COMPLETED, true],
    ["FAILED", S.FAILED, true],
    ["CANCELED", S.CANCELED, true],
    ["REJECTED", S.REJECTED, true],
    ["INPUT_REQUIRED", S.INPUT_REQUIRED, true],
    ["SUBMITTED", S.SUBMITTED, false],
    ["WORKING", S.WORKING, false],
    ["AUTH_REQUIRED", S.AUTH_REQUIRED, "lookahead"],
  ] as const)("%s → %s", (_name, state, expected) => {
    expect(finalFor0_3(state)).toBe(expected);
    if (expected === "lookahead") return;
    const f = new FinalFlagger();
    expect(f.push(status(state))).toEqual([{ event: status(state), final: expected }]);
    expect(f.closed).toBe(expected);
  });

  it("AUTH_REQUIRED is final only when the 1.0 stream closes right after it (L13)", () => {
    const last = new FinalFlagger();
    expect(last.push(status(S.AUTH_REQUIRED))).toEqual([]);
    expect(last.end()).toEqual([{ event: status(S.AUTH_REQUIRED), final: true }]);

    const goesOn = new FinalFlagger();
    goesOn.push(status(S.AUTH_REQUIRED));
    expect(goesOn.push(status(S.WORKING))).toEqual([
      { event: status(S.AUTH_REQUIRED), final: false },
      { event: status(S.WORKING), final: false },
    ]);
    expect(goesOn.closed).toBe(false);
  });

  it("closes after a final item and drops what follows", () => {
    const f = new FinalFlagger();
    f.push(status(S.COMPLETED));
    expect(f.closed).toBe(true);
    expect(f.push(taskEvent(S.COMPLETED))).toEqual([]);
    expect(f.end()).toEqual([]);
  });

  it("closes after a Message and after a terminal Task snapshot", () => {
    const m = new FinalFlagger();
    m.push(messageEvent);
    expect(m.closed).toBe(true);
    const t = new FinalFlagger();
    t.push(taskEvent(S.SUBMITTED));
    expect(t.closed).toBe(false);
    t.push(taskEvent(S.FAILED));
    expect(t.closed).toBe(true);
  });

  it("an INPUT_REQUIRED Task snapshot opens a follow-up's stream and does not close it (issue 14)", () => {
    const f = new FinalFlagger();
    expect(f.push(taskEvent(S.INPUT_REQUIRED))).toEqual([{ event: taskEvent(S.INPUT_REQUIRED), final: false }]);
    expect(f.closed).toBe(false);
    expect(f.push(status(S.WORKING))).toEqual([{ event: status(S.WORKING), final: false }]);
    expect(f.push(status(S.COMPLETED))).toEqual([{ event: status(S.COMPLETED), final: true }]);
    expect(f.closed).toBe(true);
  });

  it("tells when a 1.0 stream ends (terminal or interrupted, E9)", () => {
    expect(endsStream(status(S.WORKING))).toBe(false);
    expect(endsStream(status(S.INPUT_REQUIRED))).toBe(true);
    expect(endsStream(status(S.AUTH_REQUIRED))).toBe(true);
    expect(endsStream(taskEvent(S.COMPLETED))).toBe(true);
    // A follow-up's stream starts with the task still INPUT_REQUIRED; its answer comes after.
    expect(endsStream(taskEvent(S.INPUT_REQUIRED))).toBe(false);
    expect(endsStream(messageEvent)).toBe(true);
  });
});

function call(version: "1.0" | "0.3", binding: "JSONRPC" | "HTTP+JSON"): DecodedCall {
  const headers = version === "1.0" ? { "A2A-Version": "1.0" } : {};
  const r =
    binding === "JSONRPC"
      ? decodeCall(
          {
            method: "POST",
            url: "/",
            headers,
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 7,
              method: version === "1.0" ? "SubscribeToTask" : "tasks/resubscribe",
              params: { id: "t1" },
            }),
          },
          { binding },
        )
      : decodeCall({ method: "GET", url: version === "1.0" ? "/tasks/t1:subscribe" : "/v1/tasks/t1:subscribe", headers }, { binding });
  if (r.kind !== "call") throw new Error(r.body);
  return r;
}

const data = (frames: string) => new SseDecoder().feed(frames).map((e) => JSON.parse(e.data));

describe("0.3 streams on the wire", () => {
  it("JSON-RPC items carry final and the stream closes after the final one", () => {
    const s = openStream(call("0.3", "JSONRPC"));
    const working = s.event(status(S.WORKING));
    expect(working.close).toBe(false);
    expect(data(working.frames)[0]).toMatchObject({ id: 7, result: { kind: "status-update", final: false, status: { state: "working" } } });
    const done = s.event(status(S.COMPLETED));
    expect(done.close).toBe(true);
    expect(data(done.frames)[0].result).toMatchObject({ final: true, status: { state: "completed" } });
    expect(s.event(status(S.WORKING))).toEqual({ frames: "", close: true });
  });

  it("REST items carry final inside statusUpdate", () => {
    const s = openStream(call("0.3", "HTTP+JSON"));
    const { frames } = s.event(status(S.INPUT_REQUIRED));
    expect(data(frames)[0]).toEqual({
      statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_INPUT_REQUIRED" }, final: true },
    });
  });

  it("a held AUTH_REQUIRED update is flushed as final when the 1.0 stream ends", () => {
    const s = openStream(call("0.3", "JSONRPC"));
    expect(s.event(status(S.AUTH_REQUIRED))).toEqual({ frames: "", close: false });
    expect(data(s.end())[0].result).toMatchObject({ final: true, status: { state: "auth-required" } });
  });

  it("1.0 items carry no final flag", () => {
    const s = openStream(call("1.0", "JSONRPC"));
    const { frames, close } = s.event(status(S.COMPLETED));
    expect(close).toBe(false); // the 1.0 stream ends when the server closes it
    expect(JSON.stringify(data(frames)[0])).not.toContain("final");
  });
});

describe("0.3 → 1.0 streams (client side, L21)", () => {
  const t = { url: "https://a", binding: "JSONRPC" as const, version: "0.3" as const };
  it("drops final and marks the end after a final item", () => {
    const d = decodeStreamEvent(t, "SendStreamingMessage", {
      jsonrpc: "2.0",
      id: 1,
      result: { kind: "status-update", taskId: "t", contextId: "c", status: { state: "completed" }, final: true },
    });
    expect("event" in d && d.end).toBe(true);
    const more = decodeStreamEvent(t, "SendStreamingMessage", {
      jsonrpc: "2.0",
      id: 1,
      result: { kind: "status-update", taskId: "t", contextId: "c", status: { state: "working" }, final: false },
    });
    expect("event" in more && more.end).toBeFalsy();
  });

  it("also ends after a Message or a terminal Task snapshot, where 0.3 consumers stop (§5.4)", () => {
    const msg = decodeStreamEvent(t, "SendStreamingMessage", {
      jsonrpc: "2.0",
      id: 1,
      result: { kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text", text: "hi" }] },
    });
    expect("event" in msg && msg.end).toBe(true);
    const task = (state: string) =>
      decodeStreamEvent(t, "SubscribeToTask", {
        jsonrpc: "2.0",
        id: 1,
        result: { kind: "task", id: "t", contextId: "c", status: { state } },
      });
    const done = task("completed");
    expect("event" in done && done.end).toBe(true);
    const working = task("working");
    expect("event" in working && working.end).toBeFalsy();
    // the snapshot a follow-up's stream starts with (issue 14)
    const asking = task("input-required");
    expect("event" in asking && asking.end).toBeFalsy();
  });

  it("FinalCloser ends the translated stream after final: true", () => {
    const c = new FinalCloser();
    expect(c.accept(status(S.WORKING), false)).toEqual({ event: status(S.WORKING), close: false });
    expect(c.accept(status(S.COMPLETED), true)?.close).toBe(true);
    expect(c.accept(status(S.WORKING), false)).toBeUndefined();
  });

  it("a mid-stream JSON-RPC error is an error item", () => {
    const d = decodeStreamEvent(t, "SendStreamingMessage", { jsonrpc: "2.0", id: 1, error: { code: -32001, message: "gone" } });
    expect("error" in d && d.error.type).toBe("TaskNotFoundError");
  });

  it("a mid-stream 0.3 REST error is an error item in either body shape", () => {
    const rest = { ...t, binding: "HTTP+JSON" as const };
    const top = decodeStreamEvent(rest, "SendStreamingMessage", { code: -32001, message: "gone" });
    expect("error" in top && top.error.type).toBe("TaskNotFoundError");
    const ours = data(openStream(call("0.3", "HTTP+JSON")).error(new A2AError("TaskNotCancelableError")))[0];
    expect(ours).toMatchObject({ code: -32002, message: expect.any(String), error: { code: 400, status: "FAILED_PRECONDITION" } });
    const back = decodeStreamEvent(rest, "SendStreamingMessage", ours);
    expect("error" in back && back.error.type).toBe("TaskNotCancelableError");
  });
});

describe("subscribing to a finished task (§5.5)", () => {
  const done = create(v1_0.TaskSchema, { id: "t1", contextId: "c1", status: { state: S.COMPLETED } });

  it("1.0 answers UnsupportedOperation", () => {
    let err: unknown;
    try {
      subscribeToFinishedTask("1.0", done);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).code).toBe(-32004);
  });

  it("0.3 (tasks/resubscribe) gets the task, then the stream closes", () => {
    const events = subscribeToFinishedTask("0.3", done);
    expect(events).toHaveLength(1);
    const s = openStream(call("0.3", "JSONRPC"));
    const [event] = events;
    assert(event);
    const out = s.event(event);
    expect(out.close).toBe(true);
    expect(data(out.frames)[0].result).toMatchObject({ kind: "task", id: "t1", status: { state: "completed" } });
  });
});
