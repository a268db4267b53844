// The gateway serves at once whatever its backends do (issue 18, item 7): a backend whose card
// request hangs delays nothing; messages for it get the generic failure without waiting, the other
// backends are served, and a backend that comes up later is discovered in the background (its
// skills join the gateway's card and its messages go through).
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, textMessage, type A2AClient } from "../../src/client/index.js";
import { startGateway } from "../../src/cli/gateway-command.js";
import { BACKEND_FAILURE } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";

const cleanup: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
});

/** A TCP server that accepts connections and never answers; `open` counts the ones it holds. */
async function hungServer(): Promise<{ url: string; open: () => number }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, open: () => sockets.size };
}

async function fixture(port = 0): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer({ agent: createFixtureAgent() });
  await app.listen({ port, host: "127.0.0.1" });
  cleanup.push(() => app.close());
  return { app, url: `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}` };
}

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const send = (client: A2AClient, text: string, agentId: string) =>
  client.sendMessage({ message: { ...textMessage(text), metadata: { agent_id: agentId } } });

describe("gateway start with a hung backend", () => {
  let hung: Awaited<ReturnType<typeof hungServer>>;
  let client: A2AClient;
  let latePort: number;
  let startedMs: number;
  let heldAtStart: number;

  beforeAll(async () => {
    hung = await hungServer();
    const fast = await fixture();
    latePort = await freePort();
    const t0 = Date.now();
    const gw = await startGateway(
      {
        port: 0,
        host: "127.0.0.1",
        backend: [`hung=${hung.url}`, `fast=${fast.url}`, `late=http://127.0.0.1:${latePort}`],
        default: "fast",
        store: "memory",
        versions: ["1.0", "0.3"],
        discoveryTimeout: 20_000,
      },
      () => {},
    );
    startedMs = Date.now() - t0;
    heldAtStart = hung.open();
    cleanup.push(() => gw.close());
    client = await createA2AClient(gw.url, { version: "1.0" });
  });

  it("serves while the hung backend's card request is still outstanding", () => {
    expect(heldAtStart).toBe(1); // the card request: accepted, never answered, not given up
    expect(startedMs).toBeLessThan(20_000);
    expect(client.card.skills.some((s) => s.tags.includes("agent_id:fast"))).toBe(true);
  });

  it("the other backends are served, and a message for the hung one fails at once with the generic failure", async () => {
    const ok = await send(client, "echo hello", "fast");
    expect((ok.payload.value as v1_0.Task).status?.state).toBe(v1_0.TaskState.COMPLETED);
    const res = await send(client, "echo hello", "hung");
    const task = res.payload.value as v1_0.Task;
    expect(task.status?.state).toBe(v1_0.TaskState.FAILED);
    expect(task.status?.message?.parts[0]?.content.value).toBe(BACKEND_FAILURE);
    expect(hung.open()).toBe(1); // answered without waiting for the outstanding card request
  });

  it("a backend that comes up later is discovered in the background", async () => {
    await fixture(latePort);
    let card: v1_0.AgentCard | undefined;
    for (let i = 0; i < 100 && !card?.skills.some((s) => s.id.startsWith("late/")); i++) {
      await sleep(100);
      card = (await createA2AClient(client.card.supportedInterfaces[0]!.url, { version: "1.0" })).card;
    }
    expect(card?.skills.map((s) => s.id)).toContain("late/fixture");
    const res = await send(client, "echo late", "late");
    expect((res.payload.value as v1_0.Task).status?.state).toBe(v1_0.TaskState.COMPLETED);
  });
});
