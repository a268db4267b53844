// `a2a-toolkit` in a child process: spawnCli for the tests that run the command as a user does
// (the URL it prints once it listens, its output); serveChild for the resource-limit tests and
// their measurements: `serve` on a free loopback port, its resident memory, JSON-RPC SendMessage.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { postRpc } from "./rpc.js";

// The command compiled once per run by the globalSetup (cli-build.ts: half the start-up time of
// src/ through tsx); the checkout's bin when a file runs without it. nodeCommand: the same for the
// client drivers.
// `checkout`: the checkout's bin (src/ through tsx) even then: for an agent module that imports
// src/*.ts, and for server-fuzz.test.ts (it fails on the compiled tree: not yet understood).
const CHECKOUT_BIN = fileURLToPath(new URL("../../bin/a2a-toolkit.js", import.meta.url));
const BIN = process.env.A2A_TEST_CLI_BIN ?? CHECKOUT_BIN;

/**
 * The command that runs a TypeScript file of the checkout (`file` from its root, e.g. a client
 * driver): its compiled copy in the run's tree, else `node --import tsx` on the source.
 */
export function nodeCommand(file: string): string[] {
  const compiled = process.env.A2A_TEST_CLI_BIN;
  if (compiled) return [process.execPath, join(dirname(dirname(compiled)), "dist", file.replace(/\.ts$/, ".js"))];
  return [process.execPath, "--import", "tsx", fileURLToPath(new URL(`../../${file}`, import.meta.url))];
}

export interface CliChild {
  child: ChildProcess;
  /** The URL the command prints (`listening on <url>`); rejects if it exits first (a usage error: never awaited). */
  url: Promise<string>;
  stdout: () => string;
  stderr: () => string;
}

/**
 * `node <nodeArgs> bin/a2a-toolkit.js <args>` with its output read. `stderrTail`: keep only that many
 * characters of stderr (long runs).
 */
export function spawnCli(
  args: string[],
  opts: { cwd?: string; nodeArgs?: string[]; stderrTail?: number; maxOpenFiles?: number; checkout?: boolean } = {},
): CliChild {
  const argv = [...(opts.nodeArgs ?? []), opts.checkout ? CHECKOUT_BIN : BIN, ...args];
  // `maxOpenFiles`: the command runs under `ulimit -n` (sh execs node, so the pid is node's).
  const child =
    opts.maxOpenFiles === undefined
      ? spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"], cwd: opts.cwd })
      : spawn("sh", ["-c", `ulimit -n ${opts.maxOpenFiles} && exec "$0" "$@"`, process.execPath, ...argv], {
          stdio: ["ignore", "pipe", "pipe"],
          cwd: opts.cwd,
        });
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    if (opts.stderrTail !== undefined) err = err.slice(-opts.stderrTail);
  });
  const url = new Promise<string>((ok, fail) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok(m[1]!);
    });
    child.on("exit", (code) => fail(new Error(`${args[0]} exited with ${code}: ${err}`)));
  });
  url.catch(() => {});
  return { child, url, stdout: () => out, stderr: () => err };
}

export interface ServeChild {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stdout: () => string;
  /** Resident set size in bytes (Linux /proc). */
  rss: () => number;
  stop: () => Promise<void>;
}

/** `node <nodeArgs> a2a-toolkit serve --port 0 --host 127.0.0.1 <args>`; resolves once it listens. */
export async function serveChild(args: string[], nodeArgs: string[] = []): Promise<ServeChild> {
  const { child, url, stderr, stdout } = spawnCli(["serve", "--port", "0", "--host", "127.0.0.1", ...args], {
    nodeArgs,
    stderrTail: 20_000,
  });
  return {
    child,
    url: await url,
    stderr,
    stdout,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

type Sent = { result?: { task?: { id: string; status: { state: string } } } };
const JSON_1_0 = { "content-type": "application/json", "A2A-Version": "1.0" };
let ids = 0;
/** One blocking SendMessage (JSON-RPC, 1.0) with `text`; resolves with the parsed reply. */
export async function sendText(url: string, text: string): Promise<Sent> {
  const message = { messageId: `m-${++ids}`, role: "ROLE_USER", parts: [{ text }] };
  return (await postRpc<Sent>(`${url}/`, "SendMessage", { message }, JSON_1_0)).body;
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
