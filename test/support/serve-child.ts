// `a2a-toolkit serve` in a child process for the resource-limit tests and their measurements:
// start it on a free loopback port, read its resident memory, drive it with JSON-RPC SendMessage.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const BIN = resolve("bin/a2a-toolkit.js");

export interface ServeChild {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** Resident set size in bytes (Linux /proc). */
  rss: () => number;
  stop: () => Promise<void>;
}

/** `node <nodeArgs> a2a-toolkit serve --port 0 --host 127.0.0.1 <args>`; resolves once it listens. */
export async function serveChild(args: string[], nodeArgs: string[] = []): Promise<ServeChild> {
  const child = spawn(process.execPath, [...nodeArgs, BIN, "serve", "--port", "0", "--host", "127.0.0.1", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  let out = "";
  child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  const url = await new Promise<string>((ok, fail) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const [, listening] = /listening on (http:\/\/\S+)/.exec(out) ?? [];
      if (listening) ok(listening);
    });
    child.on("exit", (code) => fail(new Error(`serve exited with ${code}: ${err}`)));
  });
  return {
    child,
    url,
    stderr: () => err,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

let ids = 0;
/** One blocking SendMessage (JSON-RPC, 1.0) with `text`; resolves with the parsed reply. */
export async function sendText(url: string, text: string): Promise<{ result?: { task?: { id: string; status: { state: string } } } }> {
  const res = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++ids,
      method: "SendMessage",
      params: { message: { messageId: `m-${ids}`, role: "ROLE_USER", parts: [{ text }] } },
    }),
  });
  return (await res.json()) as { result?: { task?: { id: string; status: { state: string } } } };
}

/** Sends every text of `texts`, `concurrency` at a time; returns the states the tasks ended in, by count. */
export async function flood(url: string, count: number, text: (i: number) => string, concurrency = 8): Promise<Record<string, number>> {
  const states: Record<string, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const r = await sendText(url, text(next++));
      const s = r.result?.task?.status.state ?? "no task";
      states[s] = (states[s] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return states;
}
