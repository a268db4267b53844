// ARCHITECTURE.md: only src/versioning knows that two wire versions exist. Everything else works in
// 1.0 messages and asks the version's policy (src/versioning/policy.ts) where the rules differ, so
// a string literal "0.3" in code outside src/versioning (comments do not count) is a version
// branch that slipped back in: type names, defaults and option checks take the version from
// src/versioning (SUPPORTED_VERSIONS, ProtocolVersion, policyOf) instead.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// Folders this rule covers: the product's layers above src/versioning. src/compliance (a suite that
// names the versions it checks) and src/cli (command-line options) spell versions by design.
const COVERED = ["src/server", "src/gateway", "src/transport", "src/client", "src/push", "src/security", "src/runtime"];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = join(dir, n);
    return statSync(f).isDirectory() ? sources(f) : n.endsWith(".ts") ? [f] : [];
  });
}

/** Lines of the string literals equal to `text` in `file` (comments are not literals). */
function literals(file: string, text: string): number[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && n.text === text)
      lines.push(sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return lines;
}

describe('no "0.3" outside src/versioning', () => {
  const files = COVERED.flatMap((d) => sources(join(ROOT, d)));

  it("finds the covered files", () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it("no covered file spells the version", () => {
    const found = files.flatMap((f) => literals(f, "0.3").map((line) => `${relative(ROOT, f).split("\\").join("/")}:${line}`));
    expect(found).toEqual([]);
  });

  it("sees a literal where there is one (the check can fail)", () => {
    expect(literals(join(ROOT, "src/versioning/policy.ts"), "0.3").length).toBeGreaterThan(0);
  });
});
