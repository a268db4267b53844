// runActsTest on what needs no agent: a value the runner is to provide (ACTS §3.2) is a skip with
// its name, never a failure of the agent under test.
import { describe, expect, it } from "vitest";
import { runActsTest, type ActsContext } from "../../src/compliance/acts/execute.js";

const ctx: ActsContext = {
  binding: "jsonrpc",
  url: "http://127.0.0.1:9/",
  card: { name: "none", capabilities: {} },
  cardUrl: "http://127.0.0.1:9/.well-known/agent-card.json",
  timeoutMs: 100,
  streamTimeoutMs: 100,
  env: {},
};

const test = (url: string) => ({
  id: "X-001",
  name: "a push config with the runner's webhook",
  level: "must",
  steps: [
    {
      id: "set-config",
      operation: "create_push_config",
      params: { taskId: "t-1", pushNotificationConfig: { url } },
      expect: { status: 200 },
    },
  ],
});

describe("runActsTest", () => {
  it("skips a test that needs a runner-provided variable nobody defined, naming it", async () => {
    const r = await runActsTest(
      { file: "x.acts.yaml", suite: { id: "s", name: "s" }, test: test("{{webhookUrl}}"), variables: {}, hash: "" },
      ctx,
    );
    expect(r).toMatchObject({ result: "skip", skip_reason: "runner-provided variable {{webhookUrl}} (§3.2): not provided by this runner" });
  });

  it("a missing capture of an earlier step stays a failure", async () => {
    const r = await runActsTest(
      { file: "x.acts.yaml", suite: { id: "s", name: "s" }, test: test("{{create.url}}"), variables: {}, hash: "" },
      ctx,
    );
    expect(r.result).toBe("fail");
    expect(r.failure?.message).toMatch(/\{\{create\.url\}\} cannot be resolved/);
  });
});
