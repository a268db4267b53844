// The security scenario (compliance/scenarios/security/request-without-credentials-is-refused.yaml)
// on every binding, gRPC included, against the reference server with bearer tokens: refused
// requests pass on all six (version, binding) pairs; a server that serves a request without
// credentials fails at MUST on all six (1.0.1 §3.3.2 "Servers **MUST** reject requests with invalid
// or missing authentication credentials"); and a refusal answered with HTTP 200 and an error body
// is no refusal on HTTP+JSON (the status and the body are judged together). `make test` runs the
// one that shows the MUST; `make test-security` (A2A_SECURITY_FULL=1) all of them.
import { afterAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/fixture/fixture-agent.js";
import { bearerAuth } from "../../src/security/index.js";
import type { AuthResult, Authenticator } from "../../src/security/auth.js";
import { consoleReport } from "../../src/compliance/report.js";
import { runSuite } from "../../src/compliance/suite.js";
import { serverGroup, startFaultyServer, type RunningServer } from "../support/servers.js";

const FULL = process.env.A2A_SECURITY_FULL === "1";
const full = FULL ? it : it.skip;
const CASES = ["*/*/security/request-without-credentials-is-refused"];
const ISOLATION = ["*/*/security/other-principal-*"];
const PAIRS = ["v0_3/grpc", "v0_3/json-rpc", "v0_3/rest", "v1_0/grpc", "v1_0/json-rpc", "v1_0/rest"];
const group = serverGroup();
afterAll(() => group.close());

async function judge(url: string, bindings?: "rest"[]) {
  const report = await runSuite({
    target: url,
    caseGlobs: CASES,
    headers: { Authorization: "Bearer alice" },
    timeoutMs: 5_000,
    ...(bindings ? { bindings } : {}),
  });
  return {
    report,
    text: consoleReport(report),
    status: Object.fromEntries(report.results.map((r) => [r.id.split("/security/")[0], r.status])),
  };
}

const secured = (faults: string[] = []): Promise<RunningServer> =>
  startFaultyServer({ agent: createFixtureAgent(), authenticators: [bearerAuth({ tokens: { alice: "alice" } })], grpc: true }, faults);

describe.concurrent("security: requests without valid credentials are refused, on every binding", () => {
  full("the reference server refuses missing and invalid credentials on all six pairs", { timeout: 60_000 }, async () => {
    const server = await secured();
    try {
      const { report, status, text } = await judge(server.url);
      expect(status, text).toEqual(Object.fromEntries(PAIRS.map((p) => [p, "pass"])));
      // The invalid-credentials step ran (the card declares a bearer scheme): a made-up token, refused.
      for (const r of report.results)
        expect(r.steps.filter((s) => s.name.startsWith("send with invalid credentials")).map((s) => s.status)).toEqual(["pass", "pass"]);
    } finally {
      await server.close();
    }
  });

  full("one principal's task stays invisible to another on all six pairs, gRPC included", { timeout: 60_000 }, async () => {
    const server = await startFaultyServer(
      { agent: createFixtureAgent(), authenticators: [bearerAuth({ tokens: { alice: "alice", bob: "bob" } })], grpc: true },
      [],
    );
    try {
      const report = await runSuite({
        target: server.url,
        caseGlobs: ISOLATION,
        headers: { Authorization: "Bearer alice" },
        otherHeaders: { Authorization: "Bearer bob" },
        behaviours: ["echo"],
      });
      const text = consoleReport(report);
      expect(
        report.results.map((r) => `${r.id} ${r.status}`).filter((x) => !x.endsWith(" pass")),
        text,
      ).toEqual([]);
      expect(report.results.length).toBe(9);
    } finally {
      await server.close();
    }
  });

  it("a server that serves a request without credentials fails at MUST on all six pairs", { timeout: 60_000 }, async () => {
    // Declares the bearer scheme, but lets everyone in, with a token or without.
    const bearer = bearerAuth({ tokens: { alice: "alice" } });
    const lax: Authenticator = {
      ...bearer,
      authenticate: async (): Promise<AuthResult> => ({ ok: true, principal: "anyone", scheme: bearer.schemeName }),
      challenge: (i) => bearer.challenge(i),
    };
    const open = await group.start("fastify", { agent: createFixtureAgent(), grpc: true, authenticators: [lax] });
    const { report, status, text } = await judge(open.url);
    expect(status, text).toEqual(Object.fromEntries(PAIRS.map((p) => [p, "fail"])));
    for (const r of report.results) {
      expect(r.failureLevel).toBe("MUST");
      expect(r.reason).toMatch(/^send without credentials: /);
    }
  });

  full("HTTP 200 with an error body is no refusal on HTTP+JSON", { timeout: 60_000 }, async () => {
    const server = await secured(["rest-error-status-200"]);
    try {
      const { report, status, text } = await judge(server.url, ["rest"]);
      expect(status, text).toEqual({ "v1_0/rest": "fail", "v0_3/rest": "fail" });
      const rest = report.results.find((r) => r.id === "v1_0/rest/security/request-without-credentials-is-refused");
      expect(rest?.reason).toMatch(/^send without credentials: \/status expected a number in 400\.\.599, got 200/);
    } finally {
      await server.close();
    }
  });
});
