// Issue 12 primitives end to end over a real socket (127.0.0.1, port 0): a small in-test agent that
// answers with a Task or a bare Message, cases written to a temp folder, and the reports.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTestCommand } from "../../src/cli/test-command.js";
import { htmlReport } from "../../src/compliance/html-report.js";
import { loadMessageFile } from "../../src/compliance/message.js";
import { consoleReport, junitReport } from "../../src/compliance/report.js";
import { runSuite, type SuiteOptions } from "../../src/compliance/suite.js";
import { listen } from "../support/servers.js";

let app: FastifyInstance;
let url = "";
/** The params of every SendMessage / SendStreamingMessage the agent received. */
const received: Record<string, unknown>[] = [];
/** "extra-event": a stream that goes on after its terminal status. */
let fault: "extra-event" | undefined;

beforeAll(async () => {
  app = Fastify();
  const tasks = new Map<string, unknown>();
  app.get("/.well-known/agent-card.json", async () => ({
    name: "f12",
    description: "in-test agent",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s", name: "s", description: "s", tags: ["t"] }],
  }));
  app.post("/rpc", async (req, reply) => {
    const { id, method, params } = req.body as { id: unknown; method: string; params: Record<string, unknown> };
    if (method === "GetTask") return { jsonrpc: "2.0", id, result: tasks.get(params.id as string) };
    received.push(params);
    const text = ((params.message as { parts: { text?: string }[] }).parts[0]?.text ?? "").toString();
    if (text.startsWith("reply"))
      return { jsonrpc: "2.0", id, result: { message: { messageId: "m-1", role: "ROLE_AGENT", parts: [{ text }] } } };
    const taskId = crypto.randomUUID();
    const at = (s: number) => `2026-01-01T00:00:0${s}Z`;
    const task = { id: taskId, contextId: "c", status: { state: "TASK_STATE_COMPLETED", timestamp: at(2) } };
    tasks.set(taskId, task);
    if (method === "SendMessage") return { jsonrpc: "2.0", id, result: { task } };
    reply.hijack();
    reply.raw.writeHead(200, { "content-type": "text/event-stream" });
    const events = [
      { task: { ...task, status: { state: "TASK_STATE_SUBMITTED", timestamp: at(0) } } },
      { statusUpdate: { taskId, contextId: "c", status: { state: "TASK_STATE_WORKING", timestamp: at(1) } } },
      { statusUpdate: { taskId, contextId: "c", status: task.status } },
      ...(fault === "extra-event"
        ? [{ statusUpdate: { taskId, contextId: "c", status: { state: "TASK_STATE_WORKING", timestamp: at(3) } } }]
        : []),
    ];
    for (const e of events) reply.raw.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result: e })}\n\n`);
    reply.raw.end();
    return reply;
  });
  url = (await listen(app)).url;
});
afterAll(() => app.close());

const rpc = (method: string, params: unknown) => ({
  method: "POST",
  path: "",
  headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
  body: { jsonrpc: "2.0", id: 1, method, params },
});
const send = (method = "SendMessage") =>
  rpc(method, { message: { messageId: "{{uuid:m}}", role: "ROLE_USER", parts: "{{parts:message}}", metadata: "{{metadata:message}}" } });
const head = { requirements: ["S-23"], level: "MUST", version: "1.0", binding: "json-rpc", agent: "any" };
const sendStep = {
  name: "send",
  request: send(),
  expect: {
    body: {
      result: {
        $branch: [
          { name: "task", if: { task: { $match: "object" } }, then: { task: { id: { $capture: "taskId" } } } },
          {
            name: "message",
            if: { message: { $match: "object" } },
            then: { message: { messageId: { $capture: "messageId" }, parts: [{ text: "{{message}}" }] } },
          },
        ],
      },
    },
  },
};
const getTask = {
  name: "get",
  when: { captured: "taskId" },
  request: rpc("GetTask", { id: "{{taskId}}" }),
  expect: { body: { result: { id: "{{taskId}}" } } },
};
const CASES: Record<string, unknown> = {
  branch: { ...head, title: "branch", steps: [sendStep, getTask] },
  skips: {
    ...head,
    title: "skips",
    steps: [sendStep, { ...getTask, otherwise: { skip: "the agent answered with message {{messageId}}, not a task" } }],
  },
  stream: {
    ...head,
    title: "stream",
    steps: [
      {
        name: "stream",
        request: send("SendStreamingMessage"),
        expect: {
          stream: {
            first: { result: { task: { id: { $capture: "taskId" } } } },
            sameValue: ["/result/task/id", "/result/statusUpdate/taskId"],
            nonDecreasing: ["/result/task/status/timestamp", "/result/statusUpdate/status/timestamp"],
            endsAfter: { result: { statusUpdate: { taskId: "{{taskId}}", status: { state: "TASK_STATE_COMPLETED" } } } },
          },
        },
      },
    ],
  },
};

const casesDir = mkdtempSync(join(tmpdir(), "format12-cases-"));
mkdirSync(join(casesDir, "v1_0/json-rpc/f12"), { recursive: true });
for (const [name, c] of Object.entries(CASES)) writeFileSync(join(casesDir, `v1_0/json-rpc/f12/${name}.json`), JSON.stringify(c));

const run = (opts: Partial<SuiteOptions> = {}) => runSuite({ target: url, casesDir, streamTimeoutMs: 2000, ...opts });
const byId = <T extends { id: string }>(results: T[]) =>
  Object.fromEntries(results.map((r) => [r.id.split("/").pop() ?? r.id, r] as const));

describe("issue 12 primitives against an in-test agent", () => {
  it("a Task reply: the task branch is taken and recorded, the task is fetched again; default message hello", async () => {
    received.length = 0;
    fault = undefined;
    const report = await run();
    const r = byId(report.results);
    expect([r.branch?.status, r.skips?.status, r.stream?.status]).toEqual(["pass", "pass", "pass"]);
    expect(r.branch?.variants).toEqual(["send /body/result: task"]);
    expect(r.branch?.steps.map((s) => s.status)).toEqual(["pass", "pass"]);
    expect(received[0]).toMatchObject({ message: { parts: [{ text: "hello" }], metadata: {} } });
  });

  it("a Message reply: the GetTask step is not applicable (and the reports say so), or the case is inconclusive with its reason", async () => {
    const report = await run({ message: "reply please" });
    const r = byId(report.results);
    expect(r.branch?.status).toBe("pass");
    expect(r.branch?.variants).toEqual(["send /body/result: message"]);
    expect(r.branch?.steps.map((s) => [s.status, s.reason])).toEqual([
      ["pass", undefined],
      ["not applicable", 'when: "taskId" was not captured'],
    ]);
    expect(r.skips?.status).toBe("inconclusive");
    expect(r.skips?.reason).toBe("the agent answered with message m-1, not a task");
    const line = 'get: not applicable (when: "taskId" was not captured)';
    expect(consoleReport(report, { verbose: true })).toContain(`  ${line}`);
    expect(junitReport(report)).toContain(`<system-out>${line.replace(/"/g, "&quot;")}</system-out>`);
    expect(htmlReport(report)).toMatch(/get <span class="skip">not applicable<\/span>/);
  });

  it("a --message-file's parts and metadata are sent as written for 1.0; its first text part is {{message}}", async () => {
    received.length = 0;
    const dir = mkdtempSync(join(tmpdir(), "format12-msg-"));
    const parts = [{ data: { q: 1 } }, { text: "reply from file" }];
    writeFileSync(join(dir, "m.json"), JSON.stringify({ parts, metadata: { trace: "x" } }));
    const report = await run({ ...loadMessageFile(join(dir, "m.json")), caseGlobs: ["**/branch"] });
    expect(received[0]).toMatchObject({ message: { parts, metadata: { trace: "x" } } });
    // the first part is no text part, so this agent answers with a task
    expect(report.results[0]?.status).toBe("pass");
  });

  it("a stream that goes on after its terminal status fails endsAfter", async () => {
    fault = "extra-event";
    try {
      const report = await run({ caseGlobs: ["**/stream"] });
      const r = report.results[0];
      expect(r?.status).toBe("fail");
      expect(r?.steps[0]?.diffs.map((d) => `${d.path} ${d.message}`)).toEqual([
        "/events/3 the stream goes on after event 2 (which matched endsAfter) with 1 more event(s)",
      ]);
    } finally {
      fault = undefined;
    }
  });

  it("test --message-file: a bad file is a usage error (exit 2) naming the problem; --message with it too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "format12-bad-"));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ parts: [{ text: 5 }] }));
    const cli = async (opts: Record<string, unknown>) => {
      let stderr = "";
      const code = await runTestCommand(url, { case: ["v1_0/card/*"], ...opts }, { stdout: () => undefined, stderr: (s) => (stderr += s) });
      return { code, stderr };
    };
    const bad = await cli({ messageFile: join(dir, "bad.json") });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^a2a-toolkit test: --message-file \S+bad\.json: \/parts\/0\/text: not a valid 1\.0 Part/);
    expect((await cli({ messageFile: join(dir, "none.json") })).stderr).toMatch(/--message-file \S+none\.json: cannot read/);
    const both = await cli({ message: "x", messageFile: join(dir, "bad.json") });
    expect([both.code, both.stderr]).toEqual([
      2,
      "a2a-toolkit test: --message and --message-file exclude each other (the text is the file's first text part)\n",
    ]);
    expect((await cli({ followUp: " " })).stderr).toContain("--follow-up: expected a non-empty text");
  });
});
