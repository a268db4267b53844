// The spec change report, end to end: a modified upstream a2a.proto in a temp dir is generated from,
// diffed against the committed API summary, and reported line by line as BREAKING or additive.
// Nothing here touches the real spec/pins.json, spec/upstream/ or generated/.
import { execFile } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateAll, main } from "../../codegen/main.js";
import { defaultSpecDir, pinsFile, projectRoot, readPins, sha256, type Pins } from "../../codegen/spec.js";
import { diffSummaries, formatChanges, type ApiSummary } from "../../codegen/summary.js";

const generatedDir = join(projectRoot, "generated");

function copyWritable(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  const walk = (p: string) => {
    chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
    if (statSync(p).isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(to);
}

function replaceOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0) throw new Error(`test setup: ${JSON.stringify(from)} not found in the upstream a2a.proto`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/**
 * A spec dir whose 1.0 proto lost Artifact.description, gained TASK_STATE_PAUSED and moved GetTask,
 * and whose 0.3 a2a.json lost Artifact.description and gained the TaskState "paused".
 */
function modifiedSpec(root: string): string {
  const dir = join(root, "spec");
  copyWritable(defaultSpecDir(), dir);
  const proto = join(dir, "v1.0", "a2a.proto");
  let text = readFileSync(proto, "utf8");
  const artifact = text.indexOf("message Artifact {");
  const description = text.indexOf("  string description = 3;\n", artifact);
  if (artifact < 0 || description < 0 || description > text.indexOf("}", artifact))
    throw new Error("test setup: Artifact.description not found");
  text = text.slice(0, description) + text.slice(description + "  string description = 3;\n".length);
  text = replaceOnce(text, "  TASK_STATE_AUTH_REQUIRED = 8;\n", "  TASK_STATE_AUTH_REQUIRED = 8;\n  TASK_STATE_PAUSED = 9;\n");
  text = replaceOnce(text, 'get: "/tasks/{id=*}"\n', 'get: "/v2/tasks/{id=*}"\n');
  writeFileSync(proto, text);
  // 0.3 JSON-RPC schema: one property gone, one enum value more.
  const jsonFile = join(dir, "v0.3", "a2a.json");
  const json = JSON.parse(readFileSync(jsonFile, "utf8")) as { definitions: Record<string, { properties?: object; enum?: string[] }> };
  const { Artifact, TaskState } = json.definitions;
  if (!Artifact?.properties || !TaskState?.enum) throw new Error("the 0.3 JSON Schema lacks Artifact.properties or TaskState.enum");
  delete (Artifact.properties as Record<string, unknown>).description;
  TaskState.enum.push("paused");
  writeFileSync(jsonFile, JSON.stringify(json, null, 4));
  return dir;
}

const committedSummary = (v: "v1_0" | "v0_3") => JSON.parse(readFileSync(join(generatedDir, v, "api-summary.json"), "utf8")) as ApiSummary;

const EXPECTED_V1_0 = [
  "A2A 1.0: 4 change(s), 2 breaking",
  "  BREAKING  field lf.a2a.v1.Artifact.description removed (was #3 string)",
  "  additive  enum value lf.a2a.v1.TaskState.TASK_STATE_PAUSED added (= 9)",
  "  additive  method GetTask route added: GET /v2/tasks/{id=*}",
  "  BREAKING  method GetTask route removed: GET /tasks/{id=*}",
];

const EXPECTED_V0_3 = [
  "A2A 0.3: 2 change(s), 1 breaking",
  "  BREAKING  property Artifact.description removed",
  '  additive  definition TaskState enum member added: "paused"',
];

/** Hashes of the files a test must never change. */
const guarded = () => ({
  pins: sha256(readFileSync(pinsFile)),
  summary10: sha256(readFileSync(join(generatedDir, "v1_0", "api-summary.json"))),
  pb10: sha256(readFileSync(join(generatedDir, "v1_0", "a2a_pb.ts"))),
});

let root: string;
let before: ReturnType<typeof guarded>;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "a2a-spec-change-"));
  before = guarded();
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  expect(guarded()).toEqual(before);
});

describe("spec change report", () => {
  it("generateAll on a modified proto, diffed against the committed summary, marks removal BREAKING and the enum value additive", async () => {
    const spec = modifiedSpec(join(root, "direct"));
    const { summaries, files } = await generateAll(spec);
    const v10 = diffSummaries(committedSummary("v1_0"), summaries.v1_0);
    expect(formatChanges("A2A 1.0", v10).split("\n")).toEqual(EXPECTED_V1_0);
    expect(formatChanges("A2A 0.3", diffSummaries(committedSummary("v0_3"), summaries.v0_3)).split("\n")).toEqual(EXPECTED_V0_3);
    // The new revision is what got generated, not just what got reported.
    expect(files.get("v1_0/a2a_pb.ts")).toContain("TASK_STATE_PAUSED = 9");
    const methods = files.get("v1_0/methods.ts")!;
    expect(methods).toContain('"template": "/v2/tasks/{id=*}"');
    expect(methods).not.toContain('"template": "/tasks/{id=*}"');
  }, 120_000);

  it("main --update-pins re-pins into --pins, regenerates into --out and prints the report", async () => {
    const dir = join(root, "main");
    const spec = modifiedSpec(dir);
    const pins = join(dir, "pins.json");
    const out = join(dir, "generated");
    cpSync(pinsFile, pins);
    cpSync(generatedDir, out, { recursive: true }); // the "committed" tree the report compares with
    const log: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void log.push(a.join(" ")));
    let code: number;
    try {
      code = await main(["--update-pins", "--spec-dir", spec, "--pins", pins, "--out", out, "--upstream", join(dir, "upstream")]);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(0);
    const text = log.join("\n");
    const newHash = sha256(readFileSync(join(spec, "v1.0", "a2a.proto")));
    const oldHash = readPins().files.find((p) => p.path === "v1.0/a2a.proto")!.sha256;
    expect(text).toContain(`v1.0/a2a.proto: ${oldHash.slice(0, 12)}… → ${newHash.slice(0, 12)}…`);
    expect(text).toContain(EXPECTED_V1_0.join("\n"));
    expect(text).toContain(EXPECTED_V0_3.join("\n"));

    const newPins = readPins(pins);
    const changedPaths = ["v1.0/a2a.proto", "v0.3/a2a.json"];
    for (const path of changedPaths)
      expect(newPins.files.find((p) => p.path === path)!.sha256).toBe(sha256(readFileSync(join(spec, path))));
    expect(text).toContain(
      `v0.3/a2a.json: ${readPins()
        .files.find((p) => p.path === "v0.3/a2a.json")!
        .sha256.slice(0, 12)}…`,
    );
    const unchanged = (ps: Pins) => ps.files.filter((p) => !changedPaths.includes(p.path));
    expect(unchanged(newPins)).toEqual(unchanged(readPins()));
    expect(readFileSync(join(out, "v1_0", "a2a_pb.ts"), "utf8").split("\n")[0]).toContain(`sha256 ${newHash}`);
    const summary = JSON.parse(readFileSync(join(out, "v1_0", "api-summary.json"), "utf8")) as ApiSummary;
    expect(summary.enums["lf.a2a.v1.TaskState"]?.TASK_STATE_PAUSED).toBe(9);
    expect(summary.messages["lf.a2a.v1.Artifact"]?.description).toBeUndefined();

    // Generating again from the now-pinned revision reports no further change.
    log.length = 0;
    const again = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void log.push(a.join(" ")));
    try {
      expect(await main(["--spec-dir", spec, "--pins", pins, "--out", out, "--upstream", join(dir, "upstream")])).toBe(0);
    } finally {
      again.mockRestore();
    }
    expect(log.join("\n")).toContain("A2A 1.0: no API changes");
  }, 120_000);

  it("a new revision that fails to compile leaves the pins file as it was", async () => {
    const dir = join(root, "broken");
    const spec = join(dir, "spec");
    copyWritable(defaultSpecDir(), spec);
    const proto = join(spec, "v1.0", "a2a.proto");
    writeFileSync(proto, readFileSync(proto, "utf8").replace("message Artifact {", "message Artifact {{"));
    const pins = join(dir, "pins.json");
    cpSync(pinsFile, pins);
    const pinned = readFileSync(pins, "utf8");
    await expect(
      main(["--update-pins", "--spec-dir", spec, "--pins", pins, "--out", join(dir, "out"), "--upstream", join(dir, "up")]),
    ).rejects.toThrow(/a2a\.proto/);
    expect(readFileSync(pins, "utf8")).toBe(pinned);
  }, 120_000);

  it("`a2a-toolkit generate --spec-dir DIR` re-pins, regenerates and prints the report", async () => {
    const dir = join(root, "cli");
    const spec = modifiedSpec(dir);
    const pins = join(dir, "pins.json");
    const out = join(dir, "generated");
    cpSync(pinsFile, pins);
    cpSync(generatedDir, out, { recursive: true });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(projectRoot, "bin", "a2a-toolkit.js"),
        "generate",
        "--spec-dir",
        spec,
        "--pins",
        pins,
        "--out",
        out,
        "--upstream",
        join(dir, "up"),
      ],
      { cwd: projectRoot },
    );
    expect(stdout).toContain("re-pinned in");
    expect(stdout).toContain(EXPECTED_V1_0.join("\n"));
    expect(readPins(pins).files.find((p) => p.path === "v1.0/a2a.proto")!.sha256).toBe(
      sha256(readFileSync(join(spec, "v1.0", "a2a.proto"))),
    );
  }, 120_000);
});
