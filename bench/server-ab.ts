// Before/after on one machine: our server (memory store) from this checkout and from another
// checkout of an older commit, and the official SDK server, all three running at once, with the
// load runs interleaved (new, old, SDK; round after round) so that drift of shared cores hits all
// three alike. Two sequential runs of bench/server.ts, one per checkout, differed by more than the
// change being judged.
//
//   npx tsx bench/server-ab.ts --old <dir> [--runs 9] [--duration 6] [--store sqlite]
//
// `--store sqlite`: both of ours on their default SqliteTaskStore (a fresh file each, in a temporary
// directory); the SDK stays in memory, the comparison of the SQLite goals.
//
// <dir>: a checkout of the older commit with node_modules and this bench/server-targets.ts copied in
// (e.g. `git worktree add --detach <dir> 75fb6f4`, then `cp -a node_modules <dir>/` and
// `cp bench/server-targets.ts <dir>/bench/`). Per server: blocking 1.0 SendMessage and 0.3
// message/send (autocannon, 50 connections), req/s, 1.0 p99 and server CPU µs per request, medians over the rounds; then the ratios new/SDK,
// old/SDK and new/old, and new/old round by round. Writes nothing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./stats.js";
import { load, loadWithCpu, send0_3, send1_0, startTarget, stopTarget, type Target } from "./targets.js";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const OLD = opt("old");
const RUNS = Number(opt("runs") ?? 9);
const DURATION = Number(opt("duration") ?? 6);
const SQLITE = opt("store") === "sqlite";
if (!OLD || !["memory", "sqlite"].includes(opt("store") ?? "memory")) {
  process.stderr.write(
    "usage: npx tsx bench/server-ab.ts --old <checkout of the older commit> [--runs 9] [--duration 6] [--store sqlite]\n",
  );
  process.exit(2);
}

interface Server extends Target {
  name: string;
  v1: number[];
  p99: number[];
  v03: number[];
  /** Server CPU µs per request of each 1.0 run and of each 0.3 run. */
  cpu: number[];
  cpu03: number[];
}

const dir = mkdtempSync(join(tmpdir(), "server-ab-"));
async function start(name: string, cwd: string, which: "ours" | "sdk"): Promise<Server> {
  const args = which === "ours" && SQLITE ? [which, "sqlite", join(dir, `${name}.db`)] : [which];
  return { name, ...(await startTarget(args, cwd)), v1: [], p99: [], v03: [], cpu: [], cpu03: [] };
}

const servers = [await start("new", process.cwd(), "ours"), await start("old", OLD, "ours"), await start("SDK", process.cwd(), "sdk")];
try {
  for (const s of servers) {
    await load(s.base, send1_0, { "A2A-Version": "1.0" }, 2);
    await load(s.base, send0_3, {}, 2);
  }
  for (let r = 0; r < RUNS; r++)
    for (const s of servers) {
      process.stderr.write(`round ${r + 1}/${RUNS}: ${s.name} …\n`);
      const r1 = await loadWithCpu(s, send1_0, { "A2A-Version": "1.0" }, DURATION);
      s.v1.push(Math.round(r1.requests.average));
      s.p99.push(r1.latency.p99);
      s.cpu.push(r1.cpuPerRequest);
      const r03 = await loadWithCpu(s, send0_3, {}, DURATION);
      s.v03.push(Math.round(r03.requests.average));
      s.cpu03.push(r03.cpuPerRequest);
    }
  const [n, o, sdk] = servers as [Server, Server, Server];
  const f = (x: number) => x.toFixed(2);
  const lines = [
    `node ${process.version}, 50 connections, ${DURATION} s per run, ${RUNS} interleaved rounds, medians; ours ${SQLITE ? "on SQLite" : "in memory"}, the SDK in memory`,
    "",
    "| server | 1.0 SendMessage req/s | 1.0 p99 ms | 1.0 server CPU µs/request | 0.3 message/send req/s | 0.3 server CPU µs/request | 0.3 / 1.0 req/s | 1.0 / 0.3 CPU |",
    "|---|---|---|---|---|---|---|---|",
    ...servers.map(
      (s) =>
        `| ${s.name} | ${median(s.v1)} (${s.v1.join(", ")}) | ${median(s.p99)} (${s.p99.join(", ")}) | ${Math.round(median(s.cpu))} | ${median(s.v03)} | ${Math.round(median(s.cpu03))} | ${f(median(s.v03) / median(s.v1))}× | ${f(median(s.cpu) / median(s.cpu03))}× |`,
    ),
    "",
    `1.0 req/s: new / SDK ${f(median(n.v1) / median(sdk.v1))}×, old / SDK ${f(median(o.v1) / median(sdk.v1))}×, new / old ${f(median(n.v1) / median(o.v1))}×`,
    `new / old, round by round: ${n.v1.map((x, i) => f(x / (o.v1[i] ?? NaN))).join(", ")}`,
    `server CPU per 1.0 request: new / SDK ${f(median(n.cpu) / median(sdk.cpu))}×, new / old ${f(median(n.cpu) / median(o.cpu))}×`,
    `1.0 p99: new / SDK ${f(median(n.p99) / median(sdk.p99))}×, old / SDK ${f(median(o.p99) / median(sdk.p99))}×`,
  ];
  process.stdout.write(lines.join("\n") + "\n");
} finally {
  await Promise.all(servers.map(stopTarget));
  rmSync(dir, { recursive: true, force: true });
}
