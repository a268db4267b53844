// The driver protocol of client compliance (documented in compliance/drivers/README.md).
//
// The client under test is wrapped in a small program, its driver. For each scenario the suite
// runs the driver's command once, with every `{url}` in it replaced by the fixture server's base
// URL (where the agent card is). The driver reads ONE JSON instruction from stdin, e.g.
//   {"op":"send","text":"hello","version":"1.0","binding":"json-rpc","stream":false}
// performs it with the client library, and writes ONE JSON result as the last line of stdout:
//   {"ok":true,"response":{"task":{…}}}                   send (A2A 1.0 ProtoJSON SendMessageResponse)
//   {"ok":true,"events":[{"task":…},{"statusUpdate":…}]}  send with stream:true, subscribe
//   {"ok":true,"task":{…}}                                get, cancel
//   {"ok":true,"tasks":[…],"nextPageToken":""}            list
//   {"ok":false,"error":{"code":-32001,"name":"TaskNotFoundError","message":"…"}}   an A2A error
//   {"ok":false,"error":{"kind":"network","message":"…"}}                           no A2A answer
//   {"kind":"unsupported","reason":"…"}     the client's API cannot express the instruction: skipped
// Results are in the A2A 1.0 ProtoJSON shape whatever version the agent spoke, or 0.3 JSON marked
// "version":"0.3" (converted by results.ts). Anything else the driver prints (logs) goes before
// the last line or to stderr. The driver's exit code is ignored when it printed a result; without
// one, driverFailure() says why (exit code, signal, stderr).
import { spawn } from "node:child_process";

export interface DriverOutcome {
  /** The parsed last JSON line of stdout (undefined: none). */
  result?: unknown;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** The signal that ended the driver, when one did. */
  signal?: string;
  /** The driver did not finish in time and was killed. */
  timedOut: boolean;
  /** Could not start the command at all. */
  spawnError?: string;
}

/** Substitutes {url}; a single-string command runs through the shell, an argv list directly. */
export function commandFor(command: string[], url: string): { file: string; args: string[]; shell: boolean } {
  const [file, ...args] = command.map((a) => a.replaceAll("{url}", url));
  if (file === undefined) throw new Error("the client command is empty");
  return args.length ? { file, args, shell: false } : { file, args, shell: true };
}

function lastJsonLine(text: string): unknown {
  const lines = text.split(/\r?\n/).filter((l) => l.trim());
  for (const line of lines.reverse()) {
    try {
      return JSON.parse(line);
    } catch {
      // not the result line
    }
  }
  return undefined;
}

export async function runDriver(command: string[], url: string, instruction: unknown, timeoutMs: number): Promise<DriverOutcome> {
  const { file, args, shell } = commandFor(command, url);
  return new Promise<DriverOutcome>((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let child;
    try {
      // detached: its own process group, so a timeout ends the driver and whatever it started.
      child = spawn(file, args, { shell, stdio: ["pipe", "pipe", "pipe"], detached: true, env: process.env });
    } catch (e) {
      resolve({ stdout, stderr, exitCode: null, timedOut, spawnError: (e as Error).message });
      return;
    }
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      if (stdout.length < 8 * 1024 * 1024) stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 1024 * 1024) stderr += d.toString("utf8");
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, exitCode: null, timedOut, spawnError: e.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ result: lastJsonLine(stdout), stdout, stderr, exitCode: code, timedOut, ...(signal ? { signal } : {}) });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(`${JSON.stringify(instruction)}\n`);
  });
}

/** A driver result saying the client's API cannot express the instruction: its reason, else undefined. */
export function unsupportedReason(result: unknown): string | undefined {
  if (typeof result !== "object" || result === null || (result as { kind?: unknown }).kind !== "unsupported") return undefined;
  const reason = (result as { reason?: unknown }).reason;
  return typeof reason === "string" && reason.trim() ? reason.trim() : "(the driver gave no reason)";
}

/**
 * Why the driver gave no usable result (could not start, timed out, ended without a JSON result
 * line), with the last lines of its stderr; undefined when it printed a result in time.
 */
export function driverFailure(o: DriverOutcome, timeoutMs: number): string | undefined {
  let cause: string;
  if (o.spawnError) cause = `the driver could not be started: ${o.spawnError}`;
  else if (o.timedOut) cause = `the driver did not finish within ${timeoutMs} ms and was killed`;
  else if (o.result !== undefined) return undefined;
  else if (o.signal) cause = `the driver was ended by ${o.signal} without printing a JSON result`;
  else if (o.exitCode !== 0) cause = `the driver exited with code ${o.exitCode} without printing a JSON result`;
  else cause = "the driver exited with code 0 without printing a JSON result line";
  const tail = o.stderr
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .slice(-5);
  return tail.length
    ? `${cause}; last stderr lines:\n${tail.map((l) => `  ${l.length > 300 ? `${l.slice(0, 300)}…` : l}`).join("\n")}`
    : `${cause} (stderr empty)`;
}
