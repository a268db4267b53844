// Unary gRPC calls as raw HTTP/2 frames (loopback, port 0): the statuses a malformed or unusual
// unary request gets from the reference server (adapters/grpc-unary.ts serves unary calls itself;
// these are the statuses connect-node gives for the same faults), and the requests it hands on to
// connect-node (a gzip-compressed message) still answered.
import http2 from "node:http2";
import { gzipSync } from "node:zlib";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { FIXTURE_EXTENSION_URI } from "../../src/compliance/discovery.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";

let app: FastifyInstance;
let session: http2.ClientHttp2Session;
beforeAll(async () => {
  app = await buildServer({ agent: createFixtureAgent(), grpc: true, bodyLimit: 4096 });
  await app.listen({ port: 0, host: "127.0.0.1" });
  session = http2.connect(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
});
afterAll(async () => {
  session.close();
  await app.close();
});

const SEND = "/lf.a2a.v1.A2AService/SendMessage";
const send = (text: string) =>
  toBinary(
    v1_0.SendMessageRequestSchema,
    create(v1_0.SendMessageRequestSchema, {
      message: { messageId: crypto.randomUUID(), role: v1_0.Role.USER, parts: [{ content: { case: "text", value: text } }] },
    }),
  );
const envelope = (bytes: Uint8Array, flags = 0) => Buffer.concat([Buffer.from([flags, ...u32(bytes.length)]), bytes]);
const u32 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

interface Answer {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

function call(body: Buffer, headers: http2.OutgoingHttpHeaders = {}, path = SEND): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...headers });
    let h: http2.IncomingHttpHeaders = {};
    let t: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on("response", (x) => (h = x));
    req.on("trailers", (x) => (t = x));
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve({ headers: h, trailers: t, body: Buffer.concat(chunks) }));
    req.on("error", reject);
    req.end(body);
  });
}

/** grpc-status, from the trailers (or the headers of a trailers-only answer). */
const status = (a: Answer) => Number(a.trailers["grpc-status"] ?? a.headers["grpc-status"]);

describe("unary gRPC over raw HTTP/2", () => {
  it("one message: the completed task, status OK, one length-prefixed message", async () => {
    const a = await call(envelope(send("hello")), { "a2a-version": "1.0" });
    expect(a.headers[":status"]).toBe(200);
    expect(a.headers["content-type"]).toBe("application/grpc+proto");
    expect(status(a)).toBe(0);
    expect(a.body.readUInt32BE(1)).toBe(a.body.length - 5);
    const r = fromBinary(v1_0.SendMessageResponseSchema, a.body.subarray(5));
    expect(r.payload.case).toBe("task");
  });

  it("an extension the card declares, asked for in metadata: named in the response headers; one it does not: not", async () => {
    const a = await call(envelope(send("x")), { "a2a-extensions": `${FIXTURE_EXTENSION_URI}, urn:example:unknown` });
    expect(status(a)).toBe(0);
    expect(a.headers["a2a-extensions"]).toBe(FIXTURE_EXTENSION_URI);
    const none = await call(envelope(send("x")));
    expect(none.headers["a2a-extensions"]).toBeUndefined();
  });

  it("no message, two messages, a cut envelope: UNIMPLEMENTED, UNIMPLEMENTED, INVALID_ARGUMENT", async () => {
    expect(status(await call(Buffer.alloc(0)))).toBe(12);
    const one = envelope(send("x"));
    expect(status(await call(Buffer.concat([one, one])))).toBe(12);
    expect(status(await call(one.subarray(0, one.length - 2)))).toBe(3);
  });

  it("a message over the body limit: RESOURCE_EXHAUSTED; bytes that are no message: INTERNAL", async () => {
    const big = await call(envelope(send("x".repeat(5000))));
    expect(status(big)).toBe(8);
    expect(decodeURIComponent(String(big.trailers["grpc-message"]))).toMatch(/larger than configured readMaxBytes 4096/);
    expect(status(await call(envelope(Buffer.from([0xff, 0xff, 0xff]))))).toBe(13);
  });

  it("an invalid grpc-timeout: INVALID_ARGUMENT; the wrong a2a-version: FAILED_PRECONDITION with ErrorInfo", async () => {
    expect(status(await call(envelope(send("x")), { "grpc-timeout": "soon" }))).toBe(3);
    const v = await call(envelope(send("x")), { "a2a-version": "0.3" });
    expect(status(v)).toBe(9);
    expect(v.trailers["grpc-status-details-bin"]).toBeTruthy();
  });

  it("a gzip-compressed message (handed to connect-node) is answered like any other", async () => {
    const a = await call(envelope(gzipSync(send("zipped")), 1), { "grpc-encoding": "gzip" });
    expect(status(a)).toBe(0);
  });
});
