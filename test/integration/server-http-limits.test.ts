// HTTP-level limits and malformed HTTP over raw sockets (issue 18, items 4 and 6): slow bodies and
// slow headers are cut by short configured timeouts, connections beyond the per-address limit are
// refused, and every error before the routes (bad percent-encoding, bad framing, duplicate
// Content-Length, NUL in a header) is answered in the binding's A2A shape with `Connection: close`.
import http2 from "node:http2";
import net, { type AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Fastify from "fastify";
import { a2aPlugin, createFixtureAgent } from "../../src/server/index.js";
import { startServer, type RunningServer } from "../support/servers.js";

let server: RunningServer;
let port: number;

beforeAll(async () => {
  server = await startServer("fastify", {
    agent: createFixtureAgent(),
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
    idleTimeoutMs: 300,
    maxConnectionsPerAddress: 20,
  });
  port = server.port;
});
afterAll(() => server.close());

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The server closed the connection (without a reset). */
  closed: boolean;
  /** Milliseconds from the first byte sent to the close. */
  ms: number;
}

/** Sends `chunks` (the rest every `everyMs`) on a fresh connection; resolves when the server closes it or after `waitMs`. */
function exchange(chunks: string[], opts: { everyMs?: number; waitMs?: number } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1");
    const t0 = Date.now();
    let data = "";
    let reset = false;
    const queue = [...chunks];
    const timer = setInterval(() => {
      const c = queue.shift();
      if (c !== undefined && !s.destroyed) s.write(c);
    }, opts.everyMs ?? 10);
    const give = setTimeout(() => s.destroy(), opts.waitMs ?? 3000);
    s.on("connect", () => s.write(queue.shift() ?? ""));
    s.on("data", (d) => (data += d.toString("latin1")));
    s.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ECONNRESET") reset = true;
      else reject(e);
    });
    s.on("close", () => {
      clearInterval(timer);
      clearTimeout(give);
      const ms = Date.now() - t0;
      const [head = "", ...rest] = data.split("\r\n\r\n");
      const lines = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(":");
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      // The first response only (pipelined requests get more).
      const text = Buffer.from(rest.join("\r\n\r\n"), "latin1")
        .subarray(0, Number(headers["content-length"] ?? Infinity))
        .toString();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: the assertions say so */
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(lines[0] ?? "")?.[1] ?? 0),
        headers,
        body,
        closed: !reset && ms < (opts.waitMs ?? 3000),
        ms,
      });
    });
  });
}

const HEAD = (path: string, extra = "") => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}`;
const SEND = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "echo hi" }] } },
});

const jsonRpcError = (code: number) => ({ jsonrpc: "2.0", id: null, error: { code, message: expect.any(String) } });
const aip193 = (code: number) => ({ error: { code, status: expect.any(String), message: expect.any(String) } });

describe("slow clients", () => {
  it("a body sent one byte at a time is cut by bodyTimeoutMs: 408 in the binding's shape, then the connection is closed", async () => {
    const bytes = [...SEND].map((c) => c);
    const rpc = exchange([`${HEAD("/", "A2A-Version: 1.0\r\n")}Content-Length: ${SEND.length}\r\n\r\n`, ...bytes], { everyMs: 50 });
    const rest = exchange([`${HEAD("/message:send", "A2A-Version: 1.0\r\n")}Content-Length: ${SEND.length}\r\n\r\n`, ...bytes], {
      everyMs: 50,
    });
    for (const [r, shape] of [
      [await rpc, jsonRpcError(-32600)],
      [await rest, aip193(408)],
    ] as const) {
      expect(r.status).toBe(408);
      expect(r.headers.connection).toBe("close");
      expect(r.body).toMatchObject(shape);
      expect(r.closed).toBe(true);
    }
  });

  it("on a keep-alive connection the body timeout counts from each request's own headers", async () => {
    const s = net.connect(port, "127.0.0.1");
    let data = "";
    s.on("data", (d) => (data += d.toString("latin1")));
    const closed = new Promise<void>((resolve) => s.on("close", () => resolve()));
    await new Promise((resolve) => s.once("connect", resolve));
    s.write(`${HEAD("/", "A2A-Version: 1.0\r\n")}Content-Length: ${SEND.length}\r\n\r\n${SEND}`);
    while (!/^HTTP\/1\.1 200/.test(data)) await sleep(10);
    // Most of the first request's timeout has passed; the second request's body never completes.
    await sleep(200);
    const second = Date.now();
    s.write(`${HEAD("/", "A2A-Version: 1.0\r\n")}Content-Length: ${SEND.length}\r\n\r\n${SEND.slice(0, 10)}`);
    await closed;
    expect([...data.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => m[1])).toEqual(["200", "408"]);
    expect(Date.now() - second).toBeGreaterThanOrEqual(290);
  });

  it("many slow bodies at once are all closed by the timeout", async () => {
    const bytes = [...SEND];
    const all = await Promise.all(
      Array.from({ length: 15 }, () =>
        exchange([`${HEAD("/message:send")}Content-Length: ${SEND.length}\r\n\r\n`, ...bytes], { everyMs: 100 }),
      ),
    );
    for (const r of all) {
      expect(r.status).toBe(408);
      expect(r.closed).toBe(true);
    }
  });

  it("headers that never end are cut by headersTimeoutMs, in the A2A shape", async () => {
    const r = await exchange(["POST /tasks/x HTTP/1.1\r\n", ...Array.from({ length: 100 }, (_, i) => `X-Slow-${i}: 1\r\n`)], {
      everyMs: 50,
    });
    expect(r.status).toBe(408);
    expect(r.headers.connection).toBe("close");
    expect(r.body).toMatchObject(aip193(408));
    expect(r.closed).toBe(true);
  });

  it("a connection that sends nothing, and an idle keep-alive connection, are closed", async () => {
    const silent = await exchange([""]);
    expect(silent.closed).toBe(true);
    const idle = await exchange([`GET /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`]);
    expect(idle.status).toBe(200);
    expect(idle.closed).toBe(true);
  });

  it("connections beyond maxConnectionsPerAddress get 429 in the binding's shape; the others are served", async () => {
    const held = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect(port, "127.0.0.1", () => resolve(s));
            s.on("error", () => {});
          }),
      ),
    );
    try {
      const r = await exchange([`${HEAD("/")}Content-Length: ${SEND.length}\r\n\r\n${SEND}`]);
      expect(r.status).toBe(429);
      expect(r.headers.connection).toBe("close");
      expect(r.body).toMatchObject(jsonRpcError(-32600));
    } finally {
      for (const s of held) s.destroy();
    }
    await sleep(50);
    const ok = await exchange([`${HEAD("/", "A2A-Version: 1.0\r\nConnection: close\r\n")}Content-Length: ${SEND.length}\r\n\r\n${SEND}`]);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
  });
});

describe("errors before the routes are A2A-shaped, with Connection: close when the socket is closed", () => {
  it("a path that is not valid percent-encoding: AIP-193 400, and the connection stays usable", async () => {
    const r = await exchange([
      "GET /tasks/%ZZ HTTP/1.1\r\nHost: 127.0.0.1\r\nA2A-Version: 1.0\r\n\r\nGET /tasks/%ZZ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    ]);
    expect(r.status).toBe(400);
    expect(r.headers.connection).not.toBe("close");
    expect(r.body).toMatchObject(aip193(400));
    expect(r.closed).toBe(true);
  });

  it.each([
    ["bad chunk framing", `${HEAD("/message:send")}Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`, "rest"],
    ["duplicate Content-Length", `${HEAD("/message:send")}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, "rest"],
    ["a NUL in a header", `${HEAD("/")}X-Bad: a\0b\r\nContent-Length: 2\r\n\r\n{}`, "rpc"],
    ["duplicate Content-Length on JSON-RPC", `${HEAD("/", "A2A-Version: 1.0\r\n")}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, "rpc"],
    ["not HTTP at all", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", "rest"],
  ])("%s: 400 in the binding's shape with Connection: close", async (_name, packet, binding) => {
    const r = await exchange([packet]);
    expect(r.status).toBe(400);
    expect(r.headers.connection).toBe("close");
    expect(r.headers["content-type"]).toMatch(/json/);
    expect(r.body).toMatchObject(binding === "rpc" ? jsonRpcError(-32600) : aip193(400));
    expect(r.closed).toBe(true);
  });

  it("the server answers normally afterwards", async () => {
    const r = await exchange([`${HEAD("/", "A2A-Version: 1.0\r\nConnection: close\r\n")}Content-Length: ${SEND.length}\r\n\r\n${SEND}`]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 1, result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
  });
});

describe("slow bodies on HTTP/2 (a fastify app with http2)", () => {
  it("a stalled stream is cut by the body timeout while another stream on its connection is answered", async () => {
    const app = Fastify({ http2: true });
    await app.register(a2aPlugin, { agent: createFixtureAgent(), bodyTimeoutMs: 300 });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const session = http2.connect(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    try {
      const open = (body: string, length: number, end: boolean) => {
        const stream = session.request({
          ":method": "POST",
          ":path": "/",
          "content-type": "application/json",
          "a2a-version": "1.0",
          "content-length": String(length),
        });
        if (end) stream.end(body);
        else stream.write(body);
        return new Promise<number>((resolve) => stream.on("response", (h) => resolve(Number(h[":status"]))));
      };
      const stalled = open(SEND.slice(0, 10), SEND.length, false);
      await sleep(50);
      const answered = open(SEND, SEND.length, true);
      expect(await answered).toBe(200);
      expect(await stalled).toBe(408);
    } finally {
      session.destroy();
      await app.close();
    }
  });
});
