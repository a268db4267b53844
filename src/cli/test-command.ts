// `a2a-toolkit test <url>`: runs the compliance suite against the agent at <url> (its base URL, its
// card URL at any path or an interface URL: src/transport/card-urls.ts), prints progress on stderr and the console report on stdout, writes the
// requested report files and returns the exit code: 0 no MUST case failed (SHOULD and MAY failures
// are warnings, unless --strict), 1 a case failed (or a known-failing entry is stale), 2 the suite
// or the agent card could not be used. Last line: `N passed, N failed, N warnings, N skipped`.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { parseChoice, parseHeaderOptions, parseReports, UsageError } from "./options.js";
import type { RunMessage } from "../compliance/message.js";
import type { Behaviour, Version } from "../compliance/cases.js";
import type { Profile } from "../compliance/profiles.js";
import type { Report } from "../compliance/report.js";
import { DEFAULT_CONCURRENCY } from "../compliance/runner.js";

export interface TestCommandOptions {
  version?: string;
  binding?: string;
  case?: string[];
  cases?: string[];
  onlyCases?: boolean;
  level?: string;
  strict?: boolean;
  knownFailing?: string;
  report?: string;
  timeout?: string;
  streamTimeout?: string;
  taskTimeout?: string;
  maxMessages?: string;
  concurrency?: string;
  verbose?: boolean;
  header?: string[];
  otherHeader?: string[];
  webhookListen?: string;
  webhookUrl?: string;
  message?: string;
  messageFile?: string;
  followUp?: string;
  profile?: string;
  behaviours?: string;
}

type Out = { stdout: (s: string) => void; stderr: (s: string) => void };
const processOut: Out = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

function parseHeaders(list: string[] | undefined): Record<string, string> | undefined {
  if (!list?.length) return undefined;
  return parseHeaderOptions(list, (h) => new UsageError(`--header/--other-header: expected "Name: value", got "${h}"`));
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

/** `--message`, `--message-file`, `--follow-up`: what the agent-agnostic cases send (src/compliance/message.ts). */
async function parseMessage(opts: TestCommandOptions): Promise<RunMessage> {
  if (opts.message !== undefined && opts.messageFile !== undefined)
    throw new UsageError("--message and --message-file exclude each other (the text is the file's first text part)");
  for (const [flag, v] of [
    ["message", opts.message],
    ["follow-up", opts.followUp],
  ] as const)
    if (v !== undefined && !v.trim()) throw new UsageError(`--${flag}: expected a non-empty text`);
  const out: RunMessage = {
    ...(opts.message !== undefined ? { message: opts.message } : {}),
    ...(opts.followUp !== undefined ? { followUp: opts.followUp } : {}),
  };
  if (opts.messageFile === undefined) return out;
  const { loadMessageFile, MessageFileError } = await import("../compliance/message.js");
  try {
    return { ...out, ...loadMessageFile(opts.messageFile) };
  } catch (e) {
    throw e instanceof MessageFileError ? new UsageError(e.message) : e;
  }
}

/** --profile and --behaviours, checked against the suite's lists (loaded with the suite, not for --help). */
async function parseBehaviourOptions(opts: TestCommandOptions): Promise<{ profile?: Profile; behaviours?: Behaviour[] }> {
  const { ALL_BEHAVIOURS } = await import("../compliance/discovery.js");
  const { PROFILES } = await import("../compliance/profiles.js");
  if (opts.profile !== undefined && !(PROFILES as readonly string[]).includes(opts.profile))
    throw new UsageError(`--profile: expected ${PROFILES.join("|")}, got "${opts.profile}"`);
  const list = opts.behaviours
    ?.split(",")
    .map((b) => b.trim())
    .filter(Boolean);
  if (list && (!list.length || list.some((b) => !(ALL_BEHAVIOURS as string[]).includes(b))))
    throw new UsageError(`--behaviours: expected a comma-separated list of ${ALL_BEHAVIOURS.join(", ")}, got "${opts.behaviours}"`);
  return { profile: opts.profile as Profile | undefined, behaviours: list as Behaviour[] | undefined };
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

/** --concurrency: 1..16, as `test-client --concurrency`. */
function parseConcurrency(value: string | undefined): number | undefined {
  const n = parseCount("concurrency", value);
  if (n !== undefined && (n < 1 || n > 16)) throw new UsageError(`--concurrency: expected 1..16, got "${value}"`);
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
    // Its known-failing list names built-in cases: with --only-cases they are not part of the run.
    const knownFailing = opts.onlyCases ? {} : { knownFailing: target.knownFailingFile };
    return await runAgainst(target.url, { ...knownFailing, webhookListen: "127.0.0.1:0", ...opts }, out);
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
    const message = await parseMessage(opts);
    if (opts.onlyCases && !opts.cases?.length) throw new UsageError("--only-cases needs at least one --cases <dir>");
    const tty = process.stderr.isTTY;
    report = await runSuite({
      target: url,
      versions: parseChoice<Version>("version", opts.version, ["1.0", "0.3"]),
      bindings: parseChoice("binding", opts.binding, ["json-rpc", "rest", "grpc"] as const),
      caseGlobs: opts.case?.length ? opts.case : undefined,
      extraCasesDirs: opts.cases,
      onlyExtraCases: opts.onlyCases === true,
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
      concurrency: parseConcurrency(opts.concurrency),
      ...message,
      ...(await parseBehaviourOptions(opts)),
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
    const tried = report.discovery.notes.find((n) => n.startsWith("no agent card found"));
    out.stderr(`a2a-toolkit test: ${tried ?? `no usable interface found in the card at ${report.discovery.cardUrl}`}\n`);
    return 2;
  }
  return report.summary.failed > 0 ? 1 : 0;
}

/** Registers the command on the CLI; `setCode` receives the exit code. */
export function registerTestCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command("test")
    .description("run the compliance suite against an A2A agent (server conformance, 1.0 and 0.3)")
    .argument(
      "[url]",
      "the agent's base URL (a path prefix is fine), its agent-card URL (any path) or an interface URL (default: the embedded reference server)",
    )
    .option("--version <v>", "protocol version: 1.0|0.3|all", "all")
    .option("--binding <b>", "binding: grpc|json-rpc|rest|all (all: every binding the card declares)", "all")
    .option(
      "--case <glob>",
      "only cases whose ID matches the glob (repeatable; * stays within one path segment, ** crosses them; no match: exit 2)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      "--cases <dir>",
      "add the case files of this directory (e.g. `record` output; repeatable); their IDs become <dir name>:<path>",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--only-cases", "run only the cases of the --cases directories, not the built-in ones")
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
    .option(
      "--concurrency <n>",
      `cases run at the same time, 1..16 (default ${DEFAULT_CONCURRENCY}; 1: one after another in ID order; with --max-messages: 1)`,
    )
    .option("--message <text>", "text of the message the agent-agnostic cases send (default: hello)")
    .option(
      "--message-file <json>",
      'message to send instead: {"parts": [1.0 ProtoJSON parts], "metadata"?: {...}}, sent in each case\'s dialect',
    )
    .option("--follow-up <text>", "text sent once to a task that asks for input (default: yes)")
    .option(
      "--profile <name>",
      "scripted behaviours the agent implements: tck (the official TCK's messageId conventions), fixture (this toolkit's fixture agent), " +
        "none (only what the card declares, no TCK probe). Default: the card's fixture extension, plus tck when a probe message shows the agent honours it",
    )
    .option(
      "--behaviours <list>",
      "fixture behaviours the agent implements, comma-separated (echo,ask,stream,fail,slow,msg,auth,parts,tck); the card is left as it is",
    )
    .option("--verbose", "list passing cases too, and every skipped case with its reason (default: one line per reason)")
    .action(async (url: string | undefined, opts: TestCommandOptions) => setCode(await runTestCommand(url, opts)));
}
