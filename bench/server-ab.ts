// Before/after on one machine: our server (memory store) from this checkout and from another
// checkout of an older commit, and the official SDK server, all three running at once, with the
// load runs interleaved (new, old, SDK; round after round) so that drift of shared cores hits all
// three alike. Two sequential runs of bench/server.ts, one per checkout, differed by more than the
// change being judged.
//
//   npx tsx bench/server-ab.ts --old <dir> [--runs 9] [--duration 6]
//
// <dir>: a checkout of the older commit with node_modules and this bench/server-targets.ts copied in
// (e.g. `git worktree add --detach <dir> 75fb6f4`, then `cp -a node_modules <dir>/` and
// `cp bench/server-targets.ts <dir>/bench/`). Per server: blocking 1.0 SendMessage and 0.3
// message/send (autocannon, 50 connections), medians over the rounds; then the ratios new/SDK,
// old/SDK and new/old, and new/old round by round. Writes nothing.
import { spawn, type ChildProcess } from "node:child_process";
import autocannon from "autocannon";
import { median } from "./stats.js";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const OLD = opt("old");
const RUNS = Number(opt("runs") ?? 9);
const DURATION = Number(opt("duration") ?? 6);
if (!OLD) {
  process.stderr.write("usage: npx tsx bench/server-ab.ts --old <checkout of the older commit> [--runs 9] [--duration 6]\n");
  process.exit(2);
}

const send1_0 = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: "bench", role: "ROLE_USER", parts: [{ text: "hello benchmark" }] } },
});
const send0_3 = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "message/send",
  params: {
    message: { kind: "message", messageId: "bench", role: "user", parts: [{ kind: "text", text: "hello benchmark" }] },
    configuration: { blocking: true },
  },
});

interface Server {
  name: string;
  child: ChildProcess;
  url: string;
  v1: number[];
  v03: number[];
}

async function start(name: string, cwd: string, which: "ours" | "sdk"): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/server-targets.ts", which], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      const m = /READY (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return { name, child, url: `http://127.0.0.1:${port}/`, v1: [], v03: [] };
}

async function load(url: string, body: string, headers: Record<string, string>, duration: number): Promise<number> {
  const r = await autocannon({
    url,
    method: "POST",
    connections: 50,
    duration,
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  if (r.errors || r.non2xx || r.timeouts) throw new Error(`load run had ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return Math.round(r.requests.average);
}

const servers = [await start("new", process.cwd(), "ours"), await start("old", OLD, "ours"), await start("SDK", process.cwd(), "sdk")];
try {
  for (const s of servers) {
    await load(s.url, send1_0, { "A2A-Version": "1.0" }, 2);
    await load(s.url, send0_3, {}, 2);
  }
  for (let r = 0; r < RUNS; r++)
    for (const s of servers) {
      process.stderr.write(`round ${r + 1}/${RUNS}: ${s.name} …\n`);
      s.v1.push(await load(s.url, send1_0, { "A2A-Version": "1.0" }, DURATION));
      s.v03.push(await load(s.url, send0_3, {}, DURATION));
    }
  const [n, o, sdk] = servers as [Server, Server, Server];
  const f = (x: number) => x.toFixed(2);
  const lines = [
    `node ${process.version}, 50 connections, ${DURATION} s per run, ${RUNS} interleaved rounds, medians`,
    "",
    "| server | 1.0 SendMessage req/s | 0.3 message/send req/s | 0.3 / 1.0 |",
    "|---|---|---|---|",
    ...servers.map((s) => `| ${s.name} | ${median(s.v1)} (${s.v1.join(", ")}) | ${median(s.v03)} | ${f(median(s.v03) / median(s.v1))}× |`),
    "",
    `1.0 req/s: new / SDK ${f(median(n.v1) / median(sdk.v1))}×, old / SDK ${f(median(o.v1) / median(sdk.v1))}×, new / old ${f(median(n.v1) / median(o.v1))}×`,
    `new / old, round by round: ${n.v1.map((x, i) => f(x / (o.v1[i] ?? NaN))).join(", ")}`,
  ];
  process.stdout.write(lines.join("\n") + "\n");
} finally {
  for (const s of servers) s.child.kill("SIGTERM");
}
