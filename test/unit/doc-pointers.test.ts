// The docs that explain ids stay true. LOSSY.md points readers at code: each row's "Where"
// column names files (`rpc0_3.ts` and `translate/…` are under src/versioning/) and the functions
// in them; every named file exists and every name after it occurs in that file ("both files": in
// rpc0_3.ts or rest0_3.ts); the row ids are those of LOSS_REGISTER. docs/glossary.md explains
// every errata (E) and operation (O) id the repository cites, since their source is not in it.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LOSS_REGISTER } from "../../src/versioning/loss.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BOTH = ["src/versioning/rpc0_3.ts", "src/versioning/rest0_3.ts"];

const rows = readFileSync(join(ROOT, "LOSSY.md"), "utf8")
  .split("\n")
  .filter((l) => /^\| L\d+ \|/.test(l))
  .map((l) => {
    const cells = l.split(" | ");
    return { id: (cells[0] ?? "").slice(2), where: cells.at(-1) ?? "" };
  });

const pathOf = (name: string) => (/^(src|test|bench|codegen)\//.test(name) ? name : `src/versioning/${name}`);

describe("LOSSY.md", () => {
  it("has one row per LOSS_REGISTER entry", () => {
    expect(rows.map((r) => r.id)).toEqual(Object.keys(LOSS_REGISTER));
  });

  it("names only files and functions that exist", () => {
    const bad: string[] = [];
    for (const row of rows) {
      let files = BOTH;
      for (const [, token = ""] of row.where.matchAll(/`([^`]+)`/g)) {
        if (token.endsWith(".ts")) {
          const file = pathOf(token);
          files = [file];
          if (!existsSync(join(ROOT, file))) bad.push(`${row.id}: ${token} does not exist`);
        } else if (/^\w+$/.test(token)) {
          const word = new RegExp(`\\b${token}\\b`);
          if (!files.some((f) => existsSync(join(ROOT, f)) && word.test(readFileSync(join(ROOT, f), "utf8"))))
            bad.push(`${row.id}: ${token} is not in ${files.join(" or ")}`);
        }
      }
    }
    expect(rows.length).toBeGreaterThan(20);
    expect(bad).toEqual([]);
  });
});

function texts(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((n) => {
    const f = join(dir, n);
    return statSync(join(ROOT, f)).isDirectory() ? texts(f) : /\.(ts|md|json)$/.test(n) ? [f] : [];
  });
}

describe("docs/glossary.md", () => {
  it("explains every E and O id cited", () => {
    const glossary = readFileSync(join(ROOT, "docs/glossary.md"), "utf8");
    const explained = new Set([...glossary.matchAll(/^\| ([EO]\d+(?:, [EO]\d+)*) \|/gm)].flatMap(([, ids = ""]) => ids.split(", ")));
    const files = [
      ...["src", "codegen", "test", "bench", "compliance/cases", "docs"].flatMap(texts),
      "README.md",
      "ARCHITECTURE.md",
      "LOSSY.md",
    ];
    const missing = new Set<string>();
    for (const f of files) {
      // "errata E10", "(O4/E19)", "§1.5 O1": an id next to a word boundary, not a percent escape.
      for (const [, id = ""] of readFileSync(join(ROOT, f), "utf8").matchAll(/(?<![%\w])([EO][1-9]\d?)\b/g))
        if (!explained.has(id)) missing.add(`${id} (${f})`);
    }
    expect(explained.size).toBeGreaterThan(10);
    expect([...missing]).toEqual([]);
  });
});
