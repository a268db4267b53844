// What the persistent default store costs over HTTP: blocking SendMessage (1.0 JSON-RPC, the echo
// path of the fixture agent) with autocannon against `buildServer` with MemoryTaskStore and with
// SqliteTaskStore (the `serve` default: a file, synchronous=NORMAL, each put committed before it
// returns), in the same run.
//
//   npx tsx bench/server-store.ts [--duration 10] [--runs 3]
//
// Each server runs in its own process (this file with `target memory|sqlite`), both started at
// once; the load runs alternate between them (memory, sqlite, memory, …) so that drift of a shared
// machine hits both alike. 50 connections; median requests/s of `--runs` runs (after one short
// warm-up each) with min–max, p99 latency, and the SQLite/memory ratio. Writes nothing but the
// temporary database file, removed at the end.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon, { type Result } from "autocannon";
import { median } from "./stats.js";

const args = process.argv.slice(2);

if (args[0] === "target") {
  const { buildServer, createFixtureAgent, MemoryTaskStore } = await import("../src/server/index.js");
  let stores = {};
  if (args[1] === "sqlite") {
    const { SqliteTaskStore } = await import("../src/server/sqlite-store.js");
    const file = args[2];
    if (!file) throw new Error("usage: server-store.ts target sqlite <file>");
    const store = new SqliteTaskStore(file);
    store.recoverInterrupted();
    stores = { store, pushConfigs: store.pushConfigs };
  } else stores = { store: new MemoryTaskStore() };
  const app = await buildServer({ agent: createFixtureAgent(), ...stores });
  await app.listen({ port: 0, host: "127.0.0.1" });
  process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
  process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
} else {
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const DURATION = opt("duration", 10);
  const RUNS = opt("runs", 3);
  const CONNECTIONS = 50;
  const dir = mkdtempSync(join(tmpdir(), "a2a-bench-store-"));

  const start = async (kind: "memory" | "sqlite"): Promise<{ child: ChildProcess; base: string }> => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/server-store.ts", "target", kind, join(dir, "bench.db")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        const m = /READY (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      });
      child.on("exit", (code) => reject(new Error(`${kind} target exited with ${code}`)));
    });
    return { child, base: `http://127.0.0.1:${port}` };
  };

  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: "bench", role: "ROLE_USER", parts: [{ text: "hello benchmark" }] } },
  });
  const load = async (base: string, duration: number): Promise<Result> => {
    const r = await autocannon({
      url: `${base}/`,
      method: "POST",
      connections: CONNECTIONS,
      duration,
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body,
    });
    if (r.errors || r.non2xx || r.timeouts) throw new Error(`load run had ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
    return r;
  };

  const targets = { memory: await start("memory"), sqlite: await start("sqlite") };
  try {
    const results: Record<"memory" | "sqlite", Result[]> = { memory: [], sqlite: [] };
    for (const kind of ["memory", "sqlite"] as const) await load(targets[kind].base, 2);
    for (let i = 0; i < RUNS; i++)
      for (const kind of ["memory", "sqlite"] as const) results[kind].push(await load(targets[kind].base, DURATION));
    const row = (kind: "memory" | "sqlite") => {
      const rps = results[kind].map((r) => r.requests.average);
      return {
        rps: median(rps),
        min: Math.min(...rps),
        max: Math.max(...rps),
        p99: median(results[kind].map((r) => r.latency.p99)),
      };
    };
    const m = row("memory");
    const s = row("sqlite");
    console.log(`blocking SendMessage, 1.0 JSON-RPC, ${CONNECTIONS} connections, ${RUNS} × ${DURATION} s each, alternating`);
    console.log("store    req/s (median, min–max)      p99 ms");
    for (const [name, r] of [
      ["memory", m],
      ["sqlite", s],
    ] as const)
      console.log(`${name.padEnd(8)} ${r.rps.toFixed(0).padStart(6)} (${r.min.toFixed(0)}–${r.max.toFixed(0)})`.padEnd(37) + `${r.p99}`);
    console.log(
      `sqlite / memory: ${(s.rps / m.rps).toFixed(2)}× (run by run: ${results.sqlite.map((r, i) => (r.requests.average / (results.memory[i]?.requests.average ?? NaN)).toFixed(2)).join(", ")})`,
    );
  } finally {
    for (const t of Object.values(targets)) {
      t.child.kill("SIGTERM");
      if (t.child.exitCode === null) await new Promise((r) => t.child.once("exit", r));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
