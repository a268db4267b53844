// ACTS in a `test` run (`--acts`): the corpus (or the given files) adjudicated unless run as
// published, run on every declared binding at 1.0 and 0.3; its verdicts become CaseResults with IDs
// `acts/<test id>@<binding>` (1.0) and `acts/<test id>@0.3-<binding>`, beside the built-in cases in
// every report. Loaded only when --acts
// is given, so a run without it costs nothing more.
//
//   runActsInSuite(discovery, opts)   → {results, stale, report}: CaseResults, stale adjudications
//                                       (counted like stale known-failing entries), ActsRunReport
//   actsConsole(report)               → the console lines: deviations, adjudications, §12.7 summary
import type { CaseResult } from "../runner.js";
import type { Discovery } from "../discovery.js";
import type { KnownFailingEntry } from "../known-failing.js";
import { adjudicate, loadAdjudications, type Adjudication, type StaleAdjudication } from "./adjudicate.js";
import type { ActsBinding, ActsTestResult } from "./execute.js";
import type { ActsDeviation } from "./load.js";
import { loadActsTests, runActs, type ActsBindingRun, type ActsVersion } from "./run.js";

/** The ACTS files or the adjudications cannot be used. */
export class ActsInputError extends Error {
  override readonly name = "ActsInputError";
}

export interface ActsSuiteOptions {
  /** Files or directories (default: the pinned corpus). */
  paths?: string[];
  /** Run the tests as published, without adjudications. */
  asPublished?: boolean;
  /** Only ACTS: the built-in cases are not run. */
  only?: boolean;
  adjudicationsFile?: string;
  /** The versions run (default: both, every interface the card declares). */
  versions?: ActsVersion[];
}

/** What the reports need of an ACTS run (Report.acts). */
export interface ActsRunReport {
  actsVersion: string;
  specVersion: string;
  files: string[];
  asPublished: boolean;
  agent: { name: string; version: string };
  deviations: ActsDeviation[];
  staleAdjudications: StaleAdjudication[];
  runs: ActsBindingRun[];
  /** Each test id's suite (§13.3 groups results by suite). */
  suiteOf: Record<string, { id: string; name: string }>;
}

const CASE_BINDING: Record<ActsBinding, string> = { jsonrpc: "json-rpc", rest: "rest", grpc: "grpc" };

export function actsCaseId(testId: string, binding: ActsBinding, version: ActsVersion = "1.0"): string {
  return `acts/${testId}@${version === "1.0" ? "" : `${version}-`}${binding}`;
}

function reasonOf(r: ActsTestResult): string | undefined {
  if (r.skip_reason) return r.skip_reason;
  if (!r.failure) return undefined;
  return `${r.result === "error" ? "runner error: " : ""}${r.failure.step_id ? `${r.failure.step_id}: ` : ""}${r.failure.message}`;
}

function toCaseResult(
  r: ActsTestResult,
  run: { version: ActsVersion; binding: ActsBinding; url: string },
  strict: boolean,
  adjudicated?: string,
): CaseResult {
  const { version, binding, url } = run;
  const level = r.level.toUpperCase() as CaseResult["level"];
  const failed = r.result === "fail" || r.result === "error";
  const reason = [adjudicated, reasonOf(r)].filter(Boolean).join(" — ");
  return {
    id: actsCaseId(r.id, binding, version),
    title: r.name,
    version,
    binding: CASE_BINDING[binding],
    level,
    requirements: [],
    status: r.result === "pass" ? "pass" : r.result === "skip" ? "skip" : level === "MUST" || strict ? "fail" : "warn",
    ...(failed ? { failureLevel: level } : {}),
    ...(reason ? { reason } : {}),
    interface: { version, binding: CASE_BINDING[binding] as "json-rpc", url, source: "ACTS run" },
    steps: [],
    durationMs: r.duration_ms,
  };
}

export async function runActsInSuite(
  discovery: Discovery,
  opts: ActsSuiteOptions & {
    strict?: boolean;
    headers?: Record<string, string>;
    timeoutMs?: number;
    streamTimeoutMs?: number;
    bindings?: ActsBinding[];
    versions?: ActsVersion[];
  },
  onResult?: (result: CaseResult) => void,
): Promise<{ results: CaseResult[]; stale: KnownFailingEntry[]; report: ActsRunReport; messagesSent: number }> {
  let loaded: ReturnType<typeof loadActsTests>;
  let all: Adjudication[];
  try {
    loaded = loadActsTests(opts.paths);
    all = opts.asPublished ? [] : loadAdjudications(opts.adjudicationsFile);
  } catch (e) {
    // A missing path, an invalid ACTS file or adjudication file: a usage problem (exit 2), said plainly.
    throw new ActsInputError(e instanceof Error ? e.message : String(e));
  }
  // A record whose test is missing is stale for the pinned corpus; other files simply lack it.
  const ids = new Set(loaded.tests.map((t) => String(t.test.id)));
  const records = all.filter((r) => !opts.paths || ids.has(r.test));
  const planned = adjudicate(loaded.tests, records);
  const sent = { messages: 0 };
  const runs = await runActs(planned.tests, discovery, {
    sent,
    headers: opts.headers,
    timeoutMs: opts.timeoutMs,
    streamTimeoutMs: opts.streamTimeoutMs,
    bindings: opts.bindings,
    versions: opts.versions,
    onResult: (run, r) => onResult?.(toCaseResult(r, run, opts.strict ?? false)),
  });
  const results: CaseResult[] = [];
  const stale: KnownFailingEntry[] = planned.stale.map((s) => ({ case: `acts/${s.test}`, reason: `stale adjudication: ${s.reason}` }));
  for (const run of runs) {
    const lines = new Map(run.adjudicated.map((a) => [a.record.test, a]));
    for (const r of run.results) results.push(toCaseResult(r, run, opts.strict ?? false, lines.get(r.id)?.line));
    for (const a of run.adjudicated)
      if (a.stale)
        stale.push({
          case: actsCaseId(a.record.test, run.binding, run.version),
          reason: "stale adjudication: the agent passes the test as published too (remove the record or keep it for other agents)",
        });
  }
  const card = discovery.card1_0 ?? {};
  return {
    results,
    stale,
    messagesSent: sent.messages,
    report: {
      actsVersion: loaded.actsVersion,
      specVersion: loaded.specVersion,
      files: loaded.files,
      asPublished: opts.asPublished ?? false,
      agent: {
        name: typeof card.name === "string" ? card.name : "unknown",
        version: typeof card.version === "string" ? card.version : "unknown",
      },
      deviations: loaded.deviations,
      staleAdjudications: planned.stale,
      runs,
      suiteOf: Object.fromEntries(loaded.tests.map((t) => [String(t.test.id), t.suite])),
    },
  };
}

/** §12.7 level summary of one binding's run. */
export function levelSummary(
  results: ActsTestResult[],
): Record<"must" | "should" | "may", { total: number; passed: number; failed: number; skipped: number; errors: number }> {
  const out = {} as ReturnType<typeof levelSummary>;
  for (const level of ["must", "should", "may"] as const) {
    const of = results.filter((r) => r.level === level);
    const n = (x: ActsTestResult["result"]) => of.filter((r) => r.result === x).length;
    out[level] = { total: of.length, passed: n("pass"), failed: n("fail"), skipped: n("skip"), errors: n("error") };
  }
  return out;
}

/** The console's ACTS section. */
export function actsConsole(report: ActsRunReport): string {
  const lines = [
    "",
    `ACTS ${report.actsVersion} (A2A ${report.specVersion}), ${report.files.length} file(s)${report.asPublished ? ", as published" : ", adjudicated"}:`,
  ];
  if (report.deviations.length) {
    const byKind = new Map<string, number>();
    for (const d of report.deviations) byKind.set(`${d.used} → ${d.canonical}`, (byKind.get(`${d.used} → ${d.canonical}`) ?? 0) + 1);
    lines.push(`  ${report.deviations.length} deviation(s) from the ACTS format, mapped:`);
    for (const [k, n] of byKind) lines.push(`    ${n} × ${k}`);
  }
  for (const run of report.runs) {
    const s = levelSummary(run.results);
    const conformant = s.must.failed === 0 && s.must.errors === 0;
    lines.push(
      `  ${run.version} ${run.binding} (${run.url}): ${conformant ? "conformant" : "NOT conformant"} (every MUST test passed: ${conformant ? "yes" : "no"})`,
    );
    for (const level of ["must", "should", "may"] as const) {
      const l = s[level];
      lines.push(
        `    ${level.toUpperCase().padEnd(6)} ${l.passed}/${l.total} passed (${l.failed} failed, ${l.errors} errors, ${l.skipped} skipped)`,
      );
    }
    for (const a of run.adjudicated.filter((x) => x.adjudicated.result !== "skip" || x.published.result !== "skip"))
      lines.push(`    ${a.record.test}: ${a.line}${a.stale ? " [STALE]" : ""}`);
  }
  for (const s of report.staleAdjudications) lines.push(`  STALE adjudication ${s.test}: ${s.reason}`);
  return `${lines.join("\n")}\n`;
}
