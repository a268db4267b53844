// Fuzzing `a2a-toolkit serve` (issue 18): valid-ish and malformed JSON-RPC and HTTP+JSON requests of
// both versions, hostile one-token inputs (issue 28: 1e999, NaN, nesting to 10,000, bad timestamps,
// 64 KB ids), gRPC calls of both services (NaN/Infinity in Structs, deep Structs, out-of-range
// timestamps, 64 KB ids; no INTERNAL, no hang: each call has a 10 s deadline), and raw malformed HTTP, against the real command on the SQLite store. Asserts: the
// process never exits, no reply is a 5xx (nor a JSON-RPC InternalError), every error body is
// A2A-shaped (JSON-RPC error envelope, AIP-193, or the 0.3 REST body with top-level code and
// message), a connection the server closes got `Connection: close`, and the server answers
// normally afterwards. Fixed seed; A2A_FUZZ_RUNS sets the number of requests (default 2,000;
// `make test-fuzz` runs 30,000).
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { spawnCli } from "../support/serve-child.js";

const RUNS = Number(process.env.A2A_FUZZ_RUNS ?? 2000);
const SEED = 18;
const dir = mkdtempSync(join(tmpdir(), "a2a-fuzz-"));
let child: ChildProcess;
let base: string;
let port: number;

beforeAll(async () => {
  const cli = spawnCli(
    ["serve", "--port", "0", "--store", `sqlite:${join(dir, "fuzz.db")}`, "--push", "--body-timeout", "500", "--headers-timeout", "500"],
    { checkout: true },
  );
  child = cli.child;
  base = await cli.url;
  port = Number(new URL(base).port);
}, 30_000);

afterAll(() => {
  child?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

// ------------------------------------------------------------------ what every reply must be

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why `body` is not an A2A error body, or undefined when it is one. */
function notA2AError(body: unknown): string | undefined {
  if (!isObj(body)) return "not a JSON object";
  if (body.jsonrpc === "2.0") {
    const e = body.error;
    if (!isObj(e) || !Number.isInteger(e.code) || typeof e.message !== "string") return "JSON-RPC envelope without a proper error";
    if (e.code === -32603) return "JSON-RPC InternalError";
    return undefined;
  }
  const e = body.error;
  if (isObj(e) && Number.isInteger(e.code) && typeof e.message === "string" && typeof e.status === "string") return undefined;
  if (Number.isInteger(body.code) && typeof body.message === "string") return undefined; // 0.3 REST
  return "neither JSON-RPC, AIP-193 nor the 0.3 REST error shape";
}

/** Checks one HTTP reply; returns a description of what is wrong, or undefined. */
function judge(status: number, type: string, text: string): string | undefined {
  if (status >= 500) return `HTTP ${status}`;
  if (type.includes("text/event-stream")) {
    for (const line of text.split("\n"))
      if (line.startsWith("data:")) {
        const frame = JSON.parse(line.slice(5)) as Json;
        if ("error" in frame) {
          const why = notA2AError(frame);
          if (why) return `SSE error frame: ${why}`;
        }
      }
    return undefined;
  }
  if (status === 304 || (status === 204 && text === "")) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `HTTP ${status} body is not JSON`;
  }
  if (status >= 400 || (isObj(body) && "error" in body)) return notA2AError(body);
  return undefined;
}

// ------------------------------------------------------------------ structured requests

const SAFE_TEXTS = ["echo fuzz", "ask", "fail", "msg hi", "auth", "parts", "stream 3", "slow 5", "", "  ", "echo \u0000 \u{1F600}"];
const text = fc.oneof(
  fc.constantFrom(...SAFE_TEXTS),
  fc.string({ maxLength: 40 }).map((s) => `echo ${s}`),
);
const id = fc.oneof(fc.uuid(), fc.string({ maxLength: 20 }), fc.constantFrom("", "..", "a/b", "%ZZ", "x".repeat(300)));
const anyJson = fc.jsonValue({ maxDepth: 3 });
const version = fc.constantFrom<string | undefined>("1.0", "0.3", undefined, "", "2.0", "1.0.1", "abc");

const message1 = fc.record(
  {
    messageId: fc.oneof(fc.uuid(), fc.string({ maxLength: 8 })),
    role: fc.constantFrom("ROLE_USER", "ROLE_AGENT", "user", 3),
    parts: fc.array(
      fc.oneof(
        text.map((t) => ({ text: t })),
        anyJson,
      ),
      { maxLength: 3 },
    ),
    taskId: id,
    contextId: id,
    metadata: anyJson,
  },
  { requiredKeys: ["messageId", "role", "parts"] },
);
const message03 = fc.record(
  {
    kind: fc.constantFrom("message", "task", 1),
    messageId: fc.uuid(),
    role: fc.constantFrom("user", "agent", "ROLE_USER"),
    parts: fc.array(
      fc.oneof(
        text.map((t) => ({ kind: "text", text: t })),
        anyJson,
      ),
      { maxLength: 3 },
    ),
    taskId: id,
  },
  { requiredKeys: ["kind", "messageId", "role", "parts"] },
);
const params = fc.oneof(
  fc.record(
    {
      message: fc.oneof(message1, message03),
      configuration: fc.option(
        fc.record(
          { returnImmediately: fc.boolean(), historyLength: fc.integer({ min: -2, max: 5 }), blocking: fc.boolean() },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: ["message"] },
  ),
  fc.record({ id, historyLength: fc.integer({ min: -2, max: 5 }) }, { requiredKeys: [] }),
  fc.record(
    {
      pageSize: fc.integer({ min: -5, max: 200 }),
      pageToken: fc.string({ maxLength: 10 }),
      status: fc.constantFrom("TASK_STATE_COMPLETED", "x"),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    { taskId: id, id, url: fc.constantFrom("https://example.com/hook", "http://127.0.0.1:9/", "not a url", "http://[::127.0.0.1]/") },
    { requiredKeys: [] },
  ),
  anyJson,
);
const METHODS = [
  ...["SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask"],
  ...[
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
  ],
  ...["message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe", "tasks/pushNotificationConfig/set"],
  ...[
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
    "Nope",
    "",
  ],
];
const rpcBody = fc.oneof(
  fc
    .record(
      {
        jsonrpc: fc.constantFrom("2.0", "2.0", "1.0"),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null), anyJson),
        method: fc.constantFrom(...METHODS),
        params,
      },
      { requiredKeys: ["jsonrpc", "method"] },
    )
    .map((e) => JSON.stringify(e)),
  fc
    .tuple(fc.constantFrom(...METHODS), params)
    .map(([method, p]) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: p }).slice(0, -3)),
  fc.string({ maxLength: 60 }),
  anyJson.map((j) => JSON.stringify(j)),
);

const PATHS = [
  "/message:send",
  "/message:stream",
  "/tasks",
  "/tasks/{id}",
  "/tasks/{id}:cancel",
  "/tasks/{id}:subscribe",
  "/tasks/{id}/pushNotificationConfigs",
  "/tasks/{id}/pushNotificationConfigs/{id}",
  "/extendedAgentCard",
  "/v1/message:send",
  "/v1/message:stream",
  "/v1/tasks/{id}",
  "/v1/tasks/{id}:cancel",
  "/v1/tasks/{id}:subscribe",
  "/v1/tasks/{id}/pushNotificationConfigs",
  "/v1/card",
  "/{id}/tasks",
  "/{id}/message:send",
  "/.well-known/agent-card.json",
  "/",
  "/{id}",
  "/tasks/%ZZ",
  "/%E0%A4%A",
  "//tasks",
  "/tasks/{id}?historyLength=-1",
  "/tasks?pageSize=abc&status=x",
];
const restRequest = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"),
  path: fc.tuple(fc.constantFrom(...PATHS), id).map(([p, i]) => p.replaceAll("{id}", encodeURIComponent(i))),
  body: fc.oneof(
    fc.constant(undefined),
    params.map((p) => JSON.stringify(p)),
    fc.string({ maxLength: 40 }),
  ),
});

const contentType = fc.constantFrom<string | undefined>(
  "application/json",
  "application/json",
  "application/a2a+json",
  "text/plain",
  undefined,
  "application/json; charset=latin1",
);

// Hostile one-token inputs (issue 28): a number that parses to Infinity, NaN (not JSON), nesting to
// 10,000, timestamps out of range and 64 KB ids, spliced into otherwise valid requests.
const BIG_ID = "i".repeat(64 * 1024);
const hostileValue = fc.constantFrom(
  "1e999",
  "-1e999",
  "NaN",
  `${"[".repeat(10_000)}${"]".repeat(10_000)}`,
  `${'{"a":'.repeat(2_000)}1${"}".repeat(2_000)}`,
  '"10000-01-01T00:00:00Z"',
  '"0000-00-00T00:00:00Z"',
  '"1970-01-01T00:00:00.1234567891Z"',
  JSON.stringify(BIG_ID),
);
const hostileRpc = fc
  .tuple(fc.constantFrom(...METHODS.slice(0, 22)), hostileValue, fc.constantFrom("metadata", "id", "statusTimestampAfter", "taskId"))
  .map(
    ([method, v, key]) =>
      `{"jsonrpc":"2.0","id":5,"method":"${method}","params":{"${key}":${v},"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"echo x"}],"metadata":{"x":${v}}}}}`,
  );
const hostileRest = fc
  .tuple(
    fc.constantFrom("/message:send", "/v1/message:send", "/tasks?statusTimestampAfter=10000-01-01T00:00:00Z", "/tasks/{id}"),
    hostileValue,
  )
  .map(([path, v]) => ({
    method: path.startsWith("/tasks") ? "GET" : "POST",
    path: path.replace("{id}", BIG_ID),
    body: path.startsWith("/tasks")
      ? undefined
      : `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"echo x"}]},"metadata":{"x":${v}}}`,
  }));

const structured = fc.record({
  kind: fc.constantFrom("rpc", "rest"),
  rpc: fc.oneof({ weight: 4, arbitrary: rpcBody }, { weight: 1, arbitrary: hostileRpc }),
  rest: fc.oneof({ weight: 4, arbitrary: restRequest }, { weight: 1, arbitrary: hostileRest }),
  version,
  contentType,
});

type StructuredRequest = typeof structured extends fc.Arbitrary<infer T> ? T : never;

async function sendStructured(r: StructuredRequest): Promise<string | undefined> {
  const headers: Record<string, string> = {};
  if (r.version !== undefined) headers["A2A-Version"] = r.version;
  if (r.contentType !== undefined) headers["content-type"] = r.contentType;
  const init: RequestInit =
    r.kind === "rpc"
      ? { method: "POST", headers, body: r.rpc }
      : { method: r.rest.method, headers, ...(r.rest.body !== undefined && r.rest.method !== "GET" ? { body: r.rest.body } : {}) };
  const res = await fetch(base + (r.kind === "rpc" ? "/" : r.rest.path), { ...init, signal: AbortSignal.timeout(10_000) });
  const why = judge(res.status, res.headers.get("content-type") ?? "", await res.text());
  return why && `${why} for ${r.kind === "rpc" ? `POST / ${r.rpc}` : `${r.rest.method} ${r.rest.path} ${r.rest.body ?? ""}`}`;
}

// ------------------------------------------------------------------ raw malformed HTTP

const rawPath = fc.constantFrom("/", "/message:send", "/tasks/x", "/tasks/%ZZ", "/v1/message:send", "*", "http://h/tasks");
const headerName = fc.constantFrom("X-A", "Content-Length", "Transfer-Encoding", "A2A-Version", "Host", "Bad Header", "X\u0000Y", "");
const headerValue = fc.oneof(
  fc.constantFrom("1.0", "0.3", "chunked", "2", "-1", "a\u0000b", "\u00ff", " ", "1, 2"),
  fc.string({ maxLength: 10 }),
);
const rawRequest = fc
  .record({
    method: fc.constantFrom("GET", "POST", "PUT", "GETT", "", "P\u0000ST"),
    path: rawPath,
    proto: fc.constantFrom("HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/9.9", "HTTP/1.1 x", ""),
    headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 4 }),
    body: fc.oneof(fc.constant("{}"), fc.constant("ZZ\r\n{}\r\n0\r\n\r\n"), fc.string({ maxLength: 20 })),
    garbage: fc.option(
      fc.uint8Array({ minLength: 1, maxLength: 40 }).filter((b) => b.some((x) => x !== 13 && x !== 10)),
      { freq: 5 },
    ),
  })
  .map((r) => {
    // Garbage ends with a blank line, so the parser judges it now rather than waiting for more.
    if (r.garbage) return Buffer.concat([Buffer.from(r.garbage), Buffer.from("\r\n\r\n")]);
    const head = [`${r.method} ${r.path} ${r.proto}`, "Host: 127.0.0.1", ...r.headers.map(([k, v]) => `${k}: ${v}`)];
    if (!r.headers.some(([k]) => k === "Content-Length" || k === "Transfer-Encoding"))
      head.push(`Content-Length: ${Buffer.byteLength(r.body)}`);
    return Buffer.from(`${head.join("\r\n")}\r\n\r\n${r.body}`, "latin1");
  });

/** Writes `packet`, reads the first response; ends the connection itself once it is complete. */
function sendRaw(packet: Buffer): Promise<string | undefined> {
  return new Promise((done) => {
    const s = net.connect(port, "127.0.0.1", () => s.write(packet));
    let data = Buffer.alloc(0);
    let finished = false;
    const verdict = (why: string | undefined) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      s.destroy();
      done(why && `${why} for raw ${JSON.stringify(packet.toString("latin1").slice(0, 120))}`);
    };
    const timer = setTimeout(() => verdict(data.length ? undefined : "no answer within 5 s"), 5000);
    const parse = () => {
      const end = data.indexOf("\r\n\r\n");
      if (end < 0) return undefined;
      const lines = data.subarray(0, end).toString("latin1").split("\r\n");
      const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const length = Number(headers.get("content-length") ?? NaN);
      const body = data.subarray(end + 4);
      if (!Number.isFinite(length) || body.length < length) return undefined;
      return {
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0),
        headers,
        text: body.subarray(0, length).toString(),
      };
    };
    s.on("data", (d: Buffer) => {
      data = Buffer.concat([data, d]);
      const r = parse();
      if (r) verdict(judge(r.status, r.headers.get("content-type") ?? "", r.text));
    });
    s.on("error", (e: NodeJS.ErrnoException) => verdict(e.code === "ECONNRESET" ? "connection reset" : e.message));
    s.on("end", () => {
      // The server closed first: the reply must have said so.
      const r = parse();
      if (!r) return verdict(data.length ? "incomplete reply before close" : undefined);
      if (r.headers.get("connection") !== "close") return verdict("connection closed without Connection: close");
      verdict(judge(r.status, r.headers.get("content-type") ?? "", r.text));
    });
  });
}

// ------------------------------------------------------------------ gRPC

// Struct values that no JSON can carry (NaN, ±Infinity), deep Structs, out-of-range timestamps and
// 64 KB ids, with ordinary values among them, on every method of both services.
const structValue = fc.oneof(
  fc.constantFrom(NaN, Infinity, -Infinity, 0, 1.5, -1e308).map((value) => ({ kind: { case: "numberValue", value } })),
  fc.string({ maxLength: 10 }).map((value) => ({ kind: { case: "stringValue", value } })),
  // protobuf-es cannot serialise much deeper on the client side (its encoder recurses): the
  // 10,000-level inputs go over the JSON bindings.
  fc.integer({ min: 1, max: 200 }).map((depth) => {
    let v: unknown = { kind: { case: "numberValue", value: 1 } };
    for (let i = 0; i < depth; i++) v = { kind: { case: "structValue", value: { fields: { a: v } } } };
    return v;
  }),
);
/** A Struct value in a few words (the deep ones would overflow JSON.stringify). */
function describeValue(v: unknown): string {
  let depth = 0;
  let x = v as { kind: { case: string; value: unknown } };
  while (x.kind.case === "structValue") {
    depth++;
    x = (x.kind.value as { fields: { a: typeof x } }).fields.a;
  }
  return `${depth ? `nested ${depth}, ` : ""}${x.kind.case} ${String(x.kind.value)}`;
}
const grpcId = fc.oneof(fc.uuid(), fc.string({ maxLength: 20 }), fc.constant(BIG_ID), fc.constant(""));
const timestamp = fc.record({
  seconds: fc.constantFrom(0n, 1n, -62135596801n, 253402300800n, 10n ** 15n, -(10n ** 15n)),
  nanos: fc.constantFrom(0, 1, -1, 999_999_999, 1_000_000_000),
});
const grpcRequest = fc.record({
  version: fc.constantFrom<"1.0" | "0.3">("1.0", "0.3"),
  rpc: fc.integer({ min: 0, max: 20 }),
  id: grpcId,
  metadata: structValue,
  timestamp,
  text: text,
});
type GrpcFuzz = typeof grpcRequest extends fc.Arbitrary<infer T> ? T : never;

let grpcTransport: Transport | undefined;
/** gRPC outcomes by status name ("OK" for an answer). */
const grpcOutcomes: Record<string, number> = {};
/** One gRPC call; a status of ours other than INTERNAL/UNKNOWN is fine, a hang (deadline) or INTERNAL is not. */
async function sendGrpc(r: GrpcFuzz): Promise<string | undefined> {
  grpcTransport ??= createGrpcTransport({ baseUrl: base });
  const service = r.version === "1.0" ? v1_0.A2AService : v0_3.pb.A2AService;
  const method = service.methods[r.rpc % service.methods.length]!;
  const metadata = { fields: { x: r.metadata } };
  const message =
    r.version === "1.0"
      ? { messageId: r.id, role: v1_0.Role.USER, taskId: r.id, parts: [{ content: { case: "text", value: r.text } }], metadata }
      : { messageId: r.id, role: v0_3.pb.Role.USER, taskId: r.id, content: [{ part: { case: "text", value: r.text } }], metadata };
  const input = create(method.input, {
    id: r.id,
    name: `tasks/${r.id}`,
    parent: `tasks/${r.id}`,
    taskId: r.id,
    message,
    request: message,
    metadata,
    statusTimestampAfter: r.timestamp,
  });
  const what = `gRPC ${r.version} ${method.name} (id ${r.id.length} chars, ${describeValue(r.metadata)}, ts ${r.timestamp.seconds})`;
  const judgeErr = (e: unknown) => {
    if (!(e instanceof ConnectError)) return `${what}: ${String(e)}`;
    const parse = e.code === Code.Internal && e.rawMessage.startsWith("parse binary:");
    const name = parse ? "INTERNAL (connect: parse binary)" : Code[e.code];
    grpcOutcomes[name] = (grpcOutcomes[name] ?? 0) + 1;
    if (e.code === Code.DeadlineExceeded) return `${what}: no answer within 10 s`;
    // connect-node answers a message protobuf-es refuses to decode (more than 100 nested messages:
    // a Struct about 50 levels deep) with INTERNAL before any code of ours runs: counted, not failed.
    if (parse) return undefined;
    if (e.code === Code.Internal || e.code === Code.Unknown) return `${what}: ${Code[e.code]} ${e.rawMessage}`;
    return undefined;
  };
  try {
    if (method.methodKind === "server_streaming") {
      const res = await grpcTransport.stream(
        method as DescMethod & { methodKind: "server_streaming" },
        AbortSignal.timeout(10_000),
        10_000,
        undefined,
        (async function* () {
          yield input;
        })() as never,
      );
      for await (const _ of res.message) {
        // drain
      }
    } else await grpcTransport.unary(method as DescMethod & { methodKind: "unary" }, AbortSignal.timeout(10_000), 10_000, undefined, input);
    grpcOutcomes.OK = (grpcOutcomes.OK ?? 0) + 1;
    return undefined;
  } catch (e) {
    return judgeErr(e);
  }
}

// ------------------------------------------------------------------ the run

describe(`fuzzing serve (${RUNS} requests, seed ${SEED})`, () => {
  it("no exit, no 5xx, every error A2A-shaped, and normal answers afterwards", async () => {
    const failures: string[] = [];
    const counts = { structured: 0, raw: 0, grpc: 0 };
    const t0 = Date.now();
    // Fixed seed; a few requests in flight at once (the server is the one under load).
    const requests = fc.sample(
      fc.oneof(
        { weight: 4, arbitrary: structured.map((s) => ({ s })) },
        { weight: 1, arbitrary: rawRequest.map((raw) => ({ raw })) },
        { weight: 2, arbitrary: grpcRequest.map((grpc) => ({ grpc })) },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    let next = 0;
    const worker = async () => {
      while (next < requests.length && failures.length < 20) {
        const req = requests[next++]!;
        const why =
          "raw" in req
            ? (counts.raw++, await sendRaw(req.raw))
            : "grpc" in req
              ? (counts.grpc++, await sendGrpc(req.grpc))
              : (counts.structured++, await sendStructured(req.s));
        if (why) failures.push(why);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    if (process.env.A2A_FUZZ_RUNS)
      console.log(
        `fuzz: ${counts.structured} structured + ${counts.raw} raw + ${counts.grpc} gRPC requests in ${Date.now() - t0} ms; gRPC outcomes ${JSON.stringify(grpcOutcomes)}`,
      );
    expect(failures).toEqual([]);
    expect(child.exitCode).toBeNull();
    const res = await fetch(`${base}/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ message: { messageId: "after", role: "ROLE_USER", parts: [{ text: "echo still here" }] } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED" } } });
  }, 600_000);
});
