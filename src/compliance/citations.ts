// Spec citations of compliance cases (compliance/README.md "Citations"): every case, and any step
// that rests on a different sentence, carries `spec: [{version, section, quote}]`. This module
// loads the spec texts, finds a numbered section, checks that a quote occurs verbatim under it
// (after the normalisation the citation format fixes) and derives the level a quote supports
// from its upper-case RFC 2119 keywords. test/unit/compliance-citations.test.ts applies it to
// every server and client case; the runner needs none of it (a run does not need the texts).
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Level } from "./cases.js";
import { packageRoot } from "../runtime/package-root.js";

export type SpecVersion = "0.3.0" | "1.0.0" | "1.0.1";
export const SPEC_VERSIONS: readonly SpecVersion[] = ["0.3.0", "1.0.0", "1.0.1"];

export interface Citation {
  version: SpecVersion;
  /** Heading number as written, without trailing dot ("3.1.4"). */
  section: string;
  /** The normative sentence, verbatim. */
  quote: string;
}

/** What carries citations: a case, or one of its steps (with its own level). */
export interface Cited {
  /** Where, for messages: "/" (the case) or "/steps/2". */
  at: string;
  level?: Level;
  spec?: Citation[];
}

const PROJECT_ROOT = packageRoot();

/**
 * The directory holding specification-v<version>.md: `$A2A_SPEC_DIR/text/` when the variable is
 * set, else the materialised spec/upstream/text/ when present, else ../shared/spec/text/ (the
 * Makefile's default spec directory) relative to the project root.
 */
export function specTextDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.A2A_SPEC_DIR) return join(resolve(env.A2A_SPEC_DIR), "text");
  const materialised = join(PROJECT_ROOT, "spec", "upstream", "text");
  if (existsSync(materialised)) return materialised;
  return join(PROJECT_ROOT, "..", "shared", "spec", "text");
}

/** Removes emphasis and code markers, collapses whitespace runs to one space, trims. */
export function normaliseText(s: string): string {
  return s
    .replace(/\*\*|__|`/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

export interface SpecSection {
  number: string;
  title: string;
  /** Heading to the next heading of the same or a higher level (subsections included), raw. */
  text: string;
}

export class SpecText {
  readonly sections = new Map<string, SpecSection>();
  private readonly normalised = new Map<string, string>();

  constructor(
    readonly version: string,
    markdown: string,
  ) {
    const lines = markdown.split(/\r?\n/);
    // Every heading ends the sections at its level or deeper; only numbered ones can be cited.
    const heads: { line: number; depth: number; number?: string; title: string }[] = [];
    let fenced = false;
    lines.forEach((l, i) => {
      if (/^\s*(```|~~~)/.test(l)) fenced = !fenced;
      const [, hashes, text] = (fenced ? null : /^(#{1,6})\s+(.*)$/.exec(l)) ?? [];
      if (hashes === undefined || text === undefined) return;
      // Numbered sections, and the appendix's (A.2.1).
      const n = /^(\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\.?\s+(.*)$/.exec(text);
      heads.push({ line: i, depth: hashes.length, number: n?.[1], title: (n?.[2] ?? text).trim() });
    });
    heads.forEach((h, k) => {
      if (h.number === undefined) return;
      const end = heads.slice(k + 1).find((n) => n.depth <= h.depth)?.line ?? lines.length;
      // A number that occurs twice keeps its first section (the spec's numbering is unique).
      if (!this.sections.has(h.number))
        this.sections.set(h.number, { number: h.number, title: h.title, text: lines.slice(h.line, end).join("\n") });
    });
  }

  /** The section's normalised text, or undefined when no heading has that number. */
  sectionText(number: string): string | undefined {
    const s = this.sections.get(number);
    if (!s) return undefined;
    let n = this.normalised.get(number);
    if (n === undefined) this.normalised.set(number, (n = normaliseText(s.text)));
    return n;
  }
}

const cache = new Map<string, SpecText>();

/** The spec text of one version from `dir` (default specTextDir()); throws when the file is missing. */
export function loadSpecText(version: SpecVersion, dir: string = specTextDir()): SpecText {
  const file = join(dir, `specification-v${version}.md`);
  let t = cache.get(file);
  if (!t) {
    if (!existsSync(file))
      throw new Error(`spec text ${file} not found: set A2A_SPEC_DIR to the directory holding text/specification-v${version}.md`);
    cache.set(file, (t = new SpecText(version, readFileSync(file, "utf8"))));
  }
  return t;
}

const RANK: Record<Level, number> = { MUST: 3, SHOULD: 2, MAY: 1 };
const KEYWORDS: [RegExp, Level][] = [
  [/\b(MUST|REQUIRED|SHALL)\b/, "MUST"],
  [/\b(SHOULD|RECOMMENDED)\b/, "SHOULD"],
  [/\b(MAY|OPTIONAL)\b/, "MAY"],
];

/** The strongest upper-case RFC 2119 keyword of a quote (MUST NOT counts as MUST …), or undefined. */
export function keywordLevel(quote: string): Level | undefined {
  return KEYWORDS.find(([re]) => re.test(quote))?.[1];
}

/** The highest level a citation supports: its keyword's, or SHOULD when it has none. */
export function citationLevel(c: Pick<Citation, "quote">): Level {
  return keywordLevel(c.quote) ?? "SHOULD";
}

export function levelAbove(a: Level, b: Level): boolean {
  return RANK[a] > RANK[b];
}

/** The highest level a set of citations supports (undefined for none). */
export function strongest(spec: readonly Citation[]): Level | undefined {
  return spec.map(citationLevel).sort((a, b) => RANK[b] - RANK[a])[0];
}

/** Problems with one citation: unknown version or section, a quote not found verbatim under it. */
export function checkCitation(c: Citation, dir?: string): string | undefined {
  if (!SPEC_VERSIONS.includes(c.version)) return `unknown spec version ${JSON.stringify(c.version)} (known: ${SPEC_VERSIONS.join(", ")})`;
  const text = loadSpecText(c.version, dir);
  const section = text.sectionText(c.section);
  if (section === undefined) return `${c.version} has no section ${c.section}`;
  const quote = normaliseText(c.quote);
  if (!quote) return `empty quote for ${c.version} §${c.section}`;
  if (!section.includes(quote))
    return `quote not found verbatim in ${c.version} §${c.section} (${text.sections.get(c.section)!.title}): ${JSON.stringify(c.quote.slice(0, 120))}`;
  return undefined;
}

/**
 * Whether a sentence binds the client: its section or one above it is about clients (0.3.0 §11.2
 * "Client Compliance", §5.6.3 "Client Transport Selection Rules", 1.0.1 §8.3.2 "Client Protocol
 * Selection"), or the client is its subject ("Clients MUST …", "Clients and servers MUST …", "A client
 * reconnecting …", after a list marker or a bold label such as "Error handling:"). A server rule a
 * client relies on ("The operation MUST return …", "An agent MAY serve … clients") is not one.
 */
export function isClientSentence(c: Citation, dir?: string): boolean {
  const text = loadSpecText(c.version, dir);
  const parts = c.section.split(".");
  for (let n = parts.length; n > 0; n--) if (/\bclients?\b/i.test(text.sections.get(parts.slice(0, n).join("."))?.title ?? "")) return true;
  const bare = normaliseText(c.quote).replace(/^(?:[-*]|\d+\.)\s+/, "");
  return [bare, bare.replace(/^[^:]{1,40}:\s+/, "")].some((q) => /^(?:A2A\s+)?(?:an?\s+)?clients?\b/i.test(q));
}

/**
 * Every citation problem of a case given as its parts (the case first, then its steps): quotes
 * not in the text, a level above what the citations support. `caseLevel` is the level of steps
 * that have none of their own. Missing case citations are not reported here (isCited() tells them).
 */
export function citationProblems(parts: Cited[], caseLevel: Level, dir?: string): string[] {
  const out: string[] = [];
  for (const p of parts) {
    p.spec?.forEach((c, i) => {
      const problem = checkCitation(c, dir);
      if (problem) out.push(`${p.at === "/" ? "" : p.at}/spec/${i}: ${problem}`);
    });
    const level = p.level ?? caseLevel;
    if (p.level && !p.spec?.length) out.push(`${p.at}: a step with its own level needs its own spec citation`);
    const top = p.spec?.length ? strongest(p.spec) : undefined;
    if (top && levelAbove(level, top)) out.push(`${p.at}: level ${level} is above its citations' strongest keyword (${top})`);
  }
  return out;
}

/** The cited parts of a raw case file (server `steps` or client `exchanges`). */
export function citedParts(data: {
  level?: Level;
  spec?: Citation[];
  steps?: unknown[];
  exchanges?: unknown[];
  checks?: unknown[];
}): Cited[] {
  const steps = (data.steps ?? data.exchanges ?? []) as { level?: Level; spec?: Citation[] }[];
  const key = data.steps ? "steps" : "exchanges";
  const checks = (data.checks ?? []) as { level?: Level; spec?: Citation[] }[];
  return [
    { at: "/", spec: data.spec },
    ...steps.map((s, i) => ({ at: `/${key}/${i}`, level: s.level, spec: s.spec })),
    ...checks.map((s, i) => ({ at: `/checks/${i}`, level: s.level, spec: s.spec })),
  ];
}

/** A case has a citation when it has case-level citations. */
export function isCited(data: { spec?: Citation[] }): boolean {
  return (data.spec?.length ?? 0) > 0;
}

/**
 * A sentence about how the JSON bindings spell the data model (1.0 §5.5 camelCase member names,
 * §5.6.1 timestamps "When serialized to JSON"): it does not bind a gRPC answer, which is binary
 * protobuf. gRPC cases and projections leave such citations out.
 */
export function jsonSpellingRule(c: Citation): boolean {
  return c.version !== "0.3.0" && ((c.section === "5.5" && /camelCase/.test(c.quote)) || c.section === "5.6.1");
}
