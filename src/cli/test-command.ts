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
import { DEFAULT_CONCURRENCY, DEFAULT_STREAM_TIMEOUT_MS, DEFAULT_TASK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from "../compliance/defaults.js";

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
  /** commander's --no-shared-turns: false. */
  sharedTurns?: boolean;
  verbose?: boolean;
  list?: boolean;
  header?: string[];
  otherHeader?: string[];
  webhookListen?: string;
  webhookUrl?: string;
  message?: string;
  messageFile?: string;
  followUp?: string;
  profile?: string;
  behaviours?: string;
  /** `--acts` (true) or `--acts <file|dir>`. */
  acts?: string | boolean;
  actsAsPublished?: boolean;
  onlyActs?: boolean;
}

/** A value that is a URL, not a path: `--acts http://…` is the agent's URL, never an ACTS path. */
function isUrlShaped(v: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !/^file:/i.test(v);
}

/**
 * `--acts` takes an optional path, so `test --acts <url>` would read the URL as the path: a
 * URL-shaped value is the target instead. --acts-as-published and --only-acts imply --acts.
 */
export function resolveActsArgs(url: string | undefined, opts: TestCommandOptions): { url: string | undefined; opts: TestCommandOptions } {
  let acts = opts.acts;
  if (typeof acts === "string" && isUrlShaped(acts)) {
    if (url !== undefined)
      throw new UsageError(`--acts: "${acts}" is a URL, and the agent's URL is already "${url}"; give an ACTS file or directory`);
    url = acts;
    acts = true;
  }
  if (acts === undefined && (opts.actsAsPublished || opts.onlyActs)) acts = true;
  return { url, opts: acts === undefined ? opts : { ...opts, acts } };
}

/** `--report acts=<dir>` is ACTS's (one §13 file per version and binding); the others go to parseReports. */
function splitActsReport(spec: string | undefined): { actsDir?: string; rest?: string } {
  if (!spec) return {};
  const items = spec.split(",");
  const acts = items.filter((i) => i.trim().startsWith("acts="));
  if (acts.length > 1) throw new UsageError("--report: acts=<dir> given twice");
  const actsDir = acts[0]?.trim().slice("acts=".length).trim();
  if (acts.length && !actsDir) throw new UsageError("--report: expected acts=<dir>");
  const rest = items.filter((i) => !i.trim().startsWith("acts=")).join(",");
  return { ...(actsDir ? { actsDir } : {}), ...(rest ? { rest } : {}) };
}

/** Where the command writes; `progress`: stderr is a terminal (a progress bar); `color`: colour the report. */
type Out = { stdout: (s: string) => void; stderr: (s: string) => void; progress?: boolean; color?: boolean };
const processOut: Out = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  get progress() {
    return process.stderr.isTTY === true;
  },
  get color() {
    return colorWanted(process.stdout.isTTY === true, process.env);
  },
};

/** Colour on a terminal only, and not when NO_COLOR is set to a non-empty value (https://no-color.org). */
export function colorWanted(tty: boolean, env: Record<string, string | undefined>): boolean {
  return tty && !env.NO_COLOR;
}

/** The progress of a run on a terminal: a bar, the count and the case, redrawn in place. */
export function progressLine(done: number, total: number, id: string, columns = 80): string {
  const width = 20;
  const filled = total ? Math.round((done / total) * width) : width;
  const head = `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} `;
  const room = Math.max(0, columns - head.length - 1);
  return `\r\x1b[K${head}${id.length > room ? `…${id.slice(id.length - room + 1)}` : id}`;
}

/** The agent could not be reached, or answered with no usable A2A card: exit 3. */
const EXIT_UNREACHABLE = 3;

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
export async function runTestCommand(urlIn: string | undefined, optsIn: TestCommandOptions, out: Out = processOut): Promise<number> {
  let url: string | undefined;
  let opts: TestCommandOptions;
  try {
    ({ url, opts } = resolveActsArgs(urlIn, optsIn));
  } catch (e) {
    return usageError(e, out);
  }
  if (opts.list) return listCases(opts, out);
  if (url !== undefined) return runAgainst(url, opts, out);
  const { startEmbeddedTarget } = await import("./embedded-target.js");
  const target = await startEmbeddedTarget();
  out.stderr(`a2a-toolkit test: no URL given; testing the embedded reference server at ${target.url}\n`);
  try {
    // Its known-failing list names built-in cases: with --only-cases (or --only-acts) they are not part of the run.
    const knownFailing = opts.onlyCases || opts.onlyActs ? {} : { knownFailing: target.knownFailingFile };
    // The run's credential first: a --header of the same name replaces it.
    const header = [target.header, ...(opts.header ?? [])];
    return await runAgainst(target.url, { ...knownFailing, webhookListen: "127.0.0.1:0", ...opts, header }, out);
  } finally {
    await target.close();
  }
}

async function runAgainst(url: string, opts: TestCommandOptions, out: Out): Promise<number> {
  // Loaded here, not at the top, so `a2a-toolkit --help` does not load the validators.
  const { htmlReport } = await import("../compliance/html-report.js");
  const { consoleReport, jsonReport, junitReport, summaryLine } = await import("../compliance/report.js");
  const { runSuite } = await import("../compliance/suite.js");
  let report: Report;
  let reports: ReturnType<typeof parseReports>;
  let actsDir: string | undefined;
  try {
    const split = splitActsReport(opts.report);
    actsDir = split.actsDir;
    if (actsDir && !opts.acts) throw new UsageError("--report acts=<dir> needs --acts");
    reports = parseReports(split.rest);
    const selected = selection(opts);
    checkAgentUrl(url);
    const message = await parseMessage(opts);
    report = await runSuite({
      target: url,
      ...selected,
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
      ...(opts.sharedTurns === false ? { shareTurns: false } : {}),
      ...message,
      ...(await parseBehaviourOptions(opts)),
      ...(opts.acts
        ? {
            acts: {
              ...(typeof opts.acts === "string" ? { paths: [opts.acts] } : {}),
              asPublished: opts.actsAsPublished === true,
              only: opts.onlyActs === true,
            },
          }
        : {}),
      // A bar on a terminal; elsewhere a line per case only with --verbose (CI logs stay short).
      onProgress: ({ index, total, result }) => {
        if (out.progress)
          out.stderr(index + 1 === total ? "\r\x1b[K" : progressLine(index + 1, total, result.id, process.stderr.columns || 80));
        else if (opts.verbose) out.stderr(`[${index + 1}/${total}] ${result.status.toUpperCase().padEnd(4)} ${result.id}\n`);
      },
    });
  } catch (e) {
    return usageError(e, out);
  }
  if (!report.discovery.interfaces.length) {
    // Nothing was judged: one line, no report (every case would only say it was skipped).
    const tried = report.discovery.notes.find((n) => n.startsWith("no agent card found"));
    out.stderr(
      `a2a-toolkit test: ${tried ?? `no usable A2A interface in the card at ${report.discovery.cardUrl} (${report.discovery.notes.at(-1) ?? "no interface declared"})`}\n`,
    );
    return EXIT_UNREACHABLE;
  }
  out.stdout(consoleReport(report, { verbose: opts.verbose, color: out.color }));
  if (report.acts) {
    // The ACTS section (adjudications with both verdicts), then the counts again: the last line stays the verdict.
    const { actsConsole } = await import("../compliance/acts/suite.js");
    out.stdout(`${actsConsole(report.acts).trimEnd()}\n${summaryLine(report.summary)}\n`);
  }
  for (const r of reports) {
    try {
      mkdirSync(dirname(r.path), { recursive: true });
      writeFileSync(r.path, r.kind === "json" ? jsonReport(report) : r.kind === "junit" ? junitReport(report) : htmlReport(report));
    } catch (e) {
      // A path that cannot be written is a mistake in --report: the run's verdict is on stdout already.
      out.stderr(`a2a-toolkit test: --report: cannot write ${r.path}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const written = reports.map((r) => `${r.path} (${r.kind})`);
  if (actsDir && report.acts) {
    const { writeActsReports } = await import("../compliance/acts/report.js");
    try {
      written.push(...writeActsReports(actsDir, report.acts).map((path) => `${path} (ACTS §13)`));
    } catch (e) {
      out.stderr(`a2a-toolkit test: --report: cannot write ACTS reports in ${actsDir}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  if (written.length) out.stderr(`a2a-toolkit test: wrote ${written.join(", ")}\n`);
  return report.summary.failed > 0 ? 1 : 0;
}

/**
 * The agent's URL: http or https with a host. `localhost:23100` parses as a URL of scheme
 * "localhost:", so the scheme is checked, and the likely URL suggested.
 */
function checkAgentUrl(url: string): void {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (u && (u.protocol === "http:" || u.protocol === "https:") && u.hostname) return;
  const guess = /^[\w.-]+:\d+(\/|$)/.test(url) || /^[\w.-]+(\/|$)/.test(url) ? ` (did you mean http://${url}?)` : "";
  throw new UsageError(`not an http(s) URL: "${url}"${guess}`);
}

/** A mistake in the command line or the case files: one line on stderr, exit 2; anything else is thrown on. */
async function usageError(e: unknown, out: Out): Promise<number> {
  const { CaseLoadError, CaseSelectionError } = await import("../compliance/cases.js");
  const actsInput = e instanceof Error && e.name === "ActsInputError";
  if (!(e instanceof UsageError || e instanceof CaseLoadError || e instanceof CaseSelectionError || actsInput)) throw e;
  out.stderr(`a2a-toolkit test: ${e.message}\n`);
  return 2;
}

/** --level, --version, --binding, --case, --cases, --only-cases: which cases run. */
function selection(opts: TestCommandOptions) {
  const level = opts.level?.toLowerCase();
  if (level !== undefined && !["must", "should", "may"].includes(level))
    throw new UsageError(`--level: expected must|should|may, got "${opts.level}"`);
  if (opts.onlyCases && !opts.cases?.length) throw new UsageError("--only-cases needs at least one --cases <dir>");
  return {
    versions: parseChoice<Version>("version", opts.version, ["1.0", "0.3"]),
    bindings: parseChoice("binding", opts.binding, ["json-rpc", "rest", "grpc"] as const),
    caseGlobs: opts.case?.length ? opts.case : undefined,
    extraCasesDirs: opts.cases,
    onlyExtraCases: opts.onlyCases === true,
    level: level as "must" | "should" | "may" | undefined,
  };
}

/** `test --list`: the selected cases, one per line (ID, level, title), without contacting the agent. */
async function listCases(opts: TestCommandOptions, out: Out): Promise<number> {
  try {
    const { selectedCases } = await import("../compliance/suite.js");
    const cases = selectedCases(selection(opts));
    const width = Math.max(0, ...cases.map((c) => c.id.length));
    for (const c of cases) out.stdout(`${c.id.padEnd(width)}  ${c.level.padEnd(6)}  ${c.title}\n`);
    out.stderr(`a2a-toolkit test: ${cases.length} case${cases.length === 1 ? "" : "s"}\n`);
    return 0;
  } catch (e) {
    return usageError(e, out);
  }
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
    .option("--report <list>", "report files: json=<path>,junit=<path>,html=<path>,acts=<dir> (ACTS §13: <version>-<binding>.json each)")
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
    .option("--timeout <ms>", `bound for each response (default ${DEFAULT_TIMEOUT_MS})`)
    .option(
      "--stream-timeout <ms>",
      `bound for reading a stream to its end; the only bound on a stream step (default ${DEFAULT_STREAM_TIMEOUT_MS})`,
    )
    .option(
      "--task-timeout <ms>",
      `bound for polling a task until it ends (repeatUntil) and for re-sending a request answered 429 (default ${DEFAULT_TASK_TIMEOUT_MS})`,
    )
    .option(
      "--max-messages <n>",
      "send at most n messages in the whole run; a case that needs more than is left is skipped (default: unlimited)",
    )
    .option(
      "--concurrency <n>",
      `cases run at the same time, 1..16 (default ${DEFAULT_CONCURRENCY}; 1: one after another in ID order; with --max-messages: 1)`,
    )
    .option(
      "--no-shared-turns",
      "every case sends its own messages (default: cases that open with the same message and then only read share that agent turn)",
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
    .option(
      "--acts [path]",
      "run ACTS tests too (ids acts/<test id>@<binding>), on every 1.0 binding the card declares: the pinned corpus, adjudicated " +
        "(compliance/acts/adjudications.json), or the ACTS file or directory given. A URL after --acts is the agent's URL",
    )
    .option("--acts-as-published", "run the ACTS tests as published, without adjudications (implies --acts)")
    .option("--only-acts", "run only the ACTS tests, not the built-in cases (implies --acts)")
    .option("--list", "list the cases the other options select (ID, level, title) and exit, without contacting the agent")
    .option(
      "--verbose",
      "the full report: every case with its result, each failure's request and expected/actual, every skip and allowed choice",
    )
    .action(async (url: string | undefined, opts: TestCommandOptions) => setCode(await runTestCommand(url, opts)));
}
