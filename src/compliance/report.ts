// The run report (one object every reporter renders) and the console, JSON and JUnit XML
// reporters. The HTML reporter lives in html-report.ts.
import type { ActsRunReport } from "./acts/suite.js";
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
  /** Cases whose only failure is a MAY: an optional feature the agent does not offer (never a warning or failure). */
  notOffered: number;
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
  /** `test --acts`: the ACTS run behind the `acts/…` results (its §13 files, deviations, adjudications). */
  acts?: ActsRunReport;
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
    notOffered: count("not-offered"),
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
  const untested = (s.inconclusive ? `, ${s.inconclusive} inconclusive` : "") + (s.notOffered ? `, ${s.notOffered} not offered` : "");
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
  if ("checked" in step) return { checked: step.checked };
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
  /** Lines of the expected/actual columns shown per failing step (--verbose). */
  maxLines?: number;
  /** The full report: every case, each failure with its request, diffs and expected/actual side by side, every list. */
  verbose?: boolean;
  /** ANSI colours (the CLI sets it on a TTY unless NO_COLOR is set). */
  color?: boolean;
  /** Lines that say what was tested, in place of the agent's interfaces and card notes (test-client's fixture server). */
  about?: string[];
}

/** One line per step that did not run because its `when` did not hold. */
export function notApplicableSteps(r: CaseResult): string[] {
  return r.steps
    .filter((s) => s.status === "not applicable")
    .map((s) => `${s.name}: not applicable (${s.reason ?? "its condition did not hold"})`);
}

type Tone = "red" | "yellow" | "green" | "dim" | "bold";
const ANSI: Record<Tone, [number, number]> = { red: [31, 39], yellow: [33, 39], green: [32, 39], dim: [2, 22], bold: [1, 22] };
function painter(on: boolean | undefined): (tone: Tone, s: string) => string {
  return (tone, s) => (on && s ? `\x1b[${ANSI[tone][0]}m${s}\x1b[${ANSI[tone][1]}m` : s);
}

/**
 * The result kinds the console counts, in the order it lists them, with their column title and
 * tone. A kind not listed here (a later result kind) is counted after these under its own name.
 */
const KINDS: { status: string; label: string; tone?: Tone }[] = [
  { status: "fail", label: "failed", tone: "red" },
  { status: "warn", label: "warnings", tone: "yellow" },
  { status: "known-failing", label: "known failing", tone: "yellow" },
  { status: "pass", label: "passed", tone: "green" },
  { status: "inconclusive", label: "inconclusive", tone: "dim" },
  { status: "not-offered", label: "not offered", tone: "dim" },
  { status: "skip", label: "skipped", tone: "dim" },
];
/** Shorter words for a matrix cell. */
const CELL_WORD: Record<string, string> = { fail: "failed", warn: "warn", "known-failing": "known" };
const kindOf = (status: string) => KINDS.find((k) => k.status === status) ?? { status, label: status };

/** The kinds present in `results`, in KINDS order, later kinds after. */
export function kindsIn(results: readonly CaseResult[]): { status: string; label: string; tone?: Tone }[] {
  const seen = new Set<string>(results.map((r) => r.status));
  return [...KINDS.filter((k) => seen.has(k.status)), ...[...seen].filter((s) => !KINDS.some((k) => k.status === s)).map(kindOf)];
}

function countBy<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of items) m.set(key(t), (m.get(key(t)) ?? 0) + 1);
  return m;
}

/** The level a result counts under: a failure's own level (a failing SHOULD step of a MUST case is SHOULD), else the case's. */
const levelOf = (r: CaseResult) => ((r.status === "fail" || r.status === "warn") && r.failureLevel) || r.level;

/** The verdict: FAILED when a case failed (a MUST failure, or any with --strict) or a known-failing entry is stale. */
export function verdictOf(s: Summary): "PASSED" | "FAILED" {
  return s.failed > 0 ? "FAILED" : "PASSED";
}

/** Results per level, counted by kind (levels without results left out): the counts by level of the console and HTML. */
export function levelCounts(results: readonly CaseResult[]): { level: string; counts: Map<string, number> }[] {
  return (["MUST", "SHOULD", "MAY"] as const)
    .map((level) => ({
      level,
      counts: countBy(
        results.filter((r) => levelOf(r) === level),
        (r) => r.status,
      ),
    }))
    .filter((r) => r.counts.size);
}

/** Counts by level: one line per level, one column per result kind (kinds no result has are left out). */
function levelLines(results: readonly CaseResult[], paint: ReturnType<typeof painter>): string[] {
  const kinds = kindsIn(results);
  const rows = levelCounts(results);
  const width = (k: { status: string; label: string }) =>
    Math.max(...rows.map((r) => String(r.counts.get(k.status) ?? 0).length + 1 + k.label.length));
  return rows.map(
    ({ level, counts }) =>
      `  ${level.padEnd(7)}` +
      kinds
        .map((k) => {
          const n = counts.get(k.status) ?? 0;
          const cell = `${n} ${k.label}`.padEnd(width(k));
          return n && k.tone ? paint(k.tone, cell) : n ? cell : paint("dim", cell);
        })
        .join("  ")
        .trimEnd(),
  );
}

/** A cell of the version × binding matrix. */
export interface MatrixCell {
  /** "1/3 ok, 1 failed, 1 warn"; "all skipped"; "not declared"; "" when no case is of this version and binding. */
  text: string;
  /** The worst outcome: "fail", "warn" (a warning or another kind), "pass", "skip" (none ran). */
  tone: "fail" | "warn" | "pass" | "skip" | "none";
  /** The cell's failed cases, then its warnings. */
  failing: string[];
}

/**
 * The version × binding matrix: a row per version (1.0 first), a column per binding ("any", the
 * card, last); a cell gives the cases that ran and how many passed, then the other kinds. Skips
 * are left to the skip line.
 */
export function versionBindingMatrix(report: Pick<Report, "results" | "discovery">): {
  versions: string[];
  bindings: { binding: string; label: string }[];
  cells: MatrixCell[][];
} {
  const results = report.results;
  const versions = [...new Set(results.map((r) => r.version))].sort((a, b) => b.localeCompare(a));
  const order = ["json-rpc", "rest", "grpc", "any"];
  const bindings = [...new Set(results.map((r) => r.binding))].sort(
    (a, b) => (order.indexOf(a) + 1 || 9) - (order.indexOf(b) + 1 || 9) || a.localeCompare(b),
  );
  const cell = (v: string, b: string): MatrixCell => {
    const rs = results.filter((r) => r.version === v && r.binding === b);
    if (!rs.length) return { text: "", tone: "none", failing: [] };
    const ran = rs.filter((r) => r.status !== "skip");
    if (!ran.length) {
      const declared = b === "any" || report.discovery.interfaces.some((i) => i.version === v && i.binding === b);
      return { text: declared ? "all skipped" : "not declared", tone: "skip", failing: [] };
    }
    const c = countBy(ran, (r) => r.status);
    const extra = kindsIn(ran)
      .filter((k) => k.status !== "pass")
      .map((k) => `${c.get(k.status)} ${CELL_WORD[k.status] ?? k.label}`);
    const failing = [...ran.filter((r) => r.status === "fail"), ...ran.filter((r) => r.status === "warn")].map((r) => r.id);
    return {
      text: [`${c.get("pass") ?? 0}/${ran.length} ok`, ...extra].join(", "),
      // Inconclusive cases do not fail a run: they leave a cell green.
      tone: c.get("fail") ? "fail" : ran.some((r) => !["pass", "inconclusive", "not-offered"].includes(r.status)) ? "warn" : "pass",
      failing,
    };
  };
  return {
    versions,
    bindings: bindings.map((b) => ({
      binding: b,
      label: PROTOCOL_BINDING[b as keyof typeof PROTOCOL_BINDING] ?? (b === "any" ? "card" : b),
    })),
    cells: versions.map((v) => bindings.map((b) => cell(v, b))),
  };
}

const TONE: Record<MatrixCell["tone"], Tone | undefined> = { fail: "red", warn: "yellow", pass: "green", skip: "dim", none: undefined };

function matrixLines(report: Pick<Report, "results" | "discovery">, paint: ReturnType<typeof painter>): string[] {
  if (!report.results.length) return [];
  const { versions, bindings, cells } = versionBindingMatrix(report);
  const widths = bindings.map((b, j) => Math.max(b.label.length, ...cells.map((row) => row[j]!.text.length)));
  const head = `  ${"".padEnd(5)}${bindings.map((b, j) => b.label.padEnd(widths[j]!)).join("   ")}`;
  const rows = versions.map(
    (v, i) =>
      `  ${v.padEnd(5)}${cells[i]!.map((c, j) => {
        const t = c.text.padEnd(widths[j]!);
        const tone = TONE[c.tone];
        return tone ? paint(tone, t) : t;
      }).join("   ")}`,
  );
  return [head.trimEnd(), ...rows.map((r) => r.trimEnd())];
}

/** Cuts a line to `n` characters. */
export function clip(s: string, n = 160): string {
  const one = s.replace(/\s*\n\s*/g, " ");
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** A spec quote for a terminal: Markdown emphasis dropped. */
function plainQuote(c: string): string {
  return c.replace(/\*\*(.+?)\*\*/g, "$1").replace(/`([^`]+)`/g, "$1");
}

/** A failure or warning in short: its failing step, the first difference, the sentence of its level. */
export interface FailureGist {
  step?: string;
  /** The first difference (else the error, else the reason), and how many more there are. */
  what: string;
  more: number;
  /** The sentence shown: the first that says the failure's own level (a SHOULD for a warning), else the first (Markdown). */
  quote?: string;
  /** Every sentence the failure rests on. */
  quotes: string[];
}

export function failureGist(r: CaseResult): FailureGist {
  const step = r.steps.find((s) => s.status === "fail" && !s.cleanup);
  if (!step) return { what: r.reason ?? "", more: 0, quotes: failureCitations(r) };
  const what = step.diffs.length ? formatDiff(step.diffs[0]!) : (step.error ?? r.reason ?? "failed");
  const quotes = failureCitations(r, step);
  const quote = quotes.find((c) => new RegExp(`\\b${levelOf(r)}\\b`).test(plainQuote(c))) ?? quotes[0];
  return { step: step.name, what, more: Math.max(0, step.diffs.length - 1), ...(quote ? { quote } : {}), quotes };
}

/** "MUST", or "SHOULD step of a MUST case". */
export function failureLevelLabel(r: CaseResult): string {
  return r.failureLevel && r.failureLevel !== r.level ? `${r.failureLevel} step of a ${r.level} case` : r.level;
}

/** A failure or warning in at most four lines: the case, its title, what was expected and what came, the rule. */
function compactCase(r: CaseResult, paint: ReturnType<typeof painter>): string[] {
  const tag = r.status === "fail" ? paint("red", "FAIL") : r.status === "warn" ? paint("yellow", "WARN") : r.status.toUpperCase();
  const out = [`${tag} ${paint("bold", r.id)} [${failureLevelLabel(r)}]`, `  ${clip(r.title)}`];
  const g = failureGist(r);
  // No failing step (a client driver's crash, a stream that never ended): the reason, as it is.
  if (g.step === undefined) return [...out, ...g.what.split("\n").map((l) => `  ${l}`)];
  out.push(`  ${g.step}: ${clip(g.what, 150)}${g.more ? ` (+${g.more} more)` : ""}`);
  if (g.quote) out.push(paint("dim", `  ${clip(plainQuote(g.quote), 200)}${g.quotes.length > 1 ? ` (+${g.quotes.length - 1})` : ""}`));
  return out;
}

/** The default console report: the verdict at a glance, each failure compactly, the rest summarised. */
function glanceReport(report: Report, opts: ConsoleOptions): string[] {
  const paint = painter(opts.color);
  const s = report.summary;
  const verdict = verdictOf(s);
  const why = s.failed
    ? `${s.failed} ${report.filters.strict ? "failure" : "MUST failure"}${s.failed === 1 ? "" : "s"}`
    : `no MUST failure`;
  const lines = [
    `${paint(verdict === "PASSED" ? "green" : "red", paint("bold", verdict))}  ${why}, ${s.warnings} warning${s.warnings === 1 ? "" : "s"}: ${subjectOf(report)} ${report.target}`,
    ...levelLines(report.results, paint),
    ...matrixLines(report, paint),
  ];
  const failures = report.results.filter((r) => r.status === "fail");
  const warnings = report.results.filter((r) => r.status === "warn");
  if (failures.length || report.staleKnownFailing.length) lines.push("");
  for (const r of failures) lines.push(...compactCase(r, paint));
  for (const st of report.staleKnownFailing)
    lines.push(
      `${paint("red", "FAIL")} known-failing entry "${st.case}" in ${report.knownFailingFile ?? "the list"} matches no case: remove it`,
    );
  if (warnings.length) lines.push("");
  for (const r of warnings) lines.push(...compactCase(r, paint));
  lines.push("");
  const known = report.results.filter((r) => r.status === "known-failing");
  if (known.length)
    lines.push(
      `known failing: ${known.length} case${known.length === 1 ? "" : "s"} listed in ${report.knownFailingFile ?? "the list"} (expected, not counted below)`,
    );
  const skips = skipGroups(report.results);
  if (skips.length) {
    const top = skips[0]!;
    lines.push(
      `skipped: ${s.skipped} case${s.skipped === 1 ? "" : "s"}, ${skips.length} reason${skips.length === 1 ? "" : "s"}; most: ${clip(top.reason, 90)} (${top.cases.length})`,
    );
  }
  const untested = skipGroups(report.results, "inconclusive");
  if (untested.length) {
    const top = untested[0]!;
    const n = untested.reduce((a, g) => a + g.cases.length, 0);
    lines.push(
      `inconclusive (the agent's answers left the rule untested; not a failure): ${n} case${n === 1 ? "" : "s"}; most: ${clip(top.reason, 80)} (${top.cases.length})`,
    );
  }
  if (s.notOffered)
    lines.push(`not offered (MAY features the agent does not offer; not a defect): ${s.notOffered} case${s.notOffered === 1 ? "" : "s"}`);
  if (report.divergences.length)
    lines.push(
      `twins that disagree: ${report.divergences.map((d) => `${d.scenario} (across ${d.axis === "binding" ? "bindings" : "versions"})`).join("; ")}`,
    );
  const chose = report.results.filter((r) => r.variants?.length).length;
  if (chose) lines.push(`choices the spec allows: ${chose} case${chose === 1 ? "" : "s"} took one of several allowed answers`);
  const { overall } = report.exercised;
  const notCovered = report.coverage.filter((c) => c.status === "not covered").length;
  lines.push(
    `rules exercised on this ${subjectOf(report)}: ${overall.exercised} of ${overall.applicable} applicable; ${notCovered} catalogued rule${notCovered === 1 ? "" : "s"} without a case`,
  );
  lines.push(...(opts.about ?? aboutLines(report)));
  lines.push(paint("dim", "--verbose: every case, the skips and choices by case, each failure's request and expected/actual"));
  return lines;
}

/** What was tested: the interfaces used, the fixture behaviours and the card notes. */
function aboutLines(report: Report): string[] {
  return [
    ...report.discovery.interfaces.map((i) => `interface ${i.version} ${PROTOCOL_BINDING[i.binding]} ${i.url}  (${i.source})`),
    `fixture agent: ${report.discovery.behaviours ? report.discovery.behaviours.join(", ") : "no (fixture-dependent cases are skipped)"}`,
    ...report.discovery.notes.map((n) => `note: ${n}`),
  ];
}

/**
 * The console report. By default the verdict (PASSED/FAILED), the counts by level and the version ×
 * binding matrix come first, then each failure and warning in a few lines, then one line each for
 * the skips, the allowed choices and the rules exercised. `verbose` adds the full report below:
 * every case, each failure with its request and expected/actual side by side, every list. The last
 * line is always `N passed, N failed, N warnings, N skipped`.
 */
export function consoleReport(report: Report, opts: ConsoleOptions = {}): string {
  const lines = glanceReport(report, opts);
  if (opts.verbose) lines.push("", ...verboseLines(report, opts));
  lines.push(summaryLine(report.summary));
  return lines.join("\n") + "\n";
}

function verboseLines(report: Report, opts: ConsoleOptions): string[] {
  const max = opts.maxLines ?? 40;
  const lines: string[] = [];
  lines.push(`a2a-toolkit ${report.tool === "a2a-toolkit test-client" ? "test-client --" : "test"} ${report.target}`);
  lines.push("");
  for (const r of report.results) {
    const tag =
      {
        pass: "PASS",
        fail: "FAIL",
        warn: "WARN",
        skip: "SKIP",
        inconclusive: "INCONCLUSIVE",
        "not-offered": "NOT OFFERED",
        "known-failing": "XFAIL",
      }[r.status] ?? String(r.status).toUpperCase();
    const level = r.failureLevel && r.failureLevel !== r.level ? `${r.level}, failed step ${r.failureLevel}` : r.level;
    lines.push(`${tag} ${r.id} [${level}; ${r.requirements.join(", ")}]`);
    lines.push(...notApplicableSteps(r).map((l) => `  ${l}`));
    if (r.status === "skip" || r.status === "inconclusive" || r.status === "not-offered" || r.status === "known-failing") {
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
  return lines;
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
    const notOffered = results.filter((r) => r.status === "not-offered").length;
    if (notOffered) out.push(`    <properties><property name="notOffered" value="${notOffered}"/></properties>`);
    for (const r of results) {
      const segs = r.id.split("/");
      const classname = segs.slice(0, -1).join(".");
      out.push(`    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(segs.at(-1) ?? r.id)}" time="${secs(r.durationMs)}">`);
      out.push("      <properties>");
      out.push(`        <property name="level" value="${r.level}"/>`);
      if (r.status === "not-offered") out.push('        <property name="verdict" value="not offered"/>');
      for (const req of r.requirements) out.push(`        <property name="requirement" value="${xmlEscape(req)}"/>`);
      out.push("      </properties>");
      if (r.status === "fail")
        out.push(
          `      <failure message="${xmlEscape(r.reason ?? "failed")}" type="${r.failureLevel ?? r.level}">${xmlEscape(failureText(r))}</failure>`,
        );
      else if (r.status === "warn")
        out.push(`      <system-err>${xmlEscape(`warning (${r.failureLevel ?? r.level}): ${failureText(r)}`)}</system-err>`);
      // Not offered: a passing test case (an optional feature left out is no defect) that says so.
      else if (r.status === "not-offered") out.push(`      <system-out>${xmlEscape(`not offered (MAY): ${r.reason ?? ""}`)}</system-out>`);
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
