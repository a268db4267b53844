// Client verdicts rest on client obligations: which sentences bind a client (isClientSentence), and
// obligationProblems, which `make test-client-sdks` applies to the official SDK clients' whole runs.
// Here on hand-made results, and on every shipped driver's known-failing list (each entry quotes,
// verbatim, a sentence that binds the client).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isClientSentence, type Citation } from "../../src/compliance/citations.js";
import { citationsIn, obligationProblems } from "../../src/compliance/client/obligations.js";
import { loadKnownFailing, parseKnownFailing } from "../../src/compliance/known-failing.js";
import type { CaseResult } from "../../src/compliance/runner.js";

const drivers = fileURLToPath(new URL("../../compliance/drivers/", import.meta.url));

const errorHandling: Citation = {
  version: "0.3.0",
  section: "11.2.2",
  quote: "Error handling: MUST properly handle all A2A error codes defined in [Section 8.2](#82-a2a-specific-errors).",
};
const serverMapping: Citation = {
  version: "0.3.0",
  section: "3.2.3",
  quote:
    "HTTP Status Codes: MUST use appropriate HTTP status codes (200, 400, 401, 403, 404, 500, etc.) that correspond to A2A error types.",
};
const cite = (c: Citation) => `${c.version} §${c.section}: "${c.quote}"`;

describe("isClientSentence", () => {
  it("takes sentences under a client section or with the client as subject, not server rules that mention clients", () => {
    expect(isClientSentence(errorHandling)).toBe(true); // 0.3.0 §11.2 Client Compliance
    expect(
      isClientSentence({
        version: "1.0.1",
        section: "5.6.1",
        quote: "Clients and servers MUST parse and generate ISO 8601 timestamps correctly",
      }),
    ).toBe(true);
    expect(
      isClientSentence({
        version: "1.0.1",
        section: "3.5.2",
        quote: "A client reconnecting to a task after a network interruption by opening a new stream",
      }),
    ).toBe(true);
    expect(isClientSentence({ version: "1.0.1", section: "8.3.2", quote: "Use the correct URL for the selected transport" })).toBe(true);
    expect(isClientSentence(serverMapping)).toBe(false);
    expect(
      isClientSentence({
        version: "1.0.1",
        section: "3.5.2",
        quote: "An agent MAY serve multiple concurrent streams to one or more clients for the same task.",
      }),
    ).toBe(false);
    expect(
      isClientSentence({
        version: "1.0.1",
        section: "3.1.6",
        quote:
          "The operation MUST return a Task object as the first event in the stream, representing the current state of the task at the time of subscription.",
      }),
    ).toBe(false);
  });
});

describe("obligationProblems", () => {
  const result = (status: CaseResult["status"], spec: Citation[]): CaseResult => ({
    id: "v0_3/rest/get/task-not-found-error-message-body",
    title: "t",
    version: "0.3",
    binding: "rest",
    level: "MUST",
    requirements: [],
    status,
    failureLevel: "MAY",
    steps: [{ name: "code", expected: {}, diffs: [], status: "fail", level: "MAY", spec }],
    durationMs: 1,
  });
  const list = (reason: string) => parseKnownFailing("k.json", JSON.stringify({ knownFailing: [{ case: "v0_3/rest/get/*", reason }] }));

  it("a non-pass that is not listed is a problem", () => {
    expect(obligationProblems([result("warn", [errorHandling])], list(cite(errorHandling)))).toEqual([
      expect.stringMatching(/^v0_3\/rest\/get\/task-not-found-error-message-body: warn but not in k\.json/),
    ]);
  });

  it("a listed non-pass needs a verbatim client sentence that the failing step cites", () => {
    const listed = result("known-failing", [serverMapping, errorHandling]);
    expect(obligationProblems([listed], list(`MAY: (${cite(errorHandling)})`))).toEqual([]);
    expect(obligationProblems([listed], list(`MUST: (${cite(serverMapping)})`))).toEqual([
      expect.stringMatching(/quotes no client sentence/),
    ]);
    expect(obligationProblems([result("known-failing", [serverMapping])], list(cite(errorHandling)))).toEqual([
      expect.stringMatching(/not one the failing step cites/),
    ]);
    expect(obligationProblems([listed], list(`0.3.0 §11.2.2: "Error handling: clients MUST do it all."`))).toEqual([
      expect.stringMatching(/not in the spec text/),
      expect.stringMatching(/not one the failing step cites/),
    ]);
    expect(obligationProblems([result("pass", [])], list(""))).toEqual([]);
  });
});

describe("the shipped drivers' known-failing lists", () => {
  const files = readdirSync(drivers).filter((f) => f.endsWith(".known-failing.json"));
  it.each(files)("%s: every entry quotes a sentence that binds the client, verbatim", (file) => {
    for (const e of loadKnownFailing(join(drivers, file)).entries) {
      const quoted = citationsIn(e.reason ?? "");
      expect(
        quoted.filter((c) => isClientSentence(c)),
        e.case,
      ).not.toEqual([]);
    }
  });
});
