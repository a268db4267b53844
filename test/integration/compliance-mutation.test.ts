// The suite judges itself (mutation check): the reference server with the fixture agent is started
// once per fault, behind the rewriting proxy applying that fault (src/compliance/rewrites.ts; the
// server itself carries no deliberate fault), and the suite runs the cases aimed at that fault; it
// must fail on every one. A baseline run without a fault, over the same cases, must
// pass, so each failure is the fault's doing. The table of results is printed. Faults the suite
// misses are listed in KNOWN_GAPS with the reason.
import { generateKeyPair } from "jose";
import { afterAll, assert, describe, expect, it } from "vitest";
import { ALL_BEHAVIOURS, FIXTURE_EXTENSION_URI } from "../../src/compliance/discovery.js";
import { runSuite } from "../../src/compliance/suite.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { REWRITES } from "../../src/compliance/rewrites.js";
import { failuresOf } from "../support/compliance.js";
import { startFaultyServer, type RunningServer } from "../support/servers.js";

/**
 * Per fault: the cases aimed at it (globs over case IDs). These are the faults the reference server
 * once carried itself (the proxy's other faults are judged in front of the official SDK server by
 * compliance-proxy-faults.test.ts).
 */
const TARGETS: Record<string, string[]> = {
  "task-not-found-as-internal-error": ["v1_0/*/get-task/unknown-id-returns-task-not-found"],
  "task-not-cancelable-wrong-code": ["*/json-rpc/cancel-task/terminal-task-returns-not-cancelable"],
  "stream-terminal-event-missing": ["v1_0/*/streaming/echo-stream-starts-with-task-and-ends-at-completion"],
  "stream-initial-task-missing": ["v1_0/*/streaming/echo-stream-starts-with-task-and-ends-at-completion"],
  "stream-event-after-terminal": ["v1_0/*/streaming/echo-stream-starts-with-task-and-ends-at-completion", "*/*/streaming/tck-stream-001"],
  "stream-never-closes": ["v1_0/json-rpc/streaming/echo-stream-starts-with-task-and-ends-at-completion"],
  "state-lower-case": ["v1_0/json-rpc/send-message/echo-returns-completed-task-with-artifact"],
  "v1-kind-present": ["v1_0/*/send-message/no-kind-discriminator"],
  "snake-case-context-id": ["v1_0/json-rpc/send-message/echo-returns-completed-task-with-artifact"],
  "timestamp-offset": ["v1_0/*/get-task/returns-completed-task"],
  "list-tasks-next-page-token-absent": ["v1_0/*/list-tasks/next-page-token-always-present"],
  "version-unsupported-as-1.0": ["v1_0/*/versioning/unsupported-version-returns-version-not-supported"],
  "patch-version-refused": ["v1_0/*/versioning/patch-version-is-ignored"],
  "missing-version-as-1.0": ["v1_0/json-rpc/versioning/missing-version-header-is-not-1.0"],
  "jsonrpc-id-not-echoed": [
    "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found",
    "*/json-rpc/json-rpc-errors/invalid-params-echoes-zero-id",
  ],
  "method-not-found-as-invalid-request": ["*/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found"],
  "rest-error-status-200": ["v1_0/rest/get-task/unknown-id-returns-task-not-found"],
  "error-info-missing": [
    "v1_0/json-rpc/json-rpc-errors/task-not-found-carries-error-info",
    "v1_0/rest/get-task/unknown-id-returns-task-not-found",
  ],
  "json-content-type-wrong": ["v1_0/json-rpc/get-task/unknown-id-returns-task-not-found", "v1_0/rest/send-message/a2a-json-media-type"],
  "card-supported-interfaces-missing": [
    "v1_0/card/card-with-version-header-is-1.0-shaped",
    "v1_0/card/card-has-caching-headers",
    "v1_0/card/card-signatures-are-well-formed-jws",
  ],
  "history-length-ignored": ["v1_0/*/get-task/history-length-bounds-history", "v1_0/*/get-task/history-length-zero-omits-history"],
  "include-artifacts-forced": ["v1_0/*/list-tasks/artifacts-omitted-without-include-artifacts"],
  "return-immediately-ignored": ["*/*/send-message/non-blocking-returns-unfinished-task"],
  "task-id-reused": ["v1_0/*/send-message/new-tasks-get-distinct-ids"],
  "principals-merged": ["v1_0/*/security/other-principal-cannot-see-task"],
  "v03-final-false": ["v0_3/json-rpc/streaming/echo-stream-starts-with-task-and-ends-at-completion"],
  "v03-stream-ends-at-input-required-task": ["v0_3/*/multi-turn/streaming-follow-up-completes"],
  "v03-result-wrapped": ["v0_3/json-rpc/send-message/echo-returns-completed-task-with-artifact"],
};

/**
 * Faults the suite does not catch yet, with the reason. The test fails when one of them starts
 * being caught (remove it here then), like a known-failing list.
 */
const KNOWN_GAPS: Record<string, string> = {};
const FAULT_NAMES = Object.keys(TARGETS);
const breaks = (fault: string) => (REWRITES.find((r) => r.name === fault)?.spec ?? []).map((c) => `${c.version} §${c.section}`).join(", ");

const PRINCIPALS: Record<string, string> = { "Bearer alice": "alice", "Bearer bob": "bob" };

async function start(fault?: string): Promise<RunningServer> {
  const agent = createFixtureAgent();
  const card = agent.card as { capabilities?: { extensions?: unknown[] }; securitySchemes?: unknown; securityRequirements?: unknown };
  card.capabilities = { ...card.capabilities, extensions: [{ uri: FIXTURE_EXTENSION_URI, params: { behaviours: ALL_BEHAVIOURS } }] };
  // Two principals, so the isolation cases run (S-30, S-57).
  card.securitySchemes = { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } };
  card.securityRequirements = [{ schemes: { bearer: { list: [] } } }];
  // A signed card, so the signature case (S-61) runs in the baseline instead of being skipped.
  const { privateKey } = await generateKeyPair("ES256");
  // The baseline goes through the proxy too, so the proxy alone turns no case red.
  return startFaultyServer(
    {
      agent,
      authenticate: (req) => PRINCIPALS[req.headers.authorization ?? ""],
      cardSigning: { key: privateKey, kid: "mutation-check", alg: "ES256" },
    },
    fault ? [fault] : [],
  );
}

async function judge(url: string, globs: string[]) {
  return runSuite({
    target: url,
    caseGlobs: globs,
    // The reference server serves no gRPC until its adapter lands (issue 17): its gRPC twins would skip.
    bindings: ["json-rpc", "rest"],
    headers: { Authorization: "Bearer alice" },
    otherHeaders: { Authorization: "Bearer bob" },
    timeoutMs: 5_000,
    streamTimeoutMs: 3_000,
    // A fault may break a SHOULD rule (a stray 1.0 `kind` member): strict, so that counts as caught.
    strict: true,
  });
}

describe("mutation check: the suite catches deliberate server faults", () => {
  const rows: { fault: string; breaks: string; cases: number; failed: number; caught: boolean }[] = [];
  afterAll(() => {
    const caught = rows.filter((r) => r.caught).length;
    const lines = rows.map((r) => `| ${r.fault} | ${r.breaks} | ${r.cases} | ${r.failed} | ${r.caught ? "yes" : "NO"} |`);
    console.log(
      ["| fault | breaks | cases run | cases failed | caught |", "|---|---|---|---|---|", ...lines, `caught ${caught}/${rows.length}`].join(
        "\n",
      ),
    );
  });

  it("has at least 20 faults, each a fault of the proxy's table", () => {
    expect(FAULT_NAMES.length).toBeGreaterThanOrEqual(20);
    const faults = REWRITES.filter((r) => r.kind === "fault").map((r) => r.name);
    for (const f of FAULT_NAMES) expect(faults, f).toContain(f);
  });

  it("baseline: without a fault every targeted case passes", { timeout: 120_000 }, async () => {
    const { url, close } = await start();
    try {
      const report = await judge(url, [...new Set(Object.values(TARGETS).flat())]);
      expect(failuresOf(report)).toEqual([]);
      expect(report.results.filter((r) => r.status === "skip").map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
    } finally {
      await close();
    }
  });

  it.each(FAULT_NAMES)("catches %s", { timeout: 60_000 }, async (fault) => {
    const { url, close } = await start(fault);
    const targets = TARGETS[fault];
    assert(targets, `${fault} has its TARGETS entry`);
    try {
      const report = await judge(url, targets);
      rows.push({
        fault,
        breaks: breaks(fault),
        cases: report.results.length,
        failed: report.summary.failed,
        caught: report.summary.failed > 0,
      });
      if (KNOWN_GAPS[fault]) expect(report.summary.failed, `${fault} is caught now: remove it from KNOWN_GAPS`).toBe(0);
      else expect(report.summary.failed, `${fault} was not caught by ${targets.join(", ")}`).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });
});
