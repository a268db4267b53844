// The requirement catalogue (compliance/requirements.json: the rules of a2a-wire.md §8.1, §8.2,
// §8.3 in this project's words, plus the official kit's requirement IDs) and the coverage table
// derived from the cases: every rule maps to the cases that cite it; a rule with no case is
// "not covered" in every report. Per run, the rules exercised on the agent: N of M applicable.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLIANCE_DIR, type Case } from "./cases.js";
import type { CaseResult } from "./runner.js";

export interface Rule {
  id: string;
  level: string;
  role: "server" | "client";
  /** Section of a2a-wire.md §8 the rule comes from ("8.1", "8.2", "8.3"). */
  catalogue: string;
  text: string;
  /** Spec sections (S10 unless noted). */
  spec?: string;
  /** Why no HTTP case can check it (gRPC only, webhook receiver, deployment …). */
  notApplicable?: string;
}

export interface Catalogue {
  rules: Rule[];
  /** Requirement IDs of the official conformance kit (1.0 line) that cases may cite. */
  tckIds: string[];
}

export function loadCatalogue(file = join(COMPLIANCE_DIR, "requirements.json")): Catalogue {
  return JSON.parse(readFileSync(file, "utf8")) as Catalogue;
}

export type CoverageStatus = "covered" | "not covered" | "not applicable";

export interface CoverageRow {
  id: string;
  level: string;
  role: string;
  text: string;
  status: CoverageStatus;
  notApplicable?: string;
  cases: string[];
}

/** Anything that cites requirement IDs: server cases, client cases. */
export type Citing = Pick<Case, "id" | "requirements">;

export function coverage(catalogue: Catalogue, cases: readonly Citing[]): CoverageRow[] {
  return catalogue.rules.map((r) => {
    const ids = cases.filter((c) => c.requirements.includes(r.id)).map((c) => c.id);
    const status: CoverageStatus = ids.length ? "covered" : r.notApplicable ? "not applicable" : "not covered";
    return {
      id: r.id,
      level: r.level,
      role: r.role,
      text: r.text,
      status,
      ...(r.notApplicable ? { notApplicable: r.notApplicable } : {}),
      cases: ids,
    };
  });
}

/** Requirement IDs cited by cases that are in neither the catalogue nor the kit's list. */
export function unknownRequirementIds(catalogue: Catalogue, cases: Case[]): { case: string; id: string }[] {
  const known = new Set([...catalogue.rules.map((r) => r.id), ...catalogue.tckIds]);
  return cases.flatMap((c) => c.requirements.filter((id) => !known.has(id)).map((id) => ({ case: c.id, id })));
}

/** A run's result as the exercised-rules count reads it. */
export type RunResult = Pick<CaseResult, "version" | "binding" | "requirements" | "status" | "reason">;

/**
 * Skip reasons that come from what the card declares (an interface, a capability, a card precondition such as
 * declared security): a case skipped for one of them does not make its rules applicable to this agent.
 */
export const CARD_SKIP = /^(binding not declared|capability (absent|present): |the card does not declare what the case checks: )/;

/** Catalogued rules a run exercised of those applicable to the agent (compliance/README.md "Coverage"). */
export interface RuleTally {
  exercised: number;
  applicable: number;
  /** The exercised rules, in catalogue order. */
  exercisedRules: string[];
  /** Applicable rules whose every selected case was skipped, in catalogue order. */
  notExercised: string[];
}

export interface InterfaceTally extends RuleTally {
  version: string;
  /** json-rpc, rest, or any: the binding-independent cases (the agent card). */
  binding: string;
  /** Whether the agent declares an interface of this version (and binding). */
  declared: boolean;
}

export interface Exercised {
  overall: RuleTally;
  byInterface: InterfaceTally[];
}

/**
 * A rule is applicable when a selected case on an interface the agent declares cites it, that case was
 * not skipped for what the card declares (CARD_SKIP: a capability it lacks, a precondition it does not
 * meet), and the catalogue does not mark the rule not applicable; it is exercised when one of those
 * cases ran (pass, fail, warn or known-failing: anything but skip). IDs outside the catalogue (the
 * kit's) are not counted.
 */
export function tallyRules<R extends RunResult>(
  results: readonly R[],
  rows: readonly Pick<CoverageRow, "id" | "notApplicable">[],
  declared: (r: R) => boolean,
): RuleTally {
  const cited = new Set<string>();
  const ran = new Set<string>();
  for (const r of results) {
    if (!declared(r)) continue;
    const forCard = r.status === "skip" && CARD_SKIP.test(r.reason ?? "");
    for (const id of r.requirements) {
      if (!forCard) cited.add(id);
      if (r.status !== "skip") ran.add(id);
    }
  }
  const applicable = rows.filter((row) => !row.notApplicable && cited.has(row.id)).map((row) => row.id);
  const exercisedRules = applicable.filter((id) => ran.has(id));
  return {
    exercised: exercisedRules.length,
    applicable: applicable.length,
    exercisedRules,
    notExercised: applicable.filter((id) => !ran.has(id)),
  };
}

const CELL_ORDER = ["1.0|json-rpc", "1.0|rest", "1.0|any", "0.3|json-rpc", "0.3|rest", "0.3|any"];

/** Orders "<version>|<binding>" keys: 1.0 before 0.3, JSON-RPC, HTTP+JSON, then the binding-independent cases. */
export function byVersionBinding(a: string, b: string): number {
  const rank = (k: string) => (CELL_ORDER.includes(k) ? CELL_ORDER.indexOf(k) : CELL_ORDER.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** The tally over the whole run and per version × binding of the cases (binding "any" on its own). */
export function exercisedRules<R extends RunResult>(
  results: readonly R[],
  rows: readonly Pick<CoverageRow, "id" | "notApplicable">[],
  declared: (r: R) => boolean,
): Exercised {
  const cells = new Map<string, R[]>();
  for (const r of results) {
    const k = `${r.version}|${r.binding}`;
    cells.set(k, [...(cells.get(k) ?? []), r]);
  }
  const byInterface = [...cells]
    .sort(([a], [b]) => byVersionBinding(a, b))
    .map(([k, rs]) => {
      const [version, binding] = k.split("|") as [string, string];
      return { version, binding, declared: rs.some(declared), ...tallyRules(rs, rows, declared) };
    });
  return { overall: tallyRules(results, rows, declared), byInterface };
}
