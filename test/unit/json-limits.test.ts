import { describe, expect, it } from "vitest";
import { jsonLimitIssue, MAX_JSON_DEPTH } from "../../src/runtime/json-limits.js";

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

describe("jsonLimitIssue", () => {
  it("accepts ordinary values, and nesting up to the limit", () => {
    expect(jsonLimitIssue({ a: [1, "x", null, { b: true }] })).toBeUndefined();
    expect(jsonLimitIssue(nested(MAX_JSON_DEPTH))).toBeUndefined();
  });

  it("names the path of a non-finite number", () => {
    expect(jsonLimitIssue({ metadata: { "a/b": [0, Infinity] } })).toEqual({
      path: "/metadata/a~1b/1",
      message: expect.stringMatching(/finite/),
    });
    expect(jsonLimitIssue(JSON.parse('{"x":-1e999}'))?.path).toBe("/x");
    expect(jsonLimitIssue(NaN)?.path).toBe("");
  });

  it("refuses nesting past the limit, iteratively (100,000 levels do not exhaust the stack)", () => {
    expect(jsonLimitIssue(nested(MAX_JSON_DEPTH + 1))?.message).toMatch(/nested deeper than 100/);
    expect(jsonLimitIssue(nested(100_000))?.message).toMatch(/nested deeper/);
  });
});
