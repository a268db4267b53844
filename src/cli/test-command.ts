// `a2a-toolkit test <url>`: runs the compliance suite against the agent at <url> (its base URL or
// its agent-card URL), prints progress on stderr and the console report on stdout, writes the
// requested report files and returns the exit code: 0 no MUST case failed (SHOULD and MAY failures
// are warnings, unless --strict), 1 a case failed (or a known-failing entry is stale), 2 the suite
// or the agent card could not be used. Last line: `N passed, N failed, N warnings, N skipped`.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { parseChoice, parseReports, UsageError } from "./options.js";
import type { Version } from "../compliance/cases.js";
import type { Report } from "../compliance/report.js";

export interface TestCommandOptions {
  version?: string;
  binding?: string;
  case?: string[];
  level?: string;
  strict?: boolean;
  knownFailing?: string;
  report?: string;
  timeout?: string;
  streamTimeout?: string;
  taskTimeout?: string;
  maxMessages?: string;
  verbose?: boolean;
  header?: string[];
  otherHeader?: string[];
  webhookListen?: string;
  webhookUrl?: string;
}

type Out = { stdout: (s: string) => void; stderr: (s: string) => void };
const processOut: Out = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

function parseHeaders(list: string[] | undefined): Record<string, string> | undefined {
  if (!list?.length) return undefined;
  const out: Record<string, string> = {};
  for (const h of list) {
    const i = h.indexOf(":");
    if (i < 1) throw new UsageError(`--header/--other-header: expected "Name: value", got "${h}"`);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

function parseListen(
  listen: string | undefined,
  publicUrl: string | undefined,
): { host: string; port: number; publicUrl?: string } | undefined {
  if (!listen) {
    if (publicUrl) throw new UsageError("--webhook-url needs --webhook-listen");
    return undefined;
  }
  const m = /^(.*):(\d+)$/.exec(listen);
  if (!m || !m[1]) throw new UsageError(`--webhook-listen: expected <host>:<port> (port 0: any free port), got "${listen}"`);
  return { host: m[1].replace(/^\[(.*)\]$/, "$1"), port: Number(m[2]), ...(publicUrl ? { publicUrl } : {}) };
}

function parseMs(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name}: expected a positive number of milliseconds, got "${value}"`);
  return n;
}

function parseCount(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new UsageError(`--${name}: expected a whole number (0 or more), got "${value}"`);
  return n;
}

/**
 * Without a URL, the suite runs against the embedded reference server (embedded-target.ts) with
 * its known-failing list and a webhook receiver on loopback, unless the options say otherwise.
 */
export async function runTestCommand(url: string | undefined, opts: TestCommandOptions, out: Out = processOut): Promise<number> {
  if (url !== undefined) return runAgainst(url, opts, out);
  const { startEmbeddedTarget } = await import("./embedded-target.js");
  const target = await startEmbeddedTarget();
  out.stderr(`a2a-toolkit test: no URL given; testing the embedded reference server at ${target.url}\n`);
  try {
    return await runAgainst(target.url, { knownFailing: target.knownFailingFile, webhookListen: "127.0.0.1:0", ...opts }, out);
  } finally {
    await target.close();
  }
}

async function runAgainst(url: string, opts: TestCommandOptions, out: Out): Promise<number> {
  // Loaded here, not at the top, so `a2a-toolkit --help` does not load the validators.
  const { CaseLoadError, CaseSelectionError } = await import("../compliance/cases.js");
  const { htmlReport } = await import("../compliance/html-report.js");
  const { consoleReport, jsonReport, junitReport } = await import("../compliance/report.js");
  const { runSuite } = await import("../compliance/suite.js");
  let report: Report;
  try {
    const reports = parseReports(opts.report);
    const level = opts.level?.toLowerCase();
    if (level !== undefined && !["must", "should", "may"].includes(level))
      throw new UsageError(`--level: expected must|should|may, got "${opts.level}"`);
    try {
      new URL(url);
    } catch {
      throw new UsageError(`not a URL: "${url}"`);
    }
    const tty = process.stderr.isTTY;
    report = await runSuite({
      target: url,
      versions: parseChoice<Version>("version", opts.version, ["1.0", "0.3"]),
      bindings: parseChoice("binding", opts.binding, ["json-rpc", "rest"] as const),
      caseGlobs: opts.case?.length ? opts.case : undefined,
      level: level as "must" | "should" | "may" | undefined,
      strict: opts.strict === true,
      knownFailingFile: opts.knownFailing,
      headers: parseHeaders(opts.header),
      otherHeaders: parseHeaders(opts.otherHeader),
      webhook: parseListen(opts.webhookListen, opts.webhookUrl),
      timeoutMs: parseMs("timeout", opts.timeout),
      streamTimeoutMs: parseMs("stream-timeout", opts.streamTimeout),
      taskTimeoutMs: parseMs("task-timeout", opts.taskTimeout),
      maxMessages: parseCount("max-messages", opts.maxMessages),
      onProgress: ({ index, total, result }) => {
        const line = `[${index + 1}/${total}] ${result.status.toUpperCase().padEnd(4)} ${result.id}`;
        out.stderr(tty ? `\r\x1b[K${line}${index + 1 === total ? "\n" : ""}` : `${line}\n`);
      },
    });
    for (const r of reports) {
      mkdirSync(dirname(r.path), { recursive: true });
      writeFileSync(r.path, r.kind === "json" ? jsonReport(report) : r.kind === "junit" ? junitReport(report) : htmlReport(report));
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof CaseLoadError || e instanceof CaseSelectionError) {
      out.stderr(`a2a-toolkit test: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  out.stdout(consoleReport(report, { verbose: opts.verbose }));
  if (!report.discovery.interfaces.length) {
    out.stderr(`a2a-toolkit test: no usable interface found at ${report.discovery.cardUrl}\n`);
    return 2;
  }
  return report.summary.failed > 0 ? 1 : 0;
}

/** Registers the command on the CLI; `setCode` receives the exit code. */
export function registerTestCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command("test")
    .description("run the compliance suite against an A2A agent (server conformance, 1.0 and 0.3)")
    .argument("[url]", "the agent's base URL or its agent-card URL (default: the embedded reference server)")
    .option("--version <v>", "protocol version: 1.0|0.3|all", "all")
    .option("--binding <b>", "binding: json-rpc|rest|all", "all")
    .option(
      "--case <glob>",
      "only cases whose ID matches the glob (repeatable; * stays within one path segment, ** crosses them; no match: exit 2)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--level <level>", "highest level to run: must|should|may (default may: everything)")
    .option("--strict", "SHOULD and MAY failures fail the run too (default: warnings, exit code 0)")
    .option("--known-failing <file>", "JSON list of cases expected to fail; a listed case that passes fails the run")
    .option("--report <list>", "report files: json=<path>,junit=<path>,html=<path>")
    .option(
      "--header <header>",
      'header sent with every request, e.g. "Authorization: Bearer <token>" (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      "--other-header <header>",
      "credentials of a second principal, for the isolation cases (repeatable)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--webhook-listen <host:port>", "run a webhook receiver there for the push-delivery cases (e.g. 127.0.0.1:0)")
    .option("--webhook-url <url>", "the receiver's URL as the agent reaches it (default http://<host>:<port>)")
    .option("--timeout <ms>", "bound for each response (default 10000)")
    .option("--stream-timeout <ms>", "bound for reading a stream to its end; the only bound on a stream step (default 15000)")
    .option(
      "--task-timeout <ms>",
      "bound for polling a task until it ends (repeatUntil) and for re-sending a request answered 429 (default 120000)",
    )
    .option(
      "--max-messages <n>",
      "send at most n messages in the whole run; a case that needs more than is left is skipped (default: unlimited)",
    )
    .option("--verbose", "list passing cases too")
    .action(async (url: string | undefined, opts: TestCommandOptions) => setCode(await runTestCommand(url, opts)));
}
