import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { assert, describe, expect, it } from "vitest";
import { CaseLoadError, globToRegExp, loadCases, loadExtraCases, parseCase, type CaseExchange } from "../../src/compliance/cases.js";
import { Scope, match } from "../../src/compliance/match.js";
import { coverage, loadCatalogue, unknownRequirementIds } from "../../src/compliance/requirements.js";

const req = { method: "POST", path: "", headers: { "Content-Type": "application/json" }, body: {} };
const step = { request: req, expect: { status: 200 } };
const good = {
  title: "t",
  requirements: ["S-23"],
  level: "MUST",
  version: "1.0",
  binding: "json-rpc",
  agent: "any",
  steps: [step],
};

function problems(data: unknown, id = "v1_0/json-rpc/x/y"): string[] {
  return parseCase(id, "f.json", data).problems;
}

describe("case loader", () => {
  it("gives every caller of the built-in set its own copy", () => {
    const first = loadCases();
    const id = first[0]!.id;
    first[0]!.steps.length = 0;
    first.length = 0;
    const again = loadCases();
    expect(again.length).toBeGreaterThan(400);
    expect(again[0]!.id).toBe(id);
    expect(again[0]!.steps.length).toBeGreaterThan(0);
  });

  it("accepts a well-formed case and derives its behaviours", () => {
    const r = parseCase("v1_0/json-rpc/x/y", "f.json", { ...good, agent: ["fixture:echo", "fixture:slow"] });
    expect(r.problems).toEqual([]);
    expect(r.case?.behaviours).toEqual(["echo", "slow"]);
    expect(r.case?.capabilities).toEqual([]);
  });

  it("names the file and the JSON Pointer of each schema problem", () => {
    const { level: _level, ...noLevel } = good;
    expect(problems(noLevel)).toEqual(['v1_0/json-rpc/x/y: /: required property "level" is missing']);
    expect(problems({ ...good, level: "MUSTN'T" })).toEqual(['v1_0/json-rpc/x/y: /level: must be one of "MUST", "SHOULD", "MAY"']);
    expect(problems({ ...good, extra: 1 })).toEqual(['v1_0/json-rpc/x/y: /: unknown property "extra"']);
    expect(problems({ ...good, agent: "fixture:dance" })[0]).toMatch(/\/agent/);
    const twoBodies = { ...good, steps: [{ request: { method: "POST", path: "", body: {}, rawBody: "{" }, expect: {} }] };
    expect(problems(twoBodies)[0]).toMatch(/\/steps\/0\/request: properties that exclude each other/);
  });

  it("rejects unknown operators, match kinds and validators inside expectations", () => {
    const withExpect = (expect: unknown) => ({ ...good, steps: [{ request: req, expect: { body: expect } }] });
    expect(problems(withExpect({ a: { $matches: "x" } }))[0]).toMatch(/\/steps\/0\/expect\/body\/a: unknown operator "\$matches"/);
    expect(problems(withExpect({ a: { $match: "guid" } }))[0]).toMatch(/\$match: unknown kind "guid"/);
    expect(problems(withExpect({ $valid: "v1_0.Tsk" }))[0]).toMatch(/no generated validator named "v1_0.Tsk"/);
    expect(problems(withExpect({ $regex: "(" }))[0]).toMatch(/\$regex/);
  });

  it("accepts parallel groups and reports a broken exchange inside one precisely", () => {
    const ex = step;
    expect(problems({ ...good, steps: [{ name: "both", parallel: [ex, ex] }] })).toEqual([]);
    expect(problems({ ...good, steps: [{ parallel: [ex, { request: ex.request }] }] })).toEqual([
      'v1_0/json-rpc/x/y: /steps/0/parallel/1: required property "expect" is missing',
    ]);
    expect(problems({ ...good, steps: [{ request: ex.request }] })).toEqual([
      'v1_0/json-rpc/x/y: /steps/0: required property "expect" is missing',
    ]);
    const bad = { ...ex, expect: { body: { $match: "nope" } } };
    expect(problems({ ...good, steps: [{ parallel: [ex, bad] }] })[0]).toMatch(
      /\/steps\/0\/parallel\/1\/expect\/body\/\$match: unknown kind "nope"/,
    );
  });

  it("requires the folder to match version and binding", () => {
    expect(problems(good, "v0_3/json-rpc/x/y")[0]).toMatch(/\/version: "1.0" but the case lives under v0_3\//);
    expect(problems(good, "v1_0/rest/x/y")[0]).toMatch(/\/binding: "json-rpc" but the case lives under v1_0\/rest\//);
  });

  it("loadCases reports every problem of every file at once", () => {
    const dir = mkdtempSync(join(tmpdir(), "cases-"));
    const write = (rel: string, text: string) => {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    };
    write("v1_0/json-rpc/a/ok.json", JSON.stringify(good));
    write("v1_0/json-rpc/a/broken.json", "{ nope");
    write("v1_0/json-rpc/a/bad.json", JSON.stringify({ ...good, level: 1 }));
    try {
      loadCases(dir);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CaseLoadError);
      const p = (e as CaseLoadError).problems;
      expect(p).toHaveLength(2);
      expect(p[0]).toMatch(/^v1_0\/json-rpc\/a\/bad: \/level/);
      expect(p[1]).toMatch(/^v1_0\/json-rpc\/a\/broken: not valid JSON/);
    }
  });

  it("--cases directories: IDs namespaced by directory name, uncited cases accepted, problems name the directory", () => {
    const root = mkdtempSync(join(tmpdir(), "extra-cases-"));
    const write = (rel: string, data: unknown) => {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), typeof data === "string" ? data : JSON.stringify(data));
    };
    // `good` has no `spec`: a recorded case is user data, not held to the built-in citation rule.
    write("a/recorded/v1_0/json-rpc/recorded/001-send.json", good);
    write("b/recorded/v1_0/json-rpc/recorded/001-send.json", good);
    const cases = loadExtraCases([join(root, "a/recorded"), join(root, "b/recorded")]);
    expect(cases.map((c) => c.id)).toEqual(["recorded:v1_0/json-rpc/recorded/001-send", "recorded~2:v1_0/json-rpc/recorded/001-send"]);
    expect(cases.every((c) => c.spec === undefined && c.version === "1.0")).toBe(true);
    expect(cases.map((c) => globToRegExp("recorded:**").test(c.id))).toEqual([true, false]);
    write("bad/v1_0/rest/x.json", "{ nope");
    const problemsOf = (dirs: string[]) => {
      try {
        loadExtraCases(dirs);
      } catch (e) {
        expect(e).toBeInstanceOf(CaseLoadError);
        return (e as CaseLoadError).problems;
      }
      return [];
    };
    expect(problemsOf([join(root, "bad")])).toEqual([expect.stringMatching(/\/bad: v1_0\/rest\/x: not valid JSON: /)]);
    expect(problemsOf([join(root, "missing")])[0]).toMatch(/missing: cannot read the cases directory/);
    mkdirSync(join(root, "empty"));
    expect(problemsOf([join(root, "empty")])).toEqual([
      `${join(root, "empty")}: no case files (*.json below <v1_0|v0_3>/<binding>/) and no scenarios (<folder>/<name>.yaml)`,
    ]);
  });

  it("globs: * stays within a segment, ** crosses segments", () => {
    expect(globToRegExp("v1_0/*/get-task/*").test("v1_0/rest/get-task/unknown")).toBe(true);
    expect(globToRegExp("v1_0/*").test("v1_0/rest/get-task/unknown")).toBe(false);
    expect(globToRegExp("v1_0/**").test("v1_0/rest/get-task/unknown")).toBe(true);
    expect(globToRegExp("**/streaming/**").test("v0_3/json-rpc/streaming/x")).toBe(true);
    expect(globToRegExp("v1_0/rest/get-task/unknown").test("v1_0/rest/get-task/unknown.json")).toBe(true);
    expect(globToRegExp("**/card/**").test("v1_0/json-rpc/extended-card/x")).toBe(false);
    expect(globToRegExp("**/card/**").test("v1_0/card/x")).toBe(true);
  });
});

describe("the committed suite", () => {
  const cases = loadCases();
  const catalogue = loadCatalogue();

  it("loads, and cites only catalogued or official-kit requirement IDs, at least one from the catalogue", () => {
    expect(cases.length).toBeGreaterThan(100);
    expect(unknownRequirementIds(catalogue, cases)).toEqual([]);
    const ruleIds = new Set(catalogue.rules.map((r) => r.id));
    expect(cases.filter((c) => !c.requirements.some((id) => ruleIds.has(id))).map((c) => c.id)).toEqual([]);
  });

  it("the catalogue holds the 63 server (plus S-64..S-67, rules of cases the official kit has), 29 client and 12 legacy rules of a2a-wire.md §8 and the kit's 129 IDs", () => {
    const by = (cat: string) => catalogue.rules.filter((r) => r.catalogue === cat).length;
    expect([by("8.1"), by("8.2"), by("8.3")]).toEqual([67, 29, 12]);
    expect(new Set(catalogue.tckIds).size).toBe(129);
    for (const r of catalogue.rules) expect(r.text.length, r.id).toBeGreaterThan(10);
  });

  it("every scenario whose operation exists in both versions has 1.0 and 0.3 twins on the three bindings", () => {
    const GRPC_SCENARIOS = /^rest\/(get-task|send-message|cancel-task|streaming|multi-turn|list-tasks)\//;
    const NO_GRPC_TWIN =
      /(a2a-json-media-type|camel-case(-with-utc-timestamps)?|no-kind-discriminator|reply-kind-member-per-version|unknown-request-(fields|members)-are-ignored|spelled-per-version|timestamps-are-well-formed|concurrent-subscribers-.*)$/;
    const key = (id: string) => id.split("/").slice(1).join("/");
    const ids = new Set(cases.map((c) => c.id));
    // 1.0-only by the spec: no 0.3 counterpart exists (ListTasks, A2A-Version negotiation,
    // 1.0 serialisation rules) or the 0.3 behaviour differs and has its own case.
    const onlyIn1_0 = [
      /\/list-tasks\//,
      /\/versioning\//,
      /no-kind-discriminator$/,
      /unknown-request-fields-are-ignored$/,
      /a2a-json-media-type$/,
      /new-tasks-get-distinct-ids$/,
      /mismatched-context-id-is-rejected$/,
      /task-not-found-carries-error-info$/,
      /subscribe-to-(running|terminal|unknown)-task/,
      /concurrent-subscribers/, // 0.3 says nothing about several streams on one task
      /^(json-rpc|rest)\/extensions\/required-/, // ExtensionSupportRequiredError is 1.0 only (-32008)
      /other-principal-list-excludes-task$/, // ListTasks
      /webhook-(receives-stream-responses|calls-use-a2a-json)/, // 1.0 bodies; the 0.3 twin is webhook-receives-0.3-tasks
      /history-length-zero-(omits|leaves)-history(-out)?$/, // 0.3 gives historyLength 0 another meaning (a2a-wire.md §2.9)
      // 1.0 serialisation rules (camelCase members, UTC timestamps with Z, §5.5-5.6) and returnImmediately (§3.2.2).
      /(reply-member-names-are-camel-case|reply-is-camel-case-with-utc-timestamps|return-immediately-then-poll-until-settled)$/,
      /^card\//,
      /^(json-rpc|rest)\/tenant\//, // AgentInterface.tenant is 1.0 only
      // Rules the 0.3 text does not state: a client-chosen contextId (1.0 §3.4.1), history
      // persistence (1.0 §3.7), same events on every stream (1.0 §3.5.2), ignoring an unsupported
      // requested extension (1.0 §4.6.3).
      /client-context-id-is-kept-or-refused$/,
      /(first-message-is-in-history|history-holds-both-turns)$/,
      /concurrent-subscribers-see-identical-events$/,
      /unknown-requested-extension-is-ignored$/,
    ];
    // 0.3 JSON-RPC only: the deprecated get-by-task-id form (a2a-wire.md §8.3 V-06).
    const onlyIn0_3Rpc = /get-without-config-id$/;
    const missing: string[] = [];
    for (const c of cases) {
      const k = key(c.id);
      if (onlyIn0_3Rpc.test(k)) continue;
      if (c.version === "1.0" && !onlyIn1_0.some((re) => re.test(k)) && !ids.has(`v0_3/${k}`)) missing.push(`v0_3/${k}`);
      if (
        c.version === "0.3" &&
        c.binding !== "any" &&
        !/resubscribe-to-finished|webhook-receives-0.3-tasks|activated-extension-is-echoed/.test(k) &&
        !/resubscribe-to-(running|unknown)/.test(k) &&
        !/final-flag-is-on-the-last-status$/.test(k) && // the 0.3 final member; 1.0 has none
        !ids.has(`v1_0/${k}`)
      )
        missing.push(`v1_0/${k}`);
      // gRPC (the third binding): every HTTP+JSON case of the operation scenarios has a gRPC twin
      // (the same ProtoJSON bodies), except those about JSON spellings, which the gRPC binding has
      // not (its JSON is the suite's rendering of binary protobuf), push (webhooks) and parallel
      // streams; and every gRPC case is the twin of an HTTP+JSON case, but for the binding's own rules.
      if (c.binding === "rest" && GRPC_SCENARIOS.test(k) && !NO_GRPC_TWIN.test(k) && !ids.has(c.id.replace("/rest/", "/grpc/")))
        missing.push(c.id.replace("/rest/", "/grpc/"));
      // grpc/protocol/, grpc/versioning/: rules of the gRPC binding itself (framing, metadata).
      if (c.binding === "grpc" && !/^grpc\/(protocol|versioning)\//.test(k) && !ids.has(c.id.replace("/grpc/", "/rest/")))
        missing.push(c.id.replace("/grpc/", "/rest/"));
      if (
        c.binding === "json-rpc" &&
        !k.startsWith("json-rpc/json-rpc-errors/") &&
        !/task-not-found-carries-error-info|0.3-method|missing-version-header|numeric-request-id-is-echoed/.test(k)
      ) {
        const other = c.id.replace("/json-rpc/", "/rest/");
        if (!ids.has(other)) missing.push(other);
      }
    }
    expect(missing).toEqual([]);
  });

  it("coverage maps rules to cases and marks the rest not covered or not applicable", () => {
    const rows = coverage(catalogue, cases);
    expect(rows.find((r) => r.id === "S-23")?.cases).toContain("v1_0/json-rpc/get-task/unknown-id-returns-task-not-found");
    expect(rows.find((r) => r.id === "V-09")?.status).toBe("not applicable");
    expect(rows.find((r) => r.id === "S-61")?.cases).toEqual(["v1_0/card/card-signatures-are-well-formed-jws"]);
    expect(rows.find((r) => r.id === "C-22")?.status).toBe("not applicable");
    const [rule] = catalogue.rules;
    assert(rule);
    expect(coverage({ ...catalogue, rules: [{ ...rule, id: "X-01", notApplicable: undefined }] }, cases)[0]?.status).toBe("not covered");
  });
});

describe("1.0 HTTP+JSON error bodies (1.0.1 §11.6 prose: google.rpc.Status; its example and 1.0.0: AIP-193)", () => {
  const notFound = { code: 404, status: "NOT_FOUND", message: { $match: "string" }, details: { $some: { reason: "TASK_NOT_FOUND" } } };
  const expectedBody = (binding: string, body: unknown) => {
    const c = parseCase(`v1_0/${binding}/x/y`, "f.json", {
      ...good,
      binding,
      steps: [{ request: { method: "GET", path: "/tasks/t" }, expect: { body } }],
    }).case;
    return (c!.steps[0] as CaseExchange).expect.body;
  };
  const judge = (expected: unknown, actual: unknown) => {
    const scope = new Scope(new Map());
    return { diffs: match(expected, actual, "/body", scope).map((d) => d.path), chose: scope.chosen.get("/body") };
  };
  const details = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }];

  it("accepts either shape, names the one used, and still checks every member", () => {
    const exp = expectedBody("rest", { error: notFound });
    expect(judge(exp, { error: { code: 404, status: "NOT_FOUND", message: "m", details } })).toEqual({
      diffs: [],
      chose: expect.stringMatching(/^AIP-193/),
    });
    expect(judge(exp, { error: { code: 404, message: "m", details } })).toEqual({ diffs: [], chose: expect.stringMatching(/^AIP-193/) });
    expect(judge(exp, { code: 404, message: "m", details })).toEqual({ diffs: [], chose: expect.stringMatching(/^google\.rpc\.Status/) });
    expect(judge(exp, { code: 404, message: "m" }).diffs).not.toEqual([]); // no ErrorInfo
    expect(judge(exp, { error: { code: 404, status: "INTERNAL", message: "m", details } }).diffs).toEqual(["/body/error/status"]);
  });

  it("splits the alternatives of an existing $variants and leaves JSON-RPC cases alone", () => {
    const exp = expectedBody("rest", { $variants: { refused: { error: { code: 400 } }, clamped: { tasks: [] } } });
    expect(Object.keys((exp as { $variants: object }).$variants)).toEqual([
      expect.stringMatching(/^refused, AIP-193/),
      expect.stringMatching(/^refused, google\.rpc\.Status/),
      "clamped",
    ]);
    expect(judge(exp, { code: 400, message: "too big" }).chose).toMatch(/^refused, google\.rpc\.Status/);
    expect(expectedBody("json-rpc", { error: notFound })).toEqual({ error: notFound });
  });
});

describe("case loader: issue 12 primitives", () => {
  const capturing = { request: req, expect: { body: { result: { task: { id: { $capture: "taskId" } } } } } };
  const withSteps = (...steps: unknown[]) => ({ ...good, steps });

  it("accepts when/otherwise on steps that name what an earlier step captures", () => {
    expect(
      problems(
        withSteps(
          capturing,
          { request: req, expect: {}, when: { captured: "taskId" } },
          { request: req, expect: {}, when: { notCaptured: "taskId" }, otherwise: { skip: "the agent made task {{taskId}}" } },
          { request: req, expect: {}, when: { capture: "taskId", matches: { $match: "nonEmptyString" } } },
          { request: req, expect: {}, when: { captured: "message" } },
        ),
      ),
    ).toEqual([]);
  });

  it("refuses a when that names no earlier capture, a capture without matches, an otherwise without when", () => {
    expect(problems(withSteps({ request: req, expect: {}, when: { captured: "taskId" } }, capturing))).toEqual([
      'v1_0/json-rpc/x/y: /steps/0/when/captured: no earlier step captures "taskId" (captured so far: none)',
    ]);
    expect(problems(withSteps(capturing, { request: req, expect: {}, when: { capture: "taskId" } }))[0]).toMatch(/\/steps\/1\/when/);
    expect(problems(withSteps(capturing, { request: req, expect: {}, when: {} }))[0]).toMatch(/\/steps\/1\/when/);
    expect(problems(withSteps(capturing, { request: req, expect: {}, when: { captured: "taskId", extra: 1 } }))).toEqual([
      'v1_0/json-rpc/x/y: /steps/1/when: unknown property "extra"',
    ]);
    expect(problems(withSteps(capturing, { request: req, expect: {}, otherwise: { skip: "x" } }))).toEqual([
      "v1_0/json-rpc/x/y: /steps/1/otherwise: needs a when",
    ]);
    expect(
      problems(withSteps(capturing, { request: req, expect: {}, when: { capture: "taskId", matches: { $match: "guid" } } }))[0],
    ).toMatch(/\/steps\/1\/when\/matches\/\$match: unknown kind "guid"/);
  });

  it("checks the shape of $branch", () => {
    const body = (b: unknown) => withSteps({ request: req, expect: { body: { result: { $branch: b } } } });
    expect(
      problems(
        body([
          { name: "task", if: { task: {} }, then: { task: { id: { $capture: "taskId" } } } },
          { name: "message", if: {} },
        ]),
      ),
    ).toEqual([]);
    expect(problems(body([{ name: "task" }]))[0]).toMatch(/\/result\/\$branch: must be an array of \{"name"/);
    expect(problems(body([{ name: "a", if: 1, else: 2 }]))[0]).toMatch(/\$branch: must be an array/);
    expect(
      problems(
        body([
          { name: "a", if: 1 },
          { name: "a", if: 2 },
        ]),
      )[0],
    ).toMatch(/branch names must differ/);
    // a capture inside a branch counts for later conditions
    const branchCapture = { request: req, expect: { body: { $branch: [{ name: "t", if: { id: { $capture: "taskId" } } }] } } };
    expect(problems(withSteps(branchCapture, { request: req, expect: {}, when: { captured: "taskId" } }))).toEqual([]);
  });

  it("accepts the new stream members and refuses a trailer without endsAfter or a pointer that is none", () => {
    const stream = (s: unknown) => withSteps({ request: req, expect: { stream: s } });
    expect(
      problems(
        stream({ sameValue: ["/result/task/id"], nonDecreasing: ["/result/statusUpdate/status/timestamp"], endsAfter: {}, trailer: {} }),
      ),
    ).toEqual([]);
    expect(problems(stream({ trailer: {} }))[0]).toMatch(/\/steps\/0\/expect\/stream/);
    expect(problems(stream({ sameValue: ["result/task/id"] }))[0]).toMatch(/\/sameValue\/0: "result\/task\/id" does not match/);
    expect(problems(stream({ nonDecreasing: [] }))[0]).toMatch(/\/nonDecreasing/);
  });
});
