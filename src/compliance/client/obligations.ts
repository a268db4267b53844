// Client verdicts rest on client obligations: a client case that a client does not pass must have
// decided it on a sentence that binds the client (citations.ts isClientSentence), not on a server
// rule it relies on. For a client whose failures are listed (a driver's known-failing file),
// obligationProblems checks a finished run: every case that was not passed is listed, its entry
// quotes (version, section, verbatim) a client sentence, and that sentence is one the failing step
// of the case itself cites. `make test-client-sdks` applies it to the official SDK clients.
import { checkCitation, isClientSentence, normaliseText, type Citation, type SpecVersion } from "../citations.js";
import { globToRegExp } from "../cases.js";
import type { KnownFailingList } from "../known-failing.js";
import type { CaseResult } from "../runner.js";

/** The citations that decided a result that was not passed: those of its failing steps at the failure's level. */
export function decidingCitations(r: CaseResult): Citation[] {
  const level = r.failureLevel ?? r.level;
  return r.steps.filter((s) => s.status === "fail" && !s.cleanup && (s.level ?? r.level) === level).flatMap((s) => s.spec ?? r.spec ?? []);
}

/** Citations written in prose as `1.0.1 §5.6.1: "…"` (the form of known-failing reasons). */
export function citationsIn(text: string): Citation[] {
  return [...text.matchAll(/\b(\d\.\d\.\d) §(\d+(?:\.\d+)*):? "([^"]+)"/g)].map((m) => ({
    version: m[1] as SpecVersion,
    section: m[2]!,
    quote: m[3]!,
  }));
}

const same = (a: Citation, b: Citation) =>
  a.version === b.version && a.section === b.section && normaliseText(a.quote) === normaliseText(b.quote);

/** What is wrong with a run's non-passes against the client's known-failing list (empty: each rests on a client sentence). */
export function obligationProblems(results: CaseResult[], list: KnownFailingList, dir?: string): string[] {
  const entries = list.entries.map((e) => ({ entry: e, re: globToRegExp(e.case) }));
  const out: string[] = [];
  for (const r of results) {
    if (r.status === "fail" || r.status === "warn") {
      out.push(`${r.id}: ${r.status} but not in ${list.file}: ${r.reason ?? ""}`);
      continue;
    }
    if (r.status !== "known-failing") continue;
    const entry = entries.find((e) => e.re.test(r.id))!.entry;
    const quoted = citationsIn(entry.reason ?? "");
    const wrong = quoted.map((c) => checkCitation(c, dir)).filter((p) => p !== undefined);
    if (wrong.length) out.push(`${r.id}: the entry's citation is not in the spec text: ${wrong.join("; ")}`);
    const client = quoted.filter((c) => isClientSentence(c, dir));
    if (!client.length) {
      out.push(`${r.id}: the entry quotes no client sentence (version §section: "verbatim quote" of a rule that binds the client)`);
      continue;
    }
    const deciding = decidingCitations(r);
    if (!client.some((c) => deciding.some((d) => same(c, d))))
      out.push(`${r.id}: the client sentence the entry quotes is not one the failing step cites (fix the case or the entry)`);
  }
  return out;
}
