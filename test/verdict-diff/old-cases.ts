// The case files scenarios replaced, read back from git: each from the parent of the commit that
// deleted it (or all at one base commit), written below a fresh directory under their IDs. Used by
// run.ts (server cases) and client.ts (client cases).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] });

/** The commit whose tree still holds a case file: the parent of the commit that deleted it. */
function holding(file: string): string | undefined {
  const deleter = git("log", "--diff-filter=D", "-1", "--format=%H", "--", file).trim();
  if (!deleter) return undefined;
  // A merge deletes a file its other parent still changed: the parent that has it.
  const parents = git("rev-list", "--parents", "-n", "1", deleter).trim().split(" ").slice(1);
  return parents.find((p) => {
    try {
      git("cat-file", "-e", `${p}:${file}`);
      return true;
    } catch {
      return false;
    }
  });
}

/** The old copies of the scenarios' cases, written below a fresh directory (their IDs as paths). */
export function oldCases(base: string | undefined, ids: Set<string>, folder = "compliance/cases"): { dir: string; missing: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "a2a-verdict-diff-"));
  const missing: string[] = [];
  for (const id of ids) {
    const file = `${folder}/${id}.json`;
    const at = base ?? holding(file);
    let text: string | undefined;
    try {
      text = at ? git("show", `${at}:${file}`) : undefined;
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      missing.push(id);
      continue;
    }
    const to = join(dir, `${id}.json`);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
  }
  return { dir, missing };
}
