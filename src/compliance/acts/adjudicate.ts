// Adjudication as data (compliance/acts/adjudications.json): where a corpus test contradicts the
// A2A specification ("If this table conflicts with the A2A specification, the A2A specification
// takes precedence", ACTS §6.2), a record names the test, what it asserts, the sentence that
// decides (version, section, verbatim) and the correction as a JSON Patch (RFC 6902) over the test
// as the loader returns it (aliases and §6 spellings already mapped).
//
//   loadAdjudications(file?)          → records, validated
//   adjudicate(tests, records)        → the tests to run (corrected ones carry their record and
//                                       the published test) and the records that no longer apply
//   verdictOf(published, corrected)   → how a run of both is reported; stale when both pass
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fastJsonPatch from "fast-json-patch";
import type { Operation } from "fast-json-patch";
import { COMPLIANCE_DIR } from "../cases.js";
import type { ActsTestResult, ActsTestSpec } from "./execute.js";

const { applyPatch, deepClone } = fastJsonPatch;

export const ADJUDICATIONS_FILE = join(COMPLIANCE_DIR, "acts", "adjudications.json");

export interface Adjudication {
  test: string;
  /** sha256 of the test as published (load.ts canonicalHash): a changed test makes the record stale. */
  sha256: string;
  asserts: string;
  spec: { version: string; section: string; quote: string };
  correction: Operation[];
}

export interface StaleAdjudication {
  test: string;
  reason: string;
}

/** A test to run: as published, or corrected by a record (with the published one beside it). */
export interface PlannedTest extends ActsTestSpec {
  adjudication?: { record: Adjudication; published: ActsTestSpec };
}

export function loadAdjudications(file = ADJUDICATIONS_FILE): Adjudication[] {
  const data = JSON.parse(readFileSync(file, "utf8")) as { adjudications?: unknown };
  if (!Array.isArray(data.adjudications)) throw new Error(`${file}: expected {"adjudications": [...]}`);
  return data.adjudications.map((r: Record<string, unknown>, i) => {
    const spec = r.spec as Record<string, unknown> | undefined;
    const ok =
      typeof r.test === "string" &&
      typeof r.sha256 === "string" &&
      typeof r.asserts === "string" &&
      typeof spec?.version === "string" &&
      typeof spec.section === "string" &&
      typeof spec.quote === "string" &&
      Array.isArray(r.correction) &&
      r.correction.length > 0;
    if (!ok)
      throw new Error(
        `${file}: /adjudications/${i}: needs test, sha256, asserts, spec {version, section, quote} and a non-empty correction`,
      );
    return r as unknown as Adjudication;
  });
}

/** Applies the records that match their test; the others are stale (the test changed or is gone). */
export function adjudicate(tests: ActsTestSpec[], records: Adjudication[]): { tests: PlannedTest[]; stale: StaleAdjudication[] } {
  const stale: StaleAdjudication[] = [];
  const byId = new Map(records.map((r) => [r.test, r]));
  for (const r of records)
    if (!tests.some((t) => String(t.test.id) === r.test)) stale.push({ test: r.test, reason: "no such test in the corpus any more" });
  const planned = tests.map((t): PlannedTest => {
    const record = byId.get(String(t.test.id));
    if (!record) return t;
    if (record.sha256 !== t.hash) {
      stale.push({
        test: record.test,
        reason: `the test changed upstream (sha256 ${t.hash.slice(0, 12)}…, the record names ${record.sha256.slice(0, 12)}…)`,
      });
      return t;
    }
    try {
      const corrected = applyPatch(deepClone(t.test) as Record<string, unknown>, record.correction, true, false).newDocument;
      return { ...t, test: corrected, adjudication: { record, published: t } };
    } catch (e) {
      stale.push({ test: record.test, reason: `its correction no longer applies: ${(e as Error).message.split("\n")[0]}` });
      return t;
    }
  });
  return { tests: planned, stale };
}

/** The one line a report gives an adjudicated test: both verdicts and the sentence. */
export function adjudicationLine(record: Adjudication, published: ActsTestResult, corrected: ActsTestResult): string {
  const verdict = (r: ActsTestResult) => `${r.result}${r.failure ? ` (${r.failure.message})` : r.skip_reason ? ` (${r.skip_reason})` : ""}`;
  return (
    `adjudicated: as published ${verdict(published)}; adjudicated ${verdict(corrected)}. ` +
    `The test asserts ${record.asserts}; A2A ${record.spec.version} §${record.spec.section}: "${record.spec.quote}"`
  );
}

/** An adjudication the agent does not need: it passes the test as published too. */
export function passesBoth(published: ActsTestResult, corrected: ActsTestResult): boolean {
  return published.result === "pass" && corrected.result === "pass";
}
