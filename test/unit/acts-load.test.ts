import { describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ActsLoadError, loadActsFile, parseActs } from "../../src/compliance/acts/load.js";

const doc = (op: string) => `acts_version: "0.1.0"
spec_version: "1.0"
suites:
  - id: push
    name: Push configs
    tests:
      - id: t1
        name: one
        level: may
        steps:
          - id: s1
            operation: ${op}
            params: {}
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

  it("validates each test and step against its own rule, naming the path", () => {
    const bad = doc("get_task").replace("params: {}", "params: {}\n            expect: {status: 200, body: {}}\n            surprise: 1");
    expect(() => parseActs(bad, "s.yaml")).toThrow(/\/suites\/0\/tests\/0\/steps\/0: must NOT have additional properties \(surprise\)/);
    expect(() => parseActs(doc("get_task").replace("level: may", "level: always"), "l.yaml")).toThrow(/\/suites\/0\/tests\/0\/level/);
  });

  it("maps the corpus's expect spellings onto §6's and reports each", () => {
    const d = parseActs(
      doc("get_task").replace("params: {}", "params: {}\n            expect_error: {code: TaskNotFoundError, data: {type: object}}"),
      "e.yaml",
    );
    expect(d.deviations.map((x) => `${x.path} ${x.used}`)).toEqual([
      "/suites/0/tests/0/steps/0/expect_error/code expect_error.code",
      "/suites/0/tests/0/steps/0/expect_error/data expect_error.data",
    ]);
    expect(JSON.stringify(d.data)).toContain('"expect_error":{"error_type":"TaskNotFoundError","details":{"type":"object"}}');
    const bare = parseActs(doc("get_task").replace("params: {}", "params: {}\n            expect: {task: {id: {type: string}}}"), "b.yaml");
    expect(bare.deviations.map((x) => x.used)).toEqual(["expect.{task}"]);
    expect(JSON.stringify(bare.data)).toContain('"expect":{"body":{"task":');
  });

  it("loads every file of the pinned corpus", () => {
    const dir = join(process.cwd(), "spec", "upstream", "acts");
    const files = readdirSync(dir).filter((f) => f.endsWith(".acts.yaml"));
    expect(files.length).toBe(15);
    const deviations = files.flatMap((f) => loadActsFile(join(dir, f)).deviations);
    expect(deviations.length).toBe(71);
  });

  it("rejects broken YAML naming the file", () => {
    expect(() => parseActs("a: [", "broken.yaml")).toThrow(/broken\.yaml: invalid ACTS document:\n {2}YAML:/);
  });
});
