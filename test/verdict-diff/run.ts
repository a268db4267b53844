// Same verdicts (issue 26, item 9): the hand-projected case files that scenarios replaced, read from
// git (each at the last commit that wrote it, or all at --base <commit>), and their projections from
// compliance/scenarios/, run against the same agents; every case's verdict (status and the level
// of its failure) must be the same. Agents: the reference server (`a2a-toolkit test`'s embedded
// target), the official SDK 1.3.0 server with the fixture behaviours (HTTP and gRPC) and the SDK
// 1.3.0 and 0.3.14 servers around an echo executor; and the reference server behind the rewriting
// proxy (`a2a-toolkit proxy`) with each variant and each fault in turn, HTTP and gRPC, on a
// representative set of the cases it can touch (PER_REWRITE: those it is known to turn red first).
// A difference is allowed only where the old twins disagreed and the scenario decided once:
// DECIDED below, with the sentence that decided it.
//
//   npx tsx test/verdict-diff/run.ts [--base <commit>] [--agents <name part>]   (make test-verdict-diff)
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startEmbeddedTarget } from "../../src/cli/embedded-target.js";
import { exchangesOf, type Case } from "../../src/compliance/cases.js";
import { GRPC_REWRITES } from "../../src/compliance/grpc-rewrites.js";
import { startProxy } from "../../src/compliance/proxy.js";
import { REWRITES } from "../../src/compliance/rewrites.js";
import { loadScenarioCases } from "../../src/compliance/scenarios.js";
import { runSuite } from "../../src/compliance/suite.js";
import type { CaseResult } from "../../src/compliance/runner.js";
import { startSdkTarget } from "../integration/compliance-sdk-target.js";
import { startSdk03EchoTarget, startSdkEchoTarget } from "../support/sdk-echo-target.js";
import { oldCases } from "./old-cases.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Cases whose verdict may differ: the twins disagreed and the scenario decided, for this reason. */
export const DECIDED: Record<string, string> = {
  // The old gRPC twin captured the `artifacts: []` that gRPC's decoded form always writes and ran its
  // check on an empty list; its JSON-RPC and HTTP+JSON twins skip the same task. On the 1.0 view an
  // empty repeated field is no field (binary protobuf cannot tell them apart), so all three skip.
  "v1_0/grpc/list-tasks/include-artifacts-returns-them": "an empty artifacts list is no artifacts, as on the JSON twins",
  // The old 0.3 stream copies checked the `final` flag only where the case was about it; every
  // projected 0.3 stream now carries the 0.3 wire rule on it (0.3.0 §9.3 "Server closes the SSE
  // connection after the final:true event": at most one event flagged, a stream that ends on a status
  // update ends on the flagged one), so a stream without the flag, with final:false or with an event
  // after the final one is caught in these cases too, at their own level.
  ...Object.fromEntries(
    ["json-rpc", "rest"].flatMap((b) =>
      [
        "stream-ends-after-final-status",
        "stream-events-name-one-task",
        "stream-status-timestamps-do-not-go-backwards",
        "streamed-task-is-found-by-get",
      ].map((c) => [`v0_3/${b}/streaming/${c}`, "the 0.3 wire rule on `final` (0.3.0 §9.3) now judges every 0.3 stream"]),
    ),
  ),
  // Levels the third audit corrected (docs/audit/2026-12-06.md), each by its sentence: the 0.3
  // ending of this stream rests on the 0.3.0 §9.3 example, which has no keyword (S12); an HTTP+JSON
  // error's JSON content type is a SHOULD (1.0.1 §11.1 "application/a2a+json SHOULD be used").
  ...Object.fromEntries(
    ["json-rpc", "rest", "grpc"].map((b) => [
      `v0_3/${b}/streaming/echo-stream-starts-with-task-and-ends-at-completion`,
      "the 0.3 end of stream is SHOULD: the 0.3.0 §9.3 example has no keyword (third audit, S12)",
    ]),
  ),
  "v1_0/rest/cancel-task/unknown-id-returns-task-not-found":
    "an HTTP+JSON error's content type is SHOULD (1.0.1 §11.1; third audit, item 7)",
  // The old HTTP+JSON copy matched the refusal's body alone; the abstract scenario's error step goes
  // through the pair's wire rule, which also judges the status mapped to the error (1.0.1 §11.6
  // "**Error Code**: Mapped to the HTTP status code and the `error.code` field"), at SHOULD, so an
  // error answered with HTTP 200 is now caught here too.
  "v1_0/rest/list-tasks/page-size-over-100-is-invalid":
    "the error's HTTP status is judged by the pair's wire rule (1.0.1 §11.6), at SHOULD, as in the other error cases",
  // The fourth audit (docs/audit/2026-12-07.md, S46): a reply that carries no contextId is in no
  // other context (1.0.1 §3.4.1 forbids a new one; the proto does not mark Task.context_id or
  // Message.context_id REQUIRED), and on gRPC the refusal, an error status, can be taken. Behind
  // the proxy's context-id-missing fault the old copies failed; the scenario passes.
  ...Object.fromEntries(
    ["json-rpc", "rest", "grpc"].map((b) => [
      `v1_0/${b}/multi-turn/client-context-id-is-kept-or-refused`,
      "a reply without contextId is in no other context; a gRPC refusal is an error status (fourth audit, S46)",
    ]),
  ),
  // The fifth audit (docs/audit/2026-12-08.md, S27): 0.3 defines TaskNotFoundError (§8.2) but
  // states no refusal of a message naming an unknown task with a keyword: SHOULD on 0.3.
  ...Object.fromEntries(
    ["json-rpc", "rest", "grpc"].map((b) => [
      `v0_3/${b}/send-message/unknown-task-id-returns-task-not-found`,
      "0.3 states no keyworded refusal of an unknown task id: SHOULD (fifth audit, S27)",
    ]),
  ),
  // S30: 0.3's push config methods are optional (§11.1.3 MAY): PushNotificationNotSupportedError
  // without the capability is SHOULD on 0.3.
  ...Object.fromEntries(
    ["json-rpc", "rest"].map((b) => [
      `v0_3/${b}/push-notifications/without-capability-returns-not-supported`,
      "0.3 push config methods are optional (0.3 §11.1.3 MAY): SHOULD (fifth audit, S30)",
    ]),
  ),
  // S9/S50: serving the streams stays MAY, but once served each staying stream MUST see the
  // completion (1.0.1 §3.5.2 "Events MUST be broadcast to all active streams for that task").
  ...Object.fromEntries(
    ["json-rpc", "rest"].map((b) => [
      `v1_0/${b}/streaming/concurrent-subscribers-all-see-completion`,
      "served streams MUST all see the completion (1.0.1 §3.5.2; fifth audit, S9/S50)",
    ]),
  ),
  // The old 0.3 HTTP+JSON copy took any object without a name, at HTTP 200 too, as the refusal; the
  // abstract scenario's error alternatives go through the pair's wire rule, which asks an error
  // status (0.3.0 §3.2.3 "HTTP Status Codes: MUST use appropriate HTTP status codes (200, 400, 401,
  // 403, 404, 500, etc.) that correspond to A2A error types."), so an error answered with HTTP 200
  // is now not-offered at this MAY case.
  "v0_3/rest/extended-card/declared-card-is-returned":
    "an error answered with HTTP 200 is no refusal: the pair's wire rule asks an error status (0.3.0 §3.2.3)",
};

const verdictOf = (r: CaseResult) => (r.status === "fail" || r.status === "warn" ? `${r.status} (${r.failureLevel})` : r.status);

interface Agent {
  name: string;
  start(): Promise<{ url: string; close(): Promise<void> }>;
  bindings?: ("json-rpc" | "rest" | "grpc")[];
  /** The cases run on this agent, of those compared (default: all). */
  pick?(cases: Case[]): Case[];
  /** Bounds of the run (a fault that holds a stream open waits this long). */
  streamTimeoutMs?: number;
  taskTimeoutMs?: number;
}

const AGENTS: Agent[] = [
  { name: "reference server", start: startEmbeddedTarget },
  { name: "official SDK 1.3.0 (fixture)", start: () => startSdkTarget(), bindings: ["json-rpc", "rest"] },
  { name: "official SDK 1.3.0 gRPC (fixture)", start: () => startSdkTarget({ grpc: true }), bindings: ["grpc"] },
  { name: "official SDK 1.3.0 (echo)", start: () => startSdkEchoTarget() },
  { name: "official SDK 0.3.14 (echo)", start: () => startSdk03EchoTarget() },
];

/**
 * How many cases run through each rewrite of the proxy: a representative set of those it can
 * touch (VERDICT_DIFF_PER_REWRITE=0: all of them). Every rewrite in turn, so the target stays
 * within a few minutes.
 */
const PER_REWRITE = Number(process.env.VERDICT_DIFF_PER_REWRITE ?? 6) || Infinity;

const operationsOf = (c: Case) =>
  new Set(c.steps.flatMap((st) => exchangesOf(st).flatMap((x) => (x.request.operation ? [x.request.operation.operation] : []))));

/** The cases each fault turns red in front of the official SDK (the proxy-fault tests' tables): the first picked. */
const TURNS_RED: Record<string, string[]> = Object.fromEntries(
  ["compliance-proxy-faults.json", "compliance-grpc-proxy-faults.json"].flatMap((f) =>
    Object.entries(JSON.parse(readFileSync(join(ROOT, "test", "integration", f), "utf8")) as Record<string, unknown>).filter(
      (e): e is [string, string[]] => Array.isArray(e[1]),
    ),
  ),
);

/**
 * Up to PER_REWRITE of the cases a rewrite applies to (its versions, bindings and operations; a
 * card rewrite every case, as the card is read first): first those it is known to turn red, then
 * spread over scenarios and (version, binding) pairs, one case per scenario in turn, in ID order.
 */
function representative(name: string, applies: (c: Case) => boolean, cases: Case[]): Case[] {
  const red = new Set(TURNS_RED[name] ?? []);
  const out: Case[] = cases.filter((c) => red.has(c.id) && applies(c)).slice(0, PER_REWRITE);
  const groups = new Map<string, Case[]>();
  for (const c of cases.filter((c) => applies(c) && !red.has(c.id)).sort((a, b) => (a.id < b.id ? -1 : 1)))
    groups.set(c.scenario ?? c.id, [...(groups.get(c.scenario ?? c.id) ?? []), c]);
  for (let round = 0; out.length < PER_REWRITE && [...groups.values()].some((g) => g.length > round); round++)
    for (const g of groups.values()) {
      const c = g[round];
      if (c && out.length < PER_REWRITE) out.push(c);
    }
  return out;
}

const holdsOpen = (name: string) => [...REWRITES, ...GRPC_REWRITES].some((r) => r.name === name && r.holdOpen);

/** The reference server behind `a2a-toolkit proxy` with one rewrite (its gRPC side too). */
function proxied(option: "variants" | "faults", name: string, applies: (c: Case) => boolean): Agent {
  return {
    name: `reference server behind proxy --${option === "variants" ? "variant" : "fault"} ${name}`,
    start: async () => {
      const server = await startEmbeddedTarget();
      const proxy = await startProxy({ target: server.url, grpcTarget: new URL(server.url).host, [option]: [name] });
      return {
        url: proxy.url,
        close: async () => {
          await proxy.close();
          await server.close();
        },
      };
    },
    pick: (cases) => representative(name, applies, cases),
    // A fault that holds streams open (holdOpen) makes every stream wait its bound: 2 s. The other
    // rewrites hold none open, and a bound as long as the fixture's `slow 2000` task made a
    // subscription to it pass or read inconclusive by a few milliseconds of load, whichever copy ran.
    ...(holdsOpen(name) ? { streamTimeoutMs: 2_000, taskTimeoutMs: 3_000 } : { streamTimeoutMs: 5_000, taskTimeoutMs: 6_000 }),
  };
}

const PROXIED: Agent[] = [
  ...REWRITES.map((r) =>
    proxied(r.kind === "variant" ? "variants" : "faults", r.name, (c) => {
      const a = r.applies;
      if (a.bindings?.includes("card")) return true;
      if (c.binding === "grpc" || !(a.bindings ?? ["json-rpc", "rest"]).includes(c.binding as "json-rpc" | "rest")) return false;
      if (a.versions && !a.versions.includes(c.version)) return false;
      return !a.operations || a.operations.some((op) => operationsOf(c).has(op as never));
    }),
  ),
  ...GRPC_REWRITES.map((r) =>
    proxied("faults", r.name, (c) => {
      if (c.binding !== "grpc" || (r.applies.versions && !r.applies.versions.includes(c.version))) return false;
      const streaming = ["SendStreamingMessage", "SubscribeToTask"].some((op) => operationsOf(c).has(op as never));
      return r.applies.streaming === undefined || r.applies.streaming === streaming;
    }),
  ),
];

interface Compared {
  lines: string[];
  differences: number;
  compared: number;
}

/** The old and the new cases of `cases` on one agent, verdict by verdict. */
async function compare(agent: Agent, cases: Case[], dir: string): Promise<Compared> {
  const out: Compared = { lines: [], differences: 0, compared: 0 };
  const picked = agent.pick ? agent.pick(cases) : cases;
  if (!picked.length) return { ...out, lines: [`${agent.name}: no case it applies to`] };
  const caseGlobs = picked.map((c) => c.id);
  const target = await agent.start();
  try {
    const run = (casesDir?: string, globs = caseGlobs) =>
      runSuite({
        target: target.url,
        casesDir,
        caseGlobs: globs,
        streamTimeoutMs: agent.streamTimeoutMs ?? 10_000,
        ...(agent.taskTimeoutMs ? { taskTimeoutMs: agent.taskTimeoutMs } : {}),
        bindings: agent.bindings,
      });
    const before = new Map((await run(dir)).results.map((r) => [r.id, r]));
    const after = (await run()).results;
    // A verdict that differs is looked at once more, old and new copy side by side: a case timed
    // against a slow task (`slow 2000`) reads inconclusive when the machine is loaded enough that the
    // task ends before its subscription starts, whichever copy ran. Only a difference that holds
    // in the second look counts.
    const differing = after.filter((r) => !before.get(r.id) || verdictOf(before.get(r.id)!) !== verdictOf(r)).map((r) => r.id);
    if (differing.length) {
      const [again, againOld] = await Promise.all([run(undefined, differing), run(dir, differing)]);
      const oldAgain = new Map(againOld.results.map((r) => [r.id, r]));
      for (const r of again.results) {
        const was = oldAgain.get(r.id);
        if (was && verdictOf(was) === verdictOf(r)) {
          before.set(r.id, was);
          after[after.findIndex((x) => x.id === r.id)] = r;
        }
      }
    }
    for (const r of after) {
      const old = before.get(r.id);
      out.compared++;
      const [was, now] = [old ? verdictOf(old) : "absent", verdictOf(r)];
      if (was === now) continue;
      const decided = DECIDED[r.id];
      out.lines.push(`${decided ? "decided" : "DIFFERS"}  ${agent.name}  ${r.id}: ${was} -> ${now}${decided ? ` (${decided})` : ""}`);
      if (!decided) {
        out.differences++;
        out.lines.push(`         before: ${old?.reason ?? ""}\n         after:  ${r.reason ?? ""}`);
      }
    }
    const counts = after.reduce<Record<string, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});
    out.lines.push(`${agent.name}: ${after.length} cases, ${JSON.stringify(counts)}`);
  } finally {
    await target.close();
  }
  return out;
}

/** The proxied agents, this many at a time (each has its own server and proxy). */
const CONCURRENCY = Number(process.env.VERDICT_DIFF_CONCURRENCY ?? 2) || 1;

async function main(): Promise<number> {
  const at = process.argv.indexOf("--base");
  const base = at > 0 ? process.argv[at + 1] : undefined;
  // --agents <text>: only the agents whose name contains it (`--agents proxy`: the proxied ones).
  const only = process.argv.indexOf("--agents");
  const filter = only > 0 ? (process.argv[only + 1] ?? "") : "";
  const projected = loadScenarioCases();
  const ids = new Set(projected.map((c) => c.id));
  const { dir, missing } = oldCases(base, ids);
  // A scenario case without an old copy (a new scenario, or a shallow clone) has nothing to compare with.
  if (missing.length)
    console.log(
      `${missing.length} case(s) without an old copy in git, not compared: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? " …" : ""}`,
    );
  const cases = projected.filter((c) => !missing.includes(c.id));
  // The SDK logs every error it answers with.
  console.error = () => undefined;
  const total: Compared = { lines: [], differences: 0, compared: 0 };
  const add = (r: Compared) => {
    for (const l of r.lines) console.log(l);
    total.differences += r.differences;
    total.compared += r.compared;
  };
  try {
    for (const agent of AGENTS.filter((a) => a.name.includes(filter))) add(await compare(agent, cases, dir));
    // The proxied agents in a small pool; their lines printed in table order.
    const queue = PROXIED.filter((a) => a.name.includes(filter));
    const results: Promise<Compared>[] = [];
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const i = next++;
        const p = compare(queue[i]!, cases, dir);
        results[i] = p;
        await p.catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    for (const r of results) add(await r);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${total.compared} verdicts compared with the old copies, ${total.differences} unexplained difference(s)`);
  // Nothing compared proves nothing: a clone without the history fails here.
  return total.differences || !total.compared ? 1 : 0;
}

process.exitCode = await main();
