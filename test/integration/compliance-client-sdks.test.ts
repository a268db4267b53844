// The official SDK clients through the whole client suite (`make test-client-sdks`, A2A_CLIENT_SDKS=1;
// skipped in `make test`): @a2a-js/sdk 1.3.0 on every case (1.0 and 0.3, JSON-RPC, HTTP+JSON and
// gRPC), 0.3.14 on every 0.3 case. Every case a client does not pass, failure or warning, must be in
// its driver's known-failing list with the client sentence it breaks, cited by the case's failing
// step (src/compliance/client/obligations.ts); a listed case that passes fails too. The counts per
// (version, binding) are printed and written to reports/client-sdks.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { obligationProblems } from "../../src/compliance/client/obligations.js";
import { runClientSuite } from "../../src/compliance/client/runner.js";
import { loadKnownFailing } from "../../src/compliance/known-failing.js";
import type { Report } from "../../src/compliance/report.js";
import { nodeCommand } from "../support/serve-child.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const counts: Record<string, Record<string, Record<string, number>>> = {};

/** pass / fail (MUST) / warn (SHOULD, MAY) / skip / inconclusive per version and binding, listed ones by their level. */
function tally(name: string, report: Report): void {
  const t: Record<string, Record<string, number>> = (counts[name] = {});
  for (const r of report.results) {
    const kind = r.status === "known-failing" ? (r.failureLevel === "MUST" ? "fail" : "warn") : r.status;
    const cell = (t[`${r.version} ${r.binding}`] ??= { pass: 0, fail: 0, warn: 0, skip: 0, inconclusive: 0 });
    cell[kind] = (cell[kind] ?? 0) + 1;
  }
}

describe.skipIf(!process.env.A2A_CLIENT_SDKS)("the official SDK clients through the whole client suite", () => {
  const sdks = [
    { name: "@a2a-js/sdk 1.3.0", driver: "a2a-js-sdk.ts", list: "a2a-js-sdk.known-failing.json", versions: undefined, total: 118 },
    {
      name: "@a2a-js/sdk 0.3.14",
      driver: "a2a-js-sdk-0.3.ts",
      list: "a2a-js-sdk-0.3.known-failing.json",
      versions: ["0.3" as const],
      total: 50,
    },
  ];
  it.each(sdks)("$name: every non-pass is listed with the client sentence it breaks", { timeout: 900_000 }, async (sdk) => {
    const knownFailingFile = join(root, "compliance/drivers", sdk.list);
    const report = await runClientSuite({
      command: [...nodeCommand(`compliance/drivers/${sdk.driver}`), "{url}"],
      concurrency: 2,
      knownFailingFile,
      ...(sdk.versions ? { versions: sdk.versions } : {}),
    });
    tally(sdk.name, report);
    mkdirSync(join(root, "reports"), { recursive: true });
    writeFileSync(join(root, "reports/client-sdks.json"), JSON.stringify(counts, null, 2) + "\n");
    console.log(`${sdk.name}:`);
    console.table(counts[sdk.name]);
    expect(report.results.length).toBeGreaterThanOrEqual(sdk.total);
    // Both clients speak every binding of the versions they were run on: nothing is skipped.
    expect(report.results.filter((r) => r.status === "skip").map((r) => `${r.id}: ${r.reason ?? ""}`)).toEqual([]);
    expect(obligationProblems(report.results, loadKnownFailing(knownFailingFile))).toEqual([]);
    expect(report.staleKnownFailing).toEqual([]);
  });
});
