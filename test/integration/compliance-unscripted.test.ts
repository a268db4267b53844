// The whole suite against agents that follow no script, as LLM agents behave (issue 27): the
// official @a2a-js/sdk 1.3.0 server around executors that answer free text, a bare Message, a
// task that never ends, tasks without contextId, Message and Task by turns, input-required on
// every first turn (test/support/sdk-unscripted-target.ts), on JSON-RPC, HTTP+JSON and the SDK's
// gRPC services. The verdict must rest on what the
// spec requires: no MUST failure beyond the SDK's own listed deviations, and what the agent's
// behaviour left untested is inconclusive with its reason, never a failure.
//
// `make test-unscripted` (A2A_UNSCRIPTED=1) runs it; it prints one line per agent: cases run,
// passed, inconclusive, skipped, the messages the run sent and the time it took. Last run
// (fresh-clone CI run, 2026-12-04, 2 cores; ran = passed + known failing + inconclusive + warnings, 0 failed on each):
//
//   agent                  ran  passed  inconcl.  skipped  messages  seconds
//   free-text              289    232       45      260        92       1.6
//   message                289    145      132      260        65       0.4
//   slow (3 s per answer)  289    232       45      260        92      30.7
//   never-ends (2 s)       289     65      219      260        65      14.2
//   never-ends (default)   289     65      219      260        65     130.4
//   no-context (1.0 only)  170    105       48      379        54       0.4
//   alternating            289    176      101      260        74       0.4
//   input-first            289    238       27      260       139       0.6
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runSuite } from "../../src/compliance/suite.js";
import { consoleReport } from "../../src/compliance/report.js";
import { startSdkUnscriptedTarget, type Unscripted, type UnscriptedTarget } from "../support/sdk-unscripted-target.js";

const ENABLED = process.env.A2A_UNSCRIPTED === "1";
const KNOWN_FAILING = fileURLToPath(new URL("../../compliance/known-failing/a2a-js-sdk-1.3.0-echo.json", import.meta.url));

// The never-ending agent is judged with short bounds: each of its cases waits them out once.
const SHORT = { timeoutMs: 2_000, streamTimeoutMs: 2_000, taskTimeoutMs: 2_000 };

/**
 * maxMessages / maxSeconds: issue 27's bounds with default options (the 3 s agent: at most 100
 * messages and 60 s, its time bound doubled here for a loaded machine; the never-ending one: 5
 * minutes, asserted as is: its run is waiting out bounds, not work, 150 s at eight cases at a time).
 * minRan: cases run (passed, failed or inconclusive) on the bindings the card declares: JSON-RPC,
 * HTTP+JSON and gRPC, 1.0 and 0.3 (289 cases on each agent); 1.0 only without contextId (170).
 */
const AGENTS: { kind: Unscripted; options?: typeof SHORT; minRan: number; maxMessages?: number; maxSeconds?: number }[] = [
  { kind: "free-text", minRan: 289 },
  { kind: "message", minRan: 289 },
  { kind: "slow", minRan: 289, maxMessages: 100, maxSeconds: 120 },
  { kind: "never-ends", options: SHORT, minRan: 289 },
  { kind: "never-ends", minRan: 289, maxSeconds: 300 },
  { kind: "no-context", minRan: 170 },
  { kind: "alternating", minRan: 289 },
  { kind: "input-first", minRan: 289 },
];

describe.runIf(ENABLED)("compliance suite against unscripted agents (official SDK 1.3.0 server)", () => {
  let target: UnscriptedTarget | undefined;
  beforeAll(() => {
    // The SDK logs every error it answers with; the report says all of it already.
    vi.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });

  for (const { kind, options, minRan, maxMessages, maxSeconds } of AGENTS)
    it(
      `${kind}${options ? " (2 s bounds)" : ""}: no MUST failure beyond the SDK's listed deviations; the untested is inconclusive`,
      { timeout: 900_000 },
      async () => {
        target = await startSdkUnscriptedTarget(kind);
        const started = Date.now();
        const report = await runSuite({ target: target.url, knownFailingFile: KNOWN_FAILING, ...options });
        const text = consoleReport(report);
        const s = report.summary;
        const ran = s.total - s.skipped;
        console.log(
          `${kind}${options ? " (2 s bounds)" : ""}: ${ran} ran (${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.knownFailing} known failing, ${s.inconclusive} inconclusive), ${s.skipped} skipped; ${s.messagesSent} messages sent, ${target.turns} agent turns; ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
        const mustFailures = report.results.filter((r) => r.status === "fail").map((r) => `${r.id}: ${r.reason}`);
        expect(mustFailures, text).toEqual([]);
        for (const r of report.results.filter((x) => x.status === "inconclusive")) expect(r.reason, r.id).toBeTruthy();
        expect(ran, text).toBeGreaterThanOrEqual(minRan);
        if (maxMessages !== undefined) expect(s.messagesSent).toBeLessThanOrEqual(maxMessages);
        if (maxSeconds !== undefined) expect((Date.now() - started) / 1000).toBeLessThanOrEqual(maxSeconds);
      },
    );
});
