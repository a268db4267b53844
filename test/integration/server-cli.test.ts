// `a2a-toolkit serve` as a user runs it: a child process on a free port, stopped with SIGTERM.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runSuite } from "../../src/compliance/suite.js";
import { spawnCli, type CliChild } from "../support/serve-child.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

/** Without `--store` in `args` the child keeps tasks in memory (the default would write ./a2a-data.db). */
function serve(args: string[], cwd?: string): CliChild {
  const store = args.includes("--store") || cwd ? [] : ["--store", "memory"];
  const cli = spawnCli(["serve", "--port", "0", ...store, ...args], { cwd });
  children.push(cli.child);
  return cli;
}

const send = (url: string, text: string, headers: Record<string, string> = { "A2A-Version": "1.0" }) =>
  fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: "cli-1", role: "ROLE_USER", parts: [{ text }] } },
    }),
  }).then((r) => r.json() as Promise<{ result?: { task?: { artifacts?: { parts: { text: string }[] }[] } }; error?: { code: number } }>);

describe("a2a-toolkit serve", () => {
  it("serves the fixture agent by default and stops cleanly on SIGTERM", async () => {
    const s = serve([]);
    const url = await s.url;
    const r = await send(url, "echo from the cli");
    expect(r.result?.task?.artifacts?.[0]?.parts[0]?.text).toBe("from the cli");
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as {
      supportedInterfaces: { protocolBinding: string; protocolVersion: string }[];
    };
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
      "JSONRPC 1.0",
      "HTTP+JSON 1.0",
      "GRPC 1.0",
      "JSONRPC 0.3",
      "HTTP+JSON 0.3",
      "GRPC 0.3",
    ]);
    s.child.kill("SIGTERM");
    const [code] = await once(s.child, "exit");
    expect(code).toBe(0);
  });

  it("gRPC on the same port, both versions (what `send --binding grpc` uses); --no-grpc lists none", async () => {
    const url = await serve([]).url;
    const { createA2AClient } = await import("../../src/client/index.js");
    for (const version of ["1.0", "0.3"] as const) {
      const client = await createA2AClient(url, { bindings: ["GRPC"], version });
      expect(client.target.url).toBe(new URL(url).host);
      const r = await client.sendMessage({
        message: { messageId: `g-${version}`, role: 1, parts: [{ content: { case: "text", value: "echo g" } }] },
      });
      expect(r.payload.case).toBe("task");
    }
    const plain = await serve(["--no-grpc"]).url;
    const card = (await (await fetch(`${plain}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as {
      supportedInterfaces: { protocolBinding: string }[];
    };
    expect(card.supportedInterfaces.some((i) => i.protocolBinding === "GRPC")).toBe(false);
  });

  it("--versions 1.0 serves only 1.0: a header-less (0.3) request gets VersionNotSupported", async () => {
    const s = serve(["--versions", "1.0"]);
    const url = await s.url;
    const r = await send(url, "echo x", {});
    expect(r.error?.code).toBe(-32009);
  });

  it("--agent loads a module: the example echo agent", async () => {
    const s = serve(["--agent", "examples/echo-agent.ts"]);
    const url = await s.url;
    const r = await send(url, "shout hello");
    expect(r.result?.task?.artifacts?.[0]?.parts[0]?.text).toBe("HELLO");
  });

  it("--store sqlite:<file> keeps tasks across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-serve-"));
    try {
      const file = join(dir, "tasks.db");
      const first = serve(["--store", `sqlite:${file}`]);
      const url1 = await first.url;
      const sent = (await send(url1, "echo kept")) as { result?: { task?: { id?: string } } };
      const id = sent.result!.task!.id!;
      first.child.kill("SIGTERM");
      await once(first.child, "exit");
      const second = serve(["--store", `sqlite:${file}`]);
      const url2 = await second.url;
      const got = (await (await fetch(`${url2}/tasks/${id}`, { headers: { "A2A-Version": "1.0" } })).json()) as {
        artifacts: { parts: { text: string }[] }[];
      };
      expect(got.artifacts[0]?.parts[0]?.text).toBe("kept");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("by default keeps tasks in ./a2a-data.db (SQLite) and fails the ones a killed process left running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-serve-"));
    try {
      const first = serve([], dir);
      const url1 = await first.url;
      expect(first.stdout()).toContain(join(dir, "a2a-data.db"));
      expect(existsSync(join(dir, "a2a-data.db"))).toBe(true);
      const slow = await fetch(`${url1}/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          message: { messageId: "cli-slow", role: "ROLE_USER", parts: [{ text: "slow 600000" }] },
          configuration: { returnImmediately: true },
        }),
      }).then((r) => r.json() as Promise<{ task: { id: string } }>);
      first.child.kill("SIGKILL");
      await once(first.child, "exit");
      const second = serve([], dir);
      const url2 = await second.url;
      expect(second.stdout()).toMatch(/failed 1 task\(s\) left running/);
      const got = (await (await fetch(`${url2}/tasks/${slow.task.id}`, { headers: { "A2A-Version": "1.0" } })).json()) as {
        status: { state: string };
      };
      expect(got.status.state).toBe("TASK_STATE_FAILED");
      second.child.kill("SIGTERM");
      await once(second.child, "exit");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--token and --api-key require a credential on every call and give each principal its own tasks", async () => {
    const s = serve(["--token", "t=0k=alice", "--api-key", "k1=bob"]);
    const url = await s.url;
    expect((await fetch(`${url}/tasks/x`, { headers: { "A2A-Version": "1.0" } })).status).toBe(401);
    const sent = (await send(url, "echo mine", { "A2A-Version": "1.0", authorization: "Bearer t=0k" })) as {
      result?: { task?: { id?: string } };
    };
    const id = sent.result!.task!.id!;
    const get = (who: Record<string, string>) => fetch(`${url}/tasks/${id}`, { headers: { "A2A-Version": "1.0", ...who } });
    expect((await get({ authorization: "Bearer t=0k" })).status).toBe(200);
    expect((await get({ "x-api-key": "k1" })).status).toBe(404);
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(card.securitySchemes as object)).toEqual(["bearer", "apiKey"]);
  });

  it("refuses an unknown store with a clear message and exit code 2", async () => {
    const s = serve(["--store", "mysql://x"]);
    const [code] = await once(s.child, "exit");
    expect(code).toBe(2);
    expect(s.stderr()).toMatch(/unknown store/);
    await s.url.catch(() => undefined);
  });
  it("--fault serves behind the rewriting proxy: the fault is applied and the card points at the proxy", async () => {
    const s = serve(["--fault", "task-id-reused"]);
    const url = await s.url;
    const ids = await Promise.all([send(url, "echo one"), send(url, "echo two")]).then((rs) =>
      rs.map((r) => (r.result?.task as { id?: string } | undefined)?.id),
    );
    expect(ids).toEqual(["the-one-task", "the-one-task"]);
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    // gRPC is on the proxy's h2c side, at the address the command prints.
    const grpcAddress = /gRPC on (\S+)\)/.exec(s.stdout())?.[1];
    expect(grpcAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    for (const i of card.supportedInterfaces)
      if (i.protocolBinding === "GRPC") expect(i.url).toBe(grpcAddress);
      else expect(i.url.startsWith(url), i.url).toBe(true);
    expect(s.stdout()).toMatch(/deliberate fault\(s\) injected by the rewriting proxy: task-id-reused/);
  });

  it("--fault grpc-error-info-missing serves a gRPC fault: the suite's gRPC case catches it", { timeout: 30_000 }, async () => {
    const s = serve(["--fault", "grpc-error-info-missing"]);
    const url = await s.url;
    const caseGlobs = ["v1_0/grpc/get-task/unknown-id-returns-task-not-found", "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found"];
    const report = await runSuite({ target: url, caseGlobs });
    expect(report.results.map((r) => `${r.id}: ${r.status}`).sort()).toEqual([
      "v1_0/grpc/get-task/unknown-id-returns-task-not-found: fail",
      "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found: pass",
    ]);
  });

  it("refuses a gRPC fault with --no-grpc, with a clear message and exit code 2", async () => {
    const s = serve(["--fault", "grpc-error-info-missing", "--no-grpc"]);
    const [code] = await once(s.child, "exit");
    expect(code).toBe(2);
    expect(s.stderr()).toMatch(/gRPC faults need gRPC served/);
    await s.url.catch(() => undefined);
  });

  it("refuses an unknown fault with a clear message and exit code 2", async () => {
    const s = serve(["--fault", "no-such-fault"]);
    const [code] = await once(s.child, "exit");
    expect(code).toBe(2);
    expect(s.stderr()).toMatch(/unknown fault "no-such-fault"/);
    await s.url.catch(() => undefined);
  });
});
