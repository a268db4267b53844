// Pin errors: a missing or altered upstream spec file stops `make spec` / `make generate` with the
// file's name, the expected and actual sha256, and what to do about it.
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../codegen/main.js";
import { defaultSpecDir, materialiseSpec, pinSource, readPins, repin, sha256, SpecPinError, verifySpecDir } from "../../codegen/spec.js";

let root: string;
let n = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "a2a-pins-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function specCopy(): string {
  const dir = join(root, `spec-${++n}`);
  cpSync(defaultSpecDir(), dir, { recursive: true });
  const walk = (p: string) => {
    chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
    if (statSync(p).isDirectory()) for (const f of readdirSync(p)) walk(join(p, f));
  };
  walk(dir);
  return dir;
}

const pins = readPins();
const pinOf = (path: string) => pins.files.find((p) => p.path === path)!;

async function runMain(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const err: string[] = [];
  const out: string[] = [];
  const e = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  const o = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  try {
    return { code: await main(args), stderr: err.join("\n"), stdout: out.join("\n") };
  } finally {
    e.mockRestore();
    o.mockRestore();
  }
}

describe("spec pins", () => {
  it("the upstream files as shipped verify cleanly", () => {
    expect(verifySpecDir(defaultSpecDir(), pins)).toEqual([]);
  });

  it("a missing file is named, with the expected hash and where to get it", () => {
    const dir = specCopy();
    unlinkSync(join(dir, "v0.3", "a2a.json"));
    const problems = verifySpecDir(dir, pins);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("v0.3/a2a.json: missing from " + dir);
    expect(problems[0]).toContain(`expected sha256 ${pinOf("v0.3/a2a.json").sha256}`);
    expect(problems[0]).toContain("Set A2A_SPEC_DIR");
    expect(problems[0]).toContain(pinOf("v0.3/a2a.json").url);
  });

  it("an altered file is named, with expected and actual hash and both ways out", () => {
    const dir = specCopy();
    const file = join(dir, "v1.0", "a2a.proto");
    appendFileSync(file, "\n// local edit\n");
    const actual = sha256(readFileSync(file));
    const [problem, ...rest] = verifySpecDir(dir, pins);
    expect(rest).toEqual([]);
    expect(problem).toContain(`v1.0/a2a.proto: sha256 mismatch in ${dir}`);
    expect(problem).toContain(`expected ${pinOf("v1.0/a2a.proto").sha256}, got ${actual}`);
    expect(problem).toContain(`Restore the file from ${pinOf("v1.0/a2a.proto").url}`);
    expect(problem).toContain(`make update-spec A2A_SPEC_DIR=${dir}`);
  });

  it("materialiseSpec refuses and copies nothing when any file is wrong", () => {
    const dir = specCopy();
    writeFileSync(join(dir, "third_party", "google", "api", "http.proto"), "syntax = 'proto3';\n");
    const target = join(root, "materialised-bad");
    expect(() => materialiseSpec(dir, target, pins)).toThrow(SpecPinError);
    expect(() => materialiseSpec(dir, target, pins)).toThrow(/third_party\/google\/api\/http\.proto: sha256 mismatch/);
    expect(existsSync(target)).toBe(false);
  });

  it("materialiseSpec copies every pinned file when all verify", () => {
    const target = join(root, "materialised-good");
    materialiseSpec(defaultSpecDir(), target, pins);
    for (const p of pins.files) expect(sha256(readFileSync(join(target, p.path)))).toBe(p.sha256);
  });

  it("main (make spec / make generate) exits 2 with the message for a missing file", async () => {
    const dir = specCopy();
    unlinkSync(join(dir, "v1.0", "a2a.proto"));
    const up = join(root, "up-missing");
    for (const extra of [["--materialise-only"], []]) {
      const r = await runMain([...extra, "--spec-dir", dir, "--upstream", up, "--out", join(root, "never")]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("spec pin check failed");
      expect(r.stderr).toContain(`v1.0/a2a.proto: missing from ${dir} (expected sha256 ${pinOf("v1.0/a2a.proto").sha256})`);
    }
    expect(existsSync(up)).toBe(false);
    expect(existsSync(join(root, "never"))).toBe(false);
  });

  it("the ACTS corpus is pinned: a missing test file is named, and its download is the raw file at the pinned commit", async () => {
    const acts = pins.files.filter((p) => p.path.startsWith("acts/"));
    expect(acts.map((p) => p.path)).toContain("acts/acts-specification.md");
    expect(acts.filter((p) => p.path.endsWith(".acts.yaml"))).toHaveLength(15);
    const pin = pinOf("acts/core-operations.acts.yaml");
    expect(pinSource(pin)).toEqual({
      kind: "git",
      url: "https://raw.githubusercontent.com/a2aproject/A2A/dbcabfba4f01cc162c965f0fde5f44fc1f1e70e5/tests/acts/core-operations.acts.yaml",
    });
    const dir = specCopy();
    unlinkSync(join(dir, "acts", "core-operations.acts.yaml"));
    const r = await runMain(["--materialise-only", "--spec-dir", dir, "--upstream", join(root, "up-acts"), "--out", join(root, "never")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`acts/core-operations.acts.yaml: missing from ${dir} (expected sha256 ${pin.sha256})`);
  });

  it("main (make spec / make generate) exits 2 with the message for an altered file", async () => {
    const dir = specCopy();
    const file = join(dir, "v0.3", "a2a.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"Task"', '"Tusk"'));
    const r = await runMain(["--spec-dir", dir, "--upstream", join(root, "up-altered"), "--out", join(root, "never")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `v0.3/a2a.json: sha256 mismatch in ${dir}: expected ${pinOf("v0.3/a2a.json").sha256}, got ${sha256(readFileSync(file))}`,
    );
    expect(r.stderr).toContain("make update-spec");
    expect(existsSync(join(root, "never"))).toBe(false);
  });

  it("repin reports what changed and returns new pins without touching the old ones", () => {
    const dir = specCopy();
    appendFileSync(join(dir, "v0.3", "a2a.proto"), "\n");
    const original = structuredClone(pins);
    const r = repin(dir, pins);
    expect(pins).toEqual(original);
    expect(r.changed).toHaveLength(1);
    expect(r.changed[0]).toMatch(/^v0\.3\/a2a\.proto: [0-9a-f]{12}… → [0-9a-f]{12}…$/);
    expect(verifySpecDir(dir, r.pins)).toEqual([]);
    unlinkSync(join(dir, "v0.3", "a2a.proto"));
    expect(() => repin(dir, pins)).toThrow(/v0\.3\/a2a\.proto: missing/);
  });
});
