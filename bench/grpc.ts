// gRPC benchmark: our server (buildServer({ grpc: true }): connect-node on the HTTP port) side by
// side with the official SDK's gRPC server (@a2a-js/sdk/server/grpc on @grpc/grpc-js) running the
// same echo agent (bench/server-targets.ts `ours+grpc` / `sdk+grpc`), each in its own process,
// both started at once. autocannon speaks no gRPC: the load comes from a small closed-loop
// generator over a gRPC client library, once over each library the adapter could have been built
// on: @connectrpc/connect-node (createGrpcTransport) and @grpc/grpc-js (Client.makeUnaryRequest).
//
//   npx tsx bench/grpc.ts [--runs 5] [--duration 5] [--concurrency 50] [--client grpc-js|connect-node|both]
//                         [--no-streams] [--old <dir>] [--cpu-prof <dir>]
//
// Blocking 1.0 SendMessage, `concurrency` calls in flight on one HTTP/2 connection for `duration` s
// after a warm-up, in `runs` interleaved rounds (ours, SDK, ours, SDK, …; per client library), so
// that drift of the shared cores hits both alike: medians of req/s, p50 and p99 over the rounds, the
// ratio of the medians and the ratio round by round. `--old <dir>` adds a third server, ours from
// another checkout (prepared as for bench/server-ab.ts), to judge a change: new / old in the same
// rounds. Then (unless --no-streams) the time to receive a whole SendStreamingMessage of 100 and of
// 2,000 chunks (one call at a time, median of several). Prints tables and ratios; writes nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { create, fromBinary, toBinary, type DescMethod } from "@bufbuild/protobuf";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as v1_0 from "../generated/v1_0/index.js";
import { median, spread } from "./stats.js";
import { cpuMicros } from "./targets.js";

const args = process.argv.slice(2);
const str = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const opt = (name: string, dflt: number) => Number(str(name) ?? dflt);
const DURATION_S = opt("duration", 5);
const CONCURRENCY = opt("concurrency", 50);
const RUNS = opt("runs", 5);
const CLIENT = str("client") ?? "both";
const OLD = str("old");
const STREAMS = !args.includes("--no-streams");
/** `--cpu-prof <dir>`: each server process writes CPU profiles under it (read the largest with bench/profile.ts). */
const PROF = str("cpu-prof");
if (!["grpc-js", "connect-node", "both"].includes(CLIENT)) throw new Error("--client grpc-js|connect-node|both");

interface Target {
  child: ChildProcess;
  address: string;
}

async function start(which: "ours+grpc" | "sdk+grpc", cwd = process.cwd()): Promise<Target> {
  // One folder per server: node writes a profile per thread (tsx's loader runs in one of its own).
  const prof = PROF ? ["--cpu-prof", "--cpu-prof-dir", `${PROF}/${which}-${cwd === process.cwd() ? "new" : "old"}`] : [];
  const child = spawn(process.execPath, [...prof, "--import", "tsx", "bench/server-targets.ts", which], {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      const m = /READY \d+ GRPC (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`${which} exited with ${code}`)));
  });
  return { child, address: `127.0.0.1:${port}` };
}

function stop(t: Target): Promise<void> {
  return new Promise((resolve) => {
    t.child.once("exit", () => resolve());
    t.child.kill("SIGTERM");
  });
}

const method = (name: string) => v1_0.A2AService.methods.find((m) => m.name === name)!;
const SEND = method("SendMessage") as DescMethod & { methodKind: "unary" };
const STREAM = method("SendStreamingMessage") as DescMethod & { methodKind: "server_streaming" };
let n = 0;
const request = (text: string) =>
  create(v1_0.SendMessageRequestSchema, {
    message: { messageId: `b-${++n}`, role: v1_0.Role.USER, parts: [{ content: { case: "text", value: text } }] },
  });

/** One client library: a unary SendMessage and a whole stream (resolves with the number of events). */
interface Caller {
  send(text: string): Promise<void>;
  stream(text: string): Promise<number>;
  close(): void;
}

function connectCaller(address: string): Caller {
  const t = createGrpcTransport({ baseUrl: `http://${address}` });
  const header = { "a2a-version": "1.0" };
  return {
    async send(text) {
      const r = await t.unary(SEND, undefined, 30_000, header, request(text));
      if ((r.message as v1_0.SendMessageResponse).payload.case !== "task") throw new Error("not a task");
    },
    async stream(text) {
      const r = await t.stream(
        STREAM,
        undefined,
        60_000,
        header,
        (async function* () {
          yield request(text);
        })(),
      );
      let count = 0;
      for await (const _ of r.message) count++;
      return count;
    },
    close() {},
  };
}

function grpcJsCaller(address: string): Caller {
  const c = new grpc.Client(address, grpc.credentials.createInsecure());
  const ser = (m: v1_0.SendMessageRequest) => Buffer.from(toBinary(v1_0.SendMessageRequestSchema, m));
  const md = new grpc.Metadata();
  md.set("a2a-version", "1.0");
  return {
    send(text) {
      return new Promise((resolve, reject) =>
        c.makeUnaryRequest(
          `/${v1_0.A2AService.typeName}/SendMessage`,
          ser,
          (b: Buffer) => fromBinary(v1_0.SendMessageResponseSchema, b),
          request(text),
          md,
          { deadline: Date.now() + 30_000 },
          (err, r) => (err ? reject(err) : r?.payload.case === "task" ? resolve() : reject(new Error("not a task"))),
        ),
      );
    },
    stream(text) {
      return new Promise((resolve, reject) => {
        const call = c.makeServerStreamRequest(
          `/${v1_0.A2AService.typeName}/SendStreamingMessage`,
          ser,
          (b: Buffer) => fromBinary(v1_0.StreamResponseSchema, b),
          request(text),
          md,
          { deadline: Date.now() + 60_000 },
        );
        let count = 0;
        call.on("data", () => count++);
        call.on("error", reject);
        call.on("end", () => resolve(count));
      });
    },
    close: () => c.close(),
  };
}

/** Closed loop: `CONCURRENCY` callers send back to back for `seconds`; latencies in ms. */
async function load(caller: Caller, seconds: number): Promise<{ rps: number; p50: number; p99: number; elapsed: number }> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  let errors = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await caller.send("hi");
        latencies.push(performance.now() - t0);
      } catch (e) {
        if (++errors === 1) process.stderr.write(`error: ${(e as Error).message}\n`);
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  if (errors) throw new Error(`${errors} failed calls`);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), elapsed };
}

async function streamMs(caller: Caller, chunks: number, times: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    const events = await caller.stream(`stream ${chunks}`);
    ms.push(performance.now() - t0);
    if (events < chunks) throw new Error(`stream of ${chunks} chunks gave ${events} events`);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)]!;
}

const fmt = (x: number, d = 0) => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const f2 = (x: number) => fmt(x, 2);

interface Server {
  name: string;
  target: Target;
  /** Per client library: one load run per round. */
  runs: Record<string, { rps: number; p50: number; p99: number; cpu: number }[]>;
}

const LIBS = (
  [
    ["grpc-js", grpcJsCaller],
    ["connect-node", connectCaller],
  ] as const
).filter(([lib]) => CLIENT === "both" || CLIENT === lib);

const servers: Server[] = await Promise.all([
  start("ours+grpc").then((target) => ({ name: OLD ? "new" : "a2a-toolkit", target, runs: {} })),
  start("sdk+grpc").then((target) => ({ name: "@a2a-js/sdk", target, runs: {} })),
  ...(OLD ? [start("ours+grpc", OLD).then((target) => ({ name: "old", target, runs: {} }))] : []),
]);
const lines: string[] = [];
try {
  const callers = new Map(servers.map((s) => [s, LIBS.map(([lib, make]) => [lib, make(s.target.address)] as const)]));
  for (const s of servers) for (const [, caller] of callers.get(s)!) await load(caller, 2); // warm-up
  for (let r = 0; r < RUNS; r++)
    for (const [li] of LIBS.entries())
      for (const s of servers) {
        const [lib, caller] = callers.get(s)![li]!;
        const cpu0 = cpuMicros(s.target.child.pid);
        const l = await load(caller, DURATION_S);
        // The server's CPU time per call: robust to load from other processes, unlike req/s.
        const cpu = (cpuMicros(s.target.child.pid) - cpu0) / (l.rps * l.elapsed);
        (s.runs[lib] ??= []).push({ ...l, cpu });
        process.stderr.write(`round ${r + 1}/${RUNS}: ${lib} → ${s.name}: ${fmt(l.rps)} req/s, ${fmt(cpu)} µs CPU/call\n`);
      }
  const [ours, sdk, old] = servers as [Server, Server, Server | undefined];
  lines.push(
    `gRPC blocking 1.0 SendMessage, ${CONCURRENCY} calls in flight on one connection, ${DURATION_S} s per load run, ${RUNS} interleaved rounds, medians (Node ${process.version})`,
    "",
    "| client library | server | SendMessage req/s (min–max) | p50 ms | p99 ms | server CPU µs/call |",
    "|---|---|---|---|---|---|",
  );
  for (const [lib] of LIBS)
    for (const s of servers) {
      const rs = s.runs[lib]!;
      const rps = spread(rs.map((x) => x.rps));
      lines.push(
        `| ${lib} | ${s.name} | ${fmt(rps.median)} (${fmt(rps.min)}–${fmt(rps.max)}) | ${fmt(median(rs.map((x) => x.p50)), 1)} | ${fmt(median(rs.map((x) => x.p99)), 1)} | ${fmt(median(rs.map((x) => x.cpu)))} |`,
      );
    }
  lines.push("");
  for (const [lib] of LIBS) {
    const m = (s: Server, k: "rps" | "p99" | "cpu") => median(s.runs[lib]!.map((x) => x[k]));
    const byRound = (a: Server, b: Server) => a.runs[lib]!.map((x, i) => f2(x.rps / b.runs[lib]![i]!.rps)).join(", ");
    lines.push(
      `${lib} client: ${ours.name} / SDK ${f2(m(ours, "rps") / m(sdk, "rps"))}× req/s (rounds ${byRound(ours, sdk)}), p99 ${f2(m(ours, "p99") / m(sdk, "p99"))}×, server CPU per call ${f2(m(ours, "cpu") / m(sdk, "cpu"))}×`,
    );
    if (old)
      lines.push(
        `${lib} client: old / SDK ${f2(m(old, "rps") / m(sdk, "rps"))}×, new / old ${f2(m(ours, "rps") / m(old, "rps"))}× (rounds ${byRound(ours, old)}), server CPU per call new / old ${f2(m(ours, "cpu") / m(old, "cpu"))}×`,
      );
  }
  if (STREAMS) {
    lines.push("", "| client library | server | stream 100 chunks ms | stream 2,000 chunks ms |", "|---|---|---|---|");
    for (const [li, [lib]] of LIBS.entries())
      for (const s of servers) {
        const caller = callers.get(s)![li]![1];
        await streamMs(caller, 100, 2);
        const s100 = await streamMs(caller, 100, 9);
        const s2000 = await streamMs(caller, 2000, s.name === "@a2a-js/sdk" ? 1 : 5);
        lines.push(`| ${lib} | ${s.name} | ${fmt(s100, 1)} | ${fmt(s2000, 1)} |`);
      }
  }
  for (const cs of callers.values()) for (const [, c] of cs) c.close();
} finally {
  await Promise.all(servers.map((s) => stop(s.target)));
}
process.stdout.write(lines.join("\n") + "\n");
