// A self-contained HTML report: one file, inline CSS, no scripts or remote resources, everything
// escaped, links only within the page. A verdict banner and a navigation bar; then, in the first
// screen, the counts by level, the version × binding matrix and a line per failure and warning,
// each linking to its block. The blocks are collapsed (<details>): the sentences a failure rests on
// (rendered once, Markdown emphasis and code as HTML) and each step's expected and actual wire side
// by side with the differences (JSON Pointer paths). Then a version × binding × area matrix, the
// rules exercised, the other cases, skips by reason, and the coverage of every catalogued rule.
// Long lines wrap (no sideways scroll), and print styles drop the navigation and open the blocks.
import {
  actualView,
  clip,
  failureCitations,
  failureGist,
  failureLevelLabel,
  formatDiff,
  interfaceLabel,
  kindsIn,
  levelCounts,
  requestView,
  skipGroups,
  subjectOf,
  summaryLine,
  verdictOf,
  versionBindingMatrix,
  type Report,
} from "./report.js";
import { PROTOCOL_BINDING } from "./discovery.js";
import { byVersionBinding } from "./requirements.js";
import type { CaseResult } from "./runner.js";

function esc(s: unknown): string {
  return String(s).replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function pre(v: unknown): string {
  return `<pre>${esc(v === undefined ? "(none)" : JSON.stringify(v, null, 2))}</pre>`;
}

/**
 * A spec sentence as HTML: escaped, then its Markdown emphasis and code spans rendered and its
 * links reduced to their text (the report links nowhere outside itself).
 */
export function quoteHtml(quote: string): string {
  return esc(quote)
    .replace(/\[([^\]]+)\]\([^)\s]+\)/g, "$1")
    .replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>")
    .replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** The id of a case's block. */
export function caseAnchor(id: string): string {
  return `case-${id}`;
}

const CSS = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1a1a1a;overflow-wrap:anywhere}
main{padding:0 1.5rem 2rem;max-width:100%}
h1{font-size:1.3rem;margin:.6rem 0}h2{font-size:1.1rem;margin-top:1.6rem}
.banner{padding:.7rem 1.5rem;color:#fff;font-size:1.05rem}.banner strong{font-size:1.5rem;margin-right:.8rem;letter-spacing:.04em}
.banner.failed{background:#b3261e}.banner.passed{background:#17692f}.banner code{color:#fff}
nav{position:sticky;top:0;background:#f4f4f4;border-bottom:1px solid #ddd;padding:.35rem 1.5rem;z-index:1}
nav a{margin-right:1rem;color:#1a4fa0;text-decoration:none;white-space:nowrap}nav a:hover{text-decoration:underline}
a{color:#1a4fa0}
.glance{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start;margin-top:.8rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
.glance table,table.matrix{width:auto}
.pass{color:#17692f}.fail{color:#b3261e;font-weight:600}.warn{color:#8a5a00;font-weight:600}.skip{color:#6b6b6b}.known-failing{color:#8a5a00}
.not-covered{color:#b3261e}.covered{color:#17692f}.not-applicable{color:#6b6b6b}
ul.gist{list-style:none;padding:0;margin:.4rem 0}ul.gist li{margin:.15rem 0}
details{border:1px solid #ddd;border-radius:4px;margin:.4rem 0;padding:.3rem .6rem}summary{cursor:pointer}
details:target{outline:2px solid #1a4fa0}[id]{scroll-margin-top:2.6rem}
.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.6rem}
pre{background:#f6f6f6;padding:.5rem;white-space:pre-wrap;word-break:break-all;max-height:32rem;overflow-y:auto;font-size:12px;margin:.2rem 0}
.diff{font-family:ui-monospace,monospace;color:#b3261e;margin:.2rem 0;white-space:pre-wrap}
.muted{color:#6b6b6b}
.spec{border-left:3px solid #b3261e;margin:.3rem 0;padding:.1rem .6rem}
.matrix td,.matrix th{text-align:center;min-width:6rem}.matrix th:first-child,.matrix td:first-child{text-align:left}
.cell-fail{background:#f9d6d3}.cell-warn{background:#fbe7b5}.cell-pass{background:#d3f0da}.cell-partial{background:#eef7f0}.cell-skip{background:#ececec;color:#6b6b6b}
.rules{font-size:1.05rem}
@media print{
  nav{display:none}body{font-size:11px}.banner{-webkit-print-color-adjust:exact;print-color-adjust:exact}
  details::details-content{content-visibility:visible;display:block}
  details,tr,pre{break-inside:avoid}pre{max-height:none;overflow:visible}
}`;

function stepHtml(r: CaseResult): string {
  return r.steps
    .map((s) => {
      const diffs = s.diffs.length ? `<div class="diff">${s.diffs.map((d) => `✗ ${esc(formatDiff(d))}`).join("<br>")}</div>` : "";
      const err = s.error ? `<div class="diff">${esc(s.error)}</div>` : s.reason ? `<div class="muted">${esc(s.reason)}</div>` : "";
      return `<h4>${esc(s.name)} <span class="${s.status === "pass" || s.status === "fail" ? s.status : "skip"}">${esc(s.status)}</span></h4>${err}${diffs}
<div class="muted">request</div>${pre(requestView(s))}
<div class="cols"><div><div class="muted">expected</div>${pre(s.expected)}</div><div><div class="muted">actual</div>${pre(actualView(s, { allHeaders: true }))}</div></div>`;
    })
    .join("\n");
}

/** The operation folder of a case ID: v1_0/json-rpc/get-task/x → get-task; v1_0/card/x → card. */
export function areaOf(id: string): string {
  const [, b, op, ...rest] = id.split("/");
  return (b === "json-rpc" || b === "rest" || b === "grpc") && op !== undefined && rest.length ? op : (b ?? id);
}

function caseHtml(r: CaseResult): string {
  // The sentences the failure rests on, once each, above the steps (the failing steps' own, else the case's).
  // Once each as they read: two steps may quote one sentence with and without its Markdown (**MAY**).
  const quoted = [
    ...new Map(
      r.steps
        .filter((st) => st.status === "fail")
        .flatMap((st) => failureCitations(r, st))
        .map((c) => [quoteHtml(c).replace(/<[^>]+>/g, ""), c] as const),
    ).values(),
  ];
  const cites = quoted.length
    ? `<div class="muted">the rule:</div>${quoted.map((c) => `<blockquote class="spec">${quoteHtml(c)}</blockquote>`).join("")}`
    : "";
  const failing = r.status === "fail" || r.status === "warn";
  return `<details id="${esc(caseAnchor(r.id))}"><summary><span class="${esc(r.status)}">${esc(r.status.toUpperCase())}</span> ${esc(r.id)}
<span class="muted">[${esc(failing ? failureLevelLabel(r) : r.level)}; ${esc(r.requirements.join(", "))}]</span></summary>
<p>${esc(r.title)}</p>${r.reason ? `<p class="muted">${esc(r.reason)}</p>` : ""}${cites}${r.variants?.length ? `<p class="muted">follows: ${r.variants.map(esc).join("; ")}</p>` : ""}${r.interface ? `<p class="muted">interface ${esc(r.interface.url)} (${esc(r.interface.source)})</p>` : ""}
${stepHtml(r)}</details>`;
}

/** Cases per status; statuses listed worst first. */
type Counts = Partial<Record<string, number>>;
const COUNTED = ["fail", "warn", "known-failing", "pass", "not-offered", "inconclusive", "skip"];

function cellHtml(c: Counts | undefined): string {
  if (!c) return '<td class="muted">–</td>';
  // Red: a failure; amber: a warning or known failure; green: everything ran and passed; pale: some skipped; grey: none ran.
  const tone = c.fail ? "fail" : c.warn || c["known-failing"] ? "warn" : c.pass ? (c.skip || c.inconclusive ? "partial" : "pass") : "skip";
  const statuses = [...COUNTED.filter((k) => c[k]), ...Object.keys(c).filter((k) => !COUNTED.includes(k))];
  return `<td class="cell-${tone}">${statuses.map((k) => `${c[k]} ${esc(k.replace("-", " "))}`).join("<br>")}</td>`;
}

/** Rows: areas; columns: version × binding; cells: the counts, coloured by the worst outcome. */
function matrixHtml(report: Report): string {
  const cols = new Map<string, string>();
  const cells = new Map<string, Counts>();
  for (const r of report.results) {
    const col = `${r.version}|${r.binding}`;
    cols.set(col, interfaceLabel(r.version, r.binding));
    for (const key of [`${areaOf(r.id)}\n${col}`, `\n${col}`]) {
      const c = cells.get(key) ?? {};
      c[r.status] = (c[r.status] ?? 0) + 1;
      cells.set(key, c);
    }
  }
  const colKeys = [...cols.keys()].sort(byVersionBinding);
  const areas = [...new Set(report.results.map((r) => areaOf(r.id)))].sort();
  const row = (area: string, label: string) =>
    `<tr><th>${label}</th>${colKeys.map((k) => cellHtml(cells.get(`${area}\n${k}`))).join("")}</tr>`;
  return `<table class="matrix"><tr><th>Area</th>${colKeys.map((k) => `<th>${esc(cols.get(k))}</th>`).join("")}</tr>
${areas.map((a) => row(a, esc(a))).join("\n")}
${row("", "all areas")}</table>
<p class="muted">Cells: <span class="cell-fail">a failure</span> <span class="cell-warn">a warning or known failure</span> <span class="cell-pass">all ran and passed</span> <span class="cell-partial">passed, some skipped</span> <span class="cell-skip">all skipped</span>; the area is the operation folder of the case ID.</p>`;
}

function exercisedHtml(report: Report): string {
  const { overall, byInterface } = report.exercised;
  const rows = byInterface
    .map(
      (t) =>
        `<tr><td>${esc(interfaceLabel(t.version, t.binding))}</td><td>${t.declared ? `${t.exercised} of ${t.applicable}` : "not declared by the agent"}</td><td>${t.notExercised.map(esc).join(", ")}</td></tr>`,
    )
    .join("");
  return `<p class="rules">Rules exercised on this ${subjectOf(report)}: <strong>${overall.exercised} of ${overall.applicable} applicable</strong> catalogued rules.</p>
<table><tr><th>Version and binding</th><th>Exercised</th><th>Applicable, every case skipped</th></tr>${rows}</table>`;
}

/** One line per failure or warning, linking to its block: what was expected and what came. */
function gistHtml(r: CaseResult): string {
  const g = failureGist(r);
  const what = g.step !== undefined ? `${g.step}: ${clip(g.what, 200)}${g.more ? ` (+${g.more} more)` : ""}` : clip(g.what, 200);
  return `<li><a href="#${esc(caseAnchor(r.id))}"><span class="${esc(r.status)}">${esc(r.status.toUpperCase())}</span> ${esc(r.id)}</a> <span class="muted">[${esc(failureLevelLabel(r))}]</span> ${esc(what)}</li>`;
}

/** The first screen: counts by level, the version × binding matrix, a line per failure and warning. */
function glanceHtml(report: Report, failing: CaseResult[]): string {
  const kinds = kindsIn(report.results);
  const levels = levelCounts(report.results);
  const levelTable = `<table class="levels"><tr><th>Level</th>${kinds.map((k) => `<th>${esc(k.label)}</th>`).join("")}</tr>${levels
    .map(
      (l) =>
        `<tr><th>${esc(l.level)}</th>${kinds.map((k) => `<td class="${l.counts.get(k.status) ? esc(k.status) : "muted"}">${l.counts.get(k.status) ?? 0}</td>`).join("")}</tr>`,
    )
    .join("")}</table>`;
  const m = versionBindingMatrix(report);
  const vb = `<table class="matrix vb"><tr><th>Version</th>${m.bindings.map((b) => `<th>${esc(b.label)}</th>`).join("")}</tr>${m.versions
    .map(
      (v, i) =>
        `<tr><th>${esc(v)}</th>${m.cells[i]!.map((c) => {
          const first = c.failing[0];
          const text = first ? `<a href="#${esc(caseAnchor(first))}">${esc(c.text)}</a>` : esc(c.text || "–");
          return `<td class="cell-${c.tone === "none" ? "skip" : c.tone}">${text}</td>`;
        }).join("")}</tr>`,
    )
    .join("")}</table>`;
  const stale = report.staleKnownFailing
    .map(
      (e) =>
        `<li class="fail">known-failing entry ${esc(e.case)} matches no case: remove it from ${esc(report.knownFailingFile ?? "the list")}</li>`,
    )
    .join("");
  return `<section id="glance"><div class="glance">${levelTable}${vb}</div>
<p><strong>${esc(summaryLine(report.summary))}</strong>${report.summary.knownFailing ? `, ${report.summary.knownFailing} known failing` : ""}</p>
${failing.length || stale ? `<ul class="gist">${stale}${failing.map(gistHtml).join("")}</ul>` : '<p class="muted">No failures and no warnings.</p>'}</section>`;
}

export function htmlReport(report: Report): string {
  const s = report.summary;
  const verdict = verdictOf(s);
  const failures = report.results.filter((r) => r.status === "fail");
  const warnings = report.results.filter((r) => r.status === "warn");
  const others = report.results.filter((r) => r.status !== "fail" && r.status !== "warn");
  const grouped = (status: "skip" | "inconclusive") =>
    skipGroups(report.results, status)
      .map((g) => `<tr><td>${g.cases.length}</td><td>${esc(g.reason)}</td></tr>`)
      .join("");
  const skips = grouped("skip");
  const untested = grouped("inconclusive");
  const notOffered = report.results.filter((r) => r.status === "not-offered");
  const exercisedRule = new Set(report.exercised.overall.exercisedRules);
  const onAgent = new Set(report.exercised.overall.notExercised);
  const coverage = report.coverage
    .map(
      (c) =>
        `<tr><td>${esc(c.id)}</td><td>${esc(c.level)}</td><td>${esc(c.role)}</td><td>${esc(c.text)}</td><td class="${c.status.replace(/ /g, "-")}">${esc(c.status)}${c.notApplicable ? `<br><span class="muted">${esc(c.notApplicable)}</span>` : ""}</td><td>${exercisedRule.has(c.id) ? '<span class="pass">exercised</span>' : onAgent.has(c.id) ? '<span class="skip">only skipped</span>' : ""}</td><td>${c.cases.map(esc).join("<br>")}</td></tr>`,
    )
    .join("\n");
  const ifaces = report.discovery.interfaces
    .map((i) => `<tr><td>${esc(i.version)}</td><td>${PROTOCOL_BINDING[i.binding]}</td><td>${esc(i.url)}</td><td>${esc(i.source)}</td></tr>`)
    .join("");
  const why = s.failed
    ? `${s.failed} ${report.filters.strict ? "failure" : "MUST failure"}${s.failed === 1 ? "" : "s"}`
    : "no MUST failure";
  const nav = [
    ["glance", "At a glance"],
    ["failures", `Failures (${failures.length + report.staleKnownFailing.length})`],
    ["warnings", `Warnings (${warnings.length})`],
    ["matrix", "By area"],
    ["interfaces", "Interfaces"],
    ...(notOffered.length ? [["not-offered", "Not offered"]] : []),
    ...(untested ? [["inconclusive", "Inconclusive"]] : []),
    ...(skips ? [["skipped", "Skipped"]] : []),
    ["other", "Other cases"],
    ...(report.divergences.length ? [["twins", "Twins that disagree"]] : []),
    ["coverage", "Coverage"],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A2A compliance: ${esc(verdict)} ${esc(report.target)}</title><style>${CSS}</style></head>
<body>
<header class="banner ${verdict.toLowerCase()}" id="verdict"><strong>${verdict}</strong>${esc(why)}, ${s.warnings} warning${s.warnings === 1 ? "" : "s"}: ${esc(subjectOf(report))} <code>${esc(report.target)}</code></header>
<nav>${nav.map(([id, label]) => `<a href="#${id}">${esc(label)}</a>`).join("")}</nav>
<main>
<h1>A2A compliance report</h1>
<p class="muted">${esc(report.tool)} ${esc(report.target)}, ${esc(report.startedAt)} to ${esc(report.finishedAt)}.</p>
${glanceHtml(report, [...failures, ...warnings])}
<h2 id="failures">Failures (${failures.length + report.staleKnownFailing.length})</h2>
${failures.length ? failures.map(caseHtml).join("\n") : '<p class="muted">none</p>'}
<h2 id="warnings">Warnings (${warnings.length})</h2>
${warnings.length ? warnings.map(caseHtml).join("\n") : '<p class="muted">none</p>'}
<h2 id="matrix">Cases by version, binding and area</h2>
${matrixHtml(report)}
${exercisedHtml(report)}
<h2 id="interfaces">Interfaces</h2>
<table><tr><th>Version</th><th>Binding</th><th>URL</th><th>Declared by</th></tr>${ifaces}</table>
<p class="muted">Fixture agent: ${esc(report.discovery.behaviours ? report.discovery.behaviours.join(", ") : "no")}</p>
${report.discovery.notes.map((n) => `<p class="muted">note: ${esc(n)}</p>`).join("")}
${notOffered.length ? `<h2 id="not-offered">Not offered (${notOffered.length})</h2><p class="muted">MAY features the agent does not offer: not a defect, never a warning.</p><table><tr><th>Case</th><th>What was not offered</th></tr>${notOffered.map((r) => `<tr><td>${esc(r.id)}</td><td>${esc(r.reason ?? "")}</td></tr>`).join("")}</table>` : ""}
${untested ? `<h2 id="inconclusive">Inconclusive, by reason</h2><p class="muted">The agent's answers left these rules untested; they do not fail the run.</p><table><tr><th>Cases</th><th>Reason</th></tr>${untested}</table>` : ""}
${skips ? `<h2 id="skipped">Skipped, by reason</h2><table><tr><th>Cases</th><th>Reason</th></tr>${skips}</table>` : ""}
<h2 id="other">Other cases</h2>
${others.map(caseHtml).join("\n")}
${
  report.divergences.length
    ? `<h2 id="twins">Twins that disagree</h2><table><tr><th>Scenario</th><th>Across</th><th>Passes</th><th>Fails</th></tr>${report.divergences
        .map(
          (d) =>
            `<tr><td>${esc(d.scenario)}</td><td>${d.axis === "binding" ? "bindings" : "versions"}</td><td>${d.passed.map(esc).join("<br>")}</td><td class="fail">${d.failed.map(esc).join("<br>")}</td></tr>`,
        )
        .join("")}</table>`
    : ""
}
<h2 id="coverage">Coverage of the conformance catalogue</h2>
<table><tr><th>Rule</th><th>Level</th><th>Role</th><th>Summary</th><th>Status</th><th>This run</th><th>Cases</th></tr>
${coverage}</table>
</main>
</body></html>
`;
}
