// Client scenarios (src/compliance/client/scenarios.ts): one file projected onto every pair it lists,
// what the fixture plays encoded by the server codecs, what the client sent matched on its decoded
// 1.0 view, and a scenario that is also written as a case file refused at load; no scenario is written
// in more than one file (a copy per version or binding, or a variant beside its scenario).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { COMPLIANCE_DIR } from "../../src/compliance/cases.js";
import { loadClientCases, type ClientCase } from "../../src/compliance/client/cases.js";
import { compareRequest } from "../../src/compliance/client/fixture-server.js";
import { CLIENT_SCENARIOS_DIR } from "../../src/compliance/client/scenarios.js";
import { Scope } from "../../src/compliance/match.js";

const cases = loadClientCases();
const byId = (id: string) => cases.find((c) => c.id === id)!;
/** A minimal client case file (compliance/client-cases/README.md). */
const caseFile = {
  title: "t",
  requirements: ["C-16"],
  level: "MUST",
  version: "1.0",
  binding: "json-rpc",
  instruction: { op: "get", taskId: "missing-1" },
  exchanges: [],
  result: {},
};

describe("client scenarios", () => {
  it("get/task-not-found-error: one file, six pairs and a variant, each answer in its pair's form", () => {
    const ids = cases.filter((c) => c.file.endsWith("get/task-not-found-error.yaml")).map((c) => c.id);
    expect(ids).toHaveLength(7);
    const rest = byId("v1_0/rest/get/task-not-found-error").exchanges[0]!.response;
    expect(rest.status).toBe(404);
    expect(JSON.stringify(rest.body)).toContain("TASK_NOT_FOUND");
    expect(byId("v0_3/json-rpc/get/task-not-found-error").exchanges[0]!.response.body).toMatchObject({
      jsonrpc: "2.0",
      id: "{{rpcId}}",
      error: { code: -32001 },
    });
    expect(byId("v1_0/grpc/get/task-not-found-error").exchanges[0]!.response.grpc).toMatchObject({
      status: "NOT_FOUND",
      errorInfo: { reason: "TASK_NOT_FOUND" },
    });
    // 0.3 defines no ErrorInfo: the official 0.3 gRPC server's NOT_FOUND, which no codec writes, is the pair's raw wire.
    expect(byId("v0_3/grpc/get/task-not-found-error").exchanges[0]!.response.grpc).toEqual({
      status: "NOT_FOUND",
      message: expect.any(String),
    });
    // The variant: the same request, answered as a2a-python 0.3 does ({message} and an HTTP status).
    const variant = byId("v0_3/rest/get/task-not-found-error-message-body");
    expect(variant.exchanges[0]!.request).toEqual(byId("v0_3/rest/get/task-not-found-error").exchanges[0]!.request);
    expect(variant.exchanges[0]!.response.body).toEqual({ message: expect.any(String) });
    expect(variant.title).toMatch(/a2a-python/);
  });

  it("serve a card case's own card per pair, and match the headers a step adds to its pair's wire", () => {
    const rpc = byId("v1_0/json-rpc/extended-card/fetched-with-declared-credentials");
    const rest = byId("v1_0/rest/extended-card/fetched-with-declared-credentials");
    const binding = (c: typeof rpc) => (c.card!.supportedInterfaces as { protocolBinding: string }[])[0]!.protocolBinding;
    expect([binding(rpc), binding(rest)]).toEqual(["JSONRPC", "HTTP+JSON"]);
    for (const c of [rpc, rest]) expect(c.exchanges[0]!.request.headers).toHaveProperty("authorization");
    expect(byId("v0_3/json-rpc/stream/task-stream").exchanges[0]!.request.headers).toHaveProperty("accept");
    expect(byId("v1_0/json-rpc/stream/task-stream").exchanges[0]!.request.headers).not.toHaveProperty("accept");
  });

  it("matches what the client sent on its 1.0 view, whatever the binding spelled", () => {
    const request = byId("v1_0/rest/get/task-not-found-error").exchanges[0]!.request;
    const get = (url: string) => ({ method: "GET", url, headers: { "a2a-version": "1.0" } });
    expect(compareRequest(request, get("/a2a/tasks/missing-1"), "/a2a", new Scope(new Map()))).toEqual([]);
    const other = compareRequest(request, get("/a2a/tasks/other-1"), "/a2a", new Scope(new Map()));
    expect(other.map((d) => d.path)).toEqual(["/view/id"]);
    const wrongRoute = compareRequest(request, { ...get("/a2a/task/missing-1") }, "/a2a", new Scope(new Map()));
    expect(wrongRoute[0]?.message).toMatch(/does not decode as GetTask/);
  });

  it("name a wire scope that is no version or pair, and a variant's wire for a step that does not exist", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-client-bad-"));
    try {
      mkdirSync(join(dir, "get"));
      const step = { id: "get", client_response: { operation: "get_task", wire_payload: null }, expect_parsed: {} };
      const test = {
        id: "bad",
        name: "bad",
        level: "must",
        steps: [{ ...step, "x-a2a-toolkit": { error: "TaskNotFoundError", wire: { "1.1/rest": { response: { status: 404 } } } } }],
        "x-a2a-toolkit": {
          pairs: ["1.0/rest"],
          instruction: { op: "get", taskId: "t" },
          result: {},
          requirements: {},
          spec: {},
          variants: { "bad-other": { pairs: ["0.3/rest"], wire: { fetch: { "0.3/rest": { response: { status: 404 } } } } } },
        },
      };
      const doc = { acts_version: "1.0", spec_version: "1.0", suites: [{ id: "get", name: "get", tests: [test] }] };
      writeFileSync(join(dir, "get", "bad.yaml"), JSON.stringify(doc));
      expect(() => loadClientCases(mkdtempSync(join(tmpdir(), "a2a-client-none-")), undefined, dir)).toThrow(
        /wire: 1\.1\/rest is no version or pair[\s\S]*variants\/bad-other\/wire\/fetch: no step with this id/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a scenario that is also written as a case file", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-client-twice-"));
    try {
      mkdirSync(join(dir, "v1_0/json-rpc/get"), { recursive: true });
      writeFileSync(join(dir, "v1_0/json-rpc/get/task-not-found-error.json"), JSON.stringify(caseFile));
      expect(() => loadClientCases(dir, undefined, CLIENT_SCENARIOS_DIR)).toThrow(/get\/task-not-found-error: written both ways/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The scenario a case ID belongs to: its `<op>/<name>`, less the suffix naming another server's shape of it. */
const family = (id: string) =>
  id
    .split("/")
    .slice(2)
    .join("/")
    .replace(/-(message-body|1_0_0-mapping)$/, "");

/** Scenarios described by more than one file: a copy per version or binding, or a variant beside its scenario. */
function writtenPerPair(all: Pick<ClientCase, "id" | "file">[]): string[] {
  const files = new Map<string, Set<string>>();
  for (const c of all) (files.get(family(c.id)) ?? files.set(family(c.id), new Set()).get(family(c.id))!).add(c.file);
  return [...files]
    .filter(([, f]) => f.size > 1)
    .map(([name, f]) => `${name}: ${[...f].map((x) => relative(COMPLIANCE_DIR, x)).join(", ")}`);
}

describe("client scenarios are written once", () => {
  it("every client case comes from one scenario file, whatever its version, binding or server shape", () => {
    expect(writtenPerPair(cases)).toEqual([]);
    expect(cases.filter((c) => !c.file.startsWith(CLIENT_SCENARIOS_DIR)).map((c) => c.id)).toEqual([]);
  });

  it("a copy of a scenario for another pair, or of its variant, is named", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-client-pair-"));
    try {
      for (const id of ["v0_3/grpc/send/message-result", "v1_0/rest/errors/unsupported-operation-message-body"]) {
        mkdirSync(join(dir, dirname(id)), { recursive: true });
        const [, binding] = id.split("/");
        writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...caseFile, version: id.startsWith("v1_0") ? "1.0" : "0.3", binding }));
      }
      const all = loadClientCases(dir, undefined, CLIENT_SCENARIOS_DIR);
      const named = writtenPerPair(all).sort();
      expect(named).toHaveLength(2);
      expect(named[0]).toMatch(/^errors\/unsupported-operation: /);
      for (const f of ["client-scenarios/errors/unsupported-operation.yaml", "v1_0/rest/errors/unsupported-operation-message-body.json"])
        expect(named[0]).toContain(f);
      expect(named[1]).toMatch(/^send\/message-result: /);
      for (const f of ["client-scenarios/send/message-result.yaml", "v0_3/grpc/send/message-result.json"]) expect(named[1]).toContain(f);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
