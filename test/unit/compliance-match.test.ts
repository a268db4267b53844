import { describe, expect, it } from "vitest";
import { Scope, firstNonCamelKey, match, render, valueAt } from "../../src/compliance/match.js";

const paths = (d: { path: string }[]) => d.map((x) => x.path);

describe("match: literals and partial objects", () => {
  it("accepts extra members but reports each missing or different one at its own pointer", () => {
    expect(match({ a: 1, b: { c: "x" } }, { a: 1, b: { c: "x", extra: true }, more: 2 })).toEqual([]);
    const d = match({ a: 1, b: { c: "x", d: 2 } }, { a: 2, b: { c: "y" } });
    expect(paths(d)).toEqual(["/a", "/b/c", "/b/d"]);
    expect(d[2]?.message).toMatch(/missing/);
  });

  it("compares arrays element by element and reports a length difference once", () => {
    expect(match([1, 2], [1, 2])).toEqual([]);
    const d = match([1, 2, 3], [1, 5]);
    expect(paths(d)).toEqual(["", "/1"]);
    expect(d[0]?.message).toBe("expected 3 item(s), got 2");
  });

  it("does not coerce types (1 is not '1', null is not absent)", () => {
    expect(paths(match({ id: 1 }, { id: "1" }))).toEqual(["/id"]);
    expect(paths(match({ id: null }, {}))).toEqual(["/id"]);
    expect(match({ id: null }, { id: null })).toEqual([]);
  });

  it("escapes JSON Pointer segments", () => {
    expect(paths(match({ "a/b": { "c~d": 1 } }, { "a/b": { "c~d": 2 } }))).toEqual(["/a~1b/c~0d"]);
  });
});

describe("match: operators", () => {
  it("named kinds", () => {
    expect(match({ $match: "nonEmptyString" }, "")).toHaveLength(1);
    expect(match({ $match: "uuid" }, crypto.randomUUID())).toEqual([]);
    expect(match({ $match: "uuid" }, "task-1")).toHaveLength(1);
    expect(match({ $match: "timestamp" }, "2025-04-02T16:59:35.331Z")).toEqual([]);
    expect(match({ $match: "timestamp" }, "2025-04-02T16:59:35.331+02:00")).toHaveLength(1);
    expect(match({ $match: "timestamp" }, "2025-04-02T16:59:35.331844")).toHaveLength(1);
    expect(match({ $match: "datetime" }, "2025-04-02T16:59:35.331844")).toEqual([]);
    expect(match({ $match: "integer" }, 1.5)).toHaveLength(1);
    expect(match({ a: { $match: "absent" } }, { a: 0 })).toHaveLength(1);
    expect(match({ a: { $match: "absent" } }, {})).toEqual([]);
  });

  it("$optional allows absence but checks a present value", () => {
    expect(match({ a: { $optional: false } }, {})).toEqual([]);
    expect(match({ a: { $optional: false } }, { a: false })).toEqual([]);
    expect(paths(match({ a: { $optional: false } }, { a: true }))).toEqual(["/a"]);
  });

  it("$oneOf reports the closest alternative's differences", () => {
    expect(match({ $oneOf: [-32601, -32009] }, -32009)).toEqual([]);
    const d = match(
      {
        $oneOf: [
          { a: 1, b: 2 },
          { a: 1, c: 3 },
        ],
      },
      { a: 1, b: 5 },
    );
    expect(paths(d)).toEqual(["/b"]);
    expect(d[0]?.message).toMatch(/closest of 2 alternatives/);
  });

  it("$each, $some, $length, $range, $regex, $includes, $not", () => {
    expect(paths(match({ $each: { ok: true } }, [{ ok: true }, { ok: false }]))).toEqual(["/1/ok"]);
    expect(match({ $some: { ok: false } }, [{ ok: true }, { ok: false }])).toEqual([]);
    expect(match({ $some: { ok: 3 } }, [{ ok: true }])).toHaveLength(1);
    expect(match({ $length: 2 }, [1])).toHaveLength(1);
    expect(match({ $range: [400, 499] }, 404)).toEqual([]);
    expect(match({ $range: [400, 499] }, 500)).toHaveLength(1);
    expect(match({ $regex: "^text/event-stream" }, "text/event-stream; charset=utf-8")).toEqual([]);
    expect(match({ $includes: "hello" }, "say hello")).toEqual([]);
    expect(match({ $not: "a" }, "b")).toEqual([]);
    expect(match({ $not: "a" }, "a")).toHaveLength(1);
    expect(match({ $not: "a" }, undefined)).toHaveLength(1);
  });

  it("$base64urlJson decodes a base64url string and matches the JSON inside", () => {
    const header = Buffer.from(JSON.stringify({ alg: "ES256", kid: "k1" })).toString("base64url");
    expect(match({ $base64urlJson: { alg: { $match: "nonEmptyString" }, kid: "k1" } }, header)).toEqual([]);
    expect(match({ $base64urlJson: { kid: "k2" } }, header)).toHaveLength(1);
    expect(match({ $base64urlJson: {} }, header + "=")[0]?.message).toMatch(/base64url/);
    expect(match({ $base64urlJson: {} }, Buffer.from("not json").toString("base64url"))[0]?.message).toMatch(/not JSON/);
  });

  it("$sorted checks the order of an array by a member, timestamps as instants", () => {
    const desc = { $sorted: { by: "/status/timestamp", order: "desc" } };
    const items = (...ts: string[]) => ts.map((t) => ({ status: { timestamp: t } }));
    expect(match(desc, items("2025-01-02T00:00:00Z", "2025-01-01T23:59:59.5Z", "2025-01-01T00:00:00Z"))).toEqual([]);
    const d = match(desc, items("2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z"));
    expect(d.map((x) => x.path)).toEqual(["/1/status/timestamp"]);
    expect(d[0]?.message).toMatch(/not sorted descending/);
    expect(match({ $sorted: { by: "/n", order: "asc" } }, [{ n: 1 }, {}])[0]?.message).toMatch(/no value at \/n/);
  });

  it("$valid runs the generated validator and points at the offending member", () => {
    const task = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };
    expect(match({ $valid: "v1_0.Task" }, task)).toEqual([]);
    const d = match({ result: { $valid: "v1_0.Task" } }, { result: { id: "t1" } });
    expect(d).toHaveLength(1);
    expect(d[0]?.path).toBe("/result/status");
    expect(d[0]?.message).toMatch(/not a valid v1_0.Task: required field "status" is missing/);
    expect(match({ $valid: "v0_3.Task" }, { kind: "task", id: "t", contextId: "c", status: { state: "completed" } })).toEqual([]);
    expect(match({ $valid: "v0_3.rest.Task" }, { id: "t", contextId: "c", status: { state: "TASK_STATE_CANCELLED" } })).toEqual([]);
    expect(match({ $valid: "v9_9.Task" }, {})[0]?.message).toMatch(/unknown validator/);
  });

  it("operators and ordinary members combine", () => {
    const exp = { $valid: "v1_0.Task", status: { state: "TASK_STATE_COMPLETED" } };
    expect(paths(match(exp, { id: "t", status: { state: "TASK_STATE_WORKING" } }))).toEqual(["/status/state"]);
  });

  it("camelCaseKeys finds snake_case outside free-form payloads", () => {
    expect(firstNonCamelKey({ task: { contextId: "c", metadata: { any_key: 1 }, parts: [{ data: { x_y: 1 } }] } })).toBeUndefined();
    expect(firstNonCamelKey({ task: { context_id: "c" } })).toBe("/task/context_id");
    const d = match({ result: { $match: "camelCaseKeys" } }, { result: { status: { task_state: 1 } } });
    expect(d[0]?.path).toBe("/result/status/task_state");
  });
});

describe("captures and templates", () => {
  it("captures into the scope and compares later references exactly", () => {
    const scope = new Scope(new Map());
    expect(match({ id: { $capture: "taskId", $match: "nonEmptyString" } }, { id: "t-1" }, "", scope)).toEqual([]);
    expect(scope.staged.get("taskId")).toBe("t-1");
    expect(match({ again: "{{taskId}}" }, { again: "t-1" }, "", scope)).toEqual([]);
    expect(paths(match({ again: "{{taskId}}" }, { again: "t-2" }, "", scope))).toEqual(["/again"]);
    expect(match({ $includes: "{{taskId}}" }, "task t-1 done", "", scope)).toEqual([]);
    expect(match({ $includes: "{{taskId}}" }, "task t-2 done", "", scope)).toHaveLength(1);
  });

  it("does not capture when the value fails its checks, and names an unknown variable", () => {
    const scope = new Scope(new Map());
    expect(match({ $capture: "x", $match: "number" }, "no", "", scope)).toHaveLength(1);
    expect(scope.staged.has("x")).toBe(false);
    expect(match("{{nope}}", "v", "", scope)[0]?.message).toMatch(/variable "nope" was not captured/);
  });

  it("keeps captures of a failed $oneOf branch out of the scope", () => {
    const scope = new Scope(new Map());
    match({ $oneOf: [{ a: { $capture: "x" }, b: 1 }, { c: 1 }] }, { a: 5, b: 2 }, "", scope);
    expect(scope.staged.has("x")).toBe(false);
  });

  it("render substitutes variables; whole-string references keep their type; uuid variables are stable per case", () => {
    const vars = new Map<string, unknown>([
      ["taskId", "t-9"],
      ["n", 7],
    ]);
    const out = render({ path: "/tasks/{{taskId}}:cancel", id: "{{n}}", m1: "{{uuid:m1}}", again: "x-{{uuid:m1}}" }, vars) as Record<
      string,
      string
    >;
    expect(out.path).toBe("/tasks/t-9:cancel");
    expect(out.id).toBe(7);
    expect(out.m1).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.again).toBe(`x-${out.m1}`);
    vars.set("token", "a+b/c=");
    expect(render("/tasks?pageToken={{url:token}}", vars)).toBe("/tasks?pageToken=a%2Bb%2Fc%3D");
    expect(() => render("{{missing}}", vars)).toThrow(/variable "missing" was not captured/);
  });

  it("valueAt reads JSON Pointers", () => {
    expect(valueAt({ a: [{ "b/c": 3 }] }, "/a/0/b~1c")).toBe(3);
    expect(valueAt({ a: 1 }, "/x/y")).toBeUndefined();
  });
});

describe("match: null counts as absent (ProtoJSON reads null as unset)", () => {
  it("$optional and absent accept null; nonNull requires a present, non-null value", () => {
    expect(match({ error: { code: -32001, data: { $optional: { $match: "array" } } } }, { error: { code: -32001, data: null } })).toEqual(
      [],
    );
    expect(match({ result: { $match: "absent" } }, { result: null })).toEqual([]);
    expect(paths(match({ nextPageToken: { $match: "nonNull" } }, { nextPageToken: null }))).toEqual(["/nextPageToken"]);
    expect(paths(match({ nextPageToken: { $match: "nonNull" } }, {}))).toEqual(["/nextPageToken"]);
    expect(match({ nextPageToken: { $match: "nonNull" } }, { nextPageToken: "" })).toEqual([]);
  });
  it("$valid drops null message fields before validating, but not nulls inside a Struct", () => {
    const task = { id: "t1", contextId: null, status: { state: "TASK_STATE_WORKING", message: null }, metadata: { k: null } };
    expect(match({ $valid: "v1_0.Task" }, task)).toEqual([]);
  });
});

describe("match: the strict layer of $valid", () => {
  const task = (over: Record<string, unknown> = {}, status: Record<string, unknown> = {}) => ({
    id: "t1",
    contextId: "c1",
    status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-02T03:04:05.123456Z", ...status },
    ...over,
  });
  const problem = (name: string, v: unknown) => match({ $valid: name }, v).map((d) => `${d.path}: ${d.message}`);
  it("1.0: refuses timestamps with an offset other than Z (§5.6.1), accepts microseconds", () => {
    expect(problem("v1_0.Task", task())).toEqual([]);
    expect(problem("v1_0.Task", task({}, { timestamp: "2026-01-02T03:04:05+01:00" }))[0]).toMatch(/^\/status\/timestamp: .*UTC with a "Z"/);
    expect(problem("v1_0.Task", task({}, { timestamp: "2026-01-02T03:04:05+00:00" }))).toHaveLength(1);
  });
  it("1.0: refuses *_UNSPECIFIED and empty strings in REQUIRED fields (§5.7), but not the final page token (§3.1.4)", () => {
    expect(problem("v1_0.Task", task({}, { state: "TASK_STATE_UNSPECIFIED" }))[0]).toMatch(/^\/status\/state: .*TASK_STATE_UNSPECIFIED/);
    expect(problem("v1_0.Task", task({ id: "" }))[0]).toMatch(/^\/id: .*empty string/);
    expect(problem("v1_0.ListTasksResponse", { tasks: [], nextPageToken: "", pageSize: 50, totalSize: 0 })).toEqual([]);
  });
  it("1.0: refuses snake_case members (§5.5), not unknown camelCase ones nor Struct keys", () => {
    expect(problem("v1_0.Task", task({ context_id: "c1" }))[0]).toMatch(/^\/context_id: .*snake_case/);
    expect(problem("v1_0.Task", task({ kind: "task", metadata: { snake_key: 1 } }))).toEqual([]);
  });
  it("0.3 HTTP+JSON: the members the 0.3 JSON Schema requires, so {} is no Task", () => {
    expect(problem("v0_3.rest.Task", {})[0]).toMatch(/required property 'contextId'/);
    expect(problem("v0_3.rest.Task", { id: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } })).toEqual([]);
    expect(problem("v0_3.rest.SendMessageResponse", { task: {} })[0]).toMatch(/^\/task: .*required property/);
    expect(problem("v0_3.rest.SendMessageResponse", { message: { messageId: "m", role: "ROLE_AGENT" } })[0]).toMatch(
      /required property 'content'/,
    );
  });
});

describe("match: $branch", () => {
  const reply = {
    $branch: [
      { name: "task", if: { task: { $match: "object" } }, then: { task: { id: { $capture: "taskId", $match: "nonEmptyString" } } } },
      { name: "message", if: { message: { messageId: { $capture: "messageId" } } } },
    ],
  };

  it("takes the first alternative whose if matches, records its name and keeps the captures of if and then", () => {
    const scope = new Scope(new Map());
    expect(match({ result: reply }, { result: { message: { messageId: "m1" } } }, "", scope)).toEqual([]);
    expect(scope.chosen.get("/result")).toBe("message");
    expect(scope.staged.get("messageId")).toBe("m1");
    const s2 = new Scope(new Map());
    expect(match({ result: reply }, { result: { task: { id: "t1" } } }, "", s2)).toEqual([]);
    expect([s2.chosen.get("/result"), s2.staged.get("taskId")]).toEqual(["task", "t1"]);
  });

  it("a taken branch must match its then; its failure is not rescued by a later branch", () => {
    const scope = new Scope(new Map());
    const diffs = match({ result: reply }, { result: { task: { id: "" }, message: { messageId: "m1" } } }, "", scope);
    expect(diffs.map((d) => d.path)).toEqual(["/result/task/id"]);
    expect(scope.staged.has("messageId")).toBe(false);
  });

  it("no if matching: one diff naming the branches and what the value is; captures of missed ifs discarded", () => {
    const scope = new Scope(new Map());
    const alt = {
      $branch: [
        { name: "a", if: { x: { $capture: "x" }, y: 1 } },
        { name: "b", if: { z: 1 } },
      ],
    };
    const diffs = match(alt, { x: 5, y: 2 }, "/body", scope);
    expect(diffs.map((d) => `${d.path} ${d.message}`)).toEqual(["/body matches none of: a, b (got an object with x, y)"]);
    expect(scope.staged.has("x")).toBe(false);
    expect(match(alt, "text")[0]?.message).toBe('matches none of: a, b (got "text")');
  });
});
