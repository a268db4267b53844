// The suite judges itself (mutation check): the reference server with the fixture agent is started
// once per fault, behind the rewriting proxy applying that fault (src/compliance/rewrites.ts; the
// server itself carries no deliberate fault), and the suite runs the cases aimed at that fault; it
// must fail on every one. A baseline run without a fault, over the same cases, must
// pass, so each failure is the fault's doing. The table of results is printed. Faults the suite
// misses are listed in KNOWN_GAPS with the reason. The gRPC faults (grpc-rewrites.ts) stand in
// front of the server's gRPC services (the proxy's h2c side) and are aimed at the gRPC cases
// compliance-grpc-proxy-faults.json lists for them: the first listed in `make test`, all of them
// under A2A_PROXY_FAULTS=full (`make test-variants`).
import { readFileSync } from "node:fs";
import { generateKeyPair } from "jose";
import { afterAll, assert, describe, expect, it } from "vitest";
import { ALL_BEHAVIOURS, FIXTURE_EXTENSION_URI } from "../../src/compliance/discovery.js";
import { runSuite } from "../../src/compliance/suite.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { REWRITES } from "../../src/compliance/rewrites.js";
import { GRPC_REWRITES } from "../../src/compliance/grpc-rewrites.js";
import { bearerAuth } from "../../src/security/index.js";
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

const FULL = process.env.A2A_PROXY_FAULTS === "full";
/** Per gRPC fault: the gRPC cases it turns red in front of the official SDK's gRPC services. */
const {
  $comment: _about,
  $otherChanges: _others,
  ...GRPC_TURNS_RED
} = JSON.parse(readFileSync(new URL("./compliance-grpc-proxy-faults.json", import.meta.url), "utf8")) as Record<string, string[]>;
for (const [fault, ids] of Object.entries(GRPC_TURNS_RED)) TARGETS[fault] = FULL ? ids : ids.slice(0, 1);

/**
 * Faults the suite does not catch yet, with the reason. The test fails when one of them starts
 * being caught (remove it here then), like a known-failing list.
 */
const KNOWN_GAPS: Record<string, string> = {};
const FAULT_NAMES = Object.keys(TARGETS);
const breaks = (fault: string) =>
  ([...REWRITES, ...GRPC_REWRITES].find((r) => r.name === fault)?.spec ?? []).map((c) => `${c.version} §${c.section}`).join(", ");

async function start(fault?: string): Promise<RunningServer> {
  const agent = createFixtureAgent();
  const card = agent.card as { capabilities?: { extensions?: unknown[] } };
  card.capabilities = { ...card.capabilities, extensions: [{ uri: FIXTURE_EXTENSION_URI, params: { behaviours: ALL_BEHAVIOURS } }] };
  // A signed card, so the signature case (S-61) runs in the baseline instead of being skipped.
  const { privateKey } = await generateKeyPair("ES256");
  // The baseline goes through the proxy too, so the proxy alone turns no case red.
  return startFaultyServer(
    {
      agent,
      // Two principals, so the isolation cases run (S-30, S-57); the card declares the scheme.
      authenticators: [bearerAuth({ tokens: { alice: "alice", bob: "bob" } })],
      grpc: true,
      cardSigning: { key: privateKey, kid: "mutation-check", alg: "ES256" },
    },
    fault ? [fault] : [],
  );
}

const INTERRUPTED_SKIP = /^the agent did not answer with a task (that asks for input|in an interrupted state)/;
const GRPC_FAULTS = new Set(GRPC_REWRITES.map((r) => r.name));
const HTTP_BINDINGS: ("json-rpc" | "rest")[] = ["json-rpc", "rest"];

/** `fault` given: only the bindings it can break (the HTTP faults leave the gRPC twins alone). */
async function judge(url: string, globs: string[], fault?: string) {
  return runSuite({
    target: url,
    caseGlobs: globs,
    ...(fault && !GRPC_FAULTS.has(fault) ? { bindings: HTTP_BINDINGS } : {}),
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

  it("has at least 20 faults, each a fault of the proxy's table, and every gRPC fault", () => {
    expect(FAULT_NAMES.length).toBeGreaterThanOrEqual(20);
    const faults = [...REWRITES, ...GRPC_REWRITES].filter((r) => r.kind === "fault").map((r) => r.name);
    for (const f of FAULT_NAMES) expect(faults, f).toContain(f);
    for (const r of GRPC_REWRITES) expect(FAULT_NAMES, r.name).toContain(r.name);
  });

  it("baseline: without a fault every targeted case passes", { timeout: 120_000 }, async () => {
    const { url, close } = await start();
    try {
      const report = await judge(url, [...new Set(Object.values(TARGETS).flat())]);
      expect(failuresOf(report)).toEqual([]);
      // The full lists (made in front of an SDK agent) hold interrupted-task cases the fixture
      // agent's echo skips: those only, and only then.
      const skips = report.results.filter((r) => r.status === "skip" && !(FULL && INTERRUPTED_SKIP.test(r.reason ?? "")));
      expect(skips.map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
    } finally {
      await close();
    }
  });

  it.each(FAULT_NAMES)("catches %s", { timeout: 60_000 }, async (fault) => {
    const { url, close } = await start(fault);
    const targets = TARGETS[fault];
    assert(targets, `${fault} has its TARGETS entry`);
    try {
      const report = await judge(url, targets, fault);
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
