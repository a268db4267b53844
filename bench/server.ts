// Server benchmark: our reference server side by side with an @a2a-js/sdk server running the same
// echo agent (bench/server-targets.ts), each in its own process, both started at once.
//
//   npx tsx bench/server.ts [--duration 10] [--runs 3]
//   npx tsx bench/server.ts --stores [--duration 10] [--runs 3]
//
// Measures, per target: blocking SendMessage over 1.0 JSON-RPC and message/send over 0.3 JSON-RPC
// with autocannon (50 connections; `--runs` interleaved rounds: ours 1.0, ours 0.3, SDK 1.0, SDK 0.3, …;
// medians reported with min–max, and ours / SDK round by round), then the
// time to receive a whole SSE stream of 100 and of 2,000 chunks (one client; median of several).
// Prints a table and the ratios the issue sets targets for; writes nothing.
//
// `--stores`: blocking 1.0 SendMessage only, against four servers started at once: ours with
// `--store memory` and with its default SQLite store, the SDK with its in-memory store and with its
// DatabaseTaskStore on SQLite (bench/server-targets.ts). The load runs alternate between the four
// (run 1 of each, run 2 of each, …) so that a change of load on shared cores hits all alike; the
// table gives req/s and p99 (medians) and our SQLite default's ratios to the targets. Writes
// only the temporary database files, removed at the end.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Result } from "autocannon";
import { median, spread } from "./stats.js";
import { load as loadRun, loadWithCpu, send0_3, send1_0, startTarget, stopTarget, type Target } from "./targets.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const DURATION = opt("duration", 10);
const RUNS = opt("runs", 3);
const CONNECTIONS = 50;

const start = (which: "ours" | "sdk", sqliteFile?: string) => startTarget(sqliteFile ? [which, "sqlite", sqliteFile] : [which]);
const load = (base: string, body: string, headers: Record<string, string>, duration = DURATION) =>
  loadRun(base, body, headers, duration, CONNECTIONS);

type Run = Result & { cpuPerRequest: number };
/** One measured load run: req/s, latency and the server's own CPU time per request. */
const measure = (t: Target, body: string, headers: Record<string, string>) => loadWithCpu(t, body, headers, DURATION, CONNECTIONS);

/** Median and spread of load runs. */
function summary(rs: Run[]) {
  const rps = spread(rs.map((r) => r.requests.average));
  const p99 = spread(rs.map((r) => r.latency.p99));
  const cpu = median(rs.map((r) => r.cpuPerRequest));
  return { rps: rps.median, rpsMin: rps.min, rpsMax: rps.max, p99: p99.median, p99Min: p99.min, p99Max: p99.max, cpu };
}

/**
 * `runs` rounds; in each, both servers (started at once) serve a run of the 1.0 and one of the 0.3
 * send (ours 1.0, ours 0.3, SDK 1.0, SDK 0.3, …) after one short warm-up run of each, so that
 * neither server nor version always runs on the warmer process or the quieter minute.
 */
async function interleavedRuns(targets: readonly Target[], runs: number) {
  const sends = () =>
    [
      { body: send1_0, headers: { "A2A-Version": "1.0" }, results: [] as Run[] },
      { body: send0_3, headers: {}, results: [] as Run[] },
    ] as const;
  const perServer = targets.map((t) => ({ t, sends: sends() }));
  for (const { t, sends } of perServer) for (const s of sends) await load(t.base, s.body, s.headers, 2);
  for (let i = 0; i < runs; i++)
    for (const { t, sends } of perServer) {
      process.stderr.write(`round ${i + 1}/${runs}: ${t.base} …\n`);
      for (const s of sends) s.results.push(await measure(t, s.body, s.headers));
    }
  return perServer.map(({ sends }) => ({ v1: summary(sends[0].results), v03: summary(sends[1].results), v1Runs: sends[0].results }));
}

/** Milliseconds from sending SendStreamingMessage to the end of the stream; checks the chunk count. */
async function streamOnce(base: string, n: number): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendStreamingMessage",
    params: { message: { messageId: `s-${n}`, role: "ROLE_USER", parts: [{ text: `stream ${n}` }] } },
  });
  const t0 = performance.now();
  const res = await fetch(`${base}/`, { method: "POST", headers: { "content-type": "application/json", "A2A-Version": "1.0" }, body });
  const text = await res.text();
  const ms = performance.now() - t0;
  const chunks = text.split("\n\n").filter((f) => f.includes('"artifactUpdate"')).length;
  if (chunks !== n) throw new Error(`expected ${n} chunks, got ${chunks}`);
  return ms;
}

async function streams(base: string, n: number, reps: number, warmups = 3): Promise<{ median: number; min: number; max: number }> {
  for (let i = 0; i < warmups; i++) await streamOnce(base, n);
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) xs.push(await streamOnce(base, n));
  return spread(xs);
}

if (args.includes("--stores")) {
  await stores();
  process.exit(0);
}

/** The --stores table: four servers, alternating load runs of blocking 1.0 SendMessage. */
async function stores(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "a2a-bench-stores-"));
  const names = ["ours memory", "ours SQLite (default)", "SDK memory", "SDK SQLite"] as const;
  const targets = await Promise.all([start("ours"), start("ours", join(dir, "ours.db")), start("sdk"), start("sdk", join(dir, "sdk.db"))]);
  try {
    const headers = { "A2A-Version": "1.0" };
    for (const t of targets) await load(t.base, send1_0, headers, 2);
    const runs = targets.map((t, i) => ({ t, name: names[i], results: [] as Run[] }));
    for (let r = 0; r < RUNS; r++)
      for (const { t, name, results } of runs) {
        process.stderr.write(`run ${r + 1}/${RUNS}: ${name} …\n`);
        results.push(await measure(t, send1_0, headers));
      }
    const mid = (xs: number[]) => {
      const m = [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      if (m === undefined) throw new Error("no runs to take the median of");
      return m;
    };
    const rows = runs.map(({ name, results: rs }) => {
      const rps = rs.map((r) => r.requests.average);
      return {
        name,
        rps: mid(rps),
        min: Math.min(...rps),
        max: Math.max(...rps),
        p99: mid(rs.map((r) => r.latency.p99)),
        cpu: mid(rs.map((r) => r.cpuPerRequest)),
      };
    });
    const [oursMem, oursSql, sdkMem, sdkSql] = rows;
    const [memRuns, sqlRuns] = runs.map((r) => r.results);
    if (!oursMem || !oursSql || !sdkMem || !sdkSql || !memRuns || !sqlRuns) throw new Error("expected a row per server");
    const f = (x: number, d = 0) => x.toLocaleString("en", { maximumFractionDigits: d, minimumFractionDigits: d });
    const check = (ok: boolean) => (ok ? "✅" : "❌");
    const perRun = sqlRuns.map((r, i) => {
      const m = memRuns[i];
      if (!m) throw new Error("expected as many runs of each server");
      return f(r.requests.average / m.requests.average, 2);
    });
    const lines = [
      `node ${process.version}, blocking 1.0 SendMessage (JSON-RPC), ${CONNECTIONS} connections, ${DURATION} s per run, ` +
        `median of ${RUNS} alternating runs (min–max)`,
      "",
      "| server | req/s | p99 ms | server CPU µs/request |",
      "|---|---|---|---|",
      ...rows.map((r) => `| ${r.name} | ${f(r.rps)} (${f(r.min)}–${f(r.max)}) | ${r.p99} | ${f(r.cpu)} |`),
      "",
      "| ours SQLite (default) vs | ratio | target |",
      "|---|---|---|",
      `| SDK memory, req/s | ${f(oursSql.rps / sdkMem.rps, 2)}× | ≥ 3× ${check(oursSql.rps >= 3 * sdkMem.rps)} |`,
      `| SDK SQLite, req/s | ${f(oursSql.rps / sdkSql.rps, 2)}× | ≥ 5× ${check(oursSql.rps >= 5 * sdkSql.rps)} |`,
      `| ours memory, req/s | ${f(oursSql.rps / oursMem.rps, 2)}× | ≥ 0.6× ${check(oursSql.rps >= 0.6 * oursMem.rps)} |`,
      `| SDK memory, p99 | ${f(oursSql.p99 / sdkMem.p99, 2)}× | ≤ ⅓ ${check(oursSql.p99 <= sdkMem.p99 / 3)} |`,
      `| SDK memory, server CPU per request | ${f(oursSql.cpu / sdkMem.cpu, 2)}× | |`,
      "",
      `run by run, ours SQLite / ours memory: ${perRun.join(", ")}`,
      `run by run, p99 ms: ${runs.map(({ name, results: rs }) => `${name} ${rs.map((r) => r.latency.p99).join(", ")}`).join("; ")}`,
    ];
    process.stdout.write(lines.join("\n") + "\n");
  } finally {
    await Promise.all(targets.map(stopTarget));
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Record<string, Record<string, unknown>> = {};
const both = await Promise.all([start("ours"), start("sdk")]);
let perRound = "";
try {
  process.stderr.write("1.0 SendMessage and 0.3 message/send, both servers in the same rounds …\n");
  const [o, k] = await interleavedRuns(both, RUNS);
  perRound = o!.v1Runs.map((r, i) => (r.requests.average / k!.v1Runs[i]!.requests.average).toFixed(2)).join(", ");
  for (const [which, t, runs] of [
    ["ours", both[0], o!],
    ["sdk", both[1], k!],
  ] as const) {
    process.stderr.write(`${which}: SSE streams …\n`);
    const s100 = await streams(t.base, 100, 21);
    // The SDK server needs seconds per 2,000-chunk stream: fewer repetitions there.
    const s2000 = which === "sdk" ? await streams(t.base, 2000, 3, 1) : await streams(t.base, 2000, 9);
    results[which] = { v1: runs.v1, v03: runs.v03, s100, s2000 };
  }
} finally {
  await Promise.all(both.map(stopTarget));
}

const f = (x: number, d = 0) => x.toFixed(d);
const ours = results.ours as {
  v1: ReturnType<typeof summary>;
  v03: ReturnType<typeof summary>;
  s100: { median: number };
  s2000: { median: number; min: number; max: number };
};
const sdk = results.sdk as typeof ours;
const lines = [
  `node ${process.version}, ${CONNECTIONS} connections, ${DURATION} s per run, median of ${RUNS} interleaved rounds (min–max)`,
  "",
  "| Measure | @a2a-js/sdk 1.3.0 | a2a-toolkit | Ratio |",
  "|---|---|---|---|",
  `| 1.0 SendMessage, req/s | ${f(sdk.v1.rps)} (${f(sdk.v1.rpsMin)}–${f(sdk.v1.rpsMax)}) | ${f(ours.v1.rps)} (${f(ours.v1.rpsMin)}–${f(ours.v1.rpsMax)}) | ${f(ours.v1.rps / sdk.v1.rps, 2)}× |`,
  `| 1.0 SendMessage, p99 ms | ${f(sdk.v1.p99)} (${f(sdk.v1.p99Min)}–${f(sdk.v1.p99Max)}) | ${f(ours.v1.p99)} (${f(ours.v1.p99Min)}–${f(ours.v1.p99Max)}) | ${f(ours.v1.p99 / sdk.v1.p99, 2)}× |`,
  `| 0.3 message/send, req/s | ${f(sdk.v03.rps)} (${f(sdk.v03.rpsMin)}–${f(sdk.v03.rpsMax)}) | ${f(ours.v03.rps)} (${f(ours.v03.rpsMin)}–${f(ours.v03.rpsMax)}) | ${f(ours.v03.rps / sdk.v03.rps, 2)}× |`,
  `| 0.3 message/send, p99 ms | ${f(sdk.v03.p99)} | ${f(ours.v03.p99)} | ${f(ours.v03.p99 / sdk.v03.p99, 2)}× |`,
  `| 1.0 SendMessage, server CPU µs/request | ${f(sdk.v1.cpu)} | ${f(ours.v1.cpu)} | ${f(ours.v1.cpu / sdk.v1.cpu, 2)}× |`,
  `| 0.3 message/send, server CPU µs/request | ${f(sdk.v03.cpu)} | ${f(ours.v03.cpu)} | ${f(ours.v03.cpu / sdk.v03.cpu, 2)}× |`,
  `| SSE 100 chunks, ms (median) | ${f(sdk.s100.median, 1)} | ${f(ours.s100.median, 1)} | ${f(ours.s100.median / sdk.s100.median, 2)}× |`,
  `| SSE 2,000 chunks, ms (median) | ${f(sdk.s2000.median, 1)} | ${f(ours.s2000.median, 1)} (${f(ours.s2000.min, 1)}–${f(ours.s2000.max, 1)}) | ${f(ours.s2000.median / sdk.s2000.median, 2)}× |`,
  "",
  `1.0 SendMessage a2a-toolkit / SDK, round by round: ${perRound}`,
  `a2a-toolkit 0.3 path vs 1.0 path (throughput): ${f(ours.v03.rps / ours.v1.rps, 2)}× (medians; runs ${f(ours.v03.rpsMin)}–${f(ours.v03.rpsMax)} vs ${f(ours.v1.rpsMin)}–${f(ours.v1.rpsMax)} req/s)`,
];
process.stdout.write(lines.join("\n") + "\n");
