// Which stream events end a stream (src/compliance/stream-end.ts): the runner waits only a short
// grace after one, and judges a stream left open without one as inconclusive, not failed.
import { describe, expect, it } from "vitest";
import { closingEvent, lastState } from "../../src/compliance/stream-end.js";

describe("closingEvent", () => {
  it("1.0, with or without the JSON-RPC envelope: a Message, a terminal or interrupted Task or status update", () => {
    const rpc = (result: unknown) => ({ jsonrpc: "2.0", id: 1, result });
    expect(closingEvent(rpc({ message: { messageId: "m" } }))).toBe("message");
    expect(closingEvent({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } })).toBe("terminal");
    expect(closingEvent(rpc({ task: { status: { state: "TASK_STATE_REJECTED" } } }))).toBe("terminal");
    expect(closingEvent({ statusUpdate: { status: { state: "TASK_STATE_AUTH_REQUIRED" } } })).toBe("interrupted");
    expect(closingEvent(rpc({ statusUpdate: { status: { state: "TASK_STATE_WORKING" } } }))).toBeUndefined();
    expect(closingEvent({ task: { status: { state: "TASK_STATE_SUBMITTED" } } })).toBeUndefined();
    expect(closingEvent({ artifactUpdate: { artifact: {} } })).toBeUndefined();
    expect(closingEvent(rpc(undefined))).toBeUndefined();
    expect(closingEvent({ jsonrpc: "2.0", id: 1, error: { code: -32004, message: "x" } })).toBe("error");
  });

  it("0.3: by kind, state and the final flag", () => {
    expect(closingEvent({ result: { kind: "message" } })).toBe("message");
    expect(closingEvent({ kind: "status-update", status: { state: "canceled" }, final: true })).toBe("terminal");
    expect(closingEvent({ kind: "status-update", status: { state: "input-required" }, final: true })).toBe("interrupted");
    expect(closingEvent({ kind: "status-update", status: { state: "working" }, final: true })).toBe("terminal");
    expect(closingEvent({ kind: "status-update", status: { state: "working" }, final: false })).toBeUndefined();
    expect(closingEvent({ kind: "task", status: { state: "failed" } })).toBe("terminal");
    expect(closingEvent({ kind: "artifact-update", lastChunk: true })).toBeUndefined();
  });

  it("lastState names the latest state a stream reported, either version", () => {
    const ev = (json: unknown) => ({ json });
    expect(
      lastState([
        ev({ task: { status: { state: "TASK_STATE_SUBMITTED" } } }),
        ev({ statusUpdate: { status: { state: "TASK_STATE_WORKING" } } }),
        ev({ artifactUpdate: {} }),
      ]),
    ).toBe("working");
    expect(lastState([ev({ result: { kind: "task", status: { state: "submitted" } } })])).toBe("submitted");
    expect(lastState([ev("not json")])).toBeUndefined();
  });
});
