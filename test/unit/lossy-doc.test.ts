// LOSSY.md points readers at code: each row's "Where" column names files (`rpc0_3.ts` and
// `translate/…` are under src/versioning/) and the functions in them. This keeps those pointers
// true: every named file exists and every name after it occurs in that file ("both files": in
// rpc0_3.ts or rest0_3.ts). The row ids are those of LOSS_REGISTER.
import { existsSync, readFileSync } from "node:fs";
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
    return { id: cells[0].slice(2), where: cells[cells.length - 1] };
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
      for (const [, token] of row.where.matchAll(/`([^`]+)`/g)) {
        if (token.endsWith(".ts")) {
          files = [pathOf(token)];
          if (!existsSync(join(ROOT, files[0]))) bad.push(`${row.id}: ${token} does not exist`);
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
