// Scripted behaviours claimed for an agent whose card does not declare them (issue 12 item 3):
// the TCK probe (one SendMessage with messageId tck-message-response-<uuid>), --profile and
// --behaviours; and a 0.3 card without protocolVersion (item 4): one failed MUST case, and the run
// goes on reading the card as 0.3.0.
import { createServer, request as httpRequest, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import type { Report } from "../../src/compliance/report.js";
import { runSuite, type SuiteOptions } from "../../src/compliance/suite.js";
import { startSdkTarget, type SdkTarget } from "./compliance-sdk-target.js";
import { startSdkEchoTarget } from "../support/sdk-echo-target.js";
import { listenHttp, type RunningServer, startServer } from "../support/servers.js";

const TCK = "v1_0/json-rpc/send-message/tck-*";
const ECHO = "v1_0/json-rpc/send-message/echo-*";

const byStatus = (r: Report, prefix: string) => [...new Set(r.results.filter((x) => x.id.startsWith(prefix)).map((x) => x.status))];
const probeNote = (r: Report) => r.discovery.notes.find((n) => n.startsWith("TCK conventions probed"));

describe("profiles for scripted agents", () => {
  let server: RunningServer;
  let url: string;
  let sdk: SdkTarget;

  beforeAll(async () => {
    // The fixture agent, its card without the fixture extension: it behaves, but does not say so.
    const agent = createFixtureAgent();
    (agent.card.capabilities as { extensions?: unknown[] }).extensions = [];
    server = await startServer("fastify", { agent });
    url = server.url;
    sdk = await startSdkTarget();
  });
  afterAll(async () => {
    await server?.close();
    await sdk?.close();
  });

  const run = (target: string, extra: Partial<SuiteOptions> = {}) => runSuite({ target, caseGlobs: [TCK, ECHO], ...extra });

  it("without a profile, a probe answered by a bare Message runs the tck cases; the rest stays skipped", { timeout: 20_000 }, async () => {
    const report = await run(url);
    expect(probeNote(report)).toMatch(
      /^TCK conventions probed \(SendMessage messageId tck-message-response-[0-9a-f-]{36} on http:\/\/127\.0\.0\.1:\d+\/?\): answered by a bare Message "Direct message response"; the tck cases run$/,
    );
    expect(byStatus(report, "v1_0/json-rpc/send-message/tck-")).toEqual(["pass"]);
    const echo = report.results.filter((x) => x.id.startsWith("v1_0/json-rpc/send-message/echo-"));
    expect(echo.map((x) => x.status)).toEqual(["skip"]);
    expect(echo[0]?.reason).toBe("fixture behaviour not declared by the agent: echo");
  });

  it(
    "a probe answered by a Task skips the tck cases (the official SDK server, fixture behaviours without tck)",
    { timeout: 20_000 },
    async () => {
      const report = await run(sdk.url);
      expect(probeNote(report)).toMatch(/answered by a Task; the tck cases are skipped \(--profile tck runs them\)$/);
      expect(byStatus(report, "v1_0/json-rpc/send-message/tck-")).toEqual(["skip"]);
    },
  );

  it(
    "an agent that answers every message with a bare Message (not the kit's text) does not pass the probe",
    { timeout: 20_000 },
    async () => {
      const chat = await startSdkEchoTarget({ reply: "message" });
      try {
        const report = await run(chat.url);
        expect(probeNote(report)).toMatch(
          /answered by a bare Message without the text "Direct message response"; the tck cases are skipped/,
        );
        expect(byStatus(report, "v1_0/json-rpc/send-message/tck-")).toEqual(["skip"]);
      } finally {
        await chat.close();
      }
    },
  );

  it(
    "--profile none sends no probe; --behaviours and --profile fixture declare behaviours the card does not",
    { timeout: 20_000 },
    async () => {
      const none = await run(url, { profile: "none" });
      expect(probeNote(none)).toBeUndefined();
      expect(byStatus(none, "v1_0/json-rpc/send-message/")).toEqual(["skip"]);
      const echo = await run(url, { profile: "none", behaviours: ["echo"] });
      expect(byStatus(echo, "v1_0/json-rpc/send-message/echo-")).toEqual(["pass"]);
      expect(byStatus(echo, "v1_0/json-rpc/send-message/tck-")).toEqual(["skip"]);
      expect(echo.discovery.notes).toContain("behaviours claimed for the agent (--behaviours): echo");
      const fixture = await run(url, { profile: "fixture" });
      expect(probeNote(fixture)).toBeUndefined();
      expect(byStatus(fixture, "v1_0/json-rpc/send-message/")).toEqual(["pass"]);
    },
  );

  it("--profile tck runs the tck cases without a probe, even on an agent whose probe would say no", { timeout: 20_000 }, async () => {
    const report = await run(sdk.url, { profile: "tck" });
    expect(probeNote(report)).toBeUndefined();
    expect(byStatus(report, "v1_0/json-rpc/send-message/tck-")).not.toContain("skip");
  });
});

describe("a 0.3 card without protocolVersion", () => {
  let server: RunningServer;
  let front: Server;
  let url: string;

  beforeAll(async () => {
    // A 0.3-only reference server behind a front that drops protocolVersion from the card.
    let backend = "";
    front = createServer((req, res) => {
      const up = httpRequest(`${backend}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
        if (!req.url?.startsWith("/.well-known/agent-card.json")) {
          res.writeHead(r.statusCode ?? 502, r.headers);
          return void r.pipe(res);
        }
        let text = "";
        r.on("data", (c: Buffer) => (text += c.toString()));
        r.on("end", () => {
          const { protocolVersion: _dropped, ...card } = JSON.parse(text) as Record<string, unknown>;
          res.writeHead(r.statusCode ?? 502, { "content-type": "application/json" }).end(JSON.stringify(card));
        });
      });
      req.pipe(up);
    });
    url = await listenHttp(front);
    server = await startServer("fastify", { agent: createFixtureAgent(), versions: ["0.3"], publicUrl: url });
    backend = server.url;
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((r) => front?.close(r));
  });

  it("fails the MUST case and reads the card as 0.3.0 for the rest of the run", { timeout: 20_000 }, async () => {
    const report = await runSuite({ target: url, caseGlobs: ["v0_3/card/*", "v0_3/*/get-task/*"] });
    const missing = report.results.find((r) => r.id === "v0_3/card/card-declares-protocol-version")!;
    expect(missing.status).toBe("fail");
    expect(missing.failureLevel).toBe("MUST");
    expect(missing.reason).toMatch(/\/body\/protocolVersion/);
    expect(report.discovery.notes).toContain(
      "the 0.3 card omits the REQUIRED protocolVersion; read as 0.3.0 (the 0.3 JSON Schema's default)",
    );
    expect(report.discovery.interfaces.map((i) => `${i.version} ${i.binding}`).sort()).toEqual(["0.3 json-rpc", "0.3 rest"]);
    const getTask = report.results.filter((r) => r.id.includes("/get-task/") && r.status !== "skip");
    expect(getTask.length).toBeGreaterThanOrEqual(4);
    // An echo agent never waits for input: the interrupted-state case stays inconclusive.
    expect(getTask.filter((r) => r.status !== "pass" && r.status !== "inconclusive").map((r) => r.id)).toEqual([]);
  });
});
