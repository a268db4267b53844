// The case files scenarios replaced, read back from git: each at the last commit that wrote it (or
// all at one base commit), written below a fresh directory under their IDs. Used by
// run.ts (server cases) and client.ts (client cases).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] });

/**
 * The commit holding the newest copy of a case file: the last one, on any line of the history, that
 * wrote it (a rule changed on main after a branch converted the file must be compared as changed).
 */
function holding(file: string): string | undefined {
  return git("log", "--full-history", "--no-merges", "--diff-filter=AM", "-1", "--format=%H", "--", file).trim() || undefined;
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
