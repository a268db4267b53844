import { describe, expect, it } from "vitest";
import type { Case } from "../../src/compliance/cases.js";
import type { Discovery } from "../../src/compliance/discovery.js";
import { interfacesFromCards } from "../../src/compliance/discovery.js";
import { htmlReport, quoteHtml } from "../../src/compliance/html-report.js";
import { colorWanted, progressLine } from "../../src/cli/test-command.js";
import type { WireResponse } from "../../src/compliance/http.js";
import { applyKnownFailing, parseKnownFailing } from "../../src/compliance/known-failing.js";
import { Scope } from "../../src/compliance/match.js";
import { buildReport, consoleReport, divergences, jsonReport, junitReport, skipGroup, skipGroups } from "../../src/compliance/report.js";
import { coverage, tallyRules, type Catalogue } from "../../src/compliance/requirements.js";
import { applicability, compareResponse, selectCases, verdict, type CaseResult, type StepResult } from "../../src/compliance/runner.js";

function mkCase(id: string, over: Partial<Case> = {}): Case {
  const [v, b] = id.split("/");
  return {
    id,
    file: `${id}.json`,
    title: `title of ${id}`,
    requirements: ["S-23"],
    level: "MUST",
    version: v === "v1_0" ? "1.0" : "0.3",
    binding: b === "rest" ? "rest" : b === "json-rpc" ? "json-rpc" : "any",
    capabilities: [],
    behaviours: [],
    needsOtherPrincipal: false,
    needsWebhook: false,
    steps: [],
    ...over,
  };
}

function mkResult(id: string, status: CaseResult["status"], over: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    title: `title of ${id}`,
    version: "1.0",
    binding: "json-rpc",
    level: "MUST",
    requirements: ["S-23"],
    status,
    steps: [],
    durationMs: 3,
    ...over,
  };
}

const discovery: Discovery = {
  agentUrl: "http://127.0.0.1:1/",
  cardUrl: "http://127.0.0.1:1/.well-known/agent-card.json",
  interfaces: [{ version: "1.0", binding: "json-rpc", url: "http://127.0.0.1:1/rpc", source: "1.0 card supportedInterfaces[0]" }],
  capabilities: { "1.0": { streaming: true }, "0.3": {} },
  behaviours: ["echo"],
  notes: [],
};

/** A report of these results on the discovery above, with no coverage. */
function reportOf(results: CaseResult[], over: Partial<Parameters<typeof buildReport>[0]> = {}) {
  return buildReport({
    target: "t",
    startedAt: new Date(0),
    finishedAt: new Date(0),
    discovery,
    filters: {},
    results,
    stale: [],
    coverage: [],
    suite: [],
    ...over,
  });
}

const sse = (events: unknown[], closed = true): WireResponse => ({
  status: 200,
  headers: { "content-type": "text/event-stream" },
  events: events.map((e) => ({ data: JSON.stringify(e), json: e })),
  closed,
});

describe("stream expectations", () => {
  const exp = {
    stream: {
      first: { task: { id: { $capture: "taskId" } } },
      inOrder: [{ artifactUpdate: { append: { $optional: false } } }, { artifactUpdate: { append: true, lastChunk: true } }],
      counts: [{ where: { artifactUpdate: { $match: "object" } }, min: 2, max: 2 }],
      last: { statusUpdate: { taskId: "{{taskId}}", status: { state: "TASK_STATE_COMPLETED" } } },
    },
  };
  const good = [
    { task: { id: "t1" } },
    { statusUpdate: { taskId: "t1", status: { state: "TASK_STATE_WORKING" } } },
    { artifactUpdate: { artifact: {} } },
    { artifactUpdate: { artifact: {}, append: true, lastChunk: true } },
    { statusUpdate: { taskId: "t1", status: { state: "TASK_STATE_COMPLETED" } } },
  ];

  it("passes an ordered, closed stream and captures from it", () => {
    const scope = new Scope(new Map());
    expect(compareResponse(exp, sse(good), scope)).toEqual([]);
    expect(scope.staged.get("taskId")).toBe("t1");
  });

  it("reports a reordered stream, a wrong count, a wrong last event and an open stream", () => {
    const swapped = [good[0], good[1], good[3], good[2], good[4]];
    expect(compareResponse(exp, sse(swapped), new Scope(new Map())).map((d) => d.message)).toEqual([
      expect.stringMatching(/no event after event 3 matches in-order expectation 1/),
    ]);
    const extra = [...good.slice(0, 4), { artifactUpdate: {} }, good[4]];
    expect(compareResponse(exp, sse(extra), new Scope(new Map()))[0]?.message).toMatch(/expected 2 event\(s\) matching .*, got 3/);
    const d = compareResponse(exp, sse(good.slice(0, 4), false), new Scope(new Map()), 500);
    expect(d.map((x) => x.path)).toEqual(["/events", "/events/3/statusUpdate"]);
    expect(d[0]?.message).toMatch(/not closed by the server \(waited 500 ms\)/);
  });

  it("wants an SSE response when a stream is expected, and says what came instead", () => {
    const d = compareResponse(
      exp,
      { status: 400, headers: { "content-type": "application/json" }, json: { error: 1 } },
      new Scope(new Map()),
    );
    expect(d[0]?.path).toBe("/headers/content-type");
    expect(d[0]?.message).toMatch(/expected an SSE stream, got application\/json: \{"error":1\}/);
  });

  it("acceptSingleEventStream matches an error delivered as the only stream event", () => {
    const e = { acceptSingleEventStream: true, status: 400, body: { error: { code: -32004 } } };
    expect(compareResponse(e, sse([{ error: { code: -32004 } }]), new Scope(new Map()))).toEqual([]);
    expect(compareResponse(e, { status: 400, headers: {}, json: { error: { code: -32004 } } }, new Scope(new Map()))).toEqual([]);
    expect(compareResponse(e, sse([{ error: { code: -32001 } }]), new Scope(new Map()))[0]?.path).toBe("/events/0/error/code");
  });

  it("reports a body that is not JSON, and a missing response", () => {
    expect(compareResponse({ body: {} }, { status: 200, headers: {}, text: "<html>" }, new Scope(new Map()))[0]?.message).toBe(
      "body is not JSON",
    );
    expect(compareResponse({ body: {} }, { status: 0, headers: {}, error: "ECONNREFUSED" }, new Scope(new Map()))[0]?.message).toMatch(
      /no response: ECONNREFUSED/,
    );
  });
});

describe("case selection and applicability", () => {
  const all = [
    mkCase("v1_0/json-rpc/a/x"),
    mkCase("v1_0/rest/a/x", { level: "SHOULD" }),
    mkCase("v0_3/json-rpc/a/x", { level: "MAY" }),
    mkCase("v1_0/card/c"),
  ];
  it("filters by version, binding, glob and level", () => {
    expect(selectCases(all, { versions: ["1.0"] }).map((c) => c.id)).toEqual(["v1_0/json-rpc/a/x", "v1_0/rest/a/x", "v1_0/card/c"]);
    expect(selectCases(all, { bindings: ["rest"] }).map((c) => c.id)).toEqual(["v1_0/rest/a/x", "v1_0/card/c"]);
    expect(selectCases(all, { level: "must" }).map((c) => c.id)).toEqual(["v1_0/json-rpc/a/x", "v1_0/card/c"]);
    expect(selectCases(all, { level: "should" })).toHaveLength(3);
    expect(selectCases(all, { caseGlobs: ["*/json-rpc/**"] }).map((c) => c.id)).toEqual(["v1_0/json-rpc/a/x", "v0_3/json-rpc/a/x"]);
  });

  it("skips with the reason: binding, capability, fixture behaviour", () => {
    expect(applicability(mkCase("v1_0/rest/a/x"), discovery).skip).toBe(
      "binding not declared: the agent card declares no 1.0 HTTP+JSON interface",
    );
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { capabilities: ["pushNotifications"] }), discovery).skip).toMatch(
      /capability absent: capabilities.pushNotifications/,
    );
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { capabilities: ["!streaming"] }), discovery).skip).toMatch(/capability present/);
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { behaviours: ["echo", "slow"] }), discovery).skip).toBe(
      "fixture behaviour not declared by the agent: slow",
    );
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { behaviours: ["echo"] }), { ...discovery, behaviours: undefined }).skip).toMatch(
      /fixture extension/,
    );
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { behaviours: ["echo"], capabilities: ["streaming"] }), discovery).iface?.url).toBe(
      "http://127.0.0.1:1/rpc",
    );
    expect(applicability(mkCase("v1_0/card/c"), discovery).skip).toBeUndefined();
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { needsOtherPrincipal: true }), discovery).skip).toBe(
      "needs a second principal's credentials (--other-header)",
    );
    expect(
      applicability(mkCase("v1_0/json-rpc/a/x", { needsOtherPrincipal: true }), discovery, { otherHeaders: { a: "b" } }).skip,
    ).toBeUndefined();
    const when = { card: { capabilities: { extensions: { $some: { required: true, uri: { $capture: "ext" } } } } } };
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { when }), { ...discovery, card1_0: { capabilities: {} } }).skip).toMatch(
      /^the card does not declare what the case checks: \/capabilities\/extensions/,
    );
    const withExt = { ...discovery, card1_0: { capabilities: { extensions: [{ uri: "urn:x", required: true }] } } };
    expect(applicability(mkCase("v1_0/json-rpc/a/x", { when }), withExt).vars?.get("ext")).toBe("urn:x");
  });

  it("reads interfaces from a 1.0 card and from a 0.3 card, first declaration per version and binding wins", () => {
    const card1_0 = {
      supportedInterfaces: [
        { url: "http://a/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "http://a/rpc2", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "a:443", protocolBinding: "GRPC", protocolVersion: "1.0" },
        { url: "http://a/rest", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
      ],
    };
    const card0_3 = {
      url: "http://a/legacy",
      preferredTransport: "JSONRPC",
      protocolVersion: "0.3.0",
      additionalInterfaces: [
        { url: "http://a/legacy-rest", transport: "HTTP+JSON" },
        { url: "a:50051", transport: "GRPC" },
      ],
    };
    // GRPC interfaces keep the host:port form gRPC clients take.
    expect(interfacesFromCards(card1_0, card0_3).map((i) => `${i.version} ${i.binding} ${i.url}`)).toEqual([
      "1.0 json-rpc http://a/rpc",
      "1.0 grpc a:443",
      "0.3 rest http://a/rest",
      "0.3 json-rpc http://a/legacy",
      "0.3 grpc a:50051",
    ]);
  });
});

describe("known-failing lists", () => {
  const suite = [mkCase("v1_0/json-rpc/a/fails"), mkCase("v1_0/json-rpc/a/passes"), mkCase("v1_0/json-rpc/b/filtered")];
  const results = [
    mkResult("v1_0/json-rpc/a/fails", "fail", { reason: "step 1: /body/x differs" }),
    mkResult("v1_0/json-rpc/a/passes", "pass"),
  ];

  it("parses the object form, a bare array and strings, and rejects anything else", () => {
    expect(parseKnownFailing("k.json", '{"knownFailing":[{"case":"a","reason":"r"}]}').entries).toEqual([{ case: "a", reason: "r" }]);
    expect(parseKnownFailing("k.json", '["a", {"case": "b"}]').entries).toEqual([{ case: "a" }, { case: "b" }]);
    expect(() => parseKnownFailing("k.json", "{")).toThrow(/k.json: not valid JSON/);
    expect(() => parseKnownFailing("k.json", "[1]")).toThrow(/entry 0 must be/);
  });

  it("a listed failure is expected, a listed pass fails, a filtered-out listed case is fine, an unknown entry is stale", () => {
    const list = parseKnownFailing("k.json", JSON.stringify(["v1_0/json-rpc/a/*", "v1_0/json-rpc/b/filtered", "v9/none"]));
    const out = applyKnownFailing(results, suite, list);
    expect(out.results.map((r) => r.status)).toEqual(["known-failing", "fail"]);
    expect(out.results[1]?.reason).toMatch(/listed as known-failing in k.json .* but passed: remove the entry/);
    expect(out.stale).toEqual([{ case: "v9/none" }]);
  });
});

describe("levels decide the verdict", () => {
  const step = (status: StepResult["status"], over: Partial<StepResult> = {}): StepResult => ({
    name: "s",
    expected: {},
    diffs: status === "fail" ? [{ path: "/status", expected: 404, actual: 500, message: "expected 404, got 500" }] : [],
    status,
    ...over,
  });
  it("a MUST failure fails; a SHOULD failure is a warning, unless strict; a MAY failure is not offered, even strict", () => {
    expect(verdict("MUST", [step("pass"), step("fail")])).toEqual({
      status: "fail",
      failureLevel: "MUST",
      reason: "s: /status expected 404, got 500",
    });
    expect(verdict("SHOULD", [step("fail")]).status).toBe("warn");
    expect(verdict("MAY", [step("fail")]).status).toBe("not-offered");
    expect(verdict("MAY", [step("fail")], true).status).toBe("not-offered");
    expect(verdict("SHOULD", [step("fail")], true).status).toBe("fail");
    expect(verdict("MUST", [step("pass")])).toEqual({ status: "pass" });
  });
  it("the failing step's own level overrides the case's", () => {
    expect(verdict("MUST", [step("pass"), step("fail", { level: "SHOULD" })])).toMatchObject({ status: "warn", failureLevel: "SHOULD" });
    expect(verdict("SHOULD", [step("fail", { level: "MUST" })])).toMatchObject({ status: "fail", failureLevel: "MUST" });
    // A passing MUST-level step does not lift a later SHOULD failure, nor the reverse.
    expect(verdict("MUST", [step("pass", { level: "MUST" }), step("fail", { level: "MAY" })]).status).toBe("not-offered");
    expect(verdict("MUST", [step("fail", { level: "MAY" }), step("fail", { level: "SHOULD" })]).status).toBe("warn");
  });
  it("not offered counts on its own: console, last line (only then), JSON, JUnit, HTML; never a warning", () => {
    const results = [mkResult("v1_0/json-rpc/a/n", "not-offered"), mkResult("v1_0/json-rpc/a/p", "pass")];
    const r = reportOf(results);
    expect(r.summary).toMatchObject({ passed: 1, failed: 0, warnings: 0, notOffered: 1 });
    const text = consoleReport(r);
    expect(text.trimEnd().split("\n").pop()).toBe("1 passed, 0 failed, 0 warnings, 0 skipped, 1 not offered");
    expect(text).toContain("not offered (MAY features the agent does not offer; not a defect): 1 case");
    expect(
      consoleReport(reportOf([mkResult("v1_0/json-rpc/a/p", "pass")]))
        .trimEnd()
        .split("\n")
        .pop(),
    ).not.toContain("not offered");
    const junit = junitReport(r);
    expect(junit).toContain('<property name="notOffered" value="1"/>');
    expect(junit).not.toMatch(/<failure|<skipped/);
    expect(htmlReport(r)).toContain('<h2 id="not-offered">Not offered (1)</h2>');
  });

  it("warnings count on their own, and a known-failing list covers them too", () => {
    const results = [mkResult("v1_0/json-rpc/a/w", "warn"), mkResult("v1_0/json-rpc/a/f", "fail"), mkResult("v1_0/json-rpc/a/p", "pass")];
    const r = reportOf(results);
    expect(r.summary).toMatchObject({ passed: 1, failed: 1, warnings: 1, skipped: 0 });
    expect(consoleReport(r).trimEnd().split("\n").pop()).toBe("1 passed, 1 failed, 1 warnings, 0 skipped");
    expect(consoleReport(r)).toContain("WARN v1_0/json-rpc/a/w");
    const list = parseKnownFailing("k.json", JSON.stringify(["v1_0/json-rpc/a/w"]));
    expect(applyKnownFailing(results, [mkCase("v1_0/json-rpc/a/w")], list).results[0]?.status).toBe("known-failing");
  });
});

describe("twin divergences", () => {
  it("names scenarios that pass on one binding or version and fail on another, ignoring skips", () => {
    const d = divergences([
      mkResult("v1_0/json-rpc/get-task/x", "pass"),
      mkResult("v1_0/rest/get-task/x", "fail"),
      mkResult("v0_3/json-rpc/get-task/x", "pass"),
      mkResult("v0_3/rest/get-task/x", "skip"),
      mkResult("v1_0/json-rpc/cancel/y", "pass"),
      mkResult("v1_0/rest/cancel/y", "pass"),
      mkResult("v1_0/card/z", "fail"),
    ]);
    expect(d).toEqual([
      { scenario: "get-task/x", axis: "binding", passed: ["v1_0/json-rpc/get-task/x"], failed: ["v1_0/rest/get-task/x"] },
    ]);
    // Twins of different strength, or a failure only at SHOULD, are no disagreement.
    expect(divergences([mkResult("v0_3/json-rpc/e/x", "fail"), mkResult("v0_3/rest/e/x", "pass", { level: "SHOULD" })])).toEqual([]);
    expect(divergences([mkResult("v0_3/json-rpc/e/x", "fail", { failureLevel: "SHOULD" }), mkResult("v0_3/rest/e/x", "pass")])).toEqual([]);
    expect(divergences([mkResult("v0_3/json-rpc/e/x", "warn"), mkResult("v0_3/rest/e/x", "pass")])).toEqual([]);
    const v = divergences([mkResult("v1_0/rest/a/b", "fail"), mkResult("v0_3/rest/a/b", "pass")]);
    expect(v).toEqual([{ scenario: "a/b", axis: "version", passed: ["v0_3/rest/a/b"], failed: ["v1_0/rest/a/b"] }]);
  });
});

describe("reporters", () => {
  const catalogue: Catalogue = {
    rules: [
      { id: "S-23", level: "MUST", role: "server", catalogue: "8.1", text: "unknown task id fails" },
      { id: "S-39", level: "MUST", role: "server", catalogue: "8.1", text: "streams are broadcast" },
      { id: "V-09", level: "MAY", role: "server", catalogue: "8.3", text: "0.3 gRPC", notApplicable: "gRPC only" },
    ],
    tckIds: [],
  };
  const suite = [mkCase("v1_0/json-rpc/get-task/unknown"), mkCase("v1_0/json-rpc/get-task/x<&>")];
  const failing = mkResult("v1_0/json-rpc/get-task/x<&>", "fail", {
    spec: [{ version: "1.0.1", section: "3.1.3", quote: "The server MUST return a <TaskNotFoundError>." }],
    reason: "get: /body/error/code expected -32001, got -32002",
    steps: [
      {
        name: "get",
        request: { method: "POST", url: "http://127.0.0.1:1/rpc", headers: {}, body: '{"id":1}' },
        expected: { body: { error: { code: -32001 } } },
        actual: { status: 200, headers: { "content-type": "application/json" }, json: { error: { code: -32002 } } },
        diffs: [{ path: "/body/error/code", expected: -32001, actual: -32002, message: "expected -32001, got -32002" }],
        status: "fail",
      },
    ],
  });
  const results = [
    mkResult("v1_0/json-rpc/get-task/unknown", "pass"),
    failing,
    mkResult("v1_0/rest/get-task/unknown", "skip", { reason: "binding not declared" }),
  ];
  const report = buildReport({
    target: "http://127.0.0.1:1/",
    startedAt: new Date(0),
    finishedAt: new Date(1000),
    discovery,
    filters: {},
    results,
    stale: [{ case: "v9/gone" }],
    knownFailingFile: "k.json",
    coverage: coverage(catalogue, suite),
    suite,
  });

  it("console: the verdict first, each failure in a few lines, the exact last line; --verbose: diffs and expected/actual side by side", () => {
    const text = consoleReport(report);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("FAILED  2 MUST failures, 0 warnings: agent http://127.0.0.1:1/");
    expect(lines.slice(1, 4)).toEqual(["  MUST   1 failed  1 passed  1 skipped", "       JSONRPC", "  1.0  1/2 ok, 1 failed"]);
    expect(lines[lines.length - 1]).toBe("1 passed, 2 failed, 0 warnings, 1 skipped");
    expect(lines.slice(5, 9)).toEqual([
      "FAIL v1_0/json-rpc/get-task/x<&> [MUST]",
      "  title of v1_0/json-rpc/get-task/x<&>",
      "  get: /body/error/code: expected -32001, got -32002",
      '  1.0.1 §3.1.3: "The server MUST return a <TaskNotFoundError>."',
    ]);
    expect(text).toContain('known-failing entry "v9/gone" in k.json matches no case');
    expect(text).toContain("1 catalogued rule without a case");
    expect(text).not.toMatch(/│|\x1b\[/);
    expect(text).not.toContain("PASS v1_0/json-rpc/get-task/unknown");
    const verbose = consoleReport(report, { verbose: true });
    expect(verbose).toContain("✗ /body/error/code: expected -32001, got -32002");
    expect(verbose).toMatch(/expected\s+│ actual/);
    expect(verbose).toContain('spec 1.0.1 §3.1.3: "The server MUST return a <TaskNotFoundError>."');
    expect(verbose).toContain("not covered: S-39");
    expect(verbose).toContain("PASS v1_0/json-rpc/get-task/unknown");
  });

  it("console: the progress bar fills with the count and fits the terminal", () => {
    expect(progressLine(0, 4, "a/b")).toBe("\r\x1b[K[....................] 0/4 a/b");
    expect(progressLine(2, 4, "a/b")).toBe("\r\x1b[K[##########..........] 2/4 a/b");
    const long = progressLine(3, 4, `v1_0/json-rpc/${"x".repeat(200)}`, 60);
    expect(long.length - "\r\x1b[K".length).toBeLessThan(60);
    expect(long).toMatch(/\] 3\/4 …x+$/);
  });

  it("console: colour on a terminal unless NO_COLOR is set and not empty", () => {
    expect(colorWanted(true, {})).toBe(true);
    expect(colorWanted(true, { NO_COLOR: "" })).toBe(true);
    expect(colorWanted(true, { NO_COLOR: "1" })).toBe(false);
    expect(colorWanted(false, {})).toBe(false);
  });

  it("console: colour only when asked, on the verdict and the failures", () => {
    const text = consoleReport(report, { color: true });
    expect(text.split("\n")[0]).toBe("\x1b[31m\x1b[1mFAILED\x1b[22m\x1b[39m  2 MUST failures, 0 warnings: agent http://127.0.0.1:1/");
    expect(text).toContain("\x1b[31mFAIL\x1b[39m \x1b[1mv1_0/json-rpc/get-task/x<&>\x1b[22m [MUST]");
    // Without colour the same text, byte for byte.
    expect(text.replace(/\x1b\[\d+m/g, "")).toBe(consoleReport(report));
  });

  it("JSON: summary, results with expected and actual wire, coverage", () => {
    const j = JSON.parse(jsonReport(report));
    expect(j.summary).toEqual({ total: 3, passed: 1, failed: 2, warnings: 0, skipped: 1, inconclusive: 0, notOffered: 0, knownFailing: 0 });
    expect(j.results[1].steps[0].diffs[0].path).toBe("/body/error/code");
    expect(j.results[1].steps[0].actual.json).toEqual({ error: { code: -32002 } });
    expect(j.coverage.map((c: { id: string; status: string }) => `${c.id}:${c.status}`)).toEqual([
      "S-23:covered",
      "S-39:not covered",
      "V-09:not applicable",
    ]);
    expect(j.staleKnownFailing).toEqual([{ case: "v9/gone" }]);
  });

  it("JUnit XML: suites per version/binding, escaped names, failure/skipped elements, not-covered rules", () => {
    const xml = junitReport(report);
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="a2a-toolkit compliance" tests="4" failures="2" skipped="1"',
      ),
    ).toBe(true);
    expect(xml).toContain('<testsuite name="v1_0/json-rpc" tests="2" failures="1" errors="0" skipped="0"');
    expect(xml).toContain('<testcase classname="v1_0.json-rpc.get-task" name="x&lt;&amp;&gt;"');
    expect(xml).toMatch(/<failure message="get: \/body\/error\/code expected -32001, got -32002" type="MUST">/);
    expect(xml).toContain('<skipped message="binding not declared"/>');
    expect(xml).toContain('name="S-39" time="0"><skipped message="not covered: MUST streams are broadcast"/>');
    expect(xml).toContain('name="v9/gone"');
    expect(xml).not.toMatch(/<[^>]*<[^/!?]/); // no raw "<" inside a tag
    const opens = (xml.match(/<testcase /g) ?? []).length;
    const closes = (xml.match(/<\/testcase>/g) ?? []).length;
    expect(opens).toBe(closes);
  });

  it("HTML: self-contained, escaped, a verdict banner, collapsed blocks each quote once, links only within the page", () => {
    const html = htmlReport(report);
    expect(html).not.toMatch(/<script|<link|src=/);
    // Every link points into the page, at an element that exists.
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(0);
    for (const h of hrefs) {
      expect(h).toMatch(/^#/);
      expect(html).toContain(`id="${h.slice(1)}"`);
    }
    expect(html).toContain('<header class="banner failed" id="verdict"><strong>FAILED</strong>2 MUST failures, 0 warnings');
    expect(html).toContain("x&lt;&amp;&gt;");
    expect(html).not.toContain("<details open");
    expect(html).toContain('<a href="#case-v1_0/json-rpc/get-task/x&lt;&amp;&gt;">');
    const quote = '<blockquote class="spec">1.0.1 §3.1.3: &quot;The server MUST return a &lt;TaskNotFoundError&gt;.&quot;</blockquote>';
    expect(html.split(quote)).toHaveLength(2);
    expect(html).toContain('class="not-covered">not covered');
    expect(html).toContain("1 passed, 2 failed, 0 warnings, 1 skipped");
  });
});

describe("how much was judged", () => {
  const catalogue: Catalogue = {
    rules: ["S-01", "S-02", "S-03", "S-04", "S-05"].map((id) => ({
      id,
      level: "MUST",
      role: "server" as const,
      catalogue: "8.1",
      text: `rule ${id}`,
    })),
    tckIds: ["CORE-X"],
  };
  catalogue.rules.push({ id: "V-09", level: "MAY", role: "server", catalogue: "8.3", text: "0.3 gRPC", notApplicable: "gRPC only" });
  // The agent declares 1.0 JSON-RPC only (discovery above).
  const results = [
    mkResult("v1_0/json-rpc/get-task/p", "pass", { requirements: ["CORE-X", "S-01"] }),
    mkResult("v1_0/json-rpc/get-task/f", "fail", { requirements: ["S-02"], reason: "get: /status expected 404, got 500" }),
    mkResult("v1_0/json-rpc/get-task/k", "known-failing", { requirements: ["S-03"], reason: "known" }),
    mkResult("v1_0/json-rpc/streaming/s", "skip", {
      requirements: ["S-04"],
      reason: "fixture behaviour not declared by the agent: stream",
    }),
    mkResult("v1_0/json-rpc/streaming/w", "warn", { requirements: ["S-05"], level: "SHOULD", reason: "w" }),
    mkResult("v1_0/json-rpc/streaming/n", "pass", { requirements: ["V-09"] }),
    mkResult("v1_0/card/c", "pass", { binding: "any", requirements: ["S-01"] }),
    ...["a", "b", "c"].map((x) =>
      mkResult(`v1_0/rest/get-task/${x}`, "skip", {
        binding: "rest",
        requirements: ["S-04"],
        reason: "binding not declared: the agent card declares no 1.0 HTTP+JSON interface",
      }),
    ),
    mkResult("v1_0/json-rpc/multi-turn/x", "skip", { requirements: [], reason: "fixture behaviour not declared by the agent: ask" }),
    mkResult("v1_0/json-rpc/multi-turn/y", "skip", { requirements: [], reason: "fixture behaviour not declared by the agent: ask, slow" }),
    mkResult("v1_0/json-rpc/security/z", "skip", {
      requirements: [],
      reason: "the card does not declare what the case checks: /securitySchemes expected a value, got undefined",
    }),
  ];
  const report = reportOf(results, { target: "http://127.0.0.1:1/", coverage: coverage(catalogue, []) });

  it("counts a rule exercised only when one of its cases ran, of the rules cited on declared interfaces", () => {
    // S-04 was only skipped; S-05's skip on undeclared HTTP+JSON does not make it less exercised; V-09 is not applicable; CORE-X is no catalogue rule.
    expect(report.exercised.overall).toEqual({
      exercised: 4,
      applicable: 5,
      exercisedRules: ["S-01", "S-02", "S-03", "S-05"],
      notExercised: ["S-04"],
    });
    expect(
      report.exercised.byInterface.map((t) => `${t.version} ${t.binding} ${t.declared ? `${t.exercised}/${t.applicable}` : "undeclared"}`),
    ).toEqual(["1.0 json-rpc 4/5", "1.0 rest undeclared", "1.0 any 1/1"]);
    expect(JSON.parse(jsonReport(report)).exercised.overall).toMatchObject({ exercised: 4, applicable: 5 });
    expect(consoleReport(report)).toContain("rules exercised on this agent: 4 of 5 applicable; 5 catalogued rules without a case\n");
    const text = consoleReport(report, { verbose: true });
    expect(text).toContain(
      [
        "rules exercised on this agent: 4 of 5 applicable",
        "  1.0 JSONRPC: 4 of 5",
        "  1.0 HTTP+JSON: not declared by the agent",
        "  1.0 any binding: 1 of 1",
        "  not exercised (every case skipped): S-04",
      ].join("\n"),
    );
  });

  it("console: inconclusive cases are a kind of their own, in the counts, the matrix and one line", () => {
    const results = [
      mkResult("v1_0/json-rpc/get-task/p", "pass"),
      mkResult("v1_0/json-rpc/get-task/i", "inconclusive", { reason: "the agent answered with a bare Message" }),
    ];
    const r = reportOf(results);
    const lines = consoleReport(r).trimEnd().split("\n");
    expect(lines[0]).toMatch(/^PASSED /);
    expect(lines[1]).toBe("  MUST   1 passed  1 inconclusive");
    expect(lines[3]).toBe("  1.0  1/2 ok, 1 inconclusive");
    expect(lines).toContain(
      "inconclusive (the agent's answers left the rule untested; not a failure): 1 case; most: the agent answered with a bare Message (1)",
    );
    expect(consoleReport(r, { color: true }).split("\n")[3]).toContain("\x1b[32m1/2 ok, 1 inconclusive");
  });

  it("console: the skips in one line, their reasons grouped by their stable prefix", () => {
    const lines = consoleReport(report).trimEnd().split("\n");
    expect(lines.filter((l) => l.startsWith("skipped"))).toEqual([
      "skipped: 7 cases, 3 reasons; most: fixture behaviour not declared by the agent (3)",
    ]);
    expect(skipGroups(report.results).map((g) => `${g.cases.length} ${g.reason}`)).toEqual([
      "3 fixture behaviour not declared by the agent",
      "3 binding not declared: the agent card declares no 1.0 HTTP+JSON interface",
      "1 the card does not declare what the case checks: /securitySchemes expected a value, got undefined",
    ]);
    expect(lines.filter((l) => l.startsWith("SKIP "))).toEqual([]);
    expect(lines[lines.length - 1]).toBe("3 passed, 1 failed, 1 warnings, 7 skipped");
  });

  it("console --verbose: every skipped case with its whole reason, as before, and no grouped lines", () => {
    const text = consoleReport(report, { verbose: true });
    expect(text).not.toContain("skipped cases by reason");
    expect(text).toContain("SKIP v1_0/json-rpc/multi-turn/y [MUST; ]\n  fixture behaviour not declared by the agent: ask, slow\n");
    expect(text.split("\n").filter((l) => l.startsWith("SKIP "))).toHaveLength(7);
    expect(text).toContain("PASS v1_0/card/c");
    expect(text.trimEnd().split("\n").pop()).toBe("3 passed, 1 failed, 1 warnings, 7 skipped");
  });

  it("HTML: failures, then warnings, with the quoted rule, then the matrix, then the rest; all escaped", () => {
    const quoted = mkResult("v1_0/json-rpc/<area&>/x", "fail", {
      spec: [{ version: "1.0.1", section: "3.1.3", quote: "A case-level <i>sentence</i>." }],
      steps: [
        {
          name: "s",
          expected: {},
          diffs: [],
          status: "fail",
          spec: [{ version: "1.0.0", section: "9.4", quote: "The step's own MUST & more." }],
        },
      ],
    });
    const partly = [mkResult("v1_0/json-rpc/list-tasks/a", "pass"), mkResult("v1_0/json-rpc/list-tasks/b", "skip", { reason: "r" })];
    const html = htmlReport({ ...report, results: [...report.results, quoted, ...partly] });
    expect(html).not.toMatch(/<script|<link|src=|<area|<i>/);
    const pos = (s: string) => {
      expect(html).toContain(s);
      return html.indexOf(s);
    };
    // The first screen: a line per failure, then per warning, linking to the blocks; the level and version × binding tables above them.
    expect(pos('<table class="levels">')).toBeLessThan(pos('<table class="matrix vb">'));
    expect(pos('<table class="matrix vb">')).toBeLessThan(pos('<ul class="gist">'));
    expect(html).toContain(
      '<li><a href="#case-v1_0/json-rpc/get-task/f"><span class="fail">FAIL</span> v1_0/json-rpc/get-task/f</a> <span class="muted">[MUST]</span> get: /status expected 404, got 500</li>',
    );
    expect(pos('<ul class="gist">')).toBeLessThan(pos('<h2 id="failures">'));
    // Markdown in a quote is rendered, once.
    expect(quoteHtml("Servers **MUST** use `x` ([3.2](#32-y))")).toBe("Servers <strong>MUST</strong> use <code>x</code> (3.2)");
    // Failures first (in result order), then warnings, then the matrix, then the passing and skipped cases.
    expect(pos("FAIL</span> v1_0/json-rpc/get-task/f")).toBeLessThan(pos("FAIL</span> v1_0/json-rpc/&lt;area&amp;&gt;/x"));
    expect(pos("FAIL</span> v1_0/json-rpc/&lt;area&amp;&gt;/x")).toBeLessThan(pos("WARN</span> v1_0/json-rpc/streaming/w"));
    expect(pos("WARN</span> v1_0/json-rpc/streaming/w")).toBeLessThan(pos('<table class="matrix">'));
    expect(pos('<table class="matrix">')).toBeLessThan(pos("PASS</span> v1_0/json-rpc/get-task/p"));
    // The failing step's own citation, quoted under the failure, above the matrix.
    expect(pos('<blockquote class="spec">1.0.0 §9.4: &quot;The step&#39;s own MUST &amp; more.&quot;</blockquote>')).toBeLessThan(
      pos('<table class="matrix">'),
    );
    expect(html).not.toContain("A case-level");
    // The matrix: a column per version × binding, a row per area, coloured cells with the counts.
    const matrix = html.slice(pos('<table class="matrix">'), html.indexOf("</table>", pos('<table class="matrix">')));
    expect(matrix).toContain("<th>1.0 JSONRPC</th><th>1.0 HTTP+JSON</th><th>1.0 any binding</th>");
    expect(matrix).toContain(
      '<tr><th>get-task</th><td class="cell-fail">1 fail<br>1 known failing<br>1 pass</td><td class="cell-skip">3 skip</td><td class="muted">–</td></tr>',
    );
    expect(matrix).toContain('<tr><th>streaming</th><td class="cell-warn">1 warn<br>1 pass<br>1 skip</td>');
    expect(matrix).toContain('<tr><th>card</th><td class="muted">–</td><td class="muted">–</td><td class="cell-pass">1 pass</td></tr>');
    expect(matrix).toContain('<tr><th>&lt;area&amp;&gt;</th><td class="cell-fail">1 fail</td>');
    expect(matrix).toContain('<tr><th>list-tasks</th><td class="cell-partial">1 pass<br>1 skip</td>');
    expect(matrix).toContain(
      '<tr><th>all areas</th><td class="cell-fail">2 fail<br>1 warn<br>1 known failing<br>3 pass<br>5 skip</td><td class="cell-skip">3 skip</td><td class="cell-pass">1 pass</td></tr>',
    );
    expect(html).toContain("Rules exercised on this agent: <strong>4 of 5 applicable</strong>");
    expect(html).toContain("<tr><td>3</td><td>fixture behaviour not declared by the agent</td></tr>");
  });
});

describe("skip reasons with a case-specific detail are counted under their stable part", () => {
  it("groups the message budget, task timeout and no-step-applied reasons", () => {
    expect(skipGroup("needs 2 messages; --max-messages budget left: 1")).toBe("--max-messages budget spent");
    expect(skipGroup("needs 1 message; --max-messages budget left: 0")).toBe("--max-messages budget spent");
    expect(skipGroup('the task did not reach {"$oneOf":[1,2]} within --task-timeout (120000 ms)')).toBe(
      "the task did not end within --task-timeout",
    );
    expect(skipGroup('no step applied (when: "taskId" was not captured)')).toBe("no step applied");
    expect(skipGroup("needs a webhook receiver the agent can reach (--webhook-listen)")).toBe(
      "needs a webhook receiver the agent can reach (--webhook-listen)",
    );
  });
});

describe("rules the card rules out are not applicable", () => {
  it("a rule whose every case was skipped for a capability or precondition of the card does not count", () => {
    const rows = ["S-01", "S-02", "S-03"].map((id) => ({ id }));
    const r = (requirements: string[], status: "pass" | "skip", reason?: string) => ({
      version: "1.0" as const,
      binding: "json-rpc",
      requirements,
      status,
      reason,
    });
    const tally = tallyRules(
      [
        r(["S-01"], "pass"),
        r(["S-02"], "skip", "capability absent: capabilities.pushNotifications is not true in the 1.0 card"),
        r(["S-02"], "skip", "the card does not declare what the case checks: /securitySchemes missing"),
        r(["S-03"], "skip", "needs a webhook receiver the agent can reach (--webhook-listen)"),
      ],
      rows,
      () => true,
    );
    // S-02: the agent declares no push, so its rule is out; S-03 could have run with a receiver: applicable, not exercised.
    expect(tally).toEqual({ exercised: 1, applicable: 2, exercisedRules: ["S-01"], notExercised: ["S-03"] });
  });
});
