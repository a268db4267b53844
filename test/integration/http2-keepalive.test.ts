// Issue 28: HTTP/2 keep-alive pings (adapters/shared-port.ts). serve and the gateway send a PING on
// every HTTP/2 session and close a session whose client leaves one unanswered: a raw HTTP/2 client
// that never acknowledges PINGs loses its connection, while node's client (which answers them) keeps
// its session. The idle timeout is long here, so only the pings can close a session. A session whose
// only call is a quiet stream outlives the idle timeout and the pings, and the call ends normally.
import http2 from "node:http2";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway, createGateway } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { listen, type RunningServer } from "../support/servers.js";

const limits = { idleTimeoutMs: 60_000, http2PingIntervalMs: 100, http2PingTimeoutMs: 800 };
const PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/** A frame header (RFC 9113 §4.1) with an empty payload on stream 0. */
const frame = (type: number, flags: number) => Buffer.from([0, 0, 0, type, flags, 0, 0, 0, 0]);
const SETTINGS = 0x4;
const PING = 0x6;
const ACK = 0x1;

/**
 * An HTTP/2 client that acknowledges the server's SETTINGS and nothing else: it never answers a
 * PING. Resolves when the server closes its connection, with the PINGs it saw by then.
 */
function deafClient(port: number): Promise<{ pings: number }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write(Buffer.concat([Buffer.from(PREFACE), frame(SETTINGS, 0)]));
    let buf = Buffer.alloc(0);
    let pings = 0;
    socket.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 9) {
        const length = buf.readUIntBE(0, 3);
        if (buf.length < 9 + length) break;
        const [type, flags] = [buf[3], buf[4]!];
        if (type === SETTINGS && !(flags & ACK)) socket.write(frame(SETTINGS, ACK));
        if (type === PING && !(flags & ACK)) pings++;
        buf = buf.subarray(9 + length);
      }
    });
    socket.once("close", () => resolve({ pings }));
  });
}

/** A node:http2 session (it answers PINGs); `open()` says whether the server has closed it. */
function listeningClient(port: number) {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on("error", () => {});
  let closed = false;
  session.once("close", () => (closed = true));
  return { session, open: () => !closed && !session.destroyed };
}

let serve: RunningServer;
let gateway: RunningServer;
beforeAll(async () => {
  serve = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true, ...limits }));
  const gw = await createGateway({ backends: [{ name: "b", url: serve.url }] });
  const app = await buildGateway({ gateway: gw, grpc: true, ...limits });
  app.addHook("onClose", () => gw.close());
  gateway = await listen(app);
});
afterAll(async () => {
  await gateway?.close();
  await serve?.close();
});

/** The deaf client's PINGs before its connection was closed, and whether the answering session is still open after. */
async function probe(port: number): Promise<{ pings: number; healthyOpen: boolean }> {
  const healthy = listeningClient(port);
  try {
    const deaf = await deafClient(port);
    // The answering client has been pinged as often meanwhile, and more.
    await new Promise((r) => setTimeout(r, 300));
    return { pings: deaf.pings, healthyOpen: healthy.open() };
  } finally {
    healthy.session.destroy();
  }
}

describe("HTTP/2 keep-alive pings", () => {
  it("serve and gateway close a session whose client leaves a PING unanswered; one that answers stays", async () => {
    const [s, g] = await Promise.all([probe(serve.port), probe(gateway.port)]);
    expect(s.pings).toBeGreaterThanOrEqual(1);
    expect(g.pings).toBeGreaterThanOrEqual(1);
    expect([s.healthyOpen, g.healthyOpen]).toEqual([true, true]);
  }, 15_000);
});

describe("a quiet gRPC stream past the idle timeout", () => {
  it("keeps its session through the pings and ends with its status", async () => {
    const app = await buildServer({
      agent: createFixtureAgent(),
      grpc: true,
      idleTimeoutMs: 100,
      http2PingIntervalMs: 150,
      http2PingTimeoutMs: 800,
    });
    const server = await listen(app);
    const session = http2.connect(server.url);
    session.on("error", () => {});
    try {
      // A blocking SendMessage of `slow 1500` over gRPC: no frame for 1.5 s, many idle timeouts and pings.
      const text = Buffer.from("slow 1500");
      // SendMessageRequest { message (2) { message_id (1) "q", role (4) USER, parts (5) { text (1) } } }
      const part = Buffer.concat([Buffer.from([0x0a, text.length]), text]);
      const message = Buffer.concat([Buffer.from([0x0a, 1, 0x71, 0x20, 1, 0x2a, part.length]), part]);
      const request = Buffer.concat([Buffer.from([0x12, message.length]), message]);
      const status = await new Promise<string>((resolve) => {
        const call = session.request({
          ":method": "POST",
          ":path": "/lf.a2a.v1.A2AService/SendMessage",
          "content-type": "application/grpc",
          te: "trailers",
        });
        let got = "none";
        call.on("response", (h) => (got = String(h["grpc-status"] ?? got)));
        call.on("trailers", (t) => (got = String(t["grpc-status"])));
        call.on("data", () => {});
        call.on("close", () => resolve(session.destroyed ? `session closed (${got})` : got));
        call.on("error", () => {});
        call.end(Buffer.concat([Buffer.from([0, 0, 0, 0, request.length]), request]));
      });
      expect(status).toBe("0");
    } finally {
      session.destroy();
      await server.close();
    }
  }, 15_000);
});
