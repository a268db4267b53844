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
 * With `deleted`, the parent of the commit that deleted it when that came later: a copy last written
 * by a merge (a conflict resolved for the file) is the one the deleting commit saw, which no
 * non-merge commit wrote (client.ts: v0_3/grpc/get/task-not-found-error was re-created by a merge).
 */
function holding(file: string, deleted = false): string | undefined {
  const last = (filter: string) => {
    const [hash, time] = git("log", "--full-history", "--no-merges", `--diff-filter=${filter}`, "-1", "--format=%H %ct", "--", file)
      .trim()
      .split(" ");
    return hash ? { hash, time: Number(time) } : undefined;
  };
  const written = last("AM");
  const gone = deleted ? last("D") : undefined;
  return gone && (!written || gone.time > written.time) ? `${gone.hash}^` : written?.hash;
}

/** The old copies of the scenarios' cases, written below a fresh directory (their IDs as paths). */
export function oldCases(
  base: string | undefined,
  ids: Set<string>,
  folder = "compliance/cases",
  { deleted = false }: { deleted?: boolean } = {},
): { dir: string; missing: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "a2a-verdict-diff-"));
  const missing: string[] = [];
  for (const id of ids) {
    const file = `${folder}/${id}.json`;
    const at = base ?? holding(file, deleted);
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
