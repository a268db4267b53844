// What only the node:http adapter does itself (the shared scenarios run over both adapters in
// server-wire, server-streams, server-interop and compliance-reference-server): a listener on a
// plain http.createServer under a prefix, the body limit, paths outside the prefix, HEAD of the
// card, and createA2AHttpServer's answer to malformed HTTP.
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a2aRequestListener, createA2AHttpServer, createFixtureAgent } from "../../src/server/index.js";
import { listenHttp } from "../support/servers.js";

const silent = { error: () => {}, warn: () => {} };
const closeServer = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe("a2aRequestListener on a plain node:http server", () => {
  const listener = a2aRequestListener({ agent: createFixtureAgent(), prefix: "/a2a", bodyLimit: 1024, logger: silent });
  const server = http.createServer(listener);
  let base: string;
  beforeAll(async () => {
    base = await listenHttp(server);
  });
  afterAll(async () => {
    await listener.close();
    server.closeAllConnections();
    await closeServer(server);
  });

  const rpc = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json", "A2A-Version": "1.0", ...headers }, body });

  it("serves the card under the prefix, with interface URLs from the Host header", async () => {
    const res = await fetch(`${base}/a2a/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces.map((i) => i.url)).toContain(`${base}/a2a`);
    const head = await fetch(`${base}/a2a/.well-known/agent-card.json`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers JSON-RPC under the prefix", async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "SendMessage",
      params: { message: { messageId: "n-1", role: "ROLE_USER", parts: [{ text: "echo hi" }] } },
    });
    const reply = (await (await rpc(body)).json()) as { id: number; result?: unknown };
    expect(reply.id).toBe(7);
    expect(reply.result).toBeDefined();
  });

  it("refuses a body over bodyLimit with 413 in the JSON-RPC shape", async () => {
    const res = await rpc(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { pad: "x".repeat(4096) } }));
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.message).toMatch(/larger than 1024 bytes/);
  });

  it("answers a path outside the prefix with MethodNotFound in the HTTP+JSON shape", async () => {
    const res = await fetch(`${base}/elsewhere`, { headers: { "A2A-Version": "1.0" } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe("NOT_FOUND");
  });
});

describe("createA2AHttpServer", () => {
  const server = createA2AHttpServer({ agent: createFixtureAgent(), logger: silent });
  let port: number;
  beforeAll(async () => {
    await listenHttp(server);
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => closeServer(server));

  it("answers malformed HTTP with a 400 in the A2A shape and closes the connection", async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () =>
        socket.write("POST /message:send HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
      );
      let text = "";
      socket.on("data", (d) => (text += d.toString("latin1")));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toMatch(/connection: close/i);
    expect(raw).toContain('"status":"INVALID_ARGUMENT"');
  });
});
