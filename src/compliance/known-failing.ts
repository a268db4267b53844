// Known-failing lists: data naming cases that are expected to fail against a given agent.
// A listed case still runs. If it fails, the failure is expected and does not fail the run; if
// it passes, the run fails (the entry is stale: remove it); an entry that names no case at all
// fails the run too. File format (JSON):
//   { "knownFailing": [ { "case": "<case ID or glob>", "reason": "why, citing the spec" } ] }
// A bare array of such entries, or of ID strings, is accepted as well.
import { readFileSync } from "node:fs";
import { globToRegExp, type Case } from "./cases.js";
import type { CaseResult } from "./runner.js";
import { isPlainObject } from "./match.js";

export interface KnownFailingEntry {
  case: string;
  reason?: string;
}

export interface KnownFailingList {
  file: string;
  entries: KnownFailingEntry[];
}

export function parseKnownFailing(file: string, text: string): KnownFailingList {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  const list = isPlainObject(data) ? data.knownFailing : data;
  if (!Array.isArray(list)) throw new Error(`${file}: expected {"knownFailing": [...]} or an array of entries`);
  const entries = list.map((e, i): KnownFailingEntry => {
    if (typeof e === "string") return { case: e };
    if (isPlainObject(e) && typeof e.case === "string")
      return { case: e.case, ...(typeof e.reason === "string" ? { reason: e.reason } : {}) };
    throw new Error(`${file}: entry ${i} must be a case ID string or {"case": "...", "reason": "..."}`);
  });
  return { file, entries };
}

export function loadKnownFailing(file: string): KnownFailingList {
  return parseKnownFailing(file, readFileSync(file, "utf8"));
}

export interface KnownFailingOutcome {
  results: CaseResult[];
  /** Entries that name no case of the suite. */
  stale: KnownFailingEntry[];
}

/**
 * Applies a list to finished results: expected failures (and warnings) become "known-failing", unexpected
 * passes become failures. `allCases` is the whole loaded suite, so an entry for a case that
 * exists but was filtered out of this run is not stale.
 */
export function applyKnownFailing(results: CaseResult[], allCases: Case[], list: KnownFailingList): KnownFailingOutcome {
  const matchers = list.entries.map((e) => ({ entry: e, re: globToRegExp(e.case) }));
  const stale = matchers.filter((m) => !allCases.some((c) => m.re.test(c.id))).map((m) => m.entry);
  const out = results.map((r) => {
    const hit = matchers.find((m) => m.re.test(r.id));
    if (!hit) return r;
    if (r.status === "fail" || r.status === "warn")
      return {
        ...r,
        status: "known-failing" as const,
        reason: `known failing (${list.file}${hit.entry.reason ? `: ${hit.entry.reason}` : ""}); ${r.reason ?? ""}`,
      };
    if (r.status === "pass")
      return {
        ...r,
        status: "fail" as const,
        reason: `listed as known-failing in ${list.file} (${hit.entry.case}) but passed: remove the entry`,
      };
    return r;
  });
  return { results: out, stale };
}
