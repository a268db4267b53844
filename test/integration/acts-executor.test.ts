import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { discover, type Discovery } from "../../src/compliance/discovery.js";
import { loadActsTests, runActs, type ActsBindingRun } from "../../src/compliance/acts/run.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { serverGroup } from "../support/servers.js";

const servers = serverGroup();
let runs: ActsBindingRun[];
let discovery: Discovery;

beforeAll(async () => {
  const server = await servers.start("fastify", { agent: createFixtureAgent(), grpc: true });
  discovery = await discover(server.url);
  const { tests } = loadActsTests([join(import.meta.dirname, "..", "fixtures", "acts", "executor.acts.yaml")]);
  runs = await runActs(tests, discovery, { timeoutMs: 10_000, streamTimeoutMs: 10_000 });
}, 60_000);
afterAll(() => servers.close());

const result = (binding: string, id: string) => runs.find((r) => r.binding === binding)!.results.find((r) => r.id === id)!;

describe("ACTS executor against the reference server", () => {
  it("runs each test on all three bindings the card declares", () => {
    expect(runs.map((r) => r.binding)).toEqual(["jsonrpc", "rest", "grpc"]);
  });

  describe.each(["jsonrpc", "rest", "grpc"])("%s", (binding) => {
    it.each(["EXE-CAPTURE-001", "EXE-POLL-001", "EXE-STREAM-001", "EXE-ERR-001"])("%s passes", (id) => {
      const r = result(binding, id);
      expect(r.failure).toBeUndefined();
      expect(r.result).toBe("pass");
    });

    it("skips a test whose precondition the card does not meet, naming it", () => {
      expect(result(binding, "EXE-PRE-001")).toMatchObject({
        result: "skip",
        skip_reason: expect.stringMatching(/capabilities.pushNotifications/),
      });
    });

    it("fails a wrong expectation with step, path, expected and actual; later steps do not run", () => {
      const r = result(binding, "EXE-FAIL-001");
      expect(r.result).toBe("fail");
      expect(r.failure).toMatchObject({
        step_id: "send",
        assertion_path: "task.status.state",
        expected: "TASK_STATE_COMPLETED",
        actual: "TASK_STATE_INPUT_REQUIRED",
      });
      expect(r.steps?.map((s) => s.result)).toEqual(["fail", "skip"]);
    });
  });

  it("runs raw steps only where the transport filter says", () => {
    expect(result("rest", "EXE-RAW-001").result).toBe("pass");
    expect(result("jsonrpc", "EXE-RAW-001").skip_reason).toMatch(/transport filter \[rest\]/);
    expect(result("grpc", "EXE-RAW-001").result).toBe("skip");
  });
});
