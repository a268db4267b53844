// The verdict across steps of different levels: a case stops at its first failing step of its
// highest level only, so a SHOULD step that fails first never hides a later MUST failure.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Case, CaseStep } from "../../src/compliance/cases.js";
import { runCase } from "../../src/compliance/runner.js";
import { restCase, restDiscovery } from "../support/rest-case.js";
import { listenHttp } from "../support/servers.js";

let server: Server;
let url = "";
beforeAll(async () => {
  // Every request: 200 with an empty JSON object.
  server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end("{}");
  });
  url = await listenHttp(server);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const step = (name: string, status: number, level?: "MUST" | "SHOULD" | "MAY"): CaseStep => ({
  name,
  request: { method: "GET", path: "/x" },
  expect: { status },
  ...(level ? { level } : {}),
});
const mkCase = (level: Case["level"], steps: CaseStep[]) => restCase(steps, level);
const discovery = () => restDiscovery(url);

describe("a case's steps of different levels", () => {
  it("a failing SHOULD step does not hide a later failing MUST step", async () => {
    const r = await runCase(mkCase("MUST", [step("should", 204, "SHOULD"), step("must", 201)]), discovery());
    expect(r.steps.map((s) => `${s.name} ${s.status}`)).toEqual(["should fail", "must fail"]);
    expect(r).toMatchObject({ status: "fail", failureLevel: "MUST" });
    expect(r.reason).toMatch(/^must: /);
  });

  it("a failing SHOULD step before a MUST step that holds is a warning", async () => {
    const r = await runCase(mkCase("MUST", [step("should", 204, "SHOULD"), step("must", 200)]), discovery());
    expect(r.steps.map((s) => `${s.name} ${s.status}`)).toEqual(["should fail", "must pass"]);
    expect(r).toMatchObject({ status: "warn", failureLevel: "SHOULD" });
  });

  it("a failing step of the highest level stops the case", async () => {
    const r = await runCase(mkCase("MUST", [step("must", 201), step("should", 204, "SHOULD")]), discovery());
    expect(r.steps.map((s) => `${s.name} ${s.status}`)).toEqual(["must fail", "should not run"]);
    expect(r.status).toBe("fail");
  });
});
