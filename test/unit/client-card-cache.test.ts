// C-22 (a2a-wire.md §8.2, 1.0 §8.6.2): a client given a CardCache reuses a card within its max-age,
// revalidates a stale one with If-None-Match / If-Modified-Since and keeps it on a 304.
import { describe, expect, it } from "vitest";
import { CardCache, fetchAgentCard } from "../../src/client/card.js";

const card = {
  name: "Cached",
  description: "",
  version: "1",
  supportedInterfaces: [{ url: "http://agent.test/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
};

function server(headers: Record<string, string>) {
  const seen: Headers[] = [];
  const fetchFn = (async (_url: string, init: RequestInit) => {
    const h = new Headers(init.headers);
    seen.push(h);
    if (h.get("if-none-match") === '"v1"')
      return new Response(null, { status: 304, headers: { "cache-control": headers["cache-control"] ?? "" } });
    return new Response(JSON.stringify(card), { status: 200, headers: { "content-type": "application/json", etag: '"v1"', ...headers } });
  }) as typeof fetch;
  return { seen, fetchFn };
}

describe("CardCache", () => {
  it("reuses a card within max-age without a request, then revalidates and keeps it on 304", async () => {
    let now = 1_000_000;
    const cache = new CardCache(() => now);
    const s = server({ "cache-control": "public, max-age=60" });
    const first = await fetchAgentCard("http://agent.test", { fetch: s.fetchFn, cache });
    expect(first.card.name).toBe("Cached");
    expect(s.seen).toHaveLength(1);
    expect(s.seen[0]?.get("if-none-match")).toBeNull();
    now += 30_000;
    expect((await fetchAgentCard("http://agent.test", { fetch: s.fetchFn, cache })).card.name).toBe("Cached");
    expect(s.seen).toHaveLength(1);
    now += 31_000;
    expect((await fetchAgentCard("http://agent.test", { fetch: s.fetchFn, cache })).card.name).toBe("Cached");
    expect(s.seen).toHaveLength(2);
    expect(s.seen[1]?.get("if-none-match")).toBe('"v1"');
    // The 304 renewed the lifetime.
    now += 30_000;
    await fetchAgentCard("http://agent.test", { fetch: s.fetchFn, cache });
    expect(s.seen).toHaveLength(2);
  });

  it("revalidates every time under no-cache and never keeps no-store", async () => {
    const cache = new CardCache();
    const noCache = server({ "cache-control": "no-cache", "last-modified": "Mon, 30 Nov 2026 10:00:00 GMT" });
    await fetchAgentCard("http://agent.test", { fetch: noCache.fetchFn, cache });
    await fetchAgentCard("http://agent.test", { fetch: noCache.fetchFn, cache });
    expect(noCache.seen).toHaveLength(2);
    expect(noCache.seen[1]?.get("if-none-match")).toBe('"v1"');
    expect(noCache.seen[1]?.get("if-modified-since")).toBe("Mon, 30 Nov 2026 10:00:00 GMT");
    const store = new CardCache();
    const noStore = server({ "cache-control": "no-store, max-age=60" });
    await fetchAgentCard("http://agent.test", { fetch: noStore.fetchFn, cache: store });
    await fetchAgentCard("http://agent.test", { fetch: noStore.fetchFn, cache: store });
    expect(noStore.seen.map((h) => h.get("if-none-match"))).toEqual([null, null]);
  });

  it("without a cache every fetch is unconditional", async () => {
    const s = server({ "cache-control": "max-age=60" });
    await fetchAgentCard("http://agent.test", { fetch: s.fetchFn });
    await fetchAgentCard("http://agent.test", { fetch: s.fetchFn });
    expect(s.seen.map((h) => h.get("if-none-match"))).toEqual([null, null]);
  });
});
