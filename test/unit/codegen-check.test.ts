// `make check-generated` (main --check) and determinism: regenerating gives byte-identical output,
// and any difference from the committed tree is reported by file with the fix.
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateAll, main } from "../../codegen/main.js";
import { defaultSpecDir, materialiseSpec, projectRoot } from "../../codegen/spec.js";

const generatedDir = join(projectRoot, "generated");
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "a2a-check-test-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

async function check(out: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const o: string[] = [];
  const e: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void o.push(a.join(" ")));
  const err = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void e.push(a.join(" ")));
  try {
    const code = await main(["--check", "--out", out, "--upstream", join(root, "upstream")]);
    return { code, stdout: o.join("\n"), stderr: e.join("\n") };
  } finally {
    log.mockRestore();
    err.mockRestore();
  }
}

describe("check-generated", () => {
  it("an exact copy of generated/ passes", async () => {
    const out = join(root, "exact");
    cpSync(generatedDir, out, { recursive: true });
    const r = await check(out);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/is up to date \(\d+ files\)/);
  }, 120_000);

  it("a changed, a deleted and an extra file each fail the check, named, with the fix", async () => {
    const out = join(root, "tampered");
    cpSync(generatedDir, out, { recursive: true });
    const methods = join(out, "v1_0", "methods.ts");
    writeFileSync(methods, readFileSync(methods, "utf8").replace('"/message:send"', '"/message:sent"'));
    unlinkSync(join(out, "v0_3", "types.ts"));
    writeFileSync(join(out, "v1_0", "hand-written.ts"), "export const x = 1;\n");
    const r = await check(out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("3 file(s) differ");
    expect(r.stderr).toContain("v1_0/methods.ts");
    expect(r.stderr).toContain("v0_3/types.ts");
    expect(r.stderr).toContain("v1_0/hand-written.ts");
    expect(r.stderr).toContain("run `make generate` and commit");
    // --check never writes into the directory it checks.
    expect(readFileSync(methods, "utf8")).toContain('"/message:sent"');
  }, 120_000);
});

describe("determinism", () => {
  it("two generations (different temp dirs) are byte-identical to each other and to generated/", async () => {
    const spec = join(root, "spec");
    materialiseSpec(defaultSpecDir(), spec);
    const a = await generateAll(spec);
    const b = await generateAll(spec);
    expect([...a.files.keys()].sort()).toEqual([...b.files.keys()].sort());
    for (const [path, content] of a.files) expect(b.files.get(path), path).toBe(content);
    const committed = tree(generatedDir);
    expect([...a.files.keys()].sort()).toEqual([...committed.keys()].sort());
    for (const [path, content] of a.files) expect(committed.get(path) === content, `${path} differs from generated/`).toBe(true);
  }, 180_000);
});
