import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { check, interpolate, pathValues, untilHolds, UnresolvedVariableError, type Vars } from "../../src/compliance/acts/assert.js";
import { applicability, checkNamed, checkStream } from "../../src/compliance/acts/execute.js";

const vars = (captures: Record<string, unknown> = {}, document: Record<string, string> = {}): Vars => ({
  captures: new Map(Object.entries(captures)),
  document,
  env: { HOME_URL: "http://x" },
});
const y = (text: string) => parse(text) as unknown;

const task = {
  id: "t1",
  status: { state: "TASK_STATE_COMPLETED" },
  artifacts: [{ parts: [{ text: "a" }, { data: { k: 1 } }] }],
  history: [],
};

describe("ACTS assertions (§5)", () => {
  it("nested maps mirror the object; bare values are equality", () => {
    expect(check(y("status: {state: TASK_STATE_COMPLETED}"), task, "", vars())).toBeUndefined();
    const f = check(y("status: {state: TASK_STATE_WORKING}"), task, "", vars());
    expect(f).toMatchObject({ path: "status.state", expected: "TASK_STATE_WORKING", actual: "TASK_STATE_COMPLETED" });
  });

  it("operators combine with AND; any_of / one_of take alternatives, not negates", () => {
    expect(check(y("{type: array, count: 0}"), [], "h", vars())).toBeUndefined();
    expect(check(y("{type: array, count_gte: 1}"), [], "h", vars())?.message).toMatch(/at least 1/);
    expect(check(y("{any_of: [{absent: true}, {type: array, count: 0}]}"), undefined, "h", vars())).toBeUndefined();
    expect(check(y("{one_of: [{task: {exists: true}}, {message: {exists: true}}]}"), { message: {} }, "", vars())).toBeUndefined();
    expect(check(y("{not: {contains: x}}"), "abc", "", vars())).toBeUndefined();
    expect(check(y("{matches: '^a.c$', starts_with: a, ends_with: c, contains: b}"), "abc", "", vars())).toBeUndefined();
    expect(check(y("{gte: 1, lt: 3}"), 3, "n", vars())?.message).toMatch(/lt 3/);
  });

  it("a list checks elements by position; `type` with a map value names a field", () => {
    expect(check(y("artifacts: [{parts: [{text: a}, {data: {type: object}}]}]"), task, "", vars())).toBeUndefined();
    expect(check(y("artifacts: [{parts: [{text: b}]}]"), task, "", vars())?.path).toBe("artifacts[0].parts[0].text");
    expect(check(y("type: {type: string}"), { type: "about:blank" }, "", vars())).toBeUndefined();
    expect(check(y("type: {type: string}"), { type: 3 }, "", vars())?.path).toBe("type");
  });

  it("reads the corpus's `items` beside array operators: every element (map) or by position (list)", () => {
    expect(check(y("{type: array, items: {id: {exists: true}}}"), [{ id: 1 }, { id: 2 }], "s", vars())).toBeUndefined();
    expect(check(y("{type: array, items: {id: {exists: true}}}"), [{ id: 1 }, {}], "s", vars())?.path).toBe("s[1].id");
    expect(check(y("{count_gte: 1, items: [{id: 2}]}"), [{ id: 1 }], "s", vars())?.path).toBe("s[0].id");
  });

  it("resolves variables by §12.2 precedence and fails on an unknown one", () => {
    const v = vars({ "send.taskId": "t1", "send.response": task }, { base: "{{env.HOME_URL}}/a", taskId: "doc" });
    expect(interpolate({ id: "{{send.taskId}}", url: "{{base}}" }, v)).toEqual({ id: "t1", url: "http://x/a" });
    expect(interpolate("{{send.response}}", v)).toBe(task);
    expect(interpolate("{{$uuid}}", v)).toMatch(/^[0-9a-f-]{36}$/);
    expect(check("{{send.taskId}}", "t1", "id", v)).toBeUndefined();
    expect(() => interpolate("{{nope.x}}", v)).toThrow(UnresolvedVariableError);
  });

  it("dot-paths index and fan out with [*]", () => {
    expect(pathValues(task, "artifacts[0].parts[*]")).toHaveLength(2);
    expect(pathValues(task, "artifacts[*].parts[1].data.k")).toEqual([1]);
    expect(pathValues(task, "status.nope")).toEqual([]);
  });

  it("until expressions (§9.1)", () => {
    expect(untilHolds("status.state == TASK_STATE_COMPLETED", task)).toBe(true);
    expect(untilHolds("status.state != TASK_STATE_COMPLETED", task)).toBe(false);
    expect(untilHolds("status.state in [TASK_STATE_FAILED, TASK_STATE_COMPLETED]", task)).toBe(true);
    expect(() => untilHolds("status.state ~ x", task)).toThrow(/§9.1/);
  });

  it("collection assertions (§5.5): any, all, none over a captured response", () => {
    const v = vars({ "send.response": { task } });
    expect(
      checkNamed(y("{source: '{{send.response}}', any: {path: 'task.artifacts[*].parts[*]', match: {data: {type: object}}}}") as never, v),
    ).toBeUndefined();
    expect(
      checkNamed(y("{source: '{{send.response}}', all: {path: 'task.artifacts[*].parts[*]', match: {text: {type: string}}}}") as never, v)
        ?.message,
    ).toMatch(/not every element/);
    expect(
      checkNamed(y("{source: '{{send.response}}', none: {path: 'task.artifacts[*].parts[*]', match: {text: z}}}") as never, v),
    ).toBeUndefined();
  });
});

const status = (state: string) => ({ statusUpdate: { status: { state } }, status: { state }, status_update: { status: { state } } });

describe("ACTS streams (§7)", () => {
  const events = [
    status("TASK_STATE_SUBMITTED"),
    status("TASK_STATE_WORKING"),
    { artifactUpdate: { artifact: { parts: [{ text: "x" }] } } },
    status("TASK_STATE_COMPLETED"),
  ];

  it("counts, positions, any_position, final and each event", () => {
    const spec = y(`
min_count: 2
ordering: monotonic_state
events:
  - status_update: {status: {state: TASK_STATE_SUBMITTED}}
  - index: 3
    status_update: {status: {state: TASK_STATE_COMPLETED}}
  - match: any_position
    artifactUpdate: {artifact: {parts: {count_gte: 1}}}
final_event: {status: {state: {one_of: [TASK_STATE_COMPLETED, TASK_STATE_FAILED]}}}
`) as Record<string, unknown>;
    expect(checkStream(spec, events, vars())).toBeUndefined();
    expect(checkStream({ max_count: 3 }, events, vars())?.message).toMatch(/at most 3/);
    expect(checkStream({ events: [{ match: "any_position", message: { exists: true } }] }, events, vars())?.message).toMatch(
      /no event matches/,
    );
    expect(checkStream({ each_event: { statusUpdate: { exists: true } } }, events, vars())?.path).toBe("events[2].statusUpdate");
  });

  it("monotonic_state: nothing after a terminal state, no return to SUBMITTED", () => {
    const f = checkStream({ ordering: "monotonic_state" }, [...events, status("TASK_STATE_WORKING")], vars());
    expect(f?.message).toMatch(/after the terminal state TASK_STATE_COMPLETED/);
    const g = checkStream({ ordering: "monotonic_state" }, [status("TASK_STATE_WORKING"), status("TASK_STATE_SUBMITTED")], vars());
    expect(g?.message).toMatch(/returns to TASK_STATE_SUBMITTED/);
    expect(
      checkStream(
        { ordering: "monotonic_state" },
        [status("TASK_STATE_WORKING"), status("TASK_STATE_INPUT_REQUIRED"), status("TASK_STATE_WORKING")],
        vars(),
      ),
    ).toBeUndefined();
  });
});

describe("ACTS applicability (§12.3, §12.5)", () => {
  const card = { capabilities: { streaming: true }, skills: [{ id: "s1" }] };
  const test = (extra: Record<string, unknown>) => ({ id: "T", steps: [{ id: "a", operation: "get_task", params: {} }], ...extra });

  it("names the transport filter, precondition or requirement that skips a test", () => {
    expect(applicability(test({}), { binding: "rest", card })).toBeUndefined();
    expect(applicability(test({ transport: ["grpc"] }), { binding: "rest", card })).toMatch(/transport filter \[grpc\]/);
    expect(applicability(test({ preconditions: { capabilities: { pushNotifications: true } } }), { binding: "rest", card })).toMatch(
      /precondition capabilities.pushNotifications: true .*absent/,
    );
    expect(
      applicability(test({ preconditions: { capabilities: { pushNotifications: false } } }), { binding: "rest", card }),
    ).toBeUndefined();
    expect(applicability(test({ preconditions: { skills: [{ id: "s2" }] } }), { binding: "rest", card })).toMatch(/skill s2/);
    expect(applicability(test({ runner_requirements: ["webhook_endpoint"] }), { binding: "rest", card })).toMatch(/webhook_endpoint/);
    expect(applicability(test({ steps: [{ id: "r", raw: { method: "GET", path: "/" } }] }), { binding: "grpc", card })).toMatch(
      /raw HTTP step/,
    );
  });
});
