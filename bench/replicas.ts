// Replicas on PostgreSQL (issue 20): blocking SendMessage (1.0 JSON-RPC, an echo) with autocannon
// through one small round-robin proxy (test/support/round-robin.ts) in front of
//   - two `serve --store postgres://…` replicas on one database,
//   - one such replica (same database),
//   - the official SDK server on its own PostgreSQL store (DatabaseTaskStore, Kysely 0.28 + pg; its
//     schema made by the SDK's `a2a-db upgrade`), on a database of the same cluster,
// in the same run, on a throwaway cluster (test/support/postgres.ts). Every target goes through the
// same proxy, so the proxy's cost is in each figure alike. Load runs alternate between targets.
//
//   npx tsx bench/replicas.ts [--duration 10] [--runs 3]
import { execFileSync, type ChildProcess } from "node:child_process";
import type { Result } from "autocannon";
import { startPostgres } from "../test/support/postgres.js";
import { startRoundRobin, type RoundRobin } from "../test/support/round-robin.js";
import { serveChild, type ServeChild } from "../test/support/serve-child.js";
import { load, sendBody1_0, startTarget, type Target } from "./targets.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const DURATION = opt("duration", 10);
const RUNS = opt("runs", 3);
const CONNECTIONS = 50;

const body = sendBody1_0("echo hello benchmark");
const loadRun = (base: string, duration: number) => load(base, body, { "A2A-Version": "1.0" }, duration, CONNECTIONS);

async function sdkTarget(url: string): Promise<Target> {
  execFileSync(process.execPath, ["node_modules/@a2a-js/sdk/dist/cli/a2a_db.js", "upgrade", "--url", url], { stdio: "ignore" });
  return startTarget(["sdk", "postgres", url]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pg = await startPostgres();
const children: ServeChild[] = [];
const proxies: RoundRobin[] = [];
let sdk: ChildProcess | undefined;
try {
  const ours = pg.createDatabase("ours");
  const serveArgs = ["--store", ours];
  const [a, b] = await Promise.all([serveChild(serveArgs), serveChild(serveArgs)]);
  children.push(a, b);
  const s = await sdkTarget(pg.createDatabase("sdk"));
  sdk = s.child;
  const targets = {
    "two replicas": await startRoundRobin([a.url, b.url]),
    "one replica": await startRoundRobin([a.url]),
    "SDK, DatabaseTaskStore": await startRoundRobin([s.base]),
  };
  proxies.push(...Object.values(targets));
  const names = Object.keys(targets) as (keyof typeof targets)[];
  const results = Object.fromEntries(names.map((n) => [n, [] as Result[]])) as Record<(typeof names)[number], Result[]>;
  for (const n of names) await loadRun(targets[n].url, 2); // warm-up
  for (let run = 0; run < RUNS; run++) for (const n of names) results[n].push(await loadRun(targets[n].url, DURATION));
  const rps = (n: (typeof names)[number]) => median(results[n].map((r) => r.requests.average));
  const p99 = (n: (typeof names)[number]) => median(results[n].map((r) => r.latency.p99));
  console.log(`blocking SendMessage, ${CONNECTIONS} connections, ${RUNS} × ${DURATION} s, through the round-robin proxy:`);
  for (const n of names)
    console.log(
      `  ${n.padEnd(24)} ${rps(n).toFixed(0).padStart(6)} req/s (${results[n].map((r) => r.requests.average.toFixed(0)).join(", ")}), p99 ${p99(n)} ms`,
    );
  console.log(`  two / one replica: ${(rps("two replicas") / rps("one replica")).toFixed(2)}×`);
  console.log(`  two replicas / SDK: ${(rps("two replicas") / rps("SDK, DatabaseTaskStore")).toFixed(2)}×`);
  console.log(`  one replica / SDK: ${(rps("one replica") / rps("SDK, DatabaseTaskStore")).toFixed(2)}×`);
} finally {
  for (const p of proxies) await p.close();
  await Promise.all(children.map((c) => c.stop()));
  sdk?.kill("SIGKILL");
  await pg.stop();
}
