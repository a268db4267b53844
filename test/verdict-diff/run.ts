// Same verdicts (issue 26, item 9): the hand-projected case files that scenarios replaced, read from
// git (each from the parent of the commit that deleted it, or all at --base <commit>), and their projections from
// compliance/scenarios/, run against the same agents; every case's verdict (status and the level
// of its failure) must be the same. Agents: the reference server (`a2a-toolkit test`'s embedded
// target), the official SDK 1.3.0 server with the fixture behaviours (HTTP and gRPC) and the SDK
// 1.3.0 and 0.3.14 servers around an echo executor. A difference is allowed only where the old
// twins disagreed and the scenario decided once: DECIDED below, with the sentence that decided it.
//
//   npx tsx test/verdict-diff/run.ts [--base <commit>]        (make test-verdict-diff)
import { rmSync } from "node:fs";
import { startEmbeddedTarget } from "../../src/cli/embedded-target.js";
import { loadScenarioCases } from "../../src/compliance/scenarios.js";
import { runSuite } from "../../src/compliance/suite.js";
import type { CaseResult } from "../../src/compliance/runner.js";
import { startSdkTarget } from "../integration/compliance-sdk-target.js";
import { startSdk03EchoTarget, startSdkEchoTarget } from "../support/sdk-echo-target.js";
import { oldCases } from "./old-cases.js";

/** Cases whose verdict may differ: the twins disagreed and the scenario decided, for this reason. */
export const DECIDED: Record<string, string> = {
  // The old gRPC twin captured the `artifacts: []` that gRPC's decoded form always writes and ran its
  // check on an empty list; its JSON-RPC and HTTP+JSON twins skip the same task. On the 1.0 view an
  // empty repeated field is no field (binary protobuf cannot tell them apart), so all three skip.
  "v1_0/grpc/list-tasks/include-artifacts-returns-them": "an empty artifacts list is no artifacts, as on the JSON twins",
};

const verdictOf = (r: CaseResult) => (r.status === "fail" || r.status === "warn" ? `${r.status} (${r.failureLevel})` : r.status);

interface Agent {
  name: string;
  start(): Promise<{ url: string; close(): Promise<void> }>;
  bindings?: ("json-rpc" | "rest" | "grpc")[];
}

const AGENTS: Agent[] = [
  { name: "reference server", start: startEmbeddedTarget },
  { name: "official SDK 1.3.0 (fixture)", start: () => startSdkTarget(), bindings: ["json-rpc", "rest"] },
  { name: "official SDK 1.3.0 gRPC (fixture)", start: () => startSdkTarget({ grpc: true }), bindings: ["grpc"] },
  { name: "official SDK 1.3.0 (echo)", start: () => startSdkEchoTarget() },
  { name: "official SDK 0.3.14 (echo)", start: () => startSdk03EchoTarget() },
];

async function main(): Promise<number> {
  const at = process.argv.indexOf("--base");
  const base = at > 0 ? process.argv[at + 1] : undefined;
  const projected = loadScenarioCases();
  const ids = new Set(projected.map((c) => c.id));
  const { dir, missing } = oldCases(base, ids);
  // A scenario case without an old copy (a new scenario, or a shallow clone) has nothing to compare with.
  if (missing.length)
    console.log(
      `${missing.length} case(s) without an old copy in git, not compared: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? " …" : ""}`,
    );
  const globs = [...ids].filter((id) => !missing.includes(id));
  // The SDK logs every error it answers with.
  console.error = () => undefined;
  let differences = 0;
  let compared = 0;
  try {
    for (const agent of AGENTS) {
      const target = await agent.start();
      try {
        const run = (casesDir?: string) =>
          runSuite({ target: target.url, casesDir, caseGlobs: globs, streamTimeoutMs: 10_000, bindings: agent.bindings });
        const before = new Map((await run(dir)).results.map((r) => [r.id, r]));
        const after = (await run()).results.filter((r) => !missing.includes(r.id));
        for (const r of after) {
          const old = before.get(r.id);
          compared++;
          const [was, now] = [old ? verdictOf(old) : "absent", verdictOf(r)];
          if (was === now) continue;
          const decided = DECIDED[r.id];
          console.log(`${decided ? "decided" : "DIFFERS"}  ${agent.name}  ${r.id}: ${was} -> ${now}${decided ? ` (${decided})` : ""}`);
          if (!decided) {
            differences++;
            console.log(`         before: ${old?.reason ?? ""}\n         after:  ${r.reason ?? ""}`);
          }
        }
        const counts = after.reduce<Record<string, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});
        console.log(`${agent.name}: ${after.length} cases, ${JSON.stringify(counts)}`);
      } finally {
        await target.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${compared} verdicts compared with the old copies, ${differences} unexplained difference(s)`);
  // Nothing compared proves nothing: a clone without the history fails here.
  return differences || !compared ? 1 : 0;
}

process.exitCode = await main();
