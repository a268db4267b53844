// Translation share of serving a request, in process (run: npx tsx bench/seam.ts [--rounds 7] [--n 4000]).
//
// Serves blocking SendMessage through the transport seam exactly as the fastify plugin does —
// decodeCall (JSON-RPC envelope or REST route, negotiation, decode + 0.3 upgrade) → TaskRuntime
// .sendMessage (the echo agent of bench/server-targets.ts, in-memory store) → encodeResult (0.3
// downgrade + encode, JSON text) — for 1.0 and 0.3 on both bindings, without HTTP. Per request it
// reports CPU µs (process.cpuUsage, so other processes on the shared cores count less) of (a) the whole serve path and (b) the translation: the codec's decodeRequest of the
// request and encodeResponse of the response, timed separately on the same inputs (the part of
// decodeCall/encodeResult that depends on the version). Rounds alternate the four cases; medians
// and min–max over rounds are printed. Nothing is written.
//
// --http: also serves the same requests over HTTP with the reference server (buildServer, in this
// process) under autocannon (a child process, 50 connections, --duration s per run), and reports the
// server's CPU µs per request — the time the reference server spends serving one — the translation
// share of it, and req/s. Runs alternate the four cases.
import * as v1_0 from "../generated/v1_0/index.js";
import { spawn } from "node:child_process";
import { buildServer, reply, TaskRuntime, firstText, type Agent, type CallContext } from "../src/server/index.js";
import { decodeCall, encodeResult, type DecodedCall, type HttpRequestLike } from "../src/transport/server.js";
import { requestJsonFromHttp, matchRoute, splitUrl } from "../src/transport/rest.js";
import { codecFor, restRequestSchema, restRoutes, type Binding } from "../src/versioning/codec.js";
import type { ProtocolVersion } from "../src/versioning/negotiate.js";
import { median } from "./stats.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const ROUNDS = opt("rounds", 7);
const N = opt("n", 4000);
const HTTP = args.includes("--http");
const DURATION = opt("duration", 5);

const agent: Agent = {
  card: { name: "bench echo", description: "echo", version: "1", capabilities: { streaming: true } },
  handleMessage: (m) => reply(firstText(m)),
};
const runtime = new TaskRuntime({ agent, logger: { error: () => {}, warn: () => {} } });

interface Case {
  name: string;
  version: ProtocolVersion;
  binding: Binding;
  req: HttpRequestLike;
}

const text = "hello benchmark";
const cases: Case[] = [
  {
    name: "1.0 JSON-RPC",
    version: "1.0",
    binding: "JSONRPC",
    req: {
      method: "POST",
      url: "/",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "bench", role: "ROLE_USER", parts: [{ text }] } },
      }),
    },
  },
  {
    name: "0.3 JSON-RPC",
    version: "0.3",
    binding: "JSONRPC",
    req: {
      method: "POST",
      url: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: {
          message: { kind: "message", messageId: "bench", role: "user", parts: [{ kind: "text", text }] },
          configuration: { blocking: true },
        },
      }),
    },
  },
  {
    name: "1.0 HTTP+JSON",
    version: "1.0",
    binding: "HTTP+JSON",
    req: {
      method: "POST",
      url: "/message:send",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ message: { messageId: "bench", role: "ROLE_USER", parts: [{ text }] } }),
    },
  },
  {
    name: "0.3 HTTP+JSON",
    version: "0.3",
    binding: "HTTP+JSON",
    req: {
      method: "POST",
      url: "/v1/message:send",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: { messageId: "bench", role: "ROLE_USER", content: [{ text }] },
        configuration: { blocking: true },
      }),
    },
  },
];

const ctxOf = (call: DecodedCall): CallContext => ({ principal: "bench", version: call.version, extensions: [] });

async function serveOnce(c: Case): Promise<string> {
  const call = decodeCall(c.req, { binding: c.binding });
  if (call.kind === "reply") throw new Error(`${c.name}: ${call.body}`);
  const result = await runtime.sendMessage(call.request as v1_0.SendMessageRequest, ctxOf(call));
  return encodeResult(call, result as never).body;
}

/** The codec's own work on this case's request and a response like the one served. */
async function translationInputs(c: Case) {
  const call = decodeCall(c.req, { binding: c.binding });
  if (call.kind === "reply") throw new Error(call.body);
  const result = await runtime.sendMessage(call.request as v1_0.SendMessageRequest, ctxOf(call));
  let wire: unknown;
  if (c.binding === "JSONRPC") wire = (JSON.parse(c.req.body as string) as { params: unknown }).params;
  else {
    const { path, query } = splitUrl(c.req.url);
    const m = matchRoute(restRoutes(c.version), c.req.method, path);
    if (!m || !("route" in m)) throw new Error("no route");
    wire = requestJsonFromHttp(restRequestSchema(c.version, "SendMessage"), m.route, m.params, query, JSON.parse(c.req.body as string));
  }
  return { wire, result };
}

/** CPU µs (user + system) of this process: robust to other processes sharing the cores, unlike wall time. */
function cpuNow(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

async function measure(c: Case, inputs: Awaited<ReturnType<typeof translationInputs>>) {
  // (a) the whole serve path
  let t0 = cpuNow();
  for (let i = 0; i < N; i++) await serveOnce(c);
  const serve = (cpuNow() - t0) / N;
  // (b) translation: decode (+ upgrade) of the request, (downgrade +) encode of the response
  const codec = codecFor(c.version, c.binding);
  t0 = cpuNow();
  for (let i = 0; i < N; i++) {
    codec.decodeRequest("SendMessage", inputs.wire);
    codec.encodeResponseText("SendMessage", inputs.result); // as encodeResult writes it
  }
  const translate = (cpuNow() - t0) / N;
  return { serve, translate };
}

const f = (x: number, d = 1) => x.toFixed(d);

/** A per-case median by the case's name; a name no case has is a typo in this file. */
function byName(values: Map<string, number>): (name: string) => number {
  return (name) => {
    const v = values.get(name);
    if (v === undefined) throw new Error(`no case named ${name}`);
    return v;
  };
}

async function main() {
  const samples = await Promise.all(
    cases.map(async (c) => ({
      c,
      inputs: await translationInputs(c),
      serve: [] as number[],
      translate: [] as number[],
      share: [] as number[],
    })),
  );
  for (let w = 0; w < 2; w++) for (const s of samples) await measure(s.c, s.inputs); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of samples) {
      const m = await measure(s.c, s.inputs);
      s.serve.push(m.serve);
      s.translate.push(m.translate);
      s.share.push((100 * m.translate) / m.serve);
    }
  }
  console.log(`SendMessage through the seam, in process; ${ROUNDS} rounds × ${N} requests; median (min–max)\n`);
  console.log("| Case | Serve path µs/req | Translation µs/req | Translation share of serving |");
  console.log("|---|---|---|---|");
  const medians = new Map<string, number>();
  for (const s of samples) {
    const c = s.c;
    medians.set(c.name, median(s.serve));
    console.log(
      `| ${c.name} | ${f(median(s.serve))} (${f(Math.min(...s.serve))}–${f(Math.max(...s.serve))}) | ${f(median(s.translate))} (${f(Math.min(...s.translate))}–${f(Math.max(...s.translate))}) | ${f(median(s.share))} % (${f(Math.min(...s.share))}–${f(Math.max(...s.share))}) |`,
    );
  }
  const med = byName(medians);
  console.log(
    `\n0.3/1.0 serve-path throughput: JSON-RPC ${f(med("1.0 JSON-RPC") / med("0.3 JSON-RPC"), 2)}×, HTTP+JSON ${f(med("1.0 HTTP+JSON") / med("0.3 HTTP+JSON"), 2)}×`,
  );
  if (HTTP) await http(byName(new Map(samples.map((s) => [s.c.name, median(s.translate)]))));
  await runtime.close();
}

/** One autocannon run in a child process: requests completed and req/s; any error or non-2xx aborts. */
function autocannon(base: string, c: Case): Promise<{ total: number; rps: number }> {
  const argv = ["-c", "50", "-d", String(DURATION), "-m", c.req.method, "-b", c.req.body as string, "--json"];
  for (const [k, v] of Object.entries(c.req.headers as Record<string, string>)) argv.push("-H", `${k}: ${v}`);
  argv.push(base + c.req.url);
  return new Promise((resolve, reject) => {
    const child = spawn("node_modules/.bin/autocannon", argv, { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", () => {
      try {
        const r = JSON.parse(out) as { requests: { total: number; average: number }; errors: number; timeouts: number; non2xx: number };
        if (r.errors || r.timeouts || r.non2xx)
          reject(new Error(`${c.name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`));
        else resolve({ total: r.requests.total, rps: r.requests.average });
      } catch (e) {
        reject(e);
      }
    });
  });
}

async function http(translate: (name: string) => number) {
  const app = await buildServer({ agent });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  for (const c of cases) await autocannon(base, { ...c }); // warm-up (short runs would do; keep it simple)
  const samples = cases.map((c) => ({ c, cpu: [] as number[], rps: [] as number[] }));
  const runs = Math.max(3, Math.min(ROUNDS, 5));
  for (let r = 0; r < runs; r++) {
    for (const { c, cpu, rps } of samples) {
      const t0 = cpuNow();
      const res = await autocannon(base, c);
      cpu.push((cpuNow() - t0) / res.total);
      rps.push(res.rps);
    }
  }
  await app.close();
  console.log(
    `\nOver HTTP (reference server in this process, autocannon 50 connections in a child, ${runs} runs × ${DURATION} s, alternating)\n`,
  );
  console.log("| Case | Server CPU µs/req | Translation share of it | req/s |");
  console.log("|---|---|---|---|");
  for (const { c, cpu, rps } of samples) {
    const m = median(cpu);
    console.log(
      `| ${c.name} | ${f(m)} (${f(Math.min(...cpu))}–${f(Math.max(...cpu))}) | ${f((100 * translate(c.name)) / m)} % | ${f(median(rps), 0)} (${f(Math.min(...rps), 0)}–${f(Math.max(...rps), 0)}) |`,
    );
  }
  const med = byName(new Map(samples.map((s) => [s.c.name, median(s.rps)])));
  const cpu = byName(new Map(samples.map((s) => [s.c.name, median(s.cpu)])));
  console.log(
    `\n0.3/1.0 over HTTP, req/s medians: JSON-RPC ${f(med("0.3 JSON-RPC") / med("1.0 JSON-RPC"), 2)}×, HTTP+JSON ${f(med("0.3 HTTP+JSON") / med("1.0 HTTP+JSON"), 2)}×` +
      `; CPU per request 0.3/1.0: JSON-RPC ${f(cpu("0.3 JSON-RPC") / cpu("1.0 JSON-RPC"), 2)}×, HTTP+JSON ${f(cpu("0.3 HTTP+JSON") / cpu("1.0 HTTP+JSON"), 2)}×`,
  );
}

await main();
