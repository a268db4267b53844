// Client scenarios (src/compliance/client/scenarios.ts): one file projected onto every pair it lists,
// what the fixture plays encoded by the server codecs, what the client sent matched on its decoded
// 1.0 view, and a scenario that is also written as a case file refused at load.
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_CASES_DIR, loadClientCases } from "../../src/compliance/client/cases.js";
import { compareRequest } from "../../src/compliance/client/fixture-server.js";
import { CLIENT_SCENARIOS_DIR } from "../../src/compliance/client/scenarios.js";
import { Scope } from "../../src/compliance/match.js";

const cases = loadClientCases();
const byId = (id: string) => cases.find((c) => c.id === id)!;

describe("client scenarios", () => {
  it("get/task-not-found-error: one file, five pairs, each answer in its pair's form", () => {
    const ids = cases.filter((c) => c.file.endsWith("get/task-not-found-error.yaml")).map((c) => c.id);
    // The sixth, 0.3 gRPC, stays a case file: its NOT_FOUND without ErrorInfo is no answer the codecs write.
    expect(ids).toHaveLength(5);
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

  it("refuses a scenario that is also written as a case file", () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-client-twice-"));
    cpSync(
      join(CLIENT_CASES_DIR, "v1_0/json-rpc/card/first-supported-interface.json"),
      join(dir, "v1_0/json-rpc/get/task-not-found-error.json"),
      {
        recursive: true,
      },
    );
    expect(() => loadClientCases(dir, undefined, CLIENT_SCENARIOS_DIR)).toThrow(/get\/task-not-found-error: written both ways/);
  });
});
