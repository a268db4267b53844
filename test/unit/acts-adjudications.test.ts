import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { adjudicate, loadAdjudications, type Adjudication } from "../../src/compliance/acts/adjudicate.js";
import type { ActsTestSpec } from "../../src/compliance/acts/execute.js";
import { canonicalHash } from "../../src/compliance/acts/load.js";
import { checkCitation, type SpecVersion } from "../../src/compliance/citations.js";

const test = parse(`
id: T-1
name: a test
level: must
steps:
  - id: s
    operation: get_agent_card
    params: {}
    expect: {body: {supportedInterfaces: {type: array, items: {protocolBinding: {one_of: [JSONRPC, REST]}}}}}
`) as Record<string, unknown>;
const spec = (t = test): ActsTestSpec => ({
  file: "f.acts.yaml",
  suite: { id: "s", name: "S" },
  test: t,
  variables: {},
  hash: canonicalHash(t),
});
const record = (over: Partial<Adjudication> = {}): Adjudication => ({
  test: "T-1",
  sha256: canonicalHash(test),
  asserts: "REST",
  spec: { version: "1.0.1", section: "11", quote: "q" },
  correction: [{ op: "replace", path: "/steps/0/expect/body/supportedInterfaces/items/protocolBinding/one_of/1", value: "HTTP+JSON" }],
  ...over,
});

describe("ACTS adjudications", () => {
  it("every record of compliance/acts/adjudications.json quotes its sentence verbatim", () => {
    const records = loadAdjudications();
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(checkCitation({ ...r.spec, version: r.spec.version as SpecVersion }), r.test).toBeUndefined();
  });

  it("corrects a test whose hash matches, keeping the published test beside it", () => {
    const { tests, stale } = adjudicate([spec()], [record()]);
    expect(stale).toEqual([]);
    expect(JSON.stringify(tests[0]!.test)).toContain('"one_of":["JSONRPC","HTTP+JSON"]');
    expect(JSON.stringify(tests[0]!.adjudication!.published.test)).toContain('"one_of":["JSONRPC","REST"]');
  });

  it("reports a record stale when the test changed upstream, its patch no longer applies, or the test is gone", () => {
    const changed = { ...test, name: "renamed" };
    expect(adjudicate([spec(changed)], [record()]).stale[0]?.reason).toMatch(/changed upstream/);
    const bad = record({ correction: [{ op: "test", path: "/level", value: "should" }] });
    expect(adjudicate([spec()], [bad]).stale[0]?.reason).toMatch(/no longer applies/);
    expect(adjudicate([], [record()]).stale[0]?.reason).toMatch(/no such test/);
  });
});
