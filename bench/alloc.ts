// Bytes allocated per blocking send, in process, by the function that allocated them: V8's sampling
// heap profiler with the objects garbage collection has already freed kept in the samples, over
// blocking sends served as the fastify plugin serves them (decodeCall → TaskRuntime.sendMessage →
// encodeResult), after a warm-up. Allocation drives the garbage collector, a fifth of a send's
// server time in the profiles of bench/README.md; this shows where it comes from.
//
//   npx tsx bench/alloc.ts [--version 1.0|0.3] [--n 20000] [--top 30]
import { Session } from "node:inspector/promises";
import type * as v1_0 from "../generated/v1_0/index.js";
import { firstText, reply, TaskRuntime } from "../src/server/index.js";
import { decodeCall, encodeResult, type HttpRequestLike } from "../src/transport/server.js";
import { send0_3, send1_0 } from "./targets.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const VERSION = opt("version", "1.0");
const N = Number(opt("n", "20000"));
const TOP = Number(opt("top", "30"));

const runtime = new TaskRuntime({
  agent: { card: { name: "bench echo", description: "echo", version: "1", capabilities: {} }, handleMessage: (m) => reply(firstText(m)) },
  logger: { error: () => {}, warn: () => {} },
});
// The bodies the HTTP benchmarks load servers with (targets.ts).
const req: HttpRequestLike = {
  method: "POST",
  url: "/",
  headers: VERSION === "1.0" ? { "content-type": "application/json", "a2a-version": "1.0" } : { "content-type": "application/json" },
  body: VERSION === "1.0" ? send1_0 : send0_3,
};

async function serveOnce(): Promise<void> {
  const call = decodeCall(req, { binding: "JSONRPC" });
  if (call.kind === "reply") throw new Error(call.body);
  const result = await runtime.sendMessage(call.request as v1_0.SendMessageRequest, {
    principal: "bench",
    version: call.version,
    extensions: [],
  });
  encodeResult(call, result as never);
}

interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

for (let i = 0; i < N; i++) await serveOnce(); // warm-up: compiled code, a full task store
const session = new Session();
session.connect();
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 256,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
} as never);
for (let i = 0; i < N; i++) await serveOnce();
const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as { profile: { head: SampleNode } };
session.disconnect();

const bytes = new Map<string, number>();
let total = 0;
const walk = (n: SampleNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url.replace(/^.*\/(src|generated|bench|node_modules)\//, "$1/") || "(native)";
  const key = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
  bytes.set(key, (bytes.get(key) ?? 0) + n.selfSize);
  total += n.selfSize;
  n.children.forEach(walk);
};
walk(profile.head);
process.stdout.write(
  [
    `${VERSION} JSON-RPC blocking send, in process: ${Math.round(total / N).toLocaleString("en-US")} bytes allocated per send (${N} sends, sampled)`,
    "",
    ...[...bytes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([k, b]) => `${String(Math.round(b / N)).padStart(7)}  ${k}`),
    "",
  ].join("\n"),
);
