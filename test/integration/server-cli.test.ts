// `a2a-toolkit serve` as a user runs it: a child process on a free port, stopped with SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

function serve(args: string[]): { child: ChildProcess; url: Promise<string>; stderr: () => string } {
  const child = spawn(process.execPath, ["bin/a2a-toolkit.js", "serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { child, url, stderr: () => err };
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
    expect(r.result?.task?.artifacts?.[0].parts[0].text).toBe("from the cli");
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as {
      supportedInterfaces: { protocolBinding: string; protocolVersion: string }[];
    };
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
      "JSONRPC 1.0",
      "HTTP+JSON 1.0",
      "JSONRPC 0.3",
      "HTTP+JSON 0.3",
    ]);
    s.child.kill("SIGTERM");
    const [code] = await once(s.child, "exit");
    expect(code).toBe(0);
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
    expect(r.result?.task?.artifacts?.[0].parts[0].text).toBe("HELLO");
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
      expect(got.artifacts[0].parts[0].text).toBe("kept");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unknown store with a clear message and exit code 2", async () => {
    const s = serve(["--store", "postgres://x"]);
    const [code] = await once(s.child, "exit");
    expect(code).toBe(2);
    expect(s.stderr()).toMatch(/unknown store/);
    await s.url.catch(() => undefined);
  });
});
