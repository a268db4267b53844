// The gRPC side of buildServer as a user meets it (loopback, port 0): TLS with ALPN on one port
// (h2 → gRPC, http/1.1 → JSON-RPC and the card), authentication by `authorization` metadata, a
// client that goes away mid-stream (the task runs on), and the per-caller stream quota.
import { readFileSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, type A2AClient } from "../../src/client/index.js";
import { bearerAuth } from "../../src/security/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";

const TLS = join(import.meta.dirname, "../fixtures/tls");
const cert = readFileSync(join(TLS, "cert.pem"));
const key = readFileSync(join(TLS, "key.pem"));
const apps: FastifyInstance[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

async function listen(app: FastifyInstance, scheme = "http"): Promise<string> {
  apps.push(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `${scheme}://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

const msg = (text: string) => ({
  message: { messageId: crypto.randomUUID(), role: v1_0.Role.USER, parts: [{ content: { case: "text" as const, value: text } }] },
});

function httpsGet(url: string): Promise<{ status: number; alpn: string | false | null; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca: cert, headers: { "a2a-version": "1.0" }, ...{ ALPNProtocols: ["http/1.1"] } }, (res) => {
      const alpn = (res.socket as import("node:tls").TLSSocket).alpnProtocol;
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, alpn, body }));
    });
    req.on("error", reject);
  });
}

describe("TLS: one port, ALPN picks the protocol", () => {
  it("https (http/1.1) serves the card, listing GRPC at host:port; h2 is gRPC, for both versions", async () => {
    const base = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true, tls: { cert, key } }), "https");
    const card = await httpsGet(`${base}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    expect(card.alpn).toBe("http/1.1");
    const grpc = (JSON.parse(card.body) as v1_0.AgentCardJson).supportedInterfaces!.filter((i) => i.protocolBinding === "GRPC");
    expect(grpc.map((i) => [i.url, i.protocolVersion])).toEqual([
      [new URL(base).host, "1.0"],
      [new URL(base).host, "0.3"],
    ]);
    for (const version of ["1.0", "0.3"] as const) {
      // The card is read over https with the same CA (undici's default trust store does not have it: pass it as a JSON card).
      const client = await createA2AClient(JSON.parse(card.body) as Record<string, unknown>, {
        bindings: ["GRPC"],
        version,
        grpc: { ca: cert },
      });
      const r = await client.sendMessage(msg("echo over tls"));
      expect((r.payload.value as v1_0.Task).status?.state).toBe(v1_0.TaskState.COMPLETED);
    }
  });

  it("without the CA, the TLS handshake fails: a network error, not an A2A one", async () => {
    const base = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true, tls: { cert, key } }), "https");
    const card = await httpsGet(`${base}/.well-known/agent-card.json`);
    const client = await createA2AClient(JSON.parse(card.body) as Record<string, unknown>, {
      bindings: ["GRPC"],
      version: "1.0",
      grpc: { tls: true },
    });
    await expect(client.sendMessage(msg("echo x"))).rejects.toMatchObject({ name: "A2ATransportError", kind: "network" });
  });
});

describe("gRPC requests take the same path as the other bindings", () => {
  it("authentication: no token → UNAUTHENTICATED (a credentials error), a token → its principal's tasks only", async () => {
    const base = await listen(
      await buildServer({ agent: createFixtureAgent(), grpc: true, authenticators: [bearerAuth({ tokens: { a: "alice", b: "bob" } })] }),
    );
    const as = (token?: string) =>
      createA2AClient(base, { bindings: ["GRPC"], version: "1.0", ...(token ? { credentials: { bearer: token } } : {}) });
    await expect((await as()).sendMessage(msg("echo x"))).rejects.toMatchObject({ name: "A2ATransportError", kind: "http", status: 401 });
    const alice = await as("a");
    const t = (await alice.sendMessage(msg("echo mine"))).payload.value as v1_0.Task;
    expect((await alice.getTask({ id: t.id })).id).toBe(t.id);
    await expect((await as("b")).getTask({ id: t.id })).rejects.toMatchObject({ type: "TaskNotFoundError" });
  });

  it("a client that cancels its stream ends the stream only: the task completes", async () => {
    const base = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true }));
    const client: A2AClient = await createA2AClient(base, { bindings: ["GRPC"], version: "1.0" });
    const ac = new AbortController();
    const stream = client.sendStreamingMessage(msg("slow 300"), { signal: ac.signal, resubscribe: false });
    const first = await stream.next();
    const taskId = ((first.value as v1_0.StreamResponse).payload.value as v1_0.Task).id;
    ac.abort();
    await expect(stream.next()).rejects.toMatchObject({ kind: "aborted" });
    // Follow it to its end (the subscription was not the stream that was cancelled).
    for await (const _ of client.subscribeToTask({ id: taskId }, { resubscribe: false }));
    expect((await client.getTask({ id: taskId })).status?.state).toBe(v1_0.TaskState.COMPLETED);
  });

  it("the stream quota holds on gRPC: beyond it RESOURCE_EXHAUSTED, and a slot is free again after a stream ends", async () => {
    const base = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true, maxStreamsPerPrincipal: 1 }));
    const client = await createA2AClient(base, { bindings: ["GRPC"], version: "1.0" });
    const open = client.sendStreamingMessage(msg("slow 400"), { resubscribe: false });
    await open.next();
    await expect(client.sendStreamingMessage(msg("echo second"), { resubscribe: false }).next()).rejects.toMatchObject({
      name: "A2ATransportError",
      message: expect.stringContaining("ResourceExhausted"),
    });
    for await (const _ of open);
    const again = client.sendStreamingMessage(msg("echo third"), { resubscribe: false });
    expect((await again.next()).done).toBe(false);
    for await (const _ of again);
  });
});
