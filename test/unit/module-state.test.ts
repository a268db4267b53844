// Issue 16: no hidden global state in src/versioning or src/server. A top-level `let` or `var`
// there is module-level mutable state (the old translate/common.ts `strict` / `trustDepth`, which
// one request could leave set for the next); such values are passed explicitly (options, context).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = join(dir, n);
    return statSync(f).isDirectory() ? sources(f) : n.endsWith(".ts") ? [f] : [];
  });
}

/** `file:line name` of each top-level `let` / `var` binding in the source text. */
function topLevelMutables(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  return sf.statements.filter(ts.isVariableStatement).flatMap((st) => {
    if (st.declarationList.flags & ts.NodeFlags.Const) return [];
    return st.declarationList.declarations.map(
      (d) => `${file}:${sf.getLineAndCharacterOfPosition(d.getStart(sf)).line + 1} ${d.name.getText(sf)}`,
    );
  });
}

describe("no module-level mutable state in src/versioning and src/server", () => {
  it("no top-level let or var", () => {
    const files = ["src/versioning", "src/server"].flatMap((d) => sources(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(30);
    const found = files.flatMap((f) => topLevelMutables(relative(ROOT, f).split("\\").join("/"), readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  });

  it("sees a top-level let where there is one (the check can fail)", () => {
    expect(topLevelMutables("x.ts", "let strict = false;\nconst ok = 1;\nfunction f() { let inner = 0; return inner; }")).toEqual([
      "x.ts:1 strict",
    ]);
  });
});
