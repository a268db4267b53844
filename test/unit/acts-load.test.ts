import { describe, expect, it } from "vitest";
import { ActsLoadError, parseActs } from "../../src/compliance/acts/load.js";

const doc = (op: string) => `acts_version: "0.1.0"
spec_version: "1.0"
suites:
  - id: push
    name: Push configs
    tests:
      - id: t1
        steps:
          - operation: ${op}
`;

describe("ACTS loader", () => {
  it("maps corpus push-config names onto §4.1 names and reports a deviation", () => {
    const d = parseActs(doc("set_push_notification_config"), "x.acts.yaml");
    expect(d.deviations).toEqual([
      {
        file: "x.acts.yaml",
        path: "/suites/0/tests/0/steps/0/operation",
        used: "set_push_notification_config",
        canonical: "create_push_config",
      },
    ]);
    expect(JSON.stringify(d.data)).toContain('"operation":"create_push_config"');
  });

  it("reports no deviation for §4.1 names", () => {
    expect(parseActs(doc("get_task"), "y.yaml").deviations).toEqual([]);
  });

  it("rejects an invalid document naming file and path", () => {
    const bad = `acts_version: "0.1.0"\nspec_version: "1.0"\nsuites:\n  - id: s\n    tests: []\n`;
    expect(() => parseActs(bad, "bad.acts.yaml")).toThrow(ActsLoadError);
    expect(() => parseActs(bad, "bad.acts.yaml")).toThrow(/bad\.acts\.yaml[\s\S]*\/suites\/0/);
  });

  it("rejects broken YAML naming the file", () => {
    expect(() => parseActs("a: [", "broken.yaml")).toThrow(/broken\.yaml: invalid ACTS document:\n {2}YAML:/);
  });
});
