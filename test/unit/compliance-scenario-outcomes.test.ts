// The scenario model's features for outcomes that once needed a wire scenario per pair
// (src/compliance/scenarios.ts; compliance/README.md "Writing a scenario"): a JSON-RPC request id of
// the scenario's choosing (`rpcId`), an error of the agent's choice in the pair's error shape
// (`refused: error`, `orErrors: [error]`), and a step whose status alone is judged and captured to
// branch on (`anyAnswer` with `status`).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exchangesOf, type CaseExpect } from "../../src/compliance/cases.js";
import type { WireResponse } from "../../src/compliance/http.js";
import { Scope } from "../../src/compliance/match.js";
import { compareResponse } from "../../src/compliance/runner.js";
import { anyError } from "../../src/compliance/scenario-outcomes.js";
import { loadScenarioCases } from "../../src/compliance/scenarios.js";
import { WIRE_RULES } from "../../src/compliance/wire-rules.js";

const judge = (expect: CaseExpect, res: WireResponse) => compareResponse(expect, res, new Scope(new Map()));

/** Loads one scenario file of `test` (YAML lines of the test) from a fresh directory. */
function loadOne(lines: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "scenario-outcome-"));
  try {
    mkdirSync(join(dir, "send-message"));
    const head = ['acts_version: "1.0"', 'spec_version: "1.0"', "suites:", "  - id: send-message", "    name: x", "    tests:"];
    writeFileSync(join(dir, "send-message", "t.yaml"), [...head, ...lines.map((l) => `      ${l}`)].join("\n"));
    return loadScenarioCases(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("scenario outcomes", () => {
  const projected = loadScenarioCases();
  const find = (id: string) => projected.find((c) => c.id === id)!;

  it("send a JSON-RPC request id of the step's choosing (rpcId) and ask its echo", () => {
    const c = find("v0_3/json-rpc/send-message/numeric-request-id-is-echoed");
    const [x] = exchangesOf(c.steps[0]!);
    expect(x!.request.body).toMatchObject({ jsonrpc: "2.0", id: 4711, method: "message/send" });
    const reply = (id: unknown): WireResponse => ({
      status: 200,
      headers: { "content-type": "application/json" },
      json: { jsonrpc: "2.0", id, result: { kind: "message", messageId: "a", role: "agent", parts: [] } },
    });
    const wire = { ...x!.expect, view: undefined };
    expect(judge(wire, reply(4711))).toEqual([]);
    // The id as a string, or the step's own id, is no echo.
    expect(judge(wire, reply("4711")).length).toBeGreaterThan(0);
    expect(judge(wire, reply("send-1")).length).toBeGreaterThan(0);
    // Only the JSON-RPC pairs carry the scenario.
    expect(projected.filter((p) => p.scenario === c.scenario).map((p) => p.id)).toEqual([
      "v1_0/json-rpc/send-message/numeric-request-id-is-echoed",
      "v0_3/json-rpc/send-message/numeric-request-id-is-echoed",
    ]);
  });

  it("refuse an rpcId that is no JSON-RPC id", () => {
    const test = (rpcId: string) => [
      "- id: t",
      "  name: x",
      "  level: must",
      "  steps:",
      "    - id: a",
      "      operation: get_task",
      "      params: { id: t }",
      "      expect: {}",
      `      x-a2a-toolkit: { rpcId: ${rpcId} }`,
      "  x-a2a-toolkit: { requirements: {}, spec: {} }",
    ];
    expect(() => loadOne(test("1.5"))).toThrow(/rpcId: a non-empty string or an integer/);
    expect(() => loadOne(test('""'))).toThrow(/rpcId/);
    expect(loadOne(test("7"))[0]!.steps.length).toBe(1);
  });

  it("take an error of the agent's choice only in the pair's error shape (refused: error)", () => {
    const ok = (expect: CaseExpect, res: WireResponse) => judge(expect, res).length === 0;
    const json = { "content-type": "application/json" };
    // 0.3 HTTP+JSON: a client error with a JSON body in a 0.3 error shape; a bare 4xx is not enough.
    const c = find("v0_3/rest/send-message/message-to-ended-task-is-refused");
    const refusal = exchangesOf(c.steps[1]!)[0]!.expect;
    expect(ok(refusal, { status: 400, headers: json, json: { message: "task ended" } })).toBe(true);
    expect(ok(refusal, { status: 409, headers: json, json: { error: { code: 409, status: "FAILED_PRECONDITION", message: "x" } } })).toBe(
      true,
    );
    expect(ok(refusal, { status: 400, headers: {}, text: "no" })).toBe(false);
    expect(ok(refusal, { status: 401, headers: json, json: { message: "who?" } })).toBe(false);
    // JSON-RPC: the error envelope echoing the step's rpcId.
    const rpc = exchangesOf(find("v0_3/json-rpc/send-message/message-to-ended-task-is-refused").steps[1]!)[0]!;
    expect(rpc.request.body).toMatchObject({ id: "send-2" });
    const rpcReply = (id: string): WireResponse => ({
      status: 200,
      headers: json,
      json: { jsonrpc: "2.0", id, error: { code: -32603, message: "x" } },
    });
    expect(ok(rpc.expect, rpcReply("send-2"))).toBe(true);
    expect(ok(rpc.expect, { status: 200, headers: json, json: { jsonrpc: "2.0", id: "send-2", result: {} } })).toBe(false);
    // gRPC: any status but OK.
    expect(anyError(WIRE_RULES["0.3"].grpc, "0.3", "grpc", "x")).toEqual(WIRE_RULES["0.3"].grpc.refused("x"));
    // 1.0 HTTP+JSON: a client error with the §11.6 error object.
    const rest10 = anyError(WIRE_RULES["1.0"].rest, "1.0", "rest", "x");
    expect(ok(rest10, { status: 400, headers: json, json: { error: { code: 400, status: "FAILED_PRECONDITION", message: "x" } } })).toBe(
      true,
    );
    expect(ok(rest10, { status: 400, headers: json, json: { message: "x" } })).toBe(false);
  });

  it("take a result or an error of the agent's choice in the pair's error shape (orErrors: [error])", () => {
    const ok = (expect: CaseExpect, res: WireResponse) => judge(expect, res).length === 0;
    const json = { "content-type": "application/json" };
    const step = exchangesOf(find("v1_0/rest/multi-turn/client-context-id-is-kept-or-refused").steps[0]!)[0]!.expect;
    expect(Object.keys(step.forms ?? {})).toEqual(["result", "error"]);
    // The refusal: a client error in a §11.6 shape; a bare status, or an authentication refusal, is none.
    expect(ok(step, { status: 400, headers: json, json: { error: { code: 400, status: "INVALID_ARGUMENT", message: "no" } } })).toBe(true);
    expect(ok(step, { status: 400, headers: json, json: { code: 400, message: "no" } })).toBe(true);
    expect(ok(step, { status: 400, headers: {}, text: "no" })).toBe(false);
    expect(ok(step, { status: 403, headers: json, json: { error: { code: 403, message: "no" } } })).toBe(false);
  });

  it("judge only a step's status and capture it to branch on (anyAnswer with status)", () => {
    const c = find("v1_0/json-rpc/extended-card/declared-card-is-returned");
    const probe = exchangesOf(c.steps[0]!)[0]!.expect;
    expect(probe).toEqual({ status: { $capture: "extendedCardStatus", $oneOf: [200, 400, 401, 403] } });
    const scope = new Scope(new Map());
    expect(compareResponse(probe, { status: 401, headers: {}, text: "who?" }, scope)).toEqual([]);
    expect(scope.lookup("extendedCardStatus").value).toBe(401);
    expect(judge(probe, { status: 500, headers: {} }).length).toBeGreaterThan(0);
    // The next step runs only on the statuses it names.
    expect(c.steps[1]).toMatchObject({ when: { capture: "extendedCardStatus", matches: { $oneOf: [200, 400] } } });
    // Without a status, a step that takes any answer must be a clean-up step.
    const test = (extras: string) => [
      "- id: t",
      "  name: x",
      "  level: must",
      "  steps:",
      "    - id: a",
      "      operation: get_task",
      "      params: { id: t }",
      "      expect: {}",
      `      x-a2a-toolkit: ${extras}`,
      "  x-a2a-toolkit: { requirements: {}, spec: {} }",
    ];
    expect(() => loadOne(test("{ anyAnswer: true }"))).toThrow(/anyAnswer: a clean-up step, or one that judges only its status/);
    expect(loadOne(test("{ anyAnswer: true, status: { $capture: s } }"))[0]!.steps[0]).toMatchObject({
      expect: { status: { $capture: "s" } },
    });
  });

  it("take a card precondition per pair over its version's (card keyed by pair)", () => {
    const test = [
      "- id: t",
      "  name: x",
      "  level: must",
      "  steps:",
      "    - id: a",
      "      operation: get_task",
      "      params: { id: t }",
      "      expect: {}",
      "      x-a2a-toolkit: { refused: true }",
      "  x-a2a-toolkit:",
      "    requirements: {}",
      "    spec: {}",
      "    versions: ['1.0']",
      "    card: { '1.0': { name: any }, '1.0/rest': { name: rest } }",
    ];
    const when = Object.fromEntries(loadOne(test).map((c) => [c.binding, c.when]));
    expect(when).toEqual({ "json-rpc": { card: { name: "any" } }, rest: { card: { name: "rest" } }, grpc: { card: { name: "any" } } });
  });
});
