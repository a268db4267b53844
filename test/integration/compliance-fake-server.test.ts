// The suite end to end over real sockets: a small in-test agent (fastify, 127.0.0.1, port 0)
// that follows the spec for a handful of cases, and can be switched to break one rule at a time;
// the suite must pass the correct agent and fail exactly the broken case. Then the exit codes of
// `a2a-toolkit test` (docs/cli.md): 0 passed, 1 a MUST failure, 2 a usage error, 3 the agent
// unreachable or not A2A; each in one line on stderr, never a stack trace, which a small fuzz over
// argument lists checks for every command that ends by itself. (One file: the suite loads once.)
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:http";
import fc from "fast-check";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { runTestCommand } from "../../src/cli/test-command.js";
import { FIXTURE_EXTENSION_URI } from "../../src/compliance/discovery.js";
import { listen, listenHttp, startRpcAgent, type RunningServer } from "../support/servers.js";

type Fault = "method-not-found-code" | "stream-never-ends" | "stream-stays-working" | "stream-open-after-input-required";

async function startFakeAgent(fault?: Fault): Promise<{ url: string; app: FastifyInstance }> {
  const app = Fastify();
  const tasks = new Map<string, Record<string, unknown>>();
  let base = "";
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_req, body, done) => done(null, body));

  app.get("/.well-known/agent-card.json", async (_req, reply) => {
    reply.header("cache-control", "max-age=60").header("etag", '"v1"');
    return {
      name: "fake",
      description: "in-test agent",
      version: "1.0.0",
      supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: {
        streaming: true,
        pushNotifications: false,
        extensions: [{ uri: FIXTURE_EXTENSION_URI, params: { behaviours: ["echo"] } }],
      },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "echo", description: "echoes", tags: ["test"] }],
    };
  });

  const err = (id: unknown, code: number, message: string) => ({ jsonrpc: "2.0", id, error: { code, message } });

  app.post("/rpc", async (req, reply) => {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(String(req.body)) as Record<string, unknown>;
    } catch {
      return err(null, -32700, "Invalid JSON payload");
    }
    if (typeof msg !== "object" || msg === null || msg.jsonrpc !== "2.0" || typeof msg.method !== "string")
      return err(null, -32600, "Invalid Request");
    const id = msg.id;
    const params = (msg.params ?? {}) as Record<string, unknown>;
    switch (msg.method) {
      case "GetTask": {
        if (typeof params.id !== "string") return err(id, -32602, "id is required");
        const task = tasks.get(params.id);
        return task ? { jsonrpc: "2.0", id, result: task } : err(id, -32001, "Task not found");
      }
      case "SendMessage":
      case "SendStreamingMessage": {
        const message = params.message as { parts?: { text?: string }[] } | undefined;
        if (!message?.parts?.length) return err(id, -32602, "message.parts is required");
        const text = message.parts[0]?.text ?? "";
        const taskId = crypto.randomUUID();
        const contextId = crypto.randomUUID();
        const artifact = { artifactId: "a1", parts: [{ text: text.replace(/^echo /, "") }] };
        const asks = fault === "stream-open-after-input-required";
        const ended = asks ? "TASK_STATE_INPUT_REQUIRED" : "TASK_STATE_COMPLETED";
        const done = {
          id: taskId,
          contextId,
          status: { state: ended, timestamp: new Date().toISOString() },
          artifacts: [artifact],
        };
        tasks.set(taskId, done);
        if (msg.method === "SendMessage") return { jsonrpc: "2.0", id, result: { task: done } };
        reply.hijack();
        reply.raw.writeHead(200, { "content-type": "text/event-stream" });
        const events = [
          { task: { id: taskId, contextId, status: { state: "TASK_STATE_SUBMITTED" } } },
          { statusUpdate: { taskId, contextId, status: { state: "TASK_STATE_WORKING" } } },
          { artifactUpdate: { taskId, contextId, artifact } },
          { statusUpdate: { taskId, contextId, status: { state: ended } } },
        ];
        // A task that is still working: the stream legally stays open.
        if (fault === "stream-stays-working") events.splice(2);
        for (const e of events) reply.raw.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result: e })}\n\n`);
        if (fault === undefined || fault === "method-not-found-code") reply.raw.end();
        return reply;
      }
      default:
        return err(id, fault === "method-not-found-code" ? -32600 : -32601, "Method not found");
    }
  });

  base = (await listen(app)).url;
  return { url: base, app };
}

const CASES = [
  "v1_0/card/card-with-version-header-is-1.0-shaped",
  "v1_0/card/card-has-caching-headers",
  "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found",
  "v1_0/json-rpc/get-task/returns-completed-task",
  "v1_0/json-rpc/json-rpc-errors/parse-error-has-null-id",
  "v1_0/json-rpc/json-rpc-errors/invalid-request-has-null-id",
  "v1_0/json-rpc/json-rpc-errors/invalid-params-echoes-zero-id",
  "v1_0/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found",
  "v1_0/json-rpc/send-message/echo-returns-completed-task-with-artifact",
  "v1_0/json-rpc/streaming/echo-stream-starts-with-task-and-ends-at-completion",
  "v1_0/json-rpc/cancel-task/running-task-becomes-canceled",
  "v1_0/rest/get-task/unknown-id-returns-task-not-found",
];

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
  report: {
    summary: Record<string, number>;
    exercised: { overall: { exercised: number; applicable: number; notExercised: string[] } };
    results: {
      id: string;
      status: string;
      level: string;
      failureLevel?: string;
      reason?: string;
      steps: {
        name: string;
        status: string;
        level?: string;
        spec?: { version: string; section: string }[];
        diffs: { path: string; message: string }[];
      }[];
    }[];
  };
  dir: string;
}

async function runSuite(url: string, extra: Record<string, unknown> = {}): Promise<Captured> {
  const dir = mkdtempSync(join(tmpdir(), "compliance-e2e-"));
  let stdout = "";
  let stderr = "";
  const code = await runTestCommand(
    url,
    { case: CASES, version: "1.0", report: `json=${dir}/r.json,junit=${dir}/r.xml,html=${dir}/r.html`, streamTimeout: "400", ...extra },
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) },
  );
  return { code, stdout, stderr, report: JSON.parse(readFileSync(join(dir, "r.json"), "utf8")), dir };
}

const statusOf = (c: Captured) => Object.fromEntries(c.report.results.map((r) => [r.id, r.status]));

describe("compliance suite against an in-test agent", () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("passes every applicable case of a correct agent and skips the rest with the reason", async () => {
    const agent = await startFakeAgent();
    app = agent.app;
    const run = await runSuite(agent.url);
    const s = statusOf(run);
    expect(s["v1_0/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found"]).toBe("pass");
    expect(s["v1_0/json-rpc/streaming/echo-stream-starts-with-task-and-ends-at-completion"]).toBe("pass");
    expect(s["v1_0/json-rpc/get-task/returns-completed-task"]).toBe("pass");
    expect(run.report.results.filter((r) => r.status === "fail")).toEqual([]);
    const skipped = run.report.results.filter((r) => r.status === "skip");
    expect(skipped.map((r) => [r.id, r.reason])).toEqual([
      ["v1_0/json-rpc/cancel-task/running-task-becomes-canceled", "fixture behaviour not declared by the agent: slow"],
      ["v1_0/rest/get-task/unknown-id-returns-task-not-found", "binding not declared: the agent card declares no 1.0 HTTP+JSON interface"],
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split("\n").pop()).toBe(
      `${run.report.summary.passed} passed, 0 failed, 0 warnings, 2 skipped; ${run.report.summary.messagesSent} messages sent`,
    );
    // No terminal: no per-case progress lines; the report files it wrote, named.
    expect(run.stderr).toBe(`a2a-toolkit test: wrote ${run.dir}/r.json (json), ${run.dir}/r.xml (junit), ${run.dir}/r.html (html)\n`);
    expect(run.stdout.split("\n")[0]).toBe(`PASSED  no MUST failure, 0 warnings: agent ${agent.url}`);
    expect(readFileSync(join(run.dir, "r.xml"), "utf8")).toContain("<testsuites");
    expect(readFileSync(join(run.dir, "r.html"), "utf8")).toContain("<!doctype html>");
    // What the run judged: the skips in a line, and the exercised rules as the JSON report counts them.
    expect(run.stdout).toContain("\nskipped: 2 cases, 2 reasons; most: ");
    expect(run.stdout).not.toMatch(/^SKIP /m);
    const { exercised, applicable } = run.report.exercised.overall;
    expect(exercised).toBeGreaterThan(0);
    expect(run.stdout).toContain(`rules exercised on this agent: ${exercised} of ${applicable} applicable;`);
    // The matrix: 1.0 HTTP+JSON is not declared.
    expect(run.stdout.split("\n").slice(0, 6).join("\n")).toMatch(/^ {7}JSONRPC +HTTP\+JSON +card\n {2}1\.0 +\d+\/\d+ ok +not declared +/m);
    expect(readFileSync(join(run.dir, "r.html"), "utf8")).toContain('<table class="matrix">');
  });

  it("fails exactly the case whose rule the agent breaks, pointing at the wrong member", async () => {
    const agent = await startFakeAgent("method-not-found-code");
    app = agent.app;
    const run = await runSuite(agent.url);
    const failed = run.report.results.filter((r) => r.status === "fail");
    expect(failed.map((r) => r.id)).toEqual(["v1_0/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found"]);
    expect(failed[0]?.steps[0]?.diffs.map((d) => `${d.path} ${d.message}`)).toEqual(["/body/error/code expected -32601, got -32600"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("FAIL v1_0/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found");
    expect(run.stdout.trimEnd().split("\n").pop()).toMatch(/^\d+ passed, 1 failed, 0 warnings, 2 skipped; \d+ messages sent$/);
  });

  it("a SHOULD failure is a warning (exit 0); --strict makes it a failure (exit 1)", async () => {
    const agent = await startFakeAgent(); // its TaskNotFoundError carries no ErrorInfo: a SHOULD in 1.0.1 §9.5
    app = agent.app;
    const one = { case: ["v1_0/json-rpc/json-rpc-errors/task-not-found-carries-error-info"] };
    const lenient = await runSuite(agent.url, one);
    expect(statusOf(lenient)["v1_0/json-rpc/json-rpc-errors/task-not-found-carries-error-info"]).toBe("warn");
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toContain("WARN v1_0/json-rpc/json-rpc-errors/task-not-found-carries-error-info [SHOULD");
    expect(lenient.stdout).toContain('  1.0.1 §9.5: "Implementations SHOULD use well-known types such as google.rpc.ErrorInfo');
    expect(lenient.stdout.trimEnd().split("\n").pop()).toMatch(/^0 passed, 0 failed, 1 warnings, 0 skipped; \d+ messages? sent$/);
    const strict = await runSuite(agent.url, { ...one, strict: true });
    expect(strict.code).toBe(1);
    expect(strict.stdout.trimEnd().split("\n").pop()).toMatch(/^0 passed, 1 failed, 0 warnings, 0 skipped; \d+ messages? sent$/);
  });

  it("fails a stream the server never closes", async () => {
    const agent = await startFakeAgent("stream-never-ends");
    app = agent.app;
    const run = await runSuite(agent.url, { case: ["v1_0/json-rpc/streaming/echo-stream-starts-with-task-and-ends-at-completion"] });
    expect(run.code).toBe(1);
    const r = run.report.results[0];
    expect(r?.status).toBe("fail");
    expect(r?.steps[0]?.diffs.map((d) => d.message)).toEqual([
      "the stream was not closed by the server after event 3 ended the task's stream (waited 400 ms)",
    ]);
  });

  it("a stream left open on a task that is still working is inconclusive, not a failure", async () => {
    const agent = await startFakeAgent("stream-stays-working");
    app = agent.app;
    const run = await runSuite(agent.url, { case: ["v1_0/json-rpc/streaming/echo-stream-starts-with-task-and-ends-at-completion"] });
    expect(run.code, run.stdout).toBe(0);
    const r = run.report.results[0];
    expect(r?.status).toBe("inconclusive");
    expect(r?.reason).toBe(
      "the stream was still open after --stream-timeout (400 ms) with the task still working: it must close only once the task ends (1.0.1 §3.1.2)",
    );
    expect(run.stdout.trimEnd().split("\n").pop()).toBe("0 passed, 0 failed, 0 warnings, 0 skipped, 1 inconclusive; 1 message sent");
  });

  it("a stream left open after input-required is a SHOULD warning, not a MUST failure; the next steps still run", async () => {
    const agent = await startFakeAgent("stream-open-after-input-required");
    app = agent.app;
    const run = await runSuite(agent.url, { case: ["v1_0/json-rpc/streaming/streamed-task-is-found-by-get"] });
    expect(run.code, run.stdout).toBe(0);
    const r = run.report.results[0];
    expect(r?.status).toBe("warn");
    expect(r?.failureLevel).toBe("SHOULD");
    expect(r?.steps.map((s) => [s.name, s.status, s.level ?? r.level])).toEqual([
      ["stream", "pass", "MUST"],
      ["stream: the stream closes at the interrupted state", "fail", "SHOULD"],
      ["get", "pass", "MUST"],
      ["get (same id and context)", "pass", "SHOULD"],
    ]);
    expect(r?.steps[1]?.spec?.map((c) => `${c.version} §${c.section}`)).toEqual(["1.0.1 §11.7"]);
    expect(r?.steps[1]?.diffs.map((d) => d.message)).toEqual([
      "the stream was not closed by the server after event 3 ended the task's stream (waited 400 ms)",
    ]);
    agent.app.server.closeAllConnections();
  });

  it("known-failing: a listed failure keeps the run green; a listed pass or a stale entry fails it", async () => {
    const agent = await startFakeAgent("method-not-found-code");
    app = agent.app;
    const dir = mkdtempSync(join(tmpdir(), "known-failing-"));
    const list = (entries: string[]) => {
      const f = join(dir, `${entries.length}-${Math.random()}.json`);
      writeFileSync(f, JSON.stringify({ knownFailing: entries.map((c) => ({ case: c, reason: "test" })) }));
      return f;
    };
    const expected = await runSuite(agent.url, {
      knownFailing: list(["v1_0/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found"]),
    });
    expect(expected.code).toBe(0);
    expect(expected.report.summary.knownFailing).toBe(1);
    expect(expected.stdout).toContain("1 known failing");

    const listedPass = await runSuite(agent.url, {
      knownFailing: list([
        "v1_0/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found",
        "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found",
      ]),
    });
    expect(listedPass.code).toBe(1);
    expect(listedPass.report.results.find((r) => r.id === "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found")?.reason).toMatch(
      /but passed: remove the entry/,
    );

    const stale = await runSuite(agent.url, {
      knownFailing: list(["v1_0/json-rpc/json-rpc-errors/unknown-method-returns-method-not-found", "v1_0/nothing/here"]),
    });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('known-failing entry "v1_0/nothing/here"');
  });

  it("exits 3 with one line when no agent card can be read", async () => {
    const agent = await startFakeAgent();
    const url = agent.url;
    await agent.app.close();
    let stderr = "";
    let stdout = "";
    const code = await runTestCommand(url, { case: ["v1_0/card/*"] }, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
    expect(code).toBe(3);
    expect(stdout).toBe("");
    expect(stderr.split("\n")).toHaveLength(2);
    expect(stderr).toMatch(/no agent card found; tried: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json \(.*ECONNREFUSED/);
  });

  it("exits 2 on bad options", async () => {
    let stderr = "";
    const code = await runTestCommand(
      "http://127.0.0.1:9",
      { level: "sometimes" },
      { stdout: () => undefined, stderr: (s) => (stderr += s) },
    );
    expect(code).toBe(2);
    expect(stderr).toContain("--level: expected must|should|may");
    for (const [opts, message] of [
      [{ profile: "tk" }, '--profile: expected tck|fixture|none, got "tk"'],
      [
        { behaviours: "echo,nope" },
        '--behaviours: expected a comma-separated list of echo, ask, stream, fail, slow, msg, auth, parts, tck, got "echo,nope"',
      ],
    ] as const) {
      let err = "";
      expect(await runTestCommand("http://127.0.0.1:9", opts, { stdout: () => undefined, stderr: (s) => (err += s) })).toBe(2);
      expect(err).toContain(message);
    }
  });
});

// `test` without a URL would run the whole suite against the embedded server: here it meets a closed port.
vi.mock("../../src/cli/embedded-target.js", () => ({
  startEmbeddedTarget: async () => ({ url: "http://127.0.0.1:1", knownFailingFile: "/nonexistent.json", close: async () => undefined }),
}));

const CASE = "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found";

/** A 1.0 JSON-RPC agent whose every call fails with `errorCode` (-32001 is right for an unknown task). */
let errorCode = -32001;
let agent: RunningServer;
let agentUrl: string;
/** Answers every request with 200 and a JSON object that is no agent card. */
let notA2a: Server;
let notA2aUrl: string;

beforeAll(async () => {
  agent = await startRpcAgent(() => ({ error: { code: errorCode, message: "no such task" } }), { name: "exit-code agent" });
  agentUrl = agent.url;
  notA2a = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"hello":"world"}'));
  notA2aUrl = await listenHttp(notA2a);
});
afterAll(async () => {
  await agent.close();
  notA2a.close();
});
afterEach(() => vi.restoreAllMocks());

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const code = await main(argv);
    const text = (m: typeof out) => m.mock.calls.map((c) => String(c[0])).join("");
    return { code, out: text(out), err: text(err) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** A line of a V8 stack trace. */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;

describe("a2a-toolkit test: exit codes", () => {
  it("0: no MUST case failed; the first line says PASSED", async () => {
    errorCode = -32001;
    const r = await run("test", agentUrl, "--case", CASE);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toMatch(/^PASSED /);
  });

  it("1: a MUST case failed; the first line says FAILED", async () => {
    errorCode = -32603;
    const r = await run("test", agentUrl, "--case", CASE);
    expect(r.code).toBe(1);
    expect(r.out.split("\n")[0]).toMatch(/^FAILED  1 MUST failure/);
    expect(r.out).toContain(`FAIL ${CASE} [MUST]`);
  });

  it("2: a usage error, in one line: unknown option, a URL without its scheme, a --case glob matching nothing", async () => {
    for (const [argv, message] of [
      [["test", "--no-such-option", agentUrl], "unknown option '--no-such-option'"],
      [["test", "localhost:23100"], 'not an http(s) URL: "localhost:23100" (did you mean http://localhost:23100?)'],
      [["test", "--case", "v1_0/no-such-area/*", agentUrl], '--case "v1_0/no-such-area/*" matches no case ID (IDs look like v1_0/'],
      [["test", "--list", "--case", "nothing*"], '--case "nothing*" matches no case ID'],
    ] as const) {
      const r = await run(...argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err).toContain(message);
      expect(r.err.trimEnd().split("\n"), r.err).toHaveLength(1);
      expect(r.out).toBe("");
    }
  });

  it("2: a report file that cannot be written, after the verdict", async () => {
    errorCode = -32001;
    const r = await run("test", agentUrl, "--case", CASE, "--report", "html=/dev/null/x.html");
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^PASSED /);
    expect(r.err).toMatch(/^a2a-toolkit test: --report: cannot write \/dev\/null\/x\.html: .+\n$/);
  });

  it("3: nothing listens, or it answers but is no A2A agent: one line, no report", async () => {
    const closed = await run("test", "http://127.0.0.1:1");
    expect(closed.code).toBe(3);
    expect(closed.err).toMatch(/^a2a-toolkit test: no agent card found; tried: http:\/\/127\.0\.0\.1:1\/\.well-known\/agent-card\.json \(/);
    expect(closed.err.trimEnd().split("\n")).toHaveLength(1);
    expect(closed.out).toBe("");
    const other = await run("test", notA2aUrl);
    expect(other.code).toBe(3);
    expect(other.err.trimEnd().split("\n")).toHaveLength(1);
    expect(other.out).toBe("");
  });

  it("3: a card URL ending in .json that answers 404 is not replaced by the host's root card", async () => {
    errorCode = -32001;
    const r = await run("test", `${agentUrl}/cards/missing.json`, "--case", CASE);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`${agentUrl}/cards/missing.json (HTTP 404)`);
    // (A base URL still walks up to the root card: test/unit/card-urls.test.ts.)
  });

  it("the --case hint's example is an ID of the suite", async () => {
    const r = await run("test", "--case", "v1_0/nothing/*", agentUrl);
    const example = /IDs look like (\S+);/.exec(r.err)?.[1];
    expect(example).toBeDefined();
    expect((await run("test", "--list", "--case", example!)).out).toMatch(new RegExp(`^${example} `));
  });

  it("--list: ID, level and title of each selected case; --version still means the protocol version", async () => {
    const r = await run("test", "--list", "--version", "0.3", "--binding", "rest", "--case", "*/*/get-task/*");
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l).toMatch(/^v0_3\/rest\/get-task\/\S+ +(MUST|SHOULD|MAY) +0\.3 HTTP\+JSON: /);
  });
});

describe("no input prints a stack trace", () => {
  it("a fuzz over argument lists of the commands that end by themselves", { timeout: 60_000 }, async () => {
    const word = fc.constantFrom(
      "localhost:23100",
      "http://127.0.0.1:1",
      "http://[::1",
      "ftp://x",
      "",
      "{",
      "[1]",
      "1.0",
      "0.3",
      "all",
      "**",
      "-1",
      "json=",
      "html=/dev/null/x.html",
      "x:y",
      "\u0000",
    );
    const option = fc.constantFrom(
      "--version",
      "--binding",
      "--case",
      "--level",
      "--report",
      "--timeout",
      "--header",
      "--data",
      "--metadata",
      "--max-messages",
      "--list",
      "--nope",
      "-V",
      "--json",
    );
    const command = fc.constantFrom("test", "card", "send", "get", "cancel", "list", "subscribe", "no-such-command");
    await fc.assert(
      fc.asyncProperty(command, fc.array(fc.oneof(word, option), { maxLength: 5 }), async (cmd, rest) => {
        const r = await run(cmd, ...rest);
        const all = r.out + r.err;
        expect(all, `${cmd} ${JSON.stringify(rest)}`).not.toMatch(STACK_FRAME);
        expect(all).not.toContain("internal error");
        expect(r.code).toBeGreaterThanOrEqual(0);
        expect(r.code).toBeLessThanOrEqual(6);
      }),
      { seed: 29, numRuns: 40 },
    );
  });
});
