// Option parsing and process plumbing shared by the sub-commands.
import { InvalidArgumentError, type Command } from "commander";

/** `--port`: 0 (any free port) to 65535. */
export function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("must be an integer between 0 and 65535");
  return n;
}

/** A positive integer option (`--body-timeout <ms>`, `--max-connections-per-address <n>` …). */
export function parsePositiveInt(unit: string): (v: string) => number {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`must be a positive integer (${unit})`);
    return n;
  };
}

/** The HTTP limits `serve` and `gateway` share (src/server/front/http-limits.ts; README "Limits and timeouts"). */
export interface HttpLimitFlags {
  headersTimeout?: number;
  bodyTimeout?: number;
  idleTimeout?: number;
  maxConnectionsPerAddress?: number;
  http2PingInterval?: number;
  http2PingTimeout?: number;
}

/** Adds the HTTP-limit flags to a server command. */
export function addHttpLimitFlags(command: Command): Command {
  const ms = parsePositiveInt("milliseconds");
  return command
    .option("--headers-timeout <ms>", "time a connection has to send a request's headers (default 30000)", ms)
    .option("--body-timeout <ms>", "time a request's body has to arrive after its headers (default 30000)", ms)
    .option("--idle-timeout <ms>", "close a keep-alive connection idle this long (default 5000)", ms)
    .option(
      "--max-connections-per-address <n>",
      "open connections one client address may have (default 256)",
      parsePositiveInt("connections"),
    )
    .option("--http2-ping-interval <ms>", "with gRPC: send a PING on every HTTP/2 session this often (default 30000)", ms)
    .option(
      "--http2-ping-timeout <ms>",
      "with gRPC: close an HTTP/2 session whose client leaves a PING unanswered this long (default 10000)",
      ms,
    );
}

/** The buildServer / buildGateway options of those flags. */
export function httpLimits(f: HttpLimitFlags) {
  return {
    headersTimeoutMs: f.headersTimeout,
    bodyTimeoutMs: f.bodyTimeout,
    idleTimeoutMs: f.idleTimeout,
    maxConnectionsPerAddress: f.maxConnectionsPerAddress,
    http2PingIntervalMs: f.http2PingInterval,
    http2PingTimeoutMs: f.http2PingTimeout,
  };
}

/** The stream buffer budget's flags (server/front/stream-budget.ts, docs/limits.md), for serve and gateway. */
export function addStreamBufferFlags(command: Command): Command {
  const bytes = parsePositiveInt("bytes");
  return command
    .option(
      "--max-stream-buffer-bytes <bytes>",
      "bytes all open streams together may hold for clients that read slower than events come (default 134217728)",
      bytes,
    )
    .option(
      "--max-stream-buffer-bytes-per-stream <bytes>",
      "bytes one stream may hold so (default 16777216); a stream over its share ends with an error, its task goes on",
      bytes,
    );
}

export interface StreamBufferFlags {
  maxStreamBufferBytes?: number;
  maxStreamBufferBytesPerStream?: number;
}

/** The buildServer / buildGateway options of those flags. */
export function streamBufferLimits(f: StreamBufferFlags) {
  return { maxStreamBufferBytes: f.maxStreamBufferBytes, maxStreamBufferBytesPerStream: f.maxStreamBufferBytesPerStream };
}

/**
 * fastify's logger for a server command: every request with `--log`, else errors only (store
 * failures, unexpected errors) as JSON lines on stderr.
 */
export function serverLogger(log: boolean | undefined): true | { level: "error"; stream: NodeJS.WritableStream } {
  return log ? true : { level: "error", stream: process.stderr };
}

/** `--versions 1.0,0.3`: the protocol versions to serve, deduplicated. */
export function parseVersions(v: string): ("1.0" | "0.3")[] {
  const list = v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!list.length) throw new InvalidArgumentError("name at least one version");
  for (const x of list) if (x !== "1.0" && x !== "0.3") throw new InvalidArgumentError(`unknown version "${x}" (1.0 and 0.3 are served)`);
  return [...new Set(list)] as ("1.0" | "0.3")[];
}

/** A mistake in the command line: reported on stderr with exit code 2. */
export class UsageError extends Error {}

/**
 * `--header "Name: value"` options (repeatable) as a header record; `bad(h)` is the error for an
 * option without a name before its colon (the one parser of client-commands.ts and test-command.ts).
 */
export function parseHeaderOptions(list: readonly string[] | undefined, bad: (option: string) => Error): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of list ?? []) {
    const i = h.indexOf(":");
    if (i < 1) throw bad(h);
    headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return headers;
}

export type ReportKind = "json" | "junit" | "html";

/** `--report json=<path>,junit=<path>,html=<path>` */
export function parseReports(spec: string | undefined): { kind: ReportKind; path: string }[] {
  if (!spec) return [];
  return spec.split(",").map((item) => {
    const eq = item.indexOf("=");
    const kind = item.slice(0, eq).trim();
    const path = item.slice(eq + 1).trim();
    if (eq < 1 || !path || !["json", "junit", "html"].includes(kind))
      throw new UsageError(`--report: expected json=<path>,junit=<path>,html=<path>; got "${item}"`);
    return { kind: kind as ReportKind, path };
  });
}

/** `--<name> <one of allowed>|all`; undefined means all. */
export function parseChoice<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (value === undefined || value === "all") return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name}: expected ${[...allowed, "all"].join("|")}, got "${value}"`);
  return [value as T];
}

/**
 * Starts a long-running server for a command, then waits for SIGINT or SIGTERM and closes it.
 * A failure to start is reported as `<command>: <message>` with exit code 2.
 */
export async function runUntilSignal(
  command: string,
  start: () => Promise<{ close(): Promise<unknown> }>,
  setCode: (code: number) => void,
): Promise<void> {
  let server: { close(): Promise<unknown> };
  try {
    server = await start();
  } catch (e) {
    process.stderr.write(`a2a-toolkit ${command}: ${e instanceof Error ? e.message : String(e)}\n`);
    setCode(2);
    return;
  }
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void server.close().then(
        () => done(),
        () => done(),
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  setCode(0);
}
