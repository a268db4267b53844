// What the HTTP benchmarks share: the blocking sends they load servers with, starting a target of
// bench/server-targets.ts (its own process, `READY <port>` on stdout) and one autocannon run that
// refuses to count a run with errors.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import autocannon, { type Result } from "autocannon";

/** Blocking 1.0 SendMessage (JSON-RPC) of `text`. */
export function sendBody1_0(text: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: "bench", role: "ROLE_USER", parts: [{ text }] } },
  });
}

export const send1_0 = sendBody1_0("hello benchmark");

/** Blocking 0.3 message/send (JSON-RPC). */
export const send0_3 = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "message/send",
  params: {
    message: { kind: "message", messageId: "bench", role: "user", parts: [{ kind: "text", text: "hello benchmark" }] },
    configuration: { blocking: true },
  },
});

export interface Target {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  base: string;
}

/** Starts `bench/server-targets.ts <args>` (run from `cwd`: another checkout for before figures). */
export async function startTarget(args: string[], cwd = process.cwd()): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/server-targets.ts", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      const m = /READY (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

export async function stopTarget(t: Target): Promise<void> {
  t.child.kill("SIGTERM");
  if (t.child.exitCode === null) await new Promise((r) => t.child.once("exit", r));
}

/** One autocannon run of POST `body` to `${base}/`; throws when any request erred, timed out or was not 2xx. */
export async function load(
  base: string,
  body: string,
  headers: Record<string, string>,
  duration: number,
  connections = 50,
): Promise<Result> {
  const r = await autocannon({
    url: `${base}/`,
    method: "POST",
    connections,
    duration,
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  if (r.errors || r.non2xx || r.timeouts) throw new Error(`load run had ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return r;
}

/** CPU time a process has used (user + system, µs), from /proc (Linux; NaN elsewhere). */
export function cpuMicros(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1e6) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** load() on a target, with the target's own CPU time per request (µs; NaN where /proc is missing). */
export async function loadWithCpu(
  t: Target,
  ...args: Parameters<typeof load> extends [string, ...infer Rest] ? Rest : never
): Promise<Result & { cpuPerRequest: number }> {
  const before = cpuMicros(t.child.pid);
  const r = await load(t.base, ...args);
  return Object.assign(r, { cpuPerRequest: (cpuMicros(t.child.pid) - before) / r.requests.total });
}
