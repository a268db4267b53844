// The requirement catalogue (compliance/requirements.json: the rules of a2a-wire.md §8.1, §8.2,
// §8.3 in this project's words, plus the official kit's requirement IDs) and the coverage table
// derived from the cases: every rule maps to the cases that cite it; a rule with no case is
// "not covered" in every report.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPLIANCE_DIR, type Case } from "./cases.js";

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
