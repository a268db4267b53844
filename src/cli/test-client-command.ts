// `a2a-toolkit test-client [options] -- <driver command with {url}>`: judges an A2A client. For
// each client compliance case a fixture server plays the agent and the driver command (which
// wraps the client under test, see compliance/drivers/README.md) is run once with `{url}`
// replaced by the fixture server's URL. Console report on stdout (last line
// `N passed, N failed, N warnings, N skipped`), progress on stderr, report files on request; exit
// code 0 when no selected case failed at MUST (SHOULD and MAY failures are warnings unless
// --strict), 1 on a failure, 2 when the suite cannot run.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { parseChoice, parseReports, UsageError } from "./options.js";
import type { Version } from "../compliance/cases.js";

export interface TestClientOptions {
  version?: string;
  binding?: string;
  case?: string[];
  level?: string;
  strict?: boolean;
  report?: string;
  knownFailing?: string;
  concurrency?: string;
  timeout?: string;
  verbose?: boolean;
}

type Out = { stdout: (s: string) => void; stderr: (s: string) => void };
const processOut: Out = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

export async function runTestClientCommand(command: string[], opts: TestClientOptions, out: Out = processOut): Promise<number> {
  const { ClientCaseLoadError } = await import("../compliance/client/cases.js");
  const { CaseSelectionError } = await import("../compliance/cases.js");
  const { runClientSuite, clientConsoleReport } = await import("../compliance/client/runner.js");
  const { htmlReport } = await import("../compliance/html-report.js");
  const { jsonReport, junitReport } = await import("../compliance/report.js");
  try {
    if (!command.length)
      throw new UsageError("name the driver command after --, e.g. -- node --import tsx compliance/drivers/reference-client.ts {url}");
    if (!command.some((a) => a.includes("{url}"))) throw new UsageError("the driver command must contain {url} (the fixture agent's URL)");
    const files = parseReports(opts.report);
    const level = opts.level?.toLowerCase();
    if (level !== undefined && !["must", "should", "may"].includes(level))
      throw new UsageError(`--level: expected must|should|may, got "${opts.level}"`);
    const timeoutMs = opts.timeout === undefined ? undefined : Number(opts.timeout);
    if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0))
      throw new UsageError(`--timeout: expected milliseconds, got "${opts.timeout}"`);
    const concurrency = opts.concurrency === undefined ? undefined : Number(opts.concurrency);
    if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16))
      throw new UsageError(`--concurrency: expected 1..16, got "${opts.concurrency}"`);
    const tty = process.stderr.isTTY;
    const report = await runClientSuite({
      command,
      versions: parseChoice<Version>("version", opts.version, ["1.0", "0.3"]),
      bindings: parseChoice("binding", opts.binding, ["json-rpc", "rest", "grpc"] as const),
      caseGlobs: opts.case?.length ? opts.case : undefined,
      level: level as "must" | "should" | "may" | undefined,
      strict: opts.strict === true,
      timeoutMs,
      concurrency,
      knownFailingFile: opts.knownFailing,
      onProgress: ({ index, total, result }) => {
        const line = `[${index + 1}/${total}] ${result.status.toUpperCase().padEnd(4)} ${result.id}`;
        out.stderr(tty ? `\r\x1b[K${line}${index + 1 === total ? "\n" : ""}` : `${line}\n`);
      },
    });
    for (const r of files) {
      mkdirSync(dirname(r.path), { recursive: true });
      writeFileSync(r.path, r.kind === "json" ? jsonReport(report) : r.kind === "junit" ? junitReport(report) : htmlReport(report));
    }
    out.stdout(clientConsoleReport(report, { verbose: opts.verbose }));
    return report.summary.failed > 0 ? 1 : 0;
  } catch (e) {
    if (
      e instanceof UsageError ||
      e instanceof ClientCaseLoadError ||
      e instanceof CaseSelectionError ||
      (e instanceof Error && /known-failing|not valid JSON|ENOENT/.test(e.message))
    ) {
      out.stderr(`a2a-toolkit test-client: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

export function registerTestClientCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command("test-client")
    .description("run the client compliance suite: a fixture agent per scenario, your client driven through a driver command")
    .argument("<command...>", "the driver command after --; {url} is replaced by the fixture agent's URL")
    .option("--version <v>", "protocol version: 1.0|0.3|all", "all")
    .option("--binding <b>", "binding: grpc|json-rpc|rest|all", "all")
    .option(
      "--case <glob>",
      "only cases whose ID matches the glob (repeatable; * stays within one path segment, ** crosses them; no match: exit 2)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--level <level>", "highest level to run: must|should|may")
    .option("--strict", "SHOULD and MAY failures fail the run too (default: warnings, exit code 0)")
    .option("--report <list>", "report files: json=<path>,junit=<path>,html=<path>")
    .option("--known-failing <file>", "JSON list of cases expected to fail; a listed case that passes fails the run")
    .option("--concurrency <n>", "scenarios run at the same time, each with its own fixture agent (default 1)")
    .option("--timeout <ms>", "bound for one driver run; a driver still running then is killed (default 20000)")
    .option("--verbose", "list passing cases too, and every skipped case with its reason (default: one line per reason)")
    .action(async (command: string[], opts: TestClientOptions) => setCode(await runTestClientCommand(command, opts)));
}
