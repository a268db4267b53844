// Every compliance case cites the spec sentence it rests on (compliance/README.md, Citations):
// each quote occurs verbatim under its section of the spec text in $A2A_SPEC_DIR/text/, no level
// is above its citations' strongest upper-case RFC 2119 keyword, and every case has a citation.
import { describe, expect, it } from "vitest";
import { CASES_DIR, readCaseFiles, type Level } from "../../src/compliance/cases.js";
import { CLIENT_CASES_DIR } from "../../src/compliance/client/cases.js";
import { clientScenarioCases, loadClientScenarios } from "../../src/compliance/client/scenarios.js";
import { loadScenarioCases } from "../../src/compliance/scenarios.js";
import {
  SpecText,
  citationLevel,
  citationProblems,
  citedParts,
  isCited,
  keywordLevel,
  normaliseText,
  type Citation,
} from "../../src/compliance/citations.js";

type RawCase = { level: Level; spec?: Citation[]; steps?: unknown[]; exchanges?: unknown[] };

function allCases(): { id: string; data: RawCase }[] {
  const read = (dir: string, prefix: string) =>
    readCaseFiles(dir).map((e) => {
      if ("problem" in e) throw new Error(e.problem);
      return { id: prefix + e.id, data: e.data as RawCase };
    });
  // Scenarios are checked as each of their projections: the scenario's sentences plus the wire rules'.
  const projected = loadScenarioCases().map((c) => ({ id: `${c.id} (scenario ${c.scenario})`, data: c }));
  const client = clientScenarioCases(loadClientScenarios().scenarios).map((c) => ({ id: `client:${c.id} (scenario)`, data: c }));
  return [...read(CASES_DIR, ""), ...projected, ...read(CLIENT_CASES_DIR, "client:"), ...client];
}

describe("citation checks", () => {
  const spec = new SpecText(
    "test",
    [
      "# Title",
      "## 3. Operations",
      "### 3.1. Core",
      "#### 3.1.4. List Tasks",
      "The **`nextPageToken`** field MUST always be",
      "present in the response.",
      "Clients should retry.",
      "#### 3.1.5 Cancel",
      "A server MAY refuse.",
      "#### Example",
      "```",
      "# not a heading",
      "```",
      "## 4. Data",
    ].join("\n"),
  );
  it("finds a section with its subsections, up to the next heading of the same or a higher level", () => {
    expect(spec.sectionText("3.1.4")).toBe(
      "#### 3.1.4. List Tasks The nextPageToken field MUST always be present in the response. Clients should retry.",
    );
    expect(spec.sectionText("3.1")).toContain("A server MAY refuse.");
    expect(spec.sectionText("3")).not.toContain("## 4.");
    expect(spec.sectionText("3.1.5")).toBe("#### 3.1.5 Cancel A server MAY refuse.");
    // An unnumbered heading ends the numbered section at its level; its text belongs to the parent.
    expect(spec.sectionText("3.1")).toContain("# not a heading");
    expect(spec.sectionText("9")).toBeUndefined();
  });
  it("normalises emphasis, code markers and whitespace only", () => {
    expect(normaliseText("  The **`nextPageToken`**\n  field ")).toBe("The nextPageToken field");
    expect(normaliseText("a, b")).toBe("a, b");
  });
  it("derives the level from upper-case keywords only", () => {
    expect(keywordLevel("The server MUST NOT reply.")).toBe("MUST");
    expect(keywordLevel("This field is REQUIRED.")).toBe("MUST");
    expect(keywordLevel("It is NOT RECOMMENDED.")).toBe("SHOULD");
    expect(keywordLevel("An agent MAY stream; it SHOULD close.")).toBe("SHOULD");
    expect(keywordLevel("Fields are OPTIONAL.")).toBe("MAY");
    expect(keywordLevel("the server must reply")).toBeUndefined();
    expect(citationLevel({ quote: "the server must reply" })).toBe("SHOULD");
    expect(keywordLevel("MUSTARD")).toBeUndefined();
  });

  // The real spec texts: a fabricated quote, a level above the keyword, a step level without its own citation.
  const good: Citation = { version: "1.0.1", section: "3.1.4", quote: "The nextPageToken field MUST always be present in the response." };
  it("accepts a verbatim quote under the named section", () => {
    expect(citationProblems([{ at: "/", spec: [good] }], "MUST")).toEqual([]);
  });
  it("fails a quote that does not occur verbatim under the named section", () => {
    const wrongSection = { ...good, section: "3.1.5" };
    const altered = { ...good, quote: "The nextPageToken field MUST be present in the response." };
    const missing = { ...good, section: "99.1" };
    expect(citationProblems([{ at: "/", spec: [wrongSection] }], "MUST")[0]).toMatch(/quote not found verbatim in 1\.0\.1 §3\.1\.5/);
    expect(citationProblems([{ at: "/", spec: [altered] }], "MUST")[0]).toMatch(/quote not found verbatim/);
    expect(citationProblems([{ at: "/", spec: [missing] }], "MUST")[0]).toMatch(/has no section 99\.1/);
  });
  it("fails a case or step whose level is above its citations' keyword", () => {
    const may: Citation = {
      version: "1.0.1",
      section: "3.5.2",
      quote: "An agent MAY serve multiple concurrent streams to one or more clients for the same task.",
    };
    expect(citationProblems([{ at: "/", spec: [may] }], "MUST")).toEqual(["/: level MUST is above its citations' strongest keyword (MAY)"]);
    expect(
      citationProblems(
        [
          { at: "/", spec: [good] },
          { at: "/steps/1", spec: [may] },
        ],
        "MUST",
      ),
    ).toEqual(["/steps/1: level MUST is above its citations' strongest keyword (MAY)"]);
    expect(
      citationProblems(
        [
          { at: "/", spec: [good] },
          { at: "/steps/1", level: "MAY", spec: [may] },
        ],
        "MUST",
      ),
    ).toEqual([]);
    expect(
      citationProblems(
        [
          { at: "/", spec: [good] },
          { at: "/steps/1", level: "SHOULD" },
        ],
        "MUST",
      ),
    ).toEqual(["/steps/1: a step with its own level needs its own spec citation"]);
  });
  it("reports a case without a citation as uncited", () => {
    expect(isCited({})).toBe(false);
    expect(isCited({ spec: [good] })).toBe(true);
  });
});

describe("the catalogue's citations", () => {
  const cases = allCases();
  it("every quote occurs verbatim under its section, and no level is above its keyword", () => {
    const problems = cases.flatMap((c) => citationProblems(citedParts(c.data), c.data.level).map((p) => `${c.id}: ${p}`));
    expect(problems).toEqual([]);
  });
  it("every case has a citation", () => {
    const uncited = cases.filter((c) => !isCited(c.data)).map((c) => c.id);
    expect(uncited, "cases without a spec citation: cite them").toEqual([]);
  });
});
