// What a client author sees when the driver, not the client, is the story: a driver that says the
// client's API cannot express the instruction gets a skip with its reason; one that crashes, hangs
// or prints nothing gets its real cause (exit code, signal, timeout, last stderr lines) in the
// console and JSON reports; request steps show the method and path the client used; a `--case`
// glob that matches nothing is a usage error for both `test` and `test-client`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { assert, describe, expect, it } from "vitest";
import { registerTestClientCommand, runTestClientCommand } from "../../src/cli/test-client-command.js";
import { registerTestCommand, runTestCommand } from "../../src/cli/test-command.js";
import { loadClientCases } from "../../src/compliance/client/cases.js";
import { clientConsoleReport, credentialHeaders, instructionFor, runClientCase } from "../../src/compliance/client/runner.js";
import { htmlReport } from "../../src/compliance/html-report.js";
import { actualView, buildReport, consoleReport, jsonReport } from "../../src/compliance/report.js";
import type { CaseResult } from "../../src/compliance/runner.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-driver-protocol-"));
function script(name: string, body: string): string[] {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, body);
  return [process.execPath, file, "{url}"];
}

const ID = "v1_0/json-rpc/send/blocking-send-returns-task";
const theCase = loadClientCases().find((c) => c.id === ID)!;
const run = (command: string[], timeoutMs = 10_000) => runClientCase(theCase, { command, timeoutMs });

function reportOf(result: CaseResult) {
  const discovery = { agentUrl: "driver", cardUrl: "", interfaces: [], capabilities: { "1.0": {}, "0.3": {} }, notes: [] };
  const now = new Date();
  return buildReport({
    target: "driver",
    startedAt: now,
    finishedAt: now,
    discovery,
    filters: {},
    results: [result],
    stale: [],
    coverage: [],
    suite: [],
  });
}

describe("driver result kind: unsupported", () => {
  it("skips the case with the driver's reason, even though the client never fetched the card", async () => {
    const r = await run(
      script("unsupported", `console.log(JSON.stringify({ kind: "unsupported", reason: "this client can only stream" }));`),
    );
    expect(r.status).toBe("skip");
    expect(r.reason).toBe("unsupported by the client: this client can only stream");
    const report = reportOf(r);
    expect(report.summary).toMatchObject({ passed: 0, failed: 0, skipped: 1 });
    expect(consoleReport(report)).toContain("unsupported by the client: this client can only stream");
  });
});

describe("driver failures are reported with their real cause", () => {
  it("a crash: the exit code and the last five stderr lines, in the reason and on the console", async () => {
    const lines = Array.from({ length: 7 }, (_, i) => `trace line ${i + 1}`);
    const r = await run(script("crash", `for (const l of ${JSON.stringify(lines)}) console.error(l); process.exit(3);`));
    expect(r.status).toBe("fail");
    expect(r.reason).toMatch(/^driver result: the driver exited with code 3 without printing a JSON result; last stderr lines:/);
    expect(r.reason).toContain("trace line 7");
    expect(r.reason).toContain("trace line 3");
    expect(r.reason).not.toContain("trace line 2");
    expect(r.reason).not.toContain("agent card");
    const report = reportOf(r);
    expect(JSON.parse(jsonReport(report)).results[0].reason).toBe(r.reason);
    expect(consoleReport(report)).toContain("the driver exited with code 3");
    const text = consoleReport(report, { verbose: true });
    expect(text).toContain("the driver exited with code 3");
    expect(text).toContain("      trace line 7");
    // The failure shown is the driver's, not the requests it never got to send.
    expect(text).not.toContain("never fetched the agent card");
  });

  it("ended by a signal: the signal", async () => {
    const r = await run(script("signal", `console.error("about to die"); process.kill(process.pid, "SIGTERM");`));
    expect(r.reason).toContain("the driver was ended by SIGTERM without printing a JSON result");
    expect(r.reason).toContain("about to die");
  });

  it("exit 0 without a result line: says so, and that stderr was empty", async () => {
    const r = await run(script("silent", `console.log("just a log line");`));
    expect(r.reason).toBe("driver result: the driver exited with code 0 without printing a JSON result line (stderr empty)");
  });

  it("a hang: killed after the per-case timeout, and the reason says so", async () => {
    // 2 s: long enough for node to start and write to stderr on a loaded machine (300 ms was not).
    const r = await run(script("hang", `console.error("waiting forever"); setInterval(() => undefined, 1000);`), 2000);
    expect(r.status).toBe("fail");
    expect(r.reason).toContain("the driver did not finish within 2000 ms and was killed");
    expect(r.reason).toContain("waiting forever");
  });

  it("a driver that cannot be started: the spawn error", async () => {
    const r = await run([join(dir, "no-such-driver"), "{url}"]);
    expect(r.reason).toMatch(/^driver result: the driver could not be started: .*ENOENT/);
  });
});

describe("request steps show method and path", () => {
  it("in the actual column of the console and HTML reports", async () => {
    const command = script(
      "stray",
      `const url = process.argv[2];
await (await fetch(url + "/.well-known/agent-card.json")).text();
await (await fetch(url + "/somewhere/else?x=1", { method: "POST", body: "{}" })).text();
console.log(JSON.stringify({ ok: true, response: {} }));`,
    );
    const r = await run(command);
    const sent = r.steps.find((s) => s.name === "send")!;
    expect(sent.status).toBe("fail");
    expect(actualView(sent)).toMatchObject({ method: "POST", path: "/somewhere/else?x=1" });
    const card = r.steps.find((s) => s.name === "agent card")!;
    expect(actualView(card)).toMatchObject({ method: "GET", path: "/.well-known/agent-card.json" });
    const report = reportOf(r);
    expect(clientConsoleReport(report, { verbose: true })).toMatch(/│ .*"method": "(GET|POST)"/);
    expect(htmlReport(report)).toContain("&quot;path&quot;: &quot;/somewhere/else?x=1&quot;");
  });
});

describe("--case that matches nothing", () => {
  const capture = () => {
    let stderr = "";
    return { out: { stdout: () => undefined, stderr: (s: string) => (stderr += s) }, err: () => stderr };
  };

  it("test-client: exit 2 naming the glob, without running the driver", async () => {
    const c = capture();
    const code = await runTestClientCommand(script("never", `process.exit(9);`), { case: ["v1_0/*/send", ID] }, c.out);
    expect(code).toBe(2);
    expect(c.err()).toContain('--case "v1_0/*/send" matches no case ID');
    expect(c.err()).not.toContain(`--case "${ID}"`);
  });

  it("test: exit 2 naming the glob, before the agent is contacted", async () => {
    const c = capture();
    const code = await runTestCommand("http://127.0.0.1:9/", { case: ["v1_0/get-task/**"] }, c.out);
    expect(code).toBe(2);
    expect(c.err()).toContain('--case "v1_0/get-task/**" matches no case ID');
  });

  it("--help of both commands says what * and ** match", () => {
    for (const register of [registerTestCommand, registerTestClientCommand]) {
      const program = new Command();
      register(program, () => undefined);
      const [command] = program.commands;
      assert(command);
      const help = command.helpInformation().replace(/\s+/g, " ");
      expect(help).toContain("* stays within one path segment, ** crosses them");
    }
  });
});

describe('results in the client\'s own version ("version": "0.3")', () => {
  const case03 = loadClientCases().find((c) => c.id === "v0_3/json-rpc/send/blocking-send-returns-task")!;
  // A hand-written 0.3 JSON-RPC client that reports the 0.3 result as it got it.
  const client03 = (report: string) =>
    script(
      `client03-${report.length}`,
      `let s = ""; process.stdin.on("data", (d) => (s += d)); process.stdin.on("end", async () => {
  const url = process.argv[2];
  const card = await (await fetch(url + "/.well-known/agent-card.json")).json();
  const body = { jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: JSON.parse(s).text }] } } };
  const r = await (await fetch(card.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json();
  console.log(JSON.stringify(${report}));
});`,
    );

  it("are converted by the suite: a 0.3 Task with kind and lower-case state passes", async () => {
    const r = await runClientCase(case03, { command: client03(`{ ok: true, version: "0.3", response: r.result }`), timeoutMs: 10_000 });
    expect(r.reason).toBeUndefined();
    expect(r.status).toBe("pass");
  });

  it("the same 0.3 result without the version marker fails, as before", async () => {
    const r = await runClientCase(case03, { command: client03(`{ ok: true, response: r.result }`), timeoutMs: 10_000 });
    expect(r.status).toBe("fail");
  });

  it("a 0.3 result that does not convert fails with the member's path", async () => {
    const r = await runClientCase(case03, {
      command: client03(`{ ok: true, version: "0.3", response: { kind: "task", id: 7 } }`),
      timeoutMs: 10_000,
    });
    expect(r.status).toBe("fail");
    expect(r.reason).toMatch(/^driver result: the driver's "version": "0.3" result does not convert to A2A 1.0: \/response: /);
  });
});

describe("credentials for a client whose application sets the auth header", () => {
  it("the instruction names the header the card's declared scheme puts the token in", () => {
    const ids = [
      "v1_0/rest/extended-card/fetched-with-declared-credentials",
      "v0_3/json-rpc/extended-card/fetched-with-declared-credentials",
    ];
    for (const c of loadClientCases().filter((x) => ids.includes(x.id)))
      expect(instructionFor(c), c.id).toMatchObject({ token: "secret-token", credentialHeaders: { Authorization: "Bearer secret-token" } });
    expect(instructionFor(theCase)).not.toHaveProperty("credentialHeaders");
  });

  it("follows the first security requirement: an API key in its header, other HTTP schemes by name", () => {
    const v1 = {
      securitySchemes: {
        basic: { httpAuthSecurityScheme: { scheme: "Basic" } },
        key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
      },
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    };
    expect(credentialHeaders(v1, "k1")).toEqual({ "X-API-Key": "k1" });
    expect(credentialHeaders({ ...v1, securityRequirements: [] }, "dXNlcjpwdw==")).toEqual({ Authorization: "Basic dXNlcjpwdw==" });
    const v03 = {
      securitySchemes: { q: { type: "apiKey", in: "query", name: "key" }, o: { type: "oauth2", flows: {} } },
      security: [{ o: ["read"] }],
    };
    expect(credentialHeaders(v03, "t")).toEqual({ Authorization: "Bearer t" });
    // Not sent in a header (a query-string key) or nothing declared: no header to set.
    expect(credentialHeaders({ ...v03, security: [{ q: [] }] }, "t")).toBeUndefined();
    expect(credentialHeaders({}, "t")).toBeUndefined();
  });
});
