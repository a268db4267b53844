// The runner against an agent that takes time or rations requests (FORMAT12.md §5-8), over real
// sockets on 127.0.0.1 port 0: 429 then 200, a task that works a while and then completes, one that
// never ends (--task-timeout: SKIP), the --max-messages budget, and cleanup steps after a failure.
// Waits are kept short with Retry-After: 0 and small timeouts (the intervals themselves are
// checked with fake timers in test/unit/compliance-pacing.test.ts).
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runTestCommand } from "../../src/cli/test-command.js";
import { parseCase, type CaseStep } from "../../src/compliance/cases.js";
import { discover, type Discovery } from "../../src/compliance/discovery.js";
import { runCases, type RunOptions } from "../../src/compliance/runner.js";
import { listen } from "../support/servers.js";

interface Seen {
  sends: number;
  cancels: string[];
  rateLimited: number;
}

async function startAgent(seen: Seen): Promise<{ url: string; app: FastifyInstance }> {
  const app = Fastify();
  let base = "";
  /** Task id -> GetTask answers left before it completes (Infinity: never). */
  const working = new Map<string, number>();
  app.get("/.well-known/agent-card.json", async () => ({
    name: "pacing",
    description: "in-test agent that takes time",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s", name: "s", description: "s", tags: ["t"] }],
  }));
  const task = (id: string, state: string) => ({ id, contextId: "ctx", status: { state, timestamp: new Date().toISOString() } });
  app.post("/rpc", async (req, reply) => {
    const msg = req.body as { id: unknown; method: string; params: Record<string, unknown> };
    const ok = (result: unknown) => ({ jsonrpc: "2.0", id: msg.id, result });
    if (msg.method === "SendMessage") {
      seen.sends++;
      if (!msg.params.message) return { jsonrpc: "2.0", id: msg.id, error: { code: -32602, message: "message is required" } };
      const text = (msg.params.message as { parts: { text: string }[] }).parts[0]?.text;
      if (text === "limited" && seen.rateLimited++ === 0) return reply.code(429).header("retry-after", "0").send({ error: "slow down" });
      const id = crypto.randomUUID();
      working.set(id, text === "never" ? Infinity : text === "takes-time" ? 2 : 0);
      return ok({ task: task(id, working.get(id) ? "TASK_STATE_WORKING" : "TASK_STATE_COMPLETED") });
    }
    const id = String(msg.params.id);
    if (msg.method === "CancelTask") {
      if (msg.params.refuse === true) return { jsonrpc: "2.0", id: msg.id, error: { code: -32002, message: "Task cannot be canceled" } };
      seen.cancels.push(id);
      working.set(id, 0);
      return ok(task(id, "TASK_STATE_CANCELED"));
    }
    const left = working.get(id) ?? 0;
    working.set(id, left - 1);
    if (Number.isFinite(left)) reply.header("retry-after", "0"); // fast polls; a task that never ends is polled at the runner's pace
    return ok(task(id, left > 0 ? "TASK_STATE_WORKING" : "TASK_STATE_COMPLETED"));
  });
  base = (await listen(app)).url;
  return { url: base, app };
}

const rpc = (method: string, params: unknown) => ({
  method: "POST",
  path: "",
  headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
  body: { jsonrpc: "2.0", id: 1, method, params },
});
const send = (text: string): CaseStep => ({
  name: "send",
  request: rpc("SendMessage", { message: { messageId: "{{uuid:m}}", role: "ROLE_USER", parts: [{ text }] } }),
  expect: { status: 200, body: { result: { task: { id: { $capture: "taskId" } } } } },
});
const COMPLETED = { result: { status: { state: "TASK_STATE_COMPLETED" } } };
const poll: CaseStep = { name: "poll", request: rpc("GetTask", { id: "{{taskId}}" }), repeatUntil: COMPLETED, expect: { body: COMPLETED } };
const cancel: CaseStep = { name: "cancel", cleanup: true, request: rpc("CancelTask", { id: "{{taskId}}" }), expect: { status: 200 } };

function makeCase(name: string, steps: CaseStep[]) {
  const r = parseCase(`v1_0/json-rpc/pacing/${name}`, "f.json", {
    title: name,
    requirements: ["S-23"],
    level: "MUST",
    version: "1.0",
    binding: "json-rpc",
    agent: "any",
    steps,
  });
  expect(r.problems).toEqual([]);
  return r.case!;
}

describe("runner pacing against an agent that takes time", () => {
  let agent: { url: string; app: FastifyInstance };
  let d: Discovery;
  const seen: Seen = { sends: 0, cancels: [], rateLimited: 0 };
  const run = (cases: ReturnType<typeof makeCase>[], opts: RunOptions = {}) => runCases(cases, d, { taskTimeoutMs: 5000, ...opts });
  beforeAll(async () => {
    agent = await startAgent(seen);
    d = await discover(agent.url, 2000);
  });
  beforeEach(() => Object.assign(seen, { sends: 0, cancels: [], rateLimited: 0 }));
  afterAll(async () => agent.app.close());

  it("re-sends a message answered 429 and says so in the step", async () => {
    const [r] = await run([makeCase("limited", [send("limited")])]);
    expect(r?.status).toBe("pass");
    expect(seen.sends).toBe(2);
    expect(r?.steps[0]?.notes).toEqual(["HTTP 429 (Retry-After 0): re-sent after 0 ms, answered 200"]);
  });

  it("polls a working task until it completes, then checks expect on the last answer", async () => {
    const [r] = await run([makeCase("takes-time", [send("takes-time"), poll])]);
    expect(r?.status).toBe("pass");
    expect(r?.steps[1]?.notes).toEqual(["re-sent 2 time(s) until the body matched repeatUntil"]);
    expect(r?.steps[1]?.actual?.json).toMatchObject(COMPLETED);
  });

  it("a task that never ends: inconclusive at --task-timeout with the reason, and the cleanup step still cancels it", async () => {
    const [r] = await run([makeCase("never", [send("never"), poll, { ...poll, name: "after" }, cancel])], { taskTimeoutMs: 300 });
    expect(r?.status).toBe("inconclusive");
    expect(r?.reason).toMatch(/^the task did not reach .*TASK_STATE_COMPLETED.* within --task-timeout \(300 ms\)$/);
    expect(r?.steps.map((s) => `${s.name} ${s.status}`)).toEqual(["send pass", "poll inconclusive", "after not run", "cancel pass"]);
    expect(seen.cancels).toHaveLength(1);
  });

  it("--concurrency: cases overlap, and the results come back in case order whatever order they finish in", async () => {
    // The first case polls a task that takes time; the second is done at once.
    const cases = [makeCase("a-takes-time", [send("takes-time"), poll]), makeCase("b-quick", [send("quick")])];
    const done: string[] = [];
    const results = await run(cases, { concurrency: 2, onProgress: ({ result }) => done.push(result.id) });
    expect(results.map((r) => `${r.id} ${r.status}`)).toEqual([
      "v1_0/json-rpc/pacing/a-takes-time pass",
      "v1_0/json-rpc/pacing/b-quick pass",
    ]);
    expect(done).toEqual(["v1_0/json-rpc/pacing/b-quick", "v1_0/json-rpc/pacing/a-takes-time"]);
    const serial: string[] = [];
    await run(cases, { concurrency: 1, onProgress: ({ result }) => serial.push(result.id) });
    expect(serial).toEqual(["v1_0/json-rpc/pacing/a-takes-time", "v1_0/json-rpc/pacing/b-quick"]);
  });

  it("shared turns: cases that open with the same message and then only read send it once, each judging the answer", async () => {
    const get: CaseStep = { name: "get", request: rpc("GetTask", { id: "{{taskId}}" }), expect: { body: COMPLETED } };
    const strict: CaseStep = { ...send("echo"), expect: { body: { result: { task: { status: { state: "TASK_STATE_WORKING" } } } } } };
    const cancels: CaseStep = { ...cancel, cleanup: false };
    const cases = [
      makeCase("reads", [send("echo"), get]),
      makeCase("reads-strictly", [strict, get]),
      makeCase("cancels", [send("echo"), cancels]),
    ];
    const results = await run(cases, { concurrency: 2 });
    expect(results.map((r) => `${r.id.split("/").pop()} ${r.status}`)).toEqual(["reads pass", "reads-strictly fail", "cancels pass"]);
    // One turn for the two readers (the second one judges the same answer and fails on it); the case that cancels sends its own.
    expect(seen.sends).toBe(2);
    expect(results[1]?.steps[0]?.request?.body).toBe(results[0]?.steps[0]?.request?.body);
    expect(results[0]?.steps[0]?.notes).toEqual([
      "one agent turn for 2 cases that open with this message and then only read; each judges the answer",
    ]);
    expect(results[2]?.steps[0]?.notes).toBeUndefined();
    expect(seen.cancels).toEqual([
      results[2]?.steps[0]?.actual?.json && (results[2].steps[0].actual.json as { result: { task: { id: string } } }).result.task.id,
    ]);
    seen.sends = 0;
    await run(cases, { concurrency: 2, shareTurns: false });
    expect(seen.sends).toBe(3);
  });

  it("shared turns: a case that may change the task runs after the readers, on the shared task until a change is accepted", async () => {
    const sendState: CaseStep = {
      ...send("echo"),
      expect: { status: 200, body: { result: { task: { id: { $capture: "taskId" }, status: { state: { $capture: "state" } } } } } },
    };
    const cancelIf = (state: string, refuse = false): CaseStep => ({
      ...cancel,
      ...(refuse ? { request: rpc("CancelTask", { id: "{{taskId}}", refuse }), expect: { body: { error: { code: -32002 } } } } : {}),
      cleanup: false,
      when: { capture: "state", matches: state },
    });
    const cases = [
      makeCase("cancels-if-working", [sendState, cancelIf("TASK_STATE_WORKING")]),
      makeCase("cancel-refused", [sendState, cancelIf("TASK_STATE_COMPLETED", true)]),
      makeCase("cancels", [sendState, cancelIf("TASK_STATE_COMPLETED")]),
      makeCase("cancels-too", [sendState, cancelIf("TASK_STATE_COMPLETED")]),
      makeCase("reads", [sendState]),
    ];
    const done: string[] = [];
    const results = await run(cases, { concurrency: 2, onProgress: ({ result }) => done.push(result.id.split("/").pop()!) });
    expect(results.map((r) => `${r.id.split("/").pop()} ${r.status}`)).toEqual([
      "cancels-if-working pass",
      "cancel-refused pass",
      "cancels pass",
      "cancels-too pass",
      "reads pass",
    ]);
    // The reader first, then the others one at a time: the one whose cancel is to be refused first,
    // then the rest in case order (the condition of cancels-if-working does not hold: it only reads).
    expect(done).toEqual(["reads", "cancel-refused", "cancels-if-working", "cancels", "cancels-too"]);
    const taskOf = (i: number) => (results[i]?.steps[0]?.actual?.json as { result: { task: { id: string } } }).result.task.id;
    // The refused cancel changed nothing, so the next case cancels the shared task; after that
    // accepted change the last one sends its own turn and cancels only its own task.
    expect([taskOf(1), taskOf(2)]).toEqual([taskOf(4), taskOf(4)]);
    expect(seen.sends).toBe(2);
    expect(results[3]?.steps[0]?.notes).toContain("the shared first answer is one this case changes: the case sent its own");
    expect(taskOf(3)).not.toBe(taskOf(4));
    expect(seen.cancels).toEqual([taskOf(4), taskOf(3)]);
  });

  it("shared turns: a case whose change is to be refused goes first, so the case that changes the task still shares the turn", async () => {
    const sendState: CaseStep = {
      ...send("echo"),
      expect: { status: 200, body: { result: { task: { id: { $capture: "taskId" }, status: { state: { $capture: "state" } } } } } },
    };
    const when = { capture: "state", matches: "TASK_STATE_COMPLETED" };
    const accepted: CaseStep = { ...cancel, cleanup: false, when };
    const refused: CaseStep = {
      ...cancel,
      request: rpc("CancelTask", { id: "{{taskId}}", refuse: true }),
      expect: { body: { error: { code: -32002 } } },
      cleanup: false,
      when,
    };
    const cases = [makeCase("a-cancels", [sendState, accepted]), makeCase("b-cancel-refused", [sendState, refused])];
    const done: string[] = [];
    const results = await run(cases, { concurrency: 2, onProgress: ({ result }) => done.push(result.id.split("/").pop()!) });
    expect(results.map((r) => `${r.id.split("/").pop()} ${r.status}`)).toEqual(["a-cancels pass", "b-cancel-refused pass"]);
    // In case order the accepted cancel would come first and the refused one would need a turn of its own.
    expect(done).toEqual(["b-cancel-refused", "a-cancels"]);
    expect(seen.sends).toBe(1);
  });

  it("a message request the agent refused is judged again, not re-sent, by a later step of the same case", async () => {
    const refusedSend = (level: string): CaseStep => ({
      name: level,
      request: rpc("SendMessage", { configuration: {} }),
      expect: { body: { error: { code: -32602 } } },
    });
    const [r] = await run([makeCase("refused-twice", [refusedSend("refused"), refusedSend("with its code")])]);
    expect(r?.status).toBe("pass");
    expect(seen.sends).toBe(1);
    expect(r?.steps[1]?.notes).toEqual(["not sent again: an earlier step of this case sent the same request, which was refused"]);
  });

  it("a failing step: the cleanup step runs, its own failure does not change the verdict", async () => {
    const failing: CaseStep = { ...send("never"), name: "expects done", expect: { body: COMPLETED } };
    const captureFirst: CaseStep = { ...send("never"), name: "send" };
    const [failed, passed] = await run([
      makeCase("fails", [captureFirst, failing, { ...poll, name: "skipped" }, cancel]),
      makeCase("cleanup-fails", [send("echo"), { ...cancel, expect: { status: 418 } }]),
    ]);
    expect(failed?.status).toBe("fail");
    expect(failed?.reason).toMatch(/^expects done: /);
    expect(failed?.steps.map((s) => `${s.name} ${s.status}`)).toEqual(["send pass", "expects done fail", "skipped not run", "cancel pass"]);
    expect(failed?.steps[3]?.cleanup).toBe(true);
    expect(passed?.status).toBe("pass");
    expect(passed?.steps[1]).toMatchObject({ status: "fail", cleanup: true });
    expect(seen.cancels).toHaveLength(2);
  });

  it("--max-messages: a case that needs more messages than are left is SKIP; 429 re-sends count; a shared turn costs none", async () => {
    const budget = { left: 3 };
    const results = await runCases(
      [
        makeCase("a", [send("limited")]),
        makeCase("b", [send("echo")]),
        makeCase("c", [send("echo"), poll]),
        makeCase("d", [send("echo"), send("echo")]),
      ],
      d,
      { taskTimeoutMs: 5000, maxMessages: 3 },
      budget,
    );
    expect(results.map((r) => `${r.id.split("/").pop()} ${r.status} ${r.reason ?? ""}`.trim())).toEqual([
      "a pass",
      "b pass",
      // c opens with b's message and then only reads: it shares b's turn and costs nothing.
      "c pass",
      // d's first message is b's turn too; its second one is its own.
      "d skip needs 1 messages; --max-messages budget left: 0",
    ]);
    expect(seen.sends).toBe(3);
    expect(budget).toMatchObject({ left: 0, sent: 3 }); // the report's "3 messages sent"
  });

  it("CLI: --task-timeout and --max-messages are checked (exit 2 with the flag named)", async () => {
    for (const [opts, text] of [
      [{ taskTimeout: "soon" }, "--task-timeout: expected a positive number of milliseconds"],
      [{ maxMessages: "-1" }, "--max-messages: expected a whole number"],
    ] as const) {
      let stderr = "";
      const code = await runTestCommand(
        agent.url,
        { case: ["v1_0/card/*"], ...opts },
        { stdout: () => undefined, stderr: (s) => (stderr += s) },
      );
      expect(code).toBe(2);
      expect(stderr).toContain(text);
    }
  });

  it("CLI: --max-messages 0 skips every case of the suite that sends a message, with the reason", async () => {
    let stdout = "";
    const code = await runTestCommand(
      agent.url,
      { case: ["v1_0/json-rpc/send-message/*", "v1_0/card/card-with-version-header-is-1.0-shaped"], maxMessages: "0", verbose: true },
      { stdout: (s) => (stdout += s), stderr: () => undefined },
    );
    expect(stdout).toMatch(/needs \d+ messages; --max-messages budget left: 0/);
    expect(seen.sends).toBe(0);
    expect(code).not.toBe(2);
  });
});
