// Gateway benchmark: the same blocking SendMessage sent to a backend directly and through the
// gateway (src/gateway/), in the same run, each process started fresh.
//
//   npx tsx bench/gateway.ts [--requests 2000] [--duration 10] [--runs 3] [--no-sdk]
//
// Backends: our reference server and the @a2a-js/sdk server with the same echo agent
// (bench/server-targets.ts). The gateway (`a2a-toolkit gateway`, its own process) knows each
// backend twice: once as its card prefers (1.0 JSON-RPC) and once pinned to 0.3, so a 1.0 caller
// through the gateway also measures translation to 0.3 and back.
//
// Per route it measures
//   - latency: `--requests` sequential requests on one keep-alive connection (after 200 warm-up
//     requests), p50 and p99 in ms, direct and through the gateway; "added" is the difference;
//   - throughput: autocannon with 50 connections for `--duration` s, `--runs` runs, median req/s,
//     and the ratio gateway / direct.
// The machine is shared (2 cores run the backend, the gateway and the load generator), so the
// numbers are noisy; bench/README.md records runs. Prints a table; writes nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest, Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import autocannon, { type Result } from "autocannon";
import { median, quantile } from "./stats.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const REQUESTS = opt("requests", 2000);
const DURATION = opt("duration", 10);
const RUNS = opt("runs", 3);
const WITH_SDK = !args.includes("--no-sdk");
const CONNECTIONS = 50;

const children: ChildProcess[] = [];

/** Lines the gateway logged about failed backend calls (each one ended a task FAILED). */
let backendFailures = 0;

function startProcess(argv: string[], ready: RegExp, countFailures = false): Promise<string> {
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", countFailures ? "pipe" : "inherit"] });
  children.push(child);
  child.stderr?.on("data", (d: Buffer) => {
    const text = d.toString();
    backendFailures += (text.match(/backend failed/g) ?? []).length;
    process.stderr.write(text);
  });
  return new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const [, url] = ready.exec(out) ?? [];
      if (url !== undefined) resolve(url);
    });
    child.on("exit", (code) => reject(new Error(`${argv.join(" ")} exited with ${code}`)));
  });
}

const backend = async (which: "ours" | "sdk") =>
  `http://127.0.0.1:${await startProcess(["--import", "tsx", "bench/server-targets.ts", which], /READY (\d+)/)}`;

function body(version: "1.0" | "0.3", agentId: string): string {
  const metadata = { agent_id: agentId };
  if (version === "1.0")
    return JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: "bench", role: "ROLE_USER", parts: [{ text: "hello benchmark" }], metadata } },
    });
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: {
      message: { kind: "message", messageId: "bench", role: "user", parts: [{ kind: "text", text: "hello benchmark" }], metadata },
      configuration: { blocking: true },
    },
  });
}

const headersFor = (version: "1.0" | "0.3"): Record<string, string> =>
  version === "1.0" ? { "content-type": "application/json", "A2A-Version": "1.0" } : { "content-type": "application/json" };

/** One request on a keep-alive agent; resolves with the response text. */
function post(agent: Agent, url: string, headers: Record<string, string>, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(payload) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}: ${text}`))));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

async function latency(url: string, version: "1.0" | "0.3", agentId: string): Promise<{ p50: number; p99: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const payload = body(version, agentId);
  const headers = headersFor(version);
  const first = await post(agent, `${url}/`, headers, payload);
  if (!/completed|COMPLETED/.test(first)) throw new Error(`unexpected answer from ${url}: ${first.slice(0, 300)}`);
  for (let i = 0; i < 200; i++) await post(agent, `${url}/`, headers, payload);
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    await post(agent, `${url}/`, headers, payload);
    times.push(performance.now() - t0);
  }
  agent.destroy();
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

async function load(url: string, version: "1.0" | "0.3", agentId: string, duration: number): Promise<Result> {
  const r = await autocannon({
    url: `${url}/`,
    method: "POST",
    connections: CONNECTIONS,
    duration,
    headers: headersFor(version),
    body: body(version, agentId),
  });
  if (r.errors || r.non2xx || r.timeouts) throw new Error(`load run had ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
  return r;
}

async function throughput(url: string, version: "1.0" | "0.3", agentId: string): Promise<number> {
  await load(url, version, agentId, 2);
  const rps: number[] = [];
  for (let i = 0; i < RUNS; i++) rps.push((await load(url, version, agentId, DURATION)).requests.average);
  return median(rps);
}

interface Route {
  label: string;
  direct: string;
  directVersion: "1.0" | "0.3";
  callerVersion: "1.0" | "0.3";
  agentId: string;
}

async function main(): Promise<void> {
  const ours = await backend("ours");
  const sdk = WITH_SDK ? await backend("sdk") : undefined;
  const dir = mkdtempSync(join(tmpdir(), "a2a-bench-gateway-"));
  const config = join(dir, "gateway.json");
  writeFileSync(
    config,
    JSON.stringify({
      default: "ours",
      backends: [
        { name: "ours", url: ours },
        { name: "ours03", url: ours, version: "0.3" },
        ...(sdk
          ? [
              { name: "sdk", url: sdk },
              { name: "sdk03", url: sdk, version: "0.3" },
            ]
          : []),
      ],
    }),
  );
  const gateway = await startProcess(
    ["bin/a2a-toolkit.js", "gateway", "--port", "0", "--config", config],
    /listening on (http:\/\/\S+)/,
    true,
  );

  const routes: Route[] = [
    { label: "ours: 1.0 caller, 1.0 backend", direct: ours, directVersion: "1.0", callerVersion: "1.0", agentId: "ours" },
    { label: "ours: 0.3 caller, 1.0 backend", direct: ours, directVersion: "0.3", callerVersion: "0.3", agentId: "ours" },
    { label: "ours: 1.0 caller, 0.3 backend", direct: ours, directVersion: "1.0", callerVersion: "1.0", agentId: "ours03" },
  ];
  if (sdk)
    routes.push(
      { label: "sdk:  1.0 caller, 1.0 backend", direct: sdk, directVersion: "1.0", callerVersion: "1.0", agentId: "sdk" },
      { label: "sdk:  1.0 caller, 0.3 backend", direct: sdk, directVersion: "1.0", callerVersion: "1.0", agentId: "sdk03" },
    );

  console.log(
    `gateway benchmark: ${REQUESTS} sequential requests for latency; ${CONNECTIONS} connections × ${DURATION} s × ${RUNS} runs for throughput`,
  );
  console.log(
    "route                             | direct p50/p99 ms | gateway p50/p99 ms | added p50 ms | direct req/s | gateway req/s | ratio",
  );
  const rows: { label: string; added: number }[] = [];
  for (const r of routes) {
    const d = await latency(r.direct, r.directVersion, r.agentId);
    const g = await latency(gateway, r.callerVersion, r.agentId);
    const dr = await throughput(r.direct, r.directVersion, r.agentId);
    const gr = await throughput(gateway, r.callerVersion, r.agentId);
    rows.push({ label: r.label, added: g.p50 - d.p50 });
    console.log(
      `${r.label.padEnd(33)} | ${d.p50.toFixed(2).padStart(6)} / ${d.p99.toFixed(2).padStart(6)}   | ${g.p50.toFixed(2).padStart(6)} / ${g.p99
        .toFixed(2)
        .padStart(
          6,
        )}    | ${(g.p50 - d.p50).toFixed(2).padStart(8)}     | ${dr.toFixed(0).padStart(8)}     | ${gr.toFixed(0).padStart(9)}     | ${(gr / dr).toFixed(2)}x`,
    );
  }
  // autocannon drops its connections at the end of a run while the gateway still has their turns
  // in flight; let them finish before the processes go, so teardown logs no backend failures.
  await new Promise((r) => setTimeout(r, 1500));
  const worst = Math.max(...rows.map((r) => r.added));
  console.log(`backend calls that failed during the run (tasks ended FAILED): ${backendFailures}`);
  console.log(`target: added p50 ≤ 2 ms — worst route ${worst.toFixed(2)} ms: ${worst <= 2 ? "met" : "NOT met"}`);
  rmSync(dir, { recursive: true, force: true });
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    // The gateway first (started last), so no call of its reaches a backend that is going away.
    for (const c of [...children].reverse()) if (c.exitCode === null) c.kill("SIGTERM");
  });
