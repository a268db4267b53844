// ACTS §13 reports: one JSON document per (version, binding) of a run, `<version>-<binding>.json`
// (a §13 document has one spec_version and one transport), validated in tests against
// compliance/acts/report.schema.json (derived from the §13 CDDL).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ActsTestResult } from "./execute.js";
import { levelSummary, type ActsRunReport } from "./suite.js";

export interface ActsReportFile {
  name: string;
  document: Record<string, unknown>;
}

export function actsReportDocuments(report: ActsRunReport, generatedAt: Date = new Date()): ActsReportFile[] {
  return report.runs
    .filter((run) => run.results.length > 0)
    .map((run) => {
      const n = (x: ActsTestResult["result"]) => run.results.filter((r) => r.result === x).length;
      const suites: { id: string; name: string; tests: ActsTestResult[] }[] = [];
      for (const r of run.results) {
        const suite = report.suiteOf[r.id] ?? { id: "acts", name: "ACTS" };
        let entry = suites.find((s) => s.id === suite.id);
        if (!entry) suites.push((entry = { ...suite, tests: [] }));
        entry.tests.push(r);
      }
      return {
        name: `${run.version}-${run.binding}.json`,
        document: {
          acts_version: report.actsVersion,
          // The version of the interface the run spoke (the corpus is written for 1.0; 0.3 runs go through translation).
          spec_version: run.version,
          generated_at: generatedAt.toISOString(),
          // No card says what language an agent is written in (§13.1 requires one).
          sdk: { name: report.agent.name, version: report.agent.version, language: "unknown" },
          transport: run.binding,
          environment: { runner: "a2a-toolkit", runtime: `node ${process.version}`, os: process.platform, interface: run.url },
          summary: {
            total: run.results.length,
            passed: n("pass"),
            failed: n("fail"),
            skipped: n("skip"),
            errors: n("error"),
            duration_ms: run.durationMs,
            by_level: levelSummary(run.results),
          },
          suites,
        },
      };
    });
}

/** Writes the §13 files into `dir`; returns their paths. */
export function writeActsReports(dir: string, report: ActsRunReport): string[] {
  mkdirSync(dir, { recursive: true });
  return actsReportDocuments(report).map((f) => {
    const path = join(dir, f.name);
    writeFileSync(path, `${JSON.stringify(f.document, null, 2)}\n`);
    return path;
  });
}
