// The suite end to end over real sockets: a small in-test agent (fastify, 127.0.0.1, port 0)
// that follows the spec for a handful of cases, and can be switched to break one rule at a time;
// the suite must pass the correct agent and fail exactly the broken case.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { runTestCommand } from "../../src/cli/test-command.js";
import { FIXTURE_EXTENSION_URI } from "../../src/compliance/discovery.js";
import { listen } from "../support/servers.js";

type Fault = "method-not-found-code" | "stream-never-ends" | "stream-stays-working";

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
        const done = {
          id: taskId,
          contextId,
          status: { state: "TASK_STATE_COMPLETED", timestamp: new Date().toISOString() },
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
          { statusUpdate: { taskId, contextId, status: { state: "TASK_STATE_COMPLETED" } } },
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
    results: { id: string; status: string; reason?: string; steps: { diffs: { path: string; message: string }[] }[] }[];
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
    // One progress line per case, numbered in the order the cases finish.
    const total = run.report.results.length;
    const progress = run.stderr.split("\n").filter((l) => l.startsWith("["));
    expect(progress.map((l) => l.replace(/ .*/, ""))).toEqual(run.report.results.map((_, i) => `[${i + 1}/${total}]`));
    expect(progress.some((l) => /^\[\d+\/\d+\] PASS v1_0\/card\//.test(l))).toBe(true);
    expect(readFileSync(join(run.dir, "r.xml"), "utf8")).toContain("<testsuites");
    expect(readFileSync(join(run.dir, "r.html"), "utf8")).toContain("<!doctype html>");
    // What the run judged: skips one line per reason, and the exercised rules as the JSON report counts them.
    expect(run.stdout).toContain("  SKIP (1 case) fixture behaviour not declared by the agent: slow\n");
    expect(run.stdout).toContain("  SKIP (1 case) binding not declared: the agent card declares no 1.0 HTTP+JSON interface\n");
    expect(run.stdout).not.toMatch(/^SKIP /m);
    const { exercised, applicable } = run.report.exercised.overall;
    expect(exercised).toBeGreaterThan(0);
    expect(run.stdout).toContain(`rules exercised on this agent: ${exercised} of ${applicable} applicable\n  1.0 JSONRPC: `);
    expect(run.stdout).toContain("  1.0 HTTP+JSON: not declared by the agent\n");
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
    expect(lenient.stdout).toContain('spec 1.0.1 §9.5: "Implementations SHOULD use well-known types such as google.rpc.ErrorInfo');
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

  it("exits 2 with a message when no agent card can be read", async () => {
    const agent = await startFakeAgent();
    const url = agent.url;
    await agent.app.close();
    let stderr = "";
    const code = await runTestCommand(url, { case: ["v1_0/card/*"] }, { stdout: () => undefined, stderr: (s) => (stderr += s) });
    expect(code).toBe(2);
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
