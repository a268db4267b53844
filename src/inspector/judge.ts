// Judge: the compliance suite run from the page, through the suite's own runSuite with the options
// of `a2a-toolkit test` the page offers (version, binding, case globs, level, ACTS). Each case's
// exchanges (the requests the runner sent and the answers it read, gRPC decoded) go into the
// session's wire log as they finish, so a failure links to the exchange of its failing step; the
// report is the HTML the CLI writes with `--report html=`.
import { caseAnchor, htmlReport } from "../compliance/html-report.js";
import { summaryLine } from "../compliance/report.js";
import type { CaseResult, StepResult } from "../compliance/runner.js";
import { runSuite, type SuiteOptions } from "../compliance/suite.js";
import type { Exchange, Session } from "./session.js";

/** What the page may choose: the `test` options that select cases. */
export interface JudgeOptions {
  version?: "1.0" | "0.3";
  binding?: "json-rpc" | "rest" | "grpc";
  caseGlobs?: string[];
  level?: "must" | "should" | "may";
  /** `--acts`: the pinned ACTS corpus too (`only`: `--only-acts`). */
  acts?: { only: boolean };
}

export interface JudgeFailure {
  id: string;
  status: "fail" | "warn";
  reason: string;
  /** The wire log number of the failing step's exchange (none: the step sent nothing). */
  exchange?: number;
  /** The case's block in the report (html-report.ts caseAnchor). */
  anchor: string;
}

export interface JudgeOutcome {
  summary: string;
  failed: boolean;
  failures: JudgeFailure[];
  html: string;
}

/** The page's options, checked: anything else is a 400 with this message. */
export function judgeOptions(body: Record<string, unknown>): JudgeOptions | string {
  const pick = <T extends string>(name: string, allowed: readonly T[]): T | undefined | string => {
    const v = body[name];
    if (v === undefined || v === "" || v === "all") return undefined;
    return allowed.includes(v as T) ? (v as T) : `${name}: expected ${allowed.join("|")} or all, got ${JSON.stringify(v)}`;
  };
  const version = pick("version", ["1.0", "0.3"] as const);
  const binding = pick("binding", ["json-rpc", "rest", "grpc"] as const);
  const level = pick("level", ["must", "should", "may"] as const);
  for (const v of [version, binding, level]) if (typeof v === "string" && v.includes(":")) return v;
  const globs = typeof body.cases === "string" ? body.cases.split(/[\s,]+/).filter(Boolean) : [];
  const acts = body.acts === "only" ? { only: true } : body.acts === true || body.acts === "also" ? { only: false } : undefined;
  return {
    ...(version ? { version: version as "1.0" | "0.3" } : {}),
    ...(binding ? { binding: binding as JudgeOptions["binding"] } : {}),
    ...(level ? { level: level as JudgeOptions["level"] } : {}),
    ...(globs.length ? { caseGlobs: globs } : {}),
    ...(acts ? { acts } : {}),
  };
}

/** Runs the suite against the session's agent with its headers; `onCase` hears each case as it ends. */
export async function judge(
  session: Session,
  opts: JudgeOptions,
  onCase: (p: { index: number; total: number; id: string; status: string }) => void,
): Promise<JudgeOutcome> {
  const failing = new Map<string, number>();
  const suite: SuiteOptions = {
    target: session.url,
    headers: session.headers,
    ...(opts.version ? { versions: [opts.version] } : {}),
    ...(opts.binding ? { bindings: [opts.binding] } : {}),
    ...(opts.caseGlobs ? { caseGlobs: opts.caseGlobs } : {}),
    ...(opts.level ? { level: opts.level } : {}),
    ...(opts.acts ? { acts: { only: opts.acts.only } } : {}),
    onProgress: ({ index, total, result }) => {
      const at = logSteps(session, result);
      if (at !== undefined) failing.set(result.id, at);
      onCase({ index, total, id: result.id, status: result.status });
    },
  };
  const report = await runSuite(suite);
  const failures = report.results
    .filter((r): r is CaseResult & { status: "fail" | "warn" } => r.status === "fail" || r.status === "warn")
    .map((r) => ({
      id: r.id,
      status: r.status,
      reason: r.reason ?? "",
      ...(failing.has(r.id) ? { exchange: failing.get(r.id)! } : {}),
      anchor: caseAnchor(r.id),
    }));
  return { summary: summaryLine(report.summary), failed: report.summary.failed > 0, failures, html: htmlReport(report) };
}

/** Puts a case's exchanges in the wire log; returns the number of its failing step's exchange. */
function logSteps(session: Session, result: CaseResult): number | undefined {
  let failed: number | undefined;
  for (const step of result.steps) {
    if (!step.request) continue;
    const n = session.log(exchangeOf(result.id, step));
    if (step.status === "fail" && failed === undefined) failed = n;
  }
  // A failure without a request of its own (a webhook that never came) points at the case's last exchange.
  return failed ?? (result.status === "fail" || result.status === "warn" ? session.wire.at(-1)?.n : undefined);
}

function exchangeOf(caseId: string, step: StepResult): Omit<Exchange, "n"> {
  const req = step.request!;
  const res = step.actual;
  const grpc = res?.grpc !== undefined || !/^https?:/.test(req.url);
  const status = !res ? "not sent" : res.error ? `failed: ${res.error}` : res.grpc ? (res.grpc.status ?? "no grpc-status") : res.status;
  const body = !res
    ? ""
    : res.events
      ? res.events.map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${e.data}`).join("\n\n")
      : (res.text ?? (res.json !== undefined ? JSON.stringify(res.json, null, 2) : ""));
  return {
    kind: grpc ? "grpc" : "http",
    method: req.method,
    url: req.url,
    requestHeaders: req.headers,
    requestBody: req.body ?? "",
    status,
    responseHeaders: res?.headers ?? {},
    responseBody: body,
    origin: `suite: ${caseId}, step ${step.name} (${step.status})`,
  };
}
