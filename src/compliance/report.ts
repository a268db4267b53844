// The run report (one object every reporter renders) and the console, JSON and JUnit XML
// reporters. The HTML reporter lives in html-report.ts.
import type { Case } from "./cases.js";
import { PROTOCOL_BINDING, type Discovery } from "./discovery.js";
import type { KnownFailingEntry } from "./known-failing.js";
import type { Diff } from "./match.js";
import { exercisedRules, type CoverageRow, type Exercised } from "./requirements.js";
import type { CaseResult, SelectOptions, StepResult } from "./runner.js";

export interface Summary {
  total: number;
  passed: number;
  /** Failed cases (MUST failures; all failures with --strict) plus stale known-failing entries. */
  failed: number;
  /** SHOULD and MAY failures that do not fail the run (none with --strict). */
  warnings: number;
  skipped: number;
  /** Cases the agent's behaviour left untested (runner.ts CaseStatus); they never fail a run. */
  inconclusive: number;
  knownFailing: number;
  /** Messages the run sent to the agent (server runs: every SendMessage and streaming send, the probe and 429 re-sends included). */
  messagesSent?: number;
}

export interface Report {
  tool: string;
  target: string;
  startedAt: string;
  finishedAt: string;
  discovery: Pick<Discovery, "agentUrl" | "cardUrl" | "interfaces" | "behaviours" | "notes" | "capabilities">;
  filters: Record<string, unknown>;
  summary: Summary;
  results: CaseResult[];
  knownFailingFile?: string;
  staleKnownFailing: KnownFailingEntry[];
  coverage: CoverageRow[];
  /** Catalogued rules exercised on this agent, of those applicable, overall and per version × binding. */
  exercised: Exercised;
  /** Case IDs of the whole suite, for the coverage table's links. */
  suite: string[];
  /** Twins whose outcomes differ: the same scenario passing on one binding or version and failing on another. */
  divergences: Divergence[];
}

export interface Divergence {
  /** The scenario: the case ID without its version and binding ("get-task/returns-completed-task"). */
  scenario: string;
  /** "binding" (same version, JSON-RPC vs HTTP+JSON) or "version" (same binding, 1.0 vs 0.3). */
  axis: "binding" | "version";
  passed: string[];
  failed: string[];
}

/**
 * Twin cases that ran on both sides of an axis and did not agree: one passed, the other failed at
 * MUST. Skips and SHOULD/MAY failures are left out, and so are twins of different levels: twins
 * whose expectations differ in strength (an exact code on one binding, any client error on the
 * other) would otherwise "disagree" about a rule only one of them checks.
 */
export function divergences(results: CaseResult[]): Divergence[] {
  const ran = results.filter(
    (r) => r.status !== "skip" && !((r.status === "fail" || r.status === "known-failing") && (r.failureLevel ?? r.level) !== "MUST"),
  );
  const out: Divergence[] = [];
  const group = (axis: "binding" | "version", key: (id: string) => string | undefined) => {
    const groups = new Map<string, CaseResult[]>();
    for (const r of ran) {
      const k = key(r.id);
      if (k !== undefined) groups.set(k, [...(groups.get(k) ?? []), r]);
    }
    for (const [k, rs] of groups) {
      if (new Set(rs.map((r) => r.level)).size > 1) continue;
      const passed = rs.filter((r) => r.status === "pass").map((r) => r.id);
      const failed = rs.filter((r) => r.status === "fail" || r.status === "known-failing").map((r) => r.id);
      if (passed.length && failed.length) out.push({ scenario: k.slice(k.indexOf("|") + 1), axis, passed, failed });
    }
  };
  const parts = (id: string) => id.split("/");
  group("binding", (id) => {
    const [v, b, ...rest] = parts(id);
    return b === "json-rpc" || b === "rest" || b === "grpc" ? `${v}|${rest.join("/")}` : undefined;
  });
  group("version", (id) => {
    const [, b, ...rest] = parts(id);
    return b === "json-rpc" || b === "rest" || b === "grpc" ? `${b}|${rest.join("/")}` : undefined;
  });
  return out;
}

export function summarise(results: CaseResult[], stale: KnownFailingEntry[]): Summary {
  const count = (s: CaseResult["status"]) => results.filter((r) => r.status === s).length;
  return {
    total: results.length,
    passed: count("pass"),
    failed: count("fail") + stale.length,
    warnings: count("warn"),
    skipped: count("skip"),
    inconclusive: count("inconclusive"),
    knownFailing: count("known-failing"),
  };
}

/** The filters a report records: what the run was asked to select (server and client runs alike). */
export function runFilters(opts: SelectOptions & { strict?: boolean }): Record<string, unknown> {
  return {
    versions: opts.versions ?? "all",
    bindings: opts.bindings ?? "all",
    cases: opts.caseGlobs ?? "all",
    level: opts.level ?? "may",
    strict: opts.strict ?? false,
  };
}

export function buildReport(input: {
  target: string;
  startedAt: Date;
  finishedAt: Date;
  discovery: Discovery;
  filters: Record<string, unknown>;
  results: CaseResult[];
  stale: KnownFailingEntry[];
  knownFailingFile?: string;
  coverage: CoverageRow[];
  suite: Case[];
  messagesSent?: number;
  /**
   * Whether a result's case was selected for an interface the agent declares (default: the
   * discovery has an interface of its version and binding, or the case ran on one).
   */
  declared?: (r: CaseResult) => boolean;
}): Report {
  const d = input.discovery;
  const declared =
    input.declared ??
    ((r: CaseResult) =>
      r.interface !== undefined || d.interfaces.some((i) => i.version === r.version && (r.binding === "any" || i.binding === r.binding)));
  return {
    tool: "a2a-toolkit test",
    target: input.target,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    discovery: {
      agentUrl: d.agentUrl,
      cardUrl: d.cardUrl,
      interfaces: d.interfaces,
      behaviours: d.behaviours,
      notes: d.notes,
      capabilities: d.capabilities,
    },
    filters: input.filters,
    summary: {
      ...summarise(input.results, input.stale),
      ...(input.messagesSent !== undefined ? { messagesSent: input.messagesSent } : {}),
    },
    results: input.results,
    ...(input.knownFailingFile ? { knownFailingFile: input.knownFailingFile } : {}),
    staleKnownFailing: input.stale,
    coverage: input.coverage,
    exercised: exercisedRules(input.results, input.coverage, declared),
    suite: input.suite.map((c) => c.id),
    divergences: divergences(input.results),
  };
}

/** The last line of every console report. */
export function summaryLine(s: Summary): string {
  const untested = s.inconclusive ? `, ${s.inconclusive} inconclusive` : "";
  const sent = s.messagesSent === undefined ? "" : `; ${s.messagesSent} message${s.messagesSent === 1 ? "" : "s"} sent`;
  return `${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.skipped} skipped${untested}${sent}`;
}

/** The sentences a failure rests on: the failing step's own citations, else the case's. */
export function failureCitations(r: Pick<CaseResult, "spec">, step?: Pick<StepResult, "spec">): string[] {
  const spec = step?.spec ?? r.spec ?? [];
  return spec.map((c) => `${c.version} §${c.section}: "${c.quote}"`);
}

export function formatDiff(d: Diff): string {
  return `${d.path || "/"}: ${d.message}`;
}

/** The wire side of a step as a JSON-able object (what the report shows as "actual"). */
export function actualView(step: StepResult, opts: { allHeaders?: boolean } = {}): unknown {
  if (step.deliveries)
    return { webhookCalls: step.deliveries.map((d) => ({ method: d.method, headers: d.headers, body: d.json ?? d.text })) };
  const a = step.actual;
  if (!a) return step.error ? { error: step.error } : undefined;
  // By default only the headers the case looks at, and content-type: the rest is transport noise.
  const wanted = new Set([
    "content-type",
    ...Object.keys((step.expected as { headers?: object }).headers ?? {}).map((h) => h.toLowerCase()),
  ]);
  const headers = opts.allHeaders ? a.headers : Object.fromEntries(Object.entries(a.headers).filter(([k]) => wanted.has(k)));
  const view: Record<string, unknown> = step.sent
    ? { method: step.sent.method, path: step.sent.path, headers }
    : { status: a.status, headers };
  if (a.events) {
    view.events = a.events.map((e) => (e.json !== undefined ? e.json : { rawData: e.data, ...(e.event ? { event: e.event } : {}) }));
    view.closed = a.closed;
  } else if (a.json !== undefined) view.body = a.json;
  else if (a.text) view.text = a.text.length > 2000 ? `${a.text.slice(0, 2000)}...` : a.text;
  if (a.error) view.error = a.error;
  return view;
}

export function requestView(step: StepResult): unknown {
  const r = step.request;
  if (!r) return undefined;
  let body: unknown = r.body;
  if (r.body !== undefined) {
    try {
      body = JSON.parse(r.body);
    } catch {
      body = r.body;
    }
  }
  return { method: r.method, url: r.url, headers: r.headers, ...(r.body !== undefined ? { body } : {}) };
}

/**
 * Skip reasons that end in a case-specific detail, and the stable text the console groups them
 * under (runner.ts's reasons; a new reason with a detail needs a line here). A client driver's own
 * "unsupported" reason is its words, kept whole.
 */
const SKIP_GROUPS: [RegExp, string][] = [
  [/^needs the fixture agent \(.*\); (.*)$/s, "needs the fixture agent; $1"],
  [/^(fixture behaviour not declared by the agent): .*$/s, "$1"],
  [/^(the card does not declare what the case checks): .*$/s, "$1"],
  [/^needs \d+ messages?; (--max-messages budget) left: \d+$/s, "$1 spent"],
  [/^the task did not reach .* (within --task-timeout) \(\d+ ms\)$/s, "the task did not end $1"],
  [/^(no step applied) \(.*\)$/s, "$1"],
];

/** The stable part of a skip reason, under which the console counts it. */
export function skipGroup(reason: string): string {
  const hit = SKIP_GROUPS.find(([re]) => re.test(reason));
  return hit ? reason.replace(hit[0], hit[1]) : reason;
}

export interface SkipGroup {
  /** The stable part of the reason; the whole reason when every case of the group gives the same. */
  reason: string;
  cases: string[];
}

/** Skipped (or inconclusive) cases grouped by the stable part of their reason, largest group first. */
export function skipGroups(results: readonly CaseResult[], status: "skip" | "inconclusive" = "skip"): SkipGroup[] {
  const groups = new Map<string, { cases: string[]; reasons: Set<string> }>();
  for (const r of results) {
    if (r.status !== status) continue;
    const reason = r.reason ?? "no reason given";
    const key = skipGroup(reason);
    const g = groups.get(key) ?? { cases: [], reasons: new Set<string>() };
    g.cases.push(r.id);
    g.reasons.add(reason);
    groups.set(key, g);
  }
  return [...groups]
    .map(([stable, g]) => ({ reason: g.reasons.size === 1 ? ([...g.reasons][0] ?? stable) : stable, cases: g.cases }))
    .sort((a, b) => b.cases.length - a.cases.length);
}

/** "1.0 JSONRPC", "0.3 HTTP+JSON", "1.0 any binding" (the binding-independent cases: the card). */
export function interfaceLabel(version: string, binding: string): string {
  return `${version} ${PROTOCOL_BINDING[binding as keyof typeof PROTOCOL_BINDING] ?? "any binding"}`;
}

/** What the report judged: the agent (`test`) or the client (`test-client`). */
export function subjectOf(report: Pick<Report, "tool">): "agent" | "client" {
  return report.tool === "a2a-toolkit test-client" ? "client" : "agent";
}

/** What the console says of the exercised rules: overall, per version × binding, the rules only skipped. */
export function exercisedLines(report: Pick<Report, "exercised" | "tool">): string[] {
  const { overall, byInterface } = report.exercised;
  const lines = [`rules exercised on this ${subjectOf(report)}: ${overall.exercised} of ${overall.applicable} applicable`];
  for (const t of byInterface)
    lines.push(
      `  ${interfaceLabel(t.version, t.binding)}: ${t.declared ? `${t.exercised} of ${t.applicable}` : "not declared by the agent"}`,
    );
  if (overall.notExercised.length) lines.push(`  not exercised (every case skipped): ${overall.notExercised.join(", ")}`);
  return lines;
}

function sideBySide(left: string[], right: string[], width = 70): string[] {
  const cut = (s: string) => (s.length > width ? `${s.slice(0, width - 1)}…` : s);
  const n = Math.max(left.length, right.length);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`    ${cut(left[i] ?? "").padEnd(width)} │ ${cut(right[i] ?? "")}`);
  return out;
}

export interface ConsoleOptions {
  /** Lines of the expected/actual columns shown per failing step. */
  maxLines?: number;
  verbose?: boolean;
}

/** One line per step that did not run because its `when` did not hold. */
export function notApplicableSteps(r: CaseResult): string[] {
  return r.steps
    .filter((s) => s.status === "not applicable")
    .map((s) => `${s.name}: not applicable (${s.reason ?? "its condition did not hold"})`);
}

export function consoleReport(report: Report, opts: ConsoleOptions = {}): string {
  const max = opts.maxLines ?? 40;
  const lines: string[] = [];
  lines.push(`a2a-toolkit test ${report.target}`);
  for (const i of report.discovery.interfaces)
    lines.push(`  interface ${i.version} ${PROTOCOL_BINDING[i.binding]} ${i.url}  (${i.source})`);
  lines.push(
    `  fixture agent: ${report.discovery.behaviours ? report.discovery.behaviours.join(", ") : "no (fixture-dependent cases are skipped)"}`,
  );
  for (const n of report.discovery.notes) lines.push(`  note: ${n}`);
  lines.push("");
  for (const r of report.results) {
    if ((r.status === "pass" || r.status === "skip" || r.status === "inconclusive") && !opts.verbose) continue;
    const tag = { pass: "PASS", fail: "FAIL", warn: "WARN", skip: "SKIP", inconclusive: "INCONCLUSIVE", "known-failing": "XFAIL" }[
      r.status
    ];
    const level = r.failureLevel && r.failureLevel !== r.level ? `${r.level}, failed step ${r.failureLevel}` : r.level;
    lines.push(`${tag} ${r.id} [${level}; ${r.requirements.join(", ")}]`);
    lines.push(...notApplicableSteps(r).map((l) => `  ${l}`));
    if (r.status === "skip" || r.status === "inconclusive" || r.status === "known-failing") {
      lines.push(`  ${r.reason ?? ""}`);
      continue;
    }
    if (r.status !== "fail" && r.status !== "warn") continue;
    lines.push(`  ${r.title}`);
    const step = r.steps.find((s) => s.status === "fail" && !s.cleanup);
    if (!step) {
      lines.push(`  ${r.reason ?? ""}`);
      continue;
    }
    const req = step.request;
    lines.push(`  ${step.name}: ${req ? `${req.method} ${req.url}` : "(not sent)"}`);
    if (step.error) lines.push(...step.error.split("\n").map((l) => `    ${l}`));
    for (const n of step.notes ?? []) lines.push(`    note: ${n}`);
    for (const d of step.diffs) lines.push(`    ✗ ${formatDiff(d)}`);
    for (const c of failureCitations(r, step)) lines.push(`    spec ${c}`);
    const left = JSON.stringify(step.expected, null, 2).split("\n").slice(0, max);
    const right = (JSON.stringify(actualView(step), null, 2) ?? "").split("\n").slice(0, max);
    lines.push(...sideBySide(["expected", ...left], ["actual", ...right]));
  }
  const skips = skipGroups(report.results);
  if (skips.length && !opts.verbose) {
    lines.push("", "skipped cases by reason (--verbose lists each case):");
    for (const g of skips) lines.push(`  SKIP (${g.cases.length} case${g.cases.length === 1 ? "" : "s"}) ${g.reason}`);
  }
  const untested = skipGroups(report.results, "inconclusive");
  if (untested.length && !opts.verbose) {
    lines.push("", "inconclusive cases by reason: the agent's answers left these rules untested (--verbose lists each case):");
    for (const g of untested) lines.push(`  INCONCLUSIVE (${g.cases.length} case${g.cases.length === 1 ? "" : "s"}) ${g.reason}`);
  }
  for (const s of report.staleKnownFailing)
    lines.push(`FAIL known-failing entry "${s.case}" in ${report.knownFailingFile ?? "the list"} matches no case: remove it`);
  if (report.divergences.length) {
    lines.push("");
    lines.push("twins that disagree:");
    for (const d of report.divergences)
      lines.push(
        `  ${d.scenario} (across ${d.axis === "binding" ? "bindings" : "versions"}): passes ${d.passed.join(", ")}; fails ${d.failed.join(", ")}`,
      );
  }
  const chose = report.results.filter((r) => r.variants?.length);
  if (chose.length) {
    lines.push("");
    lines.push("choices the spec allows, as this agent makes them (1.0.0 vs 1.0.1, prose vs proto):");
    for (const r of chose) lines.push(`  ${r.id}: ${r.variants!.join("; ")}`);
  }
  const notCovered = report.coverage.filter((c) => c.status === "not covered");
  const covered = report.coverage.filter((c) => c.status === "covered");
  const na = report.coverage.filter((c) => c.status === "not applicable");
  lines.push("");
  lines.push(...exercisedLines(report));
  lines.push(
    `coverage: ${covered.length} of ${report.coverage.length} catalogued rules have cases, ${na.length} not applicable, ${notCovered.length} not covered`,
  );
  if (notCovered.length) lines.push(`  not covered: ${notCovered.map((c) => c.id).join(", ")}`);
  if (report.summary.knownFailing) lines.push(`${report.summary.knownFailing} known failing (expected, not counted below)`);
  lines.push(summaryLine(report.summary));
  return lines.join("\n") + "\n";
}

export function jsonReport(report: Report): string {
  return JSON.stringify(report, null, 2) + "\n";
}

export function xmlEscape(s: string): string {
  // XML 1.0 forbids most control characters even when escaped; drop them.
  return s
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, "")
    .replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

function failureText(r: CaseResult): string {
  const step = r.steps.find((s) => s.status === "fail" && !s.cleanup);
  if (!step) return r.reason ?? "";
  const parts = [`${step.name}: ${step.request ? `${step.request.method} ${step.request.url}` : "(not sent)"}`];
  if (step.error) parts.push(step.error);
  parts.push(...(step.notes ?? []).map((n) => `note: ${n}`));
  parts.push(...step.diffs.map(formatDiff));
  parts.push(...failureCitations(r, step).map((c) => `spec ${c}`));
  parts.push("expected:", JSON.stringify(step.expected, null, 2), "actual:", JSON.stringify(actualView(step), null, 2) ?? "");
  return parts.join("\n");
}

export function junitReport(report: Report): string {
  const secs = (ms: number) => (ms / 1000).toFixed(3);
  const groups = new Map<string, CaseResult[]>();
  for (const r of report.results) {
    const suite = r.id.split("/").slice(0, 2).join("/");
    groups.set(suite, [...(groups.get(suite) ?? []), r]);
  }
  const total = report.results.reduce((a, r) => a + r.durationMs, 0);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="a2a-toolkit compliance" tests="${report.summary.total + report.staleKnownFailing.length}" failures="${report.summary.failed}" skipped="${report.summary.skipped + report.summary.inconclusive + report.summary.knownFailing}" time="${secs(total)}">`,
  );
  for (const [suite, results] of groups) {
    const failures = results.filter((r) => r.status === "fail").length;
    // JUnit has no warnings: a SHOULD/MAY failure is a passing test case that says so.
    const skipped = results.filter((r) => r.status === "skip" || r.status === "inconclusive" || r.status === "known-failing").length;
    const time = results.reduce((a, r) => a + r.durationMs, 0);
    out.push(
      `  <testsuite name="${xmlEscape(suite)}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${secs(time)}">`,
    );
    for (const r of results) {
      const segs = r.id.split("/");
      const classname = segs.slice(0, -1).join(".");
      out.push(`    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(segs.at(-1) ?? r.id)}" time="${secs(r.durationMs)}">`);
      out.push("      <properties>");
      out.push(`        <property name="level" value="${r.level}"/>`);
      for (const req of r.requirements) out.push(`        <property name="requirement" value="${xmlEscape(req)}"/>`);
      out.push("      </properties>");
      if (r.status === "fail")
        out.push(
          `      <failure message="${xmlEscape(r.reason ?? "failed")}" type="${r.failureLevel ?? r.level}">${xmlEscape(failureText(r))}</failure>`,
        );
      else if (r.status === "warn")
        out.push(`      <system-err>${xmlEscape(`warning (${r.failureLevel ?? r.level}): ${failureText(r)}`)}</system-err>`);
      else if (r.status === "skip") out.push(`      <skipped message="${xmlEscape(r.reason ?? "skipped")}"/>`);
      else if (r.status === "inconclusive") out.push(`      <skipped message="${xmlEscape(`inconclusive: ${r.reason ?? ""}`)}"/>`);
      else if (r.status === "known-failing") out.push(`      <skipped message="${xmlEscape(r.reason ?? "known failing")}"/>`);
      const na = notApplicableSteps(r);
      if (na.length) out.push(`      <system-out>${xmlEscape(na.join("\n"))}</system-out>`);
      out.push("    </testcase>");
    }
    out.push("  </testsuite>");
  }
  if (report.staleKnownFailing.length) {
    out.push(
      `  <testsuite name="known-failing" tests="${report.staleKnownFailing.length}" failures="${report.staleKnownFailing.length}" errors="0" skipped="0" time="0">`,
    );
    for (const s of report.staleKnownFailing)
      out.push(
        `    <testcase classname="known-failing" name="${xmlEscape(s.case)}" time="0"><failure message="${xmlEscape(`entry matches no case: remove it from ${report.knownFailingFile ?? "the list"}`)}" type="stale"/></testcase>`,
      );
    out.push("  </testsuite>");
  }
  // Rules no case checks: listed so a CI dashboard shows the gap, as skipped tests.
  const notCovered = report.coverage.filter((c) => c.status === "not covered");
  out.push(`  <testsuite name="coverage" tests="${notCovered.length}" failures="0" errors="0" skipped="${notCovered.length}" time="0">`);
  for (const c of notCovered)
    out.push(
      `    <testcase classname="coverage" name="${xmlEscape(c.id)}" time="0"><skipped message="${xmlEscape(`not covered: ${c.level} ${c.text}`)}"/></testcase>`,
    );
  out.push("  </testsuite>");
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}
