// A self-contained HTML report: one file, inline CSS, no scripts or remote resources. Failing
// cases open by default and show each step's expected and actual wire side by side with the
// differences (JSON Pointer paths) above them; the coverage table lists every catalogued rule.
import { actualView, failureCitations, formatDiff, requestView, summaryLine, type Report } from "./report.js";
import type { CaseResult } from "./runner.js";

function esc(s: unknown): string {
  return String(s).replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function pre(v: unknown): string {
  return `<pre>${esc(v === undefined ? "(none)" : JSON.stringify(v, null, 2))}</pre>`;
}

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1a1a1a}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
.pass{color:#17692f}.fail{color:#b3261e;font-weight:600}.warn{color:#8a5a00;font-weight:600}.skip{color:#6b6b6b}.known-failing{color:#8a5a00}
.not-covered{color:#b3261e}.covered{color:#17692f}.not-applicable{color:#6b6b6b}
details{border:1px solid #ddd;border-radius:4px;margin:.4rem 0;padding:.3rem .6rem}summary{cursor:pointer}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:.6rem}
pre{background:#f6f6f6;padding:.5rem;overflow:auto;max-height:32rem;font-size:12px;margin:.2rem 0}
.diff{font-family:ui-monospace,monospace;color:#b3261e;margin:.2rem 0;white-space:pre-wrap}
.muted{color:#6b6b6b}
.spec{border-left:3px solid #b3261e;margin:.3rem 0;padding:.1rem .6rem;font-style:italic}`;

function stepHtml(r: CaseResult): string {
  return r.steps
    .map((s) => {
      const diffs = s.diffs.length ? `<div class="diff">${s.diffs.map((d) => `✗ ${esc(formatDiff(d))}`).join("<br>")}</div>` : "";
      const err = s.error ? `<div class="diff">${esc(s.error)}</div>` : s.reason ? `<div class="muted">${esc(s.reason)}</div>` : "";
      const cites = s.status === "fail" ? failureCitations(r, s).map((c) => `<blockquote class="spec">${esc(c)}</blockquote>`).join("") : "";
      return `<h4>${esc(s.name)} <span class="${s.status === "pass" || s.status === "fail" ? s.status : "skip"}">${esc(s.status)}</span></h4>${err}${diffs}${cites}
<div class="muted">request</div>${pre(requestView(s))}
<div class="cols"><div><div class="muted">expected</div>${pre(s.expected)}</div><div><div class="muted">actual</div>${pre(actualView(s, { allHeaders: true }))}</div></div>`;
    })
    .join("\n");
}

export function htmlReport(report: Report): string {
  const s = report.summary;
  const rows = report.results
    .map(
      (r) => `<details${r.status === "fail" || r.status === "warn" ? " open" : ""}><summary><span class="${r.status}">${esc(r.status.toUpperCase())}</span> ${esc(r.id)}
<span class="muted">[${esc(r.level)}; ${esc(r.requirements.join(", "))}]</span></summary>
<p>${esc(r.title)}</p>${r.reason ? `<p class="muted">${esc(r.reason)}</p>` : ""}${r.variants?.length ? `<p class="muted">follows: ${r.variants.map(esc).join("; ")}</p>` : ""}${r.interface ? `<p class="muted">interface ${esc(r.interface.url)} (${esc(r.interface.source)})</p>` : ""}
${stepHtml(r)}</details>`,
    )
    .join("\n");
  const stale = report.staleKnownFailing
    .map((e) => `<li class="fail">known-failing entry ${esc(e.case)} matches no case: remove it from ${esc(report.knownFailingFile ?? "the list")}</li>`)
    .join("");
  const coverage = report.coverage
    .map(
      (c) =>
        `<tr><td>${esc(c.id)}</td><td>${esc(c.level)}</td><td>${esc(c.role)}</td><td>${esc(c.text)}</td><td class="${c.status.replace(/ /g, "-")}">${esc(c.status)}${c.notApplicable ? `<br><span class="muted">${esc(c.notApplicable)}</span>` : ""}</td><td>${c.cases.map(esc).join("<br>")}</td></tr>`,
    )
    .join("\n");
  const ifaces = report.discovery.interfaces
    .map((i) => `<tr><td>${esc(i.version)}</td><td>${i.binding === "rest" ? "HTTP+JSON" : "JSONRPC"}</td><td>${esc(i.url)}</td><td>${esc(i.source)}</td></tr>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A2A compliance: ${esc(report.target)}</title><style>${CSS}</style></head>
<body>
<h1>A2A compliance report</h1>
<p>Target <code>${esc(report.target)}</code>, ${esc(report.startedAt)} to ${esc(report.finishedAt)}.</p>
<p><strong>${esc(summaryLine(s))}</strong>${s.knownFailing ? `, ${s.knownFailing} known failing` : ""}</p>
<h2>Interfaces</h2>
<table><tr><th>Version</th><th>Binding</th><th>URL</th><th>Declared by</th></tr>${ifaces}</table>
<p class="muted">Fixture agent: ${esc(report.discovery.behaviours ? report.discovery.behaviours.join(", ") : "no")}</p>
${report.discovery.notes.map((n) => `<p class="muted">note: ${esc(n)}</p>`).join("")}
<h2>Cases</h2>
${stale ? `<ul>${stale}</ul>` : ""}
${rows}
${
  report.divergences.length
    ? `<h2>Twins that disagree</h2><table><tr><th>Scenario</th><th>Across</th><th>Passes</th><th>Fails</th></tr>${report.divergences
        .map((d) => `<tr><td>${esc(d.scenario)}</td><td>${d.axis === "binding" ? "bindings" : "versions"}</td><td>${d.passed.map(esc).join("<br>")}</td><td class="fail">${d.failed.map(esc).join("<br>")}</td></tr>`)
        .join("")}</table>`
    : ""
}
<h2>Coverage of the conformance catalogue</h2>
<table><tr><th>Rule</th><th>Level</th><th>Role</th><th>Summary</th><th>Status</th><th>Cases</th></tr>
${coverage}</table>
</body></html>
`;
}
