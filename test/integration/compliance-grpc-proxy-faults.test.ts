// Each gRPC fault of the rewriting proxy (src/compliance/grpc-rewrites.ts, applied by its h2c side,
// grpc-proxy.ts), put in front of the official @a2a-js/sdk 1.3.0 gRPC services around an echo
// executor (test/support/sdk-grpc-echo-target.ts), turns the gRPC cases listed for it in
// compliance-grpc-proxy-faults.json red (fail or warn). The default run checks one listed case
// per fault; A2A_PROXY_FAULTS=full (`make test-variants`) runs every fault over every gRPC case
// and checks that exactly the listed verdicts change.
import { readFileSync } from "node:fs";
import { afterAll, assert, beforeAll, describe, expect, it, vi } from "vitest";
import { loadCases } from "../../src/compliance/cases.js";
import { GRPC_REWRITES } from "../../src/compliance/grpc-rewrites.js";
import { startProxy } from "../../src/compliance/proxy.js";
import { consoleReport, type Report } from "../../src/compliance/report.js";
import { runSuite } from "../../src/compliance/suite.js";
import { startSdkGrpcEchoTarget } from "../support/sdk-grpc-echo-target.js";

const FULL = process.env.A2A_PROXY_FAULTS === "full";
const {
  $comment: _about,
  $otherChanges: OTHER_CHANGES,
  ...TURNS_RED
} = JSON.parse(readFileSync(new URL("./compliance-grpc-proxy-faults.json", import.meta.url), "utf8")) as Record<string, string[]> & {
  $otherChanges: Record<string, string[]>;
};
const GRPC_IDS = loadCases()
  .filter((c) => c.binding === "grpc")
  .map((c) => c.id);
/** The default run: this many of each fault's listed cases. */
const SAMPLE = 1;

async function run(faults: string[], caseGlobs: string[]): Promise<{ report: Report; changes: Record<string, number> }> {
  const target = await startSdkGrpcEchoTarget();
  const proxy = await startProxy({ target: target.url, grpcTarget: target.grpcAddress, faults });
  try {
    const report = await runSuite({ target: proxy.url, caseGlobs, streamTimeoutMs: 1_500, taskTimeoutMs: 2_000 });
    return { report, changes: proxy.changes() };
  } finally {
    await proxy.close();
    await target.close();
  }
}

let baseline: Map<string, string>;
beforeAll(async () => {
  vi.spyOn(console, "error").mockImplementation(() => undefined); // the SDK logs every error it answers with
  const ids = FULL ? GRPC_IDS : [...new Set(Object.values(TURNS_RED).flatMap((ids) => ids.slice(0, SAMPLE)))];
  baseline = new Map((await run([], ids)).report.results.map((r) => [r.id, r.status]));
}, 60_000);
afterAll(() => vi.restoreAllMocks());

describe.concurrent("each gRPC fault of the rewriting proxy in front of the official SDK's gRPC services", () => {
  it("at least 8 gRPC faults, each turning some listed gRPC case red", () => {
    expect(Object.keys(TURNS_RED).sort()).toEqual(GRPC_REWRITES.map((r) => r.name).sort());
    expect(GRPC_REWRITES.length).toBeGreaterThanOrEqual(8);
    for (const [fault, ids] of Object.entries(TURNS_RED)) {
      expect(ids.length, fault).toBeGreaterThan(0);
      for (const id of ids) expect(GRPC_IDS, `${fault}: ${id}`).toContain(id);
    }
  });

  for (const fault of GRPC_REWRITES.map((r) => r.name)) {
    it(`${fault}: the listed cases turn red`, { timeout: 120_000 }, async () => {
      const listed = TURNS_RED[fault];
      assert(listed, `${fault} lists the cases it turns red`);
      const red = FULL ? listed : listed.slice(0, SAMPLE);
      const { report, changes } = await run([fault], FULL ? GRPC_IDS : red);
      const text = consoleReport(report);
      expect(changes[fault], "the fault changed something").toBeGreaterThan(0);
      for (const id of red) {
        const now = report.results.find((r) => r.id === id)?.status;
        expect(`${baseline.get(id)} -> ${now}`, `${id}\n${text}`).toMatch(/^((pass|skip|inconclusive) -> (warn|fail)|warn -> fail)$/);
      }
      if (FULL) {
        const changed = report.results.filter((r) => r.status !== baseline.get(r.id)).map((r) => r.id);
        expect(changed.sort(), text).toEqual([...listed, ...(OTHER_CHANGES[fault] ?? [])].sort());
      }
    });
  }
});
