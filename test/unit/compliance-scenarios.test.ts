// Scenarios (compliance/scenarios/, src/compliance/scenarios.ts): written once, projected onto every
// (version, binding) under the IDs the hand-projected copies had, each step's request encoded by the
// codecs of its pair; every scenario is an ACTS document once our `x-a2a-toolkit` extras are removed;
// and no scenario exists both as a scenario and as case files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { COMPLIANCE_DIR, exchangesOf, loadCases, writtenTwice } from "../../src/compliance/cases.js";
import { projectCall } from "../../src/compliance/projection.js";
import type { CaseExpect } from "../../src/compliance/cases.js";
import type { WireResponse } from "../../src/compliance/http.js";
import { Scope } from "../../src/compliance/match.js";
import { compareResponse } from "../../src/compliance/runner.js";
import { withStepHeaders, withStepWire } from "../../src/compliance/step-wire.js";
import { loadScenarioCases, loadScenarios, pairsOf, ScenarioLoadError, SCENARIOS_DIR } from "../../src/compliance/scenarios.js";

/** The document without our extension keys. */
function withoutExtras(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutExtras);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (k.startsWith("x-") ? [] : [[k, withoutExtras(x)]])));
  return v;
}

describe("scenarios", () => {
  const scenarios = loadScenarios();
  const projected = loadScenarioCases();

  it("project get-task onto all six pairs under the IDs of the copies they replaced", () => {
    const ids = projected.filter((c) => c.scenario === "get-task/returns-completed-task").map((c) => c.id);
    expect(ids.sort()).toEqual(
      ["v0_3/grpc", "v0_3/json-rpc", "v0_3/rest", "v1_0/grpc", "v1_0/json-rpc", "v1_0/rest"].map(
        (p) => `${p}/get-task/returns-completed-task`,
      ),
    );
    // A 1.0-only scenario stays on 1.0.
    expect(projected.filter((c) => c.scenario === "get-task/history-length-zero-omits-history").map((c) => c.version)).toEqual([
      "1.0",
      "1.0",
      "1.0",
    ]);
    expect(projected.length).toBe(scenarios.reduce((n, s) => n + pairsOf(s).length, 0));
  });

  it("send each step in the dialect of its pair, through the codecs", () => {
    const send = (version: "1.0" | "0.3", binding: "json-rpc" | "rest" | "grpc") =>
      projectCall({
        operation: "SendMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } },
        version,
        binding,
        rpcId: "send",
      });
    expect(send("0.3", "json-rpc").body).toEqual({
      jsonrpc: "2.0",
      id: "send",
      method: "message/send",
      params: {
        message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "hi" }] },
        configuration: { blocking: true },
      },
    });
    expect(send("1.0", "rest")).toMatchObject({ method: "POST", path: "/message:send" });
    expect(send("0.3", "grpc").body).toMatchObject({ message: { content: [{ text: "hi" }] } });
    const get = projectCall({ operation: "GetTask", params: { id: "t 1", historyLength: 2 }, version: "0.3", binding: "rest" });
    expect(get).toMatchObject({ method: "GET", path: "/v1/tasks/t%201?historyLength=2" });
  });

  it("check the binding's wire rules on every projected step", () => {
    const c = projected.find((x) => x.id === "v0_3/rest/get-task/unknown-id-returns-task-not-found")!;
    // 0.3 HTTP+JSON has no status table: a 4xx at MUST, the exact 404 at SHOULD.
    expect(c.steps.map((s) => [exchangesOf(s)[0]!.expect.status, s.level])).toEqual([
      [{ $range: [400, 499], $not: { $oneOf: [401, 403] } }, undefined],
      [404, "SHOULD"],
    ]);
    // A step refused with an error of the agent's choice: the pair's form of any error.
    const refused = (id: string) =>
      exchangesOf(projected.find((x) => x.id === `${id}/send-message/mismatched-context-for-task-is-refused`)!.steps[1]!)[0]!.expect;
    expect(refused("v0_3/rest")).toEqual({ status: { $range: [400, 499] } });
    expect(refused("v1_0/grpc")).toEqual({ grpc: { status: { $match: "nonEmptyString", $not: "OK" } } });
    expect(refused("v1_0/json-rpc").body).toMatchObject({ id: "send-2", error: { code: { $match: "integer" } } });
    const rpc = projected.find((x) => x.id === "v1_0/json-rpc/get-task/returns-completed-task")!;
    expect(exchangesOf(rpc.steps[1]!)[0]!.expect.body).toEqual({
      jsonrpc: "2.0",
      id: "get-1",
      result: { $valid: "v1_0.Task" },
      error: { $match: "absent" },
    });
  });

  it("accept any of a step's error types (orErrors) in each binding's form of it", () => {
    const judge = (expect: CaseExpect, res: WireResponse) => compareResponse(expect, res, new Scope(new Map())).length;
    const card = (pair: string) =>
      projected
        .find((x) => x.id === `${pair}/extended-card/without-capability-returns-unsupported-operation`)!
        .steps.map((s) => exchangesOf(s)[0]!.expect);
    const rpcError = (code: number, id: string): WireResponse => ({
      status: 200,
      headers: { "content-type": "application/json" },
      json: { jsonrpc: "2.0", id, error: { code, message: "no" } },
    });
    // 0.3 JSON-RPC: method not found, -32007 or -32004 at MUST; at SHOULD the 0.3 codes only.
    const [must, should] = card("v0_3/json-rpc");
    expect([-32601, -32007, -32004, -32602].map((code) => judge(must!, rpcError(code, "card-rpc")) === 0)).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect([-32601, -32007, -32004].map((code) => judge(should!, rpcError(code, "card-2")) === 0)).toEqual([true, true, false]);
    // 0.3 HTTP+JSON: any client error at MUST (one expectation where both types look alike), 400 or 404 at SHOULD.
    const [rest, exact] = card("v0_3/rest");
    expect(rest!.forms).toBeUndefined();
    expect([400, 404, 409].map((status) => judge(exact!, { status, headers: {} }) === 0)).toEqual([true, true, false]);
    // 1.0 has no alternative: UnsupportedOperationError only.
    expect(judge(card("v1_0/json-rpc")[0]!, rpcError(-32601, "card-1"))).toBeGreaterThan(0);
  });

  it("check a step's own wire (onWire) on the answer as sent, in its scope only, and send its headers", () => {
    const judge = (e: CaseExpect, res: WireResponse) => compareResponse(e, res, new Scope(new Map())).length;
    const send = (pair: string) => exchangesOf(projected.find((x) => x.id === `${pair}/send-message/no-kind-discriminator`)!.steps[0]!)[0]!;
    const task = (kind: boolean) => ({
      id: "t1",
      contextId: "c1",
      status: { state: "TASK_STATE_COMPLETED" },
      artifacts: [{ artifactId: "a1", parts: [{ text: "no-kind", ...(kind ? { kind: "text" } : {}) }] }],
    });
    const rest = (kind: boolean): WireResponse => ({
      status: 200,
      headers: { "content-type": "application/json" },
      json: { task: task(kind) },
    });
    const rpc = (kind: boolean): WireResponse => ({
      status: 200,
      headers: { "content-type": "application/json" },
      json: { jsonrpc: "2.0", id: "send-1", result: { task: task(kind) } },
    });
    // The payload is the body on HTTP+JSON and the result on JSON-RPC; a kind member only the wire shows fails.
    expect(judge(send("v1_0/rest").expect, rest(false))).toBe(0);
    expect(judge(send("v1_0/rest").expect, rest(true))).toBeGreaterThan(0);
    expect(judge(send("v1_0/json-rpc").expect, rpc(false))).toBe(0);
    expect(judge(send("v1_0/json-rpc").expect, rpc(true))).toBeGreaterThan(0);
    // Scopes: general first, the pair's last; headers replace the rule's or leave one out.
    const checks = { "*": { headers: { "x-a": "1" } }, "0.3/rest": { status: 201, payload: { kind: "task" } } };
    expect(withStepWire({ status: 200, body: { $valid: "v0_3.Task" } }, checks, "0.3", "rest")).toEqual({
      status: 201,
      headers: { "x-a": "1" },
      body: { $valid: "v0_3.Task", kind: "task" },
    });
    expect(withStepWire({ body: { id: "s" } }, checks, "0.3", "json-rpc")).toEqual({ body: { id: "s" }, headers: { "x-a": "1" } });
    // A member the rule allows to be absent is asked for once the step checks it (the error's data).
    expect(
      withStepWire(
        { body: { error: { data: { $optional: { $each: {} } } } } },
        { "1.0": { payload: { data: { $some: {} } } } },
        "1.0",
        "json-rpc",
        true,
      ),
    ).toEqual({
      body: { error: { data: { $each: {}, $some: {} } } },
    });
    expect(
      withStepHeaders({ "Content-Type": "application/json", "A2A-Version": "1.0" }, { "a2a-version": null, "A2A-Extensions": "u" }),
    ).toEqual({
      "Content-Type": "application/json",
      "A2A-Extensions": "u",
    });
  });

  it("judge a stream step's wire on its binding's rules and its events on their 1.0 view", () => {
    const stream = (id: string) => {
      const c = projected.find((x) => x.id === `${id}/streaming/echo-stream-starts-with-task-and-ends-at-completion`)!;
      return exchangesOf(c.steps[0]!)[0]!.expect;
    };
    const sse = (events: unknown[]): WireResponse => ({
      status: 200,
      headers: { "content-type": "text/event-stream" },
      events: events.map((json) => ({ data: JSON.stringify(json), json })),
      closed: true,
    });
    const rpc = (result: unknown) => ({ jsonrpc: "2.0", id: "stream-1", result });
    const parts = [{ kind: "text", text: "echo hello-stream" }];
    const status = (state: string, final: boolean) => rpc({ kind: "status-update", taskId: "t", contextId: "c", status: { state }, final });
    const events0_3 = (final: boolean) => [
      rpc({ kind: "task", id: "t", contextId: "c", status: { state: "submitted" } }),
      rpc({ kind: "artifact-update", taskId: "t", contextId: "c", artifact: { artifactId: "a", parts } }),
      status("completed", final),
    ];
    const judge = (expect: CaseExpect, res: WireResponse) => compareResponse(expect, res, new Scope(new Map())).map((d) => d.path);
    // The 0.3 events, decoded to 1.0, meet the scenario's expectations; 0.3's own `final` is a wire rule.
    expect(judge(stream("v0_3/json-rpc"), sse(events0_3(true)))).toEqual([]);
    expect(judge(stream("v0_3/json-rpc"), sse(events0_3(false)))).toEqual(["/events/2/result/final"]);
    // A 1.0 stream that stops at WORKING misses the scenario's last event, on the view.
    const events1_0 = [
      rpc({ task: { id: "t", contextId: "c", status: { state: "TASK_STATE_SUBMITTED" } } }),
      rpc({ artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ text: "echo hello-stream" }] } } }),
      rpc({ statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } }),
    ];
    expect(judge(stream("v1_0/json-rpc"), sse(events1_0))).toEqual(["/view/events/2/statusUpdate/status/state"]);
    // The envelope is the wire rule's: the same events without it are no JSON-RPC stream.
    expect(judge(stream("v1_0/json-rpc"), sse(events1_0.map((e) => e.result)))).toContain("/events/0/jsonrpc");
  });

  it("are ACTS documents once the x-a2a-toolkit extras are removed (ACTS §2, §3.2, §4)", () => {
    const schema = JSON.parse(readFileSync(join(COMPLIANCE_DIR, "acts", "acts.schema.json"), "utf8")) as { definitions: object };
    const compile = (s: object) => new Ajv({ allErrors: true, strict: false }).compile(s);
    const doc = compile(schema);
    const test = compile({ definitions: schema.definitions, $ref: "#/definitions/test" });
    const server = compile({ definitions: schema.definitions, $ref: "#/definitions/serverStep" });
    const raw = compile({ definitions: schema.definitions, $ref: "#/definitions/rawStep" });
    // A wire scenario's steps are ACTS §4.4 raw steps.
    const stepProblems = (x: unknown) => {
      const v = (x as { raw?: unknown }).raw !== undefined ? raw : server;
      return v(x) ? [] : [v.errors];
    };
    const problems = scenarios.flatMap((s) => {
      const d = withoutExtras(parse(readFileSync(s.file, "utf8"))) as { suites: { tests: { steps: unknown[] }[] }[] };
      const t = d.suites[0]!.tests[0]!;
      return [doc(d) ? [] : [doc.errors], test(t) ? [] : [test.errors], t.steps.map(stepProblems)]
        .flat(2)
        .map((e) => `${s.name}: ${JSON.stringify(e)}`);
    });
    expect(problems).toEqual([]);
  });

  it("exist once: a case file of a scenario for any version or binding is refused", () => {
    expect(() => loadCases()).not.toThrow();
    const files = [
      { id: "v0_3/json-rpc/get-task/returns-completed-task" },
      { id: "v1_0/rest/get-task/reply-is-camel-case-with-utc-timestamps" },
      { id: "v1_0/json-rpc/streaming/concurrent-subscribers-all-see-completion" },
    ];
    // A wire scenario (per-binding raw steps) is a scenario like any other.
    expect(writtenTwice(files, projected)).toEqual([
      "v0_3/json-rpc/get-task/returns-completed-task: also written as the scenario compliance/scenarios/get-task/returns-completed-task.yaml; delete one",
      "v1_0/rest/get-task/reply-is-camel-case-with-utc-timestamps: also written as the scenario compliance/scenarios/get-task/reply-is-camel-case-with-utc-timestamps.yaml; delete one",
    ]);
  });

  it("name every problem of a scenario file", () => {
    const dir = mkdtempSync(join(tmpdir(), "scenario-bad-"));
    try {
      mkdirSync(join(dir, "get-task"));
      writeFileSync(
        join(dir, "get-task", "bad.yaml"),
        [
          'acts_version: "1.0"',
          'spec_version: "1.0"',
          "suites:",
          "  - id: get-task",
          "    name: x",
          "    tests:",
          "      - id: bad",
          "        name: x",
          "        level: must",
          "        steps:",
          "          - id: a",
          "            operation: fetch_task",
          "            params: {}",
          "            expect: { body: { id: { $match: nothing } } }",
          "        x-a2a-toolkit: { requirements: {}, spec: {} }",
        ].join("\n"),
      );
      expect(() => loadScenarios(dir)).toThrow(ScenarioLoadError);
      expect(() => loadScenarios(dir)).toThrow(/fetch_task" is no ACTS §4\.1 operation[\s\S]*unknown kind "nothing"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("live in the scenarios directory", () => {
    expect(scenarios.every((s) => s.file.startsWith(SCENARIOS_DIR))).toBe(true);
  });
});
