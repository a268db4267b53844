// Same verdicts for the client suite (issue 26, items 8 and 9): the client case files that client
// scenarios replaced, read from git (old-cases.ts), and their projections from
// compliance/client-scenarios/, run with the same clients; every case's verdict (status and the level
// of its failure) must be the same. Clients: the reference client and the official SDK clients 1.3.0
// (every pair) and 0.3.14 (0.3 only), each with its driver's known-failing list.
//
//   npx tsx test/verdict-diff/client.ts [--base <commit>]        (make test-verdict-diff)
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadClientCases } from "../../src/compliance/client/cases.js";
import { runClientSuite } from "../../src/compliance/client/runner.js";
import type { CaseResult } from "../../src/compliance/runner.js";
import type { Version } from "../../src/compliance/cases.js";
import { oldCases } from "./old-cases.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const verdictOf = (r: CaseResult) =>
  r.status === "fail" || r.status === "warn" || r.status === "known-failing" ? `${r.status} (${r.failureLevel})` : r.status;

const CLIENTS: { name: string; driver: string; versions?: Version[] }[] = [
  { name: "reference client", driver: "reference-client.ts" },
  { name: "official SDK 1.3.0 client", driver: "a2a-js-sdk.ts" },
  { name: "official SDK 0.3.14 client", driver: "a2a-js-sdk-0.3.ts", versions: ["0.3"] },
];

async function main(): Promise<number> {
  const at = process.argv.indexOf("--base");
  const base = at > 0 ? process.argv[at + 1] : undefined;
  const projected = loadClientCases().filter((c) => c.file.endsWith(".yaml"));
  const { dir, missing } = oldCases(base, new Set(projected.map((c) => c.id)), "compliance/client-cases", { deleted: true });
  if (missing.length) console.log(`${missing.length} case(s) without an old copy in git, not compared: ${missing.slice(0, 5).join(", ")}`);
  const globs = projected.map((c) => c.id).filter((id) => !missing.includes(id));
  let differences = 0;
  let compared = 0;
  try {
    for (const client of CLIENTS) {
      const run = (casesDir?: string) =>
        runClientSuite({
          command: [process.execPath, "--import", "tsx", join(ROOT, "compliance/drivers", client.driver), "{url}"],
          concurrency: 2,
          caseGlobs: globs,
          ...(casesDir ? { casesDir } : {}),
          ...(client.versions ? { versions: client.versions } : {}),
        });
      const before = new Map((await run(dir)).results.map((r) => [r.id, r]));
      const after = (await run()).results;
      for (const r of after) {
        const old = before.get(r.id);
        compared++;
        const [was, now] = [old ? verdictOf(old) : "absent", verdictOf(r)];
        if (was === now) continue;
        differences++;
        console.log(
          `DIFFERS  ${client.name}  ${r.id}: ${was} -> ${now}\n         before: ${old?.reason ?? ""}\n         after:  ${r.reason ?? ""}`,
        );
      }
      const counts = after.reduce<Record<string, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});
      console.log(`${client.name}: ${after.length} cases, ${JSON.stringify(counts)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${compared} client verdicts compared with the old copies, ${differences} difference(s)`);
  return differences || !compared ? 1 : 0;
}

process.exitCode = await main();
