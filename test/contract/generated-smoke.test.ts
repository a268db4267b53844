import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import * as v0_3 from "../../generated/v0_3/index.js";
import { decode, encode } from "../../src/runtime/protojson.js";
import { check } from "../../src/runtime/validation.js";

describe("generated code", () => {
  it("1.0 codec output for a listed page passes the 1.0 validator, with the A2A overrides applied", () => {
    const page = create(v1_0.ListTasksResponseSchema, {});
    const json = encode(v1_0.ListTasksResponseSchema, page, { alwaysEmit: v1_0.alwaysEmit });
    expect(json).toEqual({ tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 });
    expect(check(v1_0.validators.ListTasksResponse, json)).toBeUndefined();
  });

  it("1.0 decode rejects two members of a oneof", () => {
    expect(() => decode(v1_0.PartSchema, { text: "a", url: "b" })).toThrow(/oneof/);
  });

  it("0.3 validators accept a 0.3 task and reject a 1.0-shaped state", () => {
    const task = { kind: "task", id: "t", contextId: "c", status: { state: "working" } };
    expect(check(v0_3.validators.Task, task)).toBeUndefined();
    const bad = check(v0_3.validators.Task, { ...task, status: { state: "TASK_STATE_WORKING" } });
    expect(bad?.path).toBe("/status/state");
  });
});
