// The whole suite against agents nobody on the project wrote that only answer a text message: the
// official @a2a-js/sdk 1.3.0 server and a plain 0.3.14 server, each around a minimal echo executor
// (test/support/sdk-echo-target.ts), without the fixture extension or TCK prefixes. The
// agent-agnostic cases must run there; each deviation they find is listed, with its sentence, in
// the agent's own known-failing file, so a run is green and a fixed deviation shows up as stale.
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runSuite } from "../../src/compliance/suite.js";
import { consoleReport, type Report } from "../../src/compliance/report.js";
import { startSdk03EchoTarget, startSdkEchoTarget, type EchoTarget } from "../support/sdk-echo-target.js";
import { ALL_INTERFACES, expectSkipsFor, failuresOf, interfacesOf } from "../support/compliance.js";

const knownFailing = (name: string) => fileURLToPath(new URL(`../../compliance/known-failing/${name}`, import.meta.url));

/** Cases that ran (pass, fail, warn, known-failing), per "version binding". */
function ranBy(report: Report): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of report.results) if (r.status !== "skip") out[`${r.version} ${r.binding}`] = (out[`${r.version} ${r.binding}`] ?? 0) + 1;
  return out;
}
/** At least `share` of the rules applicable to this agent are exercised (report.exercised, compliance/README.md "Coverage"). */
function expectRulesExercised(report: Report, share: number): void {
  const tally = report.exercised.overall;
  expect(
    tally.exercised / tally.applicable,
    `${tally.exercised} of ${tally.applicable}; not exercised: ${tally.notExercised.join(", ")}`,
  ).toBeGreaterThanOrEqual(share);
}
const ran = (report: Report) => report.results.filter((r) => r.status !== "skip").length;

// What an echo agent legitimately skips: cases for behaviour it does not have (fixture, TCK), what
// its card leaves out (push, extended card, security, a second principal); expectSkipsFor also
// allows the agent-agnostic cases for a task it does not make (it never asks for input).
const ECHO_SKIPS =
  /^(needs scripted behaviour \(|binding not declared: |capability (absent|present): |the card does not declare what the case checks: |needs a second principal)/;

describe("compliance suite against the official SDK servers around an echo executor", () => {
  let target: EchoTarget | undefined;
  beforeAll(() => {
    // The SDKs log every error they answer with; the report says all of it already.
    vi.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });

  it("@a2a-js/sdk 1.3.0: at least 150 cases run on the four interfaces; only the listed deviations fail", { timeout: 60_000 }, async () => {
    target = await startSdkEchoTarget();
    const report = await runSuite({
      target: target.url,
      knownFailingFile: knownFailing("a2a-js-sdk-1.3.0-echo.json"),
      streamTimeoutMs: 5_000,
    });
    const text = consoleReport(report);
    expect(interfacesOf(report)).toEqual(ALL_INTERFACES);
    expect(report.staleKnownFailing, text).toEqual([]);
    expect(failuresOf(report), text).toEqual([]);
    expectSkipsFor(report, ECHO_SKIPS);
    expect(ran(report)).toBeGreaterThanOrEqual(150);
    const by = ranBy(report);
    for (const i of ["1.0 json-rpc", "1.0 rest", "0.3 json-rpc", "0.3 rest"]) expect(by[i], i).toBeGreaterThanOrEqual(30);
    expectRulesExercised(report, 0.8);
  });

  it("@a2a-js/sdk 1.3.0 answering with bare messages: the task cases skip, the rest holds", { timeout: 60_000 }, async () => {
    target = await startSdkEchoTarget({ reply: "message" });
    // No profile: the TCK probe must see that bare messages without the kit's text are no TCK agent.
    const report = await runSuite({
      target: target.url,
      knownFailingFile: knownFailing("a2a-js-sdk-1.3.0-echo.json"),
      streamTimeoutMs: 5_000,
    });
    const text = consoleReport(report);
    // The same list holds: a listed case that needs a task skips here and is not stale.
    expect(report.staleKnownFailing, text).toEqual([]);
    expect(failuresOf(report), text).toEqual([]);
    expectSkipsFor(report, ECHO_SKIPS);
    // The branch taken is in the report: every agent-agnostic send saw a message (a scenario's on its 1.0 view).
    const branches = report.results
      .flatMap((r) => r.variants ?? [])
      .filter((v) => /^send \/(body\/result|body|view): (task|message)$/.test(v));
    expect(branches.length).toBeGreaterThan(20);
    expect(
      branches.every((v) => v.endsWith("message")),
      branches.join("\n"),
    ).toBe(true);
  });

  it("@a2a-js/sdk 0.3.14 (README pattern): at least 60 cases run on its two interfaces", { timeout: 60_000 }, async () => {
    target = await startSdk03EchoTarget();
    const report = await runSuite({
      target: target.url,
      knownFailingFile: knownFailing("a2a-js-sdk-0.3.14-echo.json"),
      streamTimeoutMs: 5_000,
    });
    const text = consoleReport(report);
    expect(interfacesOf(report)).toEqual(["0.3 json-rpc", "0.3 rest"]);
    expect(report.staleKnownFailing, text).toEqual([]);
    expect(failuresOf(report), text).toEqual([]);
    expectSkipsFor(report, ECHO_SKIPS);
    expect(ran(report)).toBeGreaterThanOrEqual(60);
    expectRulesExercised(report, 0.8);
  });
});
