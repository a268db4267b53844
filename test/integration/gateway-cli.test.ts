// `a2a-toolkit gateway` as a user runs it: child processes on free ports, stopped with SIGTERM.
// With `--store sqlite:<file>` a task waiting for input survives a gateway restart: the follow-up
// after the restart still reaches the backend's task (the correlation is in the stored metadata),
// and a task the gateway was following when it was killed is followed again by the next process.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { artifactText, createA2AClient, textMessage } from "../../src/client/index.js";
import { BACKEND_FAILURE } from "../../src/gateway/index.js";
import { RESUME_FAILURE } from "../../src/gateway/runtime.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { spawnCli, type CliChild } from "../support/serve-child.js";
import { serverGroup, type RunningServer } from "../support/servers.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
const dir = mkdtempSync(join(tmpdir(), "a2a-gateway-cli-"));
const backends = serverGroup();
afterAll(async () => {
  await backends.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Backends run in this process; only the gateway is a child process (each one costs a tsx start). */
async function backend(versions: ("1.0" | "0.3")[]): Promise<string> {
  return (await backendApp(versions)).url;
}

function backendApp(versions: ("1.0" | "0.3")[]): Promise<RunningServer> {
  return backends.start("fastify", { agent: createFixtureAgent(), versions });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

/** Sends `text` with returnImmediately through the gateway; the gateway's task, WORKING. */
async function sendAndReturn(url: string, text: string): Promise<v1_0.Task> {
  const client = await createA2AClient(url, { version: "1.0" });
  const res = await client.sendMessage({ message: textMessage(text), configuration: { returnImmediately: true } });
  expect(res.payload.case).toBe("task");
  const task = res.payload.value as v1_0.Task;
  expect(task.status?.state).toBe(v1_0.TaskState.WORKING);
  expect(task.metadata?.a2a_task_id).toEqual(expect.any(String));
  expect((await client.getTask({ id: task.id })).status?.state).toBe(v1_0.TaskState.WORKING);
  return task;
}

function run(args: string[]): CliChild {
  const cli = spawnCli(args);
  children.push(cli.child);
  return cli;
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const [code] = (await exited) as [number | null];
  return code;
}

async function send(url: string, text: string, extra: { taskId?: string; agentId?: string } = {}) {
  const res = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: `cli-${Math.random()}`,
          role: "ROLE_USER",
          parts: [{ text }],
          ...(extra.taskId ? { taskId: extra.taskId } : {}),
          ...(extra.agentId ? { metadata: { agent_id: extra.agentId } } : {}),
        },
      },
    }),
  });
  return ((await res.json()) as { result: { task: { id: string; status: { state: string }; metadata?: Record<string, string> } } }).result
    .task;
}

describe("a2a-toolkit gateway", () => {
  it("routes to a 0.3-only backend and keeps an input-required task across a restart (sqlite store)", async () => {
    const backendUrl = await backend(["0.3"]);
    const store = `sqlite:${join(dir, "gw.db")}`;
    const gw1 = run(["gateway", "--port", "0", "--backend", `old=${backendUrl}`, "--store", store]);
    const url1 = await gw1.url;
    expect(gw1.stdout()).toMatch(/agent_id old → .* \[default\]/);
    const asked = await send(url1, "ask");
    expect(asked.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(asked.metadata?.a2a_backend).toBe("old");
    expect(await stop(gw1.child)).toBe(0);

    const gw2 = run(["gateway", "--port", "0", "--backend", `old=${backendUrl}`, "--store", store]);
    const url2 = await gw2.url;
    const done = await send(url2, "after the restart", { taskId: asked.id });
    expect(done.id).toBe(asked.id);
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(done.metadata?.a2a_task_id).toBe(asked.metadata?.a2a_task_id);
    await stop(gw2.child);
  }, 60_000);

  it("follows again, after a restart, a task it was following when it was killed (sqlite store)", async () => {
    const backendUrl = await backend(["1.0"]);
    const store = `sqlite:${join(dir, "resume.db")}`;
    const args = ["gateway", "--port", "0", "--backend", `slow=${backendUrl}`, "--store", store];
    const gw1 = run(args);
    const started = await sendAndReturn(await gw1.url, "slow 3000");
    await kill(gw1.child); // no chance to record anything more: the task is WORKING in the file

    const gw2 = run(args);
    const url2 = await gw2.url;
    expect(gw2.stdout()).toMatch(/resumed 1 task\(s\) left running by a previous process\n/);
    const client = await createA2AClient(url2, { version: "1.0" });
    const done = await client.waitForTask(started.id, { signal: AbortSignal.timeout(15_000) });
    expect(done.status?.state).toBe(v1_0.TaskState.COMPLETED);
    expect(done.artifacts.map(artifactText)).toEqual(["done after 3000 ms"]);
    expect(done.contextId).toBe(started.contextId);
    expect(done.metadata).toMatchObject({
      a2a_backend: "slow",
      a2a_task_id: started.metadata?.a2a_task_id,
      a2a_context_id: started.metadata?.a2a_context_id,
    });
    const remote = await (await createA2AClient(backendUrl)).getTask({ id: started.metadata?.a2a_task_id as string });
    expect(remote.status?.state).toBe(v1_0.TaskState.COMPLETED);
    // The end is recorded: a third process finds the task COMPLETED and has nothing to resume.
    expect(await stop(gw2.child)).toBe(0);
    const gw3 = run(args);
    const url3 = await gw3.url;
    expect(gw3.stdout()).not.toMatch(/resumed/);
    const again = await (await createA2AClient(url3, { version: "1.0" })).getTask({ id: started.id });
    expect(again.status?.state).toBe(v1_0.TaskState.COMPLETED);
    await stop(gw3.child);
  }, 30_000);

  it("also follows again a task it was following when it was stopped cleanly (SIGTERM)", async () => {
    const backendUrl = await backend(["0.3"]);
    const store = `sqlite:${join(dir, "resume-term.db")}`;
    const args = ["gateway", "--port", "0", "--backend", `old=${backendUrl}`, "--store", store];
    const gw1 = run(args);
    const started = await sendAndReturn(await gw1.url, "slow 2500");
    expect(await stop(gw1.child)).toBe(0);

    const gw2 = run(args);
    const url2 = await gw2.url;
    expect(gw2.stdout()).toMatch(/resumed 1 task\(s\)/);
    const done = await (await createA2AClient(url2, { version: "0.3" })).waitForTask(started.id, { signal: AbortSignal.timeout(15_000) });
    expect(done.status?.state).toBe(v1_0.TaskState.COMPLETED);
    expect(done.artifacts.map(artifactText)).toEqual(["done after 2500 ms"]);
    await stop(gw2.child);
  }, 30_000);

  it("fails a resumed task with the generic backend failure when the backend is gone after the restart", async () => {
    const b = await backendApp(["1.0"]);
    const store = `sqlite:${join(dir, "resume-gone.db")}`;
    const args = ["gateway", "--port", "0", "--backend", `slow=${b.url}`, "--store", store];
    const gw1 = run(args);
    const started = await sendAndReturn(await gw1.url, "slow 30000");
    await kill(gw1.child);
    await b.close();

    const gw2 = run(args);
    const client = await createA2AClient(await gw2.url, { version: "1.0" });
    const failed = await client.waitForTask(started.id, { signal: AbortSignal.timeout(15_000) });
    expect(failed.status?.state).toBe(v1_0.TaskState.FAILED);
    expect(failed.status?.message?.parts[0]?.content).toEqual({ case: "text", value: BACKEND_FAILURE });
    expect(failed.metadata?.a2a_task_id).toBe(started.metadata?.a2a_task_id);
    await stop(gw2.child);
  }, 30_000);

  it("fails a task left running whose backend is no longer configured after the restart", async () => {
    const backendUrl = await backend(["1.0"]);
    const store = `sqlite:${join(dir, "resume-renamed.db")}`;
    const gw1 = run(["gateway", "--port", "0", "--backend", `before=${backendUrl}`, "--store", store]);
    const started = await sendAndReturn(await gw1.url, "slow 30000");
    await kill(gw1.child);

    const gw2 = run(["gateway", "--port", "0", "--backend", `after=${backendUrl}`, "--store", store]);
    const url2 = await gw2.url;
    expect(gw2.stdout()).toMatch(/resumed 0 task\(s\) left running by a previous process; failed 1 that could not be followed again\n/);
    const task = await (await createA2AClient(url2, { version: "1.0" })).getTask({ id: started.id });
    expect(task.status?.state).toBe(v1_0.TaskState.FAILED);
    expect(task.status?.message?.parts[0]?.content).toEqual({ case: "text", value: RESUME_FAILURE });
    await stop(gw2.child);
  }, 30_000);

  it("reads backends from a YAML file and routes by agent_id", async () => {
    const a = await backend(["1.0"]);
    const b = await backend(["0.3"]);
    const file = join(dir, "gateway.yaml");
    writeFileSync(
      file,
      [
        "name: Test gateway",
        "default: new",
        "backends:",
        `  - name: new`,
        `    url: ${a}`,
        `    keywords: [fixture]`,
        `  - name: old`,
        `    url: ${b}`,
        `    binding: rest`,
        "",
      ].join("\n"),
    );
    const gw = run(["gateway", "--port", "0", "--config", file]);
    const url = await gw.url;
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as {
      name: string;
    };
    expect(card.name).toBe("Test gateway");
    expect((await send(url, "echo one")).metadata?.a2a_backend).toBe("new");
    expect((await send(url, "echo two", { agentId: "old" })).metadata?.a2a_backend).toBe("old");
    await stop(gw.child);
  }, 60_000);

  it("without backends is a usage error (exit 2)", async () => {
    const gw = run(["gateway", "--port", "0"]);
    const [code] = (await once(gw.child, "exit")) as [number];
    expect(code).toBe(2);
    expect(gw.stderr()).toMatch(/--backend name=<url>/);
  });
});
