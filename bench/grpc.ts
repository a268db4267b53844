// gRPC benchmark: our server (buildServer({ grpc: true }): connect-node on the HTTP port) side by
// side with the official SDK's gRPC server (@a2a-js/sdk/server/grpc on @grpc/grpc-js) running the
// same echo agent (bench/server-targets.ts `ours+grpc` / `sdk+grpc`), each in its own process.
// autocannon speaks no gRPC: the load comes from a small closed-loop generator over a gRPC client
// library, run twice, once over each library the adapter could have been built on:
// @connectrpc/connect-node (createGrpcTransport) and @grpc/grpc-js (Client.makeUnaryRequest).
//
//   npx tsx bench/grpc.ts [--duration 5] [--concurrency 50]
//
// Measures, per (client library, server): blocking 1.0 SendMessage, `concurrency` calls in flight
// on one HTTP/2 connection for `duration` s after a 1 s warm-up (req/s, p50/p99 ms); then the
// time to receive a whole SendStreamingMessage of 100 and of 2,000 chunks (one call at a time,
// median of several). Prints a table and the ratios; writes nothing.
import { spawn, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { create, fromBinary, toBinary, type DescMethod } from "@bufbuild/protobuf";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as v1_0 from "../generated/v1_0/index.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const DURATION_S = opt("duration", 5);
const CONCURRENCY = opt("concurrency", 50);

interface Target {
  child: ChildProcess;
  address: string;
}

async function start(which: "ours+grpc" | "sdk+grpc"): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/server-targets.ts", which], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
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
async function load(caller: Caller, seconds: number): Promise<{ rps: number; p50: number; p99: number }> {
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
  return { rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99) };
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

const rows: string[] = [];
const results: Record<string, Record<string, { rps: number; p99: number; s100: number; s2000: number }>> = {};
for (const which of ["sdk+grpc", "ours+grpc"] as const) {
  const target = await start(which);
  const server = which === "ours+grpc" ? "a2a-toolkit" : "@a2a-js/sdk";
  try {
    for (const [lib, make] of [
      ["connect-node", connectCaller],
      ["grpc-js", grpcJsCaller],
    ] as const) {
      const caller = make(target.address);
      await load(caller, 1); // warm-up
      const l = await load(caller, DURATION_S);
      process.stderr.write(`${lib} → ${server}: ${fmt(l.rps)} req/s; streams…\n`);
      await streamMs(caller, 100, 2);
      const s100 = await streamMs(caller, 100, 9);
      const s2000 = await streamMs(caller, 2000, which === "sdk+grpc" ? 1 : 5);
      caller.close();
      (results[lib] ??= {})[server] = { rps: l.rps, p99: l.p99, s100, s2000 };
      rows.push(`| ${lib} | ${server} | ${fmt(l.rps)} | ${fmt(l.p50, 1)} | ${fmt(l.p99, 1)} | ${fmt(s100, 1)} | ${fmt(s2000, 1)} |`);
    }
  } finally {
    await stop(target);
  }
}

process.stdout.write(
  [
    `gRPC, ${CONCURRENCY} calls in flight on one connection, ${DURATION_S} s per load run (Node ${process.version})`,
    "",
    "| client library | server | SendMessage req/s | p50 ms | p99 ms | stream 100 chunks ms | stream 2,000 chunks ms |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "Ratios a2a-toolkit / @a2a-js/sdk:",
    ...Object.entries(results).map(([lib, r]) => {
      const a = r["a2a-toolkit"]!;
      const b = r["@a2a-js/sdk"]!;
      return `  ${lib} client: SendMessage ${fmt(a.rps / b.rps, 2)}× req/s, p99 ${fmt(a.p99 / b.p99, 2)}×, stream 100 ${fmt(a.s100 / b.s100, 2)}×, stream 2,000 ${fmt(a.s2000 / b.s2000, 3)}×`;
    }),
    "",
  ].join("\n"),
);
