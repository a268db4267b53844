// A ProtoJSON reader accepts more than a sender may emit: enum numbers, proto field names and
// null for unset fields (a2a-wire.md §6.1; client rule C-08). The 1.0 codec judges such input in
// its canonical form instead of refusing it, and still refuses what is wrong in any spelling.
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { codecFor } from "../../src/versioning/codec.js";

const codec = codecFor("1.0", "JSONRPC");

describe("1.0 codec reads every ProtoJSON spelling", () => {
  it("a reply with an enum number and a proto field name decodes like its canonical form", () => {
    const task = codec.decodeResponse("GetTask", { id: "t1", context_id: "c1", status: { state: 3 } }).value;
    expect(task.contextId).toBe("c1");
    expect(task.status?.state).toBe(v1_0.TaskState.COMPLETED);
  });

  it("a request with null for an unset field and a numeric role is accepted", () => {
    const req = codec.decodeRequest("SendMessage", {
      message: { message_id: "m1", role: 1, parts: [{ text: "hi" }] },
      configuration: null,
    }).value;
    expect(req.message?.role).toBe(v1_0.Role.USER);
    expect(req.configuration).toBeUndefined();
  });

  it("what is wrong in every spelling is still refused with the validator's message", () => {
    expect(() => codec.decodeResponse("GetTask", { id: "t1", status: { state: 99 } })).toThrow(/Invalid agent response/);
    expect(() => codec.decodeRequest("SendMessage", { message: { message_id: "m1", role: 1, parts: [] } })).toThrow(/parts/);
  });

  it("the 0.3 HTTP+JSON dialect (also ProtoJSON) reads the same alternates", () => {
    const task = codecFor("0.3", "HTTP+JSON").decodeResponse("GetTask", { id: "t1", context_id: "c1", status: { state: 3 } }).value;
    expect(task.contextId).toBe("c1");
    expect(task.status?.state).toBe(v1_0.TaskState.COMPLETED);
  });
});
