// SSE behaviour over real sockets: order, no loss or duplication, disconnects, slow readers,
// several subscribers, 0.3 `final`; over the fastify and the node:http adapter.
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import { ADAPTERS, startServer, type RunningServer } from "../support/servers.js";
import { SseDecoder } from "../../src/transport/sse.js";

let server: RunningServer;
let base: string;
let port: number;

type Json = Record<string, unknown>;
const V1 = { "content-type": "application/json", "A2A-Version": "1.0" };
let n = 0;
const msg = (text: string) => ({ message: { messageId: `s-${++n}`, role: "ROLE_USER", parts: [{ text }] } });

async function events(res: Response): Promise<Json[]> {
  const d = new SseDecoder();
  return [...d.feed(await res.text()), ...d.flush()].map((e) => JSON.parse(e.data) as Json);
}

const streamRest = (text: string) => fetch(`${base}/message:stream`, { method: "POST", headers: V1, body: JSON.stringify(msg(text)) });

async function getTask(id: string): Promise<Json> {
  return (await (await fetch(`${base}/tasks/${id}`, { headers: V1 })).json()) as Json;
}

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    await sleep(20);
  }
}

const chunkTexts = (evs: Json[]) =>
  evs.filter((e) => e.artifactUpdate).map((e) => (((e.artifactUpdate as Json).artifact as Json).parts as Json[])[0]?.text as string);

describe.each(ADAPTERS)("over %s", (adapter) => {
  beforeAll(async () => {
    server = await startServer(adapter, { agent: createFixtureAgent() });
    port = server.port;
    base = server.url;
  });
  afterAll(() => server.close());

  describe("SSE streams", () => {
    it("2,000 chunks arrive in order, none lost or duplicated, then completed", async () => {
      const evs = await events(await streamRest("stream 2000"));
      const texts = chunkTexts(evs);
      expect(texts).toHaveLength(2000);
      expect(texts.every((t, i) => t === `chunk ${i + 1}/2000`)).toBe(true);
      expect(Object.keys(evs[0] ?? {})).toEqual(["task"]);
      expect(((evs.at(-1)!.statusUpdate as Json).status as Json).state).toBe("TASK_STATE_COMPLETED");
    });

    it("the task runs on after the SSE client disconnects", async () => {
      const ac = new AbortController();
      const res = await fetch(`${base}/message:stream`, {
        method: "POST",
        headers: V1,
        body: JSON.stringify(msg("slow 300")),
        signal: ac.signal,
      });
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const id = ((JSON.parse(first.slice(first.indexOf("{"), first.indexOf("\n"))) as Json).task as Json).id as string;
      ac.abort();
      const t = await until(
        () => getTask(id),
        (t) => (t.status as Json).state !== "TASK_STATE_WORKING",
      );
      expect((t.status as Json).state).toBe("TASK_STATE_COMPLETED");
      expect(((t.artifacts as Json[])[0]?.parts as Json[])[0]?.text).toBe("done after 300 ms");
    });

    it("a reader that stops reading does not stall other tasks, and later gets every event", async () => {
      // A raw request whose response we leave unread while other work goes on.
      const body = JSON.stringify(msg("stream 20000"));
      const slow = await new Promise<http.IncomingMessage>((resolve) => {
        const req = http.request(
          {
            port,
            host: "127.0.0.1",
            path: "/message:stream",
            method: "POST",
            headers: { ...V1, "content-length": Buffer.byteLength(body) },
          },
          resolve,
        );
        req.end(body);
      });
      slow.pause();
      // Other tasks complete while the slow reader holds its stream.
      const other = await events(await streamRest("stream 50"));
      expect(chunkTexts(other)).toHaveLength(50);
      const echo = (await (
        await fetch(`${base}/message:send`, { method: "POST", headers: V1, body: JSON.stringify(msg("echo still here")) })
      ).json()) as Json;
      expect(((echo.task as Json).status as Json).state).toBe("TASK_STATE_COMPLETED");
      // Now read everything the slow reader was owed.
      const d = new SseDecoder();
      const got: Json[] = [];
      slow.on("data", (c: Buffer) => got.push(...d.feed(c).map((e) => JSON.parse(e.data) as Json)));
      slow.resume();
      await new Promise((r) => slow.on("end", r));
      const texts = chunkTexts(got);
      expect(texts).toHaveLength(20000);
      expect(texts.every((t, i) => t === `chunk ${i + 1}/20000`)).toBe(true);
    });

    it("two subscribers see the same events; closing one leaves the other intact", async () => {
      const sent = (await (
        await fetch(`${base}/message:send`, {
          method: "POST",
          headers: V1,
          body: JSON.stringify({ ...msg("slow 400"), configuration: { returnImmediately: true } }),
        })
      ).json()) as Json;
      const id = (sent.task as Json).id as string;
      const ac = new AbortController();
      const quitter = await fetch(`${base}/tasks/${id}:subscribe`, { headers: V1, signal: ac.signal });
      const stayer = fetch(`${base}/tasks/${id}:subscribe`, { method: "POST", headers: V1, body: "{}" }); // POST form tolerated (O1)
      await quitter.body!.getReader().read();
      ac.abort();
      const evs = await events(await stayer);
      expect(Object.keys(evs[0] ?? {})).toEqual(["task"]);
      expect(((evs.at(-1)!.statusUpdate as Json).status as Json).state).toBe("TASK_STATE_COMPLETED");
      expect(chunkTexts(evs)).toEqual(["done after 400 ms"]);
    });

    it("0.3 JSON-RPC: input-required ends the stream with final: true", async () => {
      const res = await fetch(`${base}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "s03",
          method: "message/stream",
          params: { message: { kind: "message", messageId: `s-${++n}`, role: "user", parts: [{ kind: "text", text: "ask" }] } },
        }),
      });
      const evs = (await events(res)).map((e) => e.result as Json);
      expect(evs.map((e) => e.kind)).toEqual(["task", "status-update", "status-update"]);
      expect(evs.at(-1)).toMatchObject({ final: true, status: { state: "input-required" } });
      expect(evs[1]).toMatchObject({ final: false, status: { state: "working" } });
    });

    it("cancel during a stream: the stream ends with canceled", async () => {
      const res = await streamRest("slow 60000");
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let text = dec.decode((await reader.read()).value);
      const id = ((JSON.parse(text.slice(text.indexOf("{"), text.indexOf("\n"))) as Json).task as Json).id as string;
      const c = (await (await fetch(`${base}/tasks/${id}:cancel`, { method: "POST", headers: V1, body: "{}" })).json()) as Json;
      expect((c.status as Json).state).toBe("TASK_STATE_CANCELED");
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += dec.decode(value);
      }
      expect(text).toContain("TASK_STATE_CANCELED");
    });
  });

  describe("SSE keep-alive", () => {
    it("a quiet stream carries keep-alive comments, which clients ignore", async () => {
      const quiet = await startServer(adapter, { agent: createFixtureAgent(), sseKeepAliveMs: 50 });
      try {
        const url = quiet.url;
        const res = await fetch(`${url}/message:stream`, { method: "POST", headers: V1, body: JSON.stringify(msg("slow 400")) });
        const text = await res.text();
        expect(text).toMatch(/^: keep-alive$/m);
        const d = new SseDecoder();
        const evs = [...d.feed(text), ...d.flush()].map((e) => JSON.parse(e.data) as Json);
        expect(((evs.at(-1)!.statusUpdate as Json).status as Json).state).toBe("TASK_STATE_COMPLETED");
      } finally {
        await quiet.close();
      }
    });
  });
});
