// `a2a-toolkit gateway` as a user runs it: child processes on free ports, stopped with SIGTERM.
// With `--store sqlite:<file>` a task waiting for input survives a gateway restart: the follow-up
// after the restart still reaches the backend's task (the correlation is in the stored metadata).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
const dir = mkdtempSync(join(tmpdir(), "a2a-gateway-cli-"));
const backends: FastifyInstance[] = [];
afterAll(async () => {
  for (const b of backends) await b.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Backends run in this process; only the gateway is a child process (each one costs a tsx start). */
async function backend(versions: ("1.0" | "0.3")[]): Promise<string> {
  const app = await buildServer({ agent: createFixtureAgent(), versions });
  backends.push(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

function run(args: string[]): { child: ChildProcess; url: Promise<string>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, ["bin/a2a-toolkit.js", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`${args[0]} exited with ${code}: ${err}`)));
  });
  url.catch(() => {}); // awaited by the tests that expect a server; a usage error has none
  return { child, url, stdout: () => out, stderr: () => err };
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
