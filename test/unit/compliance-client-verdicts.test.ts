// Client verdicts by level: a scripted client (a driver that sends fixed requests and prints a fixed
// result) is run through real client cases, so the tests show what a client author sees: a MUST
// failure fails, a client that does what the spec allows passes or only gets a SHOULD/MAY warning.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadClientCases } from "../../src/compliance/client/cases.js";
import { runClientCase } from "../../src/compliance/client/runner.js";
import { verdict } from "../../src/compliance/runner.js";

interface Plan {
  requests: { method: string; path: string; headers?: Record<string, string>; body?: unknown }[];
  result: unknown;
}

const dir = mkdtempSync(join(tmpdir(), "a2a-scripted-client-"));
const driver = join(dir, "scripted-driver.mjs");
// Fetches the card, sends each planned request to {url}/a2a + path (reading the whole answer, or
// up to a dropped connection), then prints the planned result.
writeFileSync(
  driver,
  `import { readFileSync } from "node:fs";
const [url, planFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
await (await fetch(url + "/.well-known/agent-card.json")).text();
for (const r of plan.requests) {
  try {
    const res = await fetch(url + "/a2a" + r.path, { method: r.method, headers: { "content-type": "application/json", ...r.headers }, ...(r.body ? { body: JSON.stringify(r.body) } : {}) });
    await res.text();
  } catch {}
}
console.log(JSON.stringify(plan.result));
`,
);

const cases = new Map(loadClientCases().map((c) => [c.id, c]));
let n = 0;
async function run(id: string, plan: Plan) {
  const file = join(dir, `plan-${n++}.json`);
  writeFileSync(file, JSON.stringify(plan));
  return runClientCase(cases.get(id)!, { command: [process.execPath, driver, "{url}", file], timeoutMs: 10_000 });
}

const stream03 = {
  method: "POST",
  path: "/v1/message:stream",
  body: { message: { messageId: "m1", role: "ROLE_USER", content: [{ text: "long" }] } },
};
const completed = {
  ok: true,
  events: [{ task: { id: "task-1" } }, { statusUpdate: { taskId: "task-1", status: { state: "TASK_STATE_COMPLETED" } } }],
};

describe("client verdicts by level", () => {
  it("0.3 HTTP+JSON resubscribe: POST as 0.3.0 §7.9 prescribes passes; no resubscribe is not offered (MAY)", async () => {
    const post = await run("v0_3/rest/stream/resubscribe-after-dropped-stream", {
      requests: [stream03, { method: "POST", path: "/v1/tasks/task-1:subscribe" }],
      result: completed,
    });
    expect(post.reason).toBeUndefined();
    expect(post.status).toBe("pass");
    const none = await run("v0_3/rest/stream/resubscribe-after-dropped-stream", {
      requests: [stream03],
      result: { ok: false, error: { kind: "network", message: "connection dropped" } },
    });
    expect([none.status, none.failureLevel]).toEqual(["not-offered", "MAY"]);
  });

  it("a 0.3 a2a-python error body: reporting an error is the MUST, the code from the status a MAY (no client sentence: the body carries no code)", async () => {
    const get = { method: "GET", path: "/v1/tasks/missing-1" };
    const recognised = await run("v0_3/rest/get/task-not-found-error-message-body", {
      requests: [get],
      result: { ok: false, error: { code: -32001 } },
    });
    expect(recognised.status).toBe("pass");
    const generic = await run("v0_3/rest/get/task-not-found-error-message-body", {
      requests: [get],
      result: { ok: false, error: { kind: "http 404" } },
    });
    expect([generic.status, generic.failureLevel]).toEqual(["not-offered", "MAY"]);
    const success = await run("v0_3/rest/get/task-not-found-error-message-body", {
      requests: [get],
      result: { ok: true, task: { id: "missing-1" } },
    });
    expect([success.status, success.failureLevel]).toEqual(["fail", "MUST"]);
  });

  it("a client-made contextId on a new message is a SHOULD warning, a client-made taskId a MUST failure", async () => {
    const send = (message: Record<string, unknown>) => ({
      method: "POST",
      path: "/v1/message:send",
      body: { message: { messageId: "m1", role: "ROLE_USER", content: [{ text: "hi" }], ...message } },
    });
    const c = cases.get("v0_3/rest/send/message-result")!;
    const result = c.result;
    const ctx = await run(c.id, { requests: [send({ contextId: "mine" })], result });
    expect([ctx.status, ctx.failureLevel]).toEqual(["warn", "SHOULD"]);
    const task = await run(c.id, { requests: [send({ contextId: "mine", taskId: "mine" })], result });
    expect([task.status, task.failureLevel]).toEqual(["fail", "MUST"]);
  });

  it("1.0 AUTH_REQUIRED: a client that takes it as the end of the stream and polls passes (1.0.1 §7.6.2)", async () => {
    const v = { "a2a-version": "1.0", accept: "text/event-stream" };
    const r = await run("v1_0/rest/stream/auth-required-keeps-stream", {
      requests: [
        {
          method: "POST",
          path: "/message:stream",
          headers: v,
          body: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "calendar" }] } },
        },
        { method: "GET", path: "/tasks/task-1", headers: v },
      ],
      result: { ok: true, task: { id: "task-1", status: { state: "TASK_STATE_COMPLETED" } } },
    });
    expect(r.reason).toBeUndefined();
    expect(r.status).toBe("pass");
  });

  it("the strongest failing step decides, not the first", () => {
    const step = (level: "MUST" | "MAY") => ({ name: level, expected: {} as never, diffs: [], status: "fail" as const, level });
    expect(verdict("MUST", [step("MAY"), step("MUST")])).toMatchObject({ status: "fail", failureLevel: "MUST", reason: "MUST: " });
  });
});
