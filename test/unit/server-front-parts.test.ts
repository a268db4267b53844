// The front's named parts (src/server/front/: card-route.ts, gate.ts, stream-pump.ts), each without
// a socket or the rest of the front: what createFront composes, checked one part at a time.
import { create } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { AgentCardInit } from "../../src/server/engine/agent.js";
import { localStreamSlots } from "../../src/server/engine/coordinator.js";
import type { A2AHandler, EventStream, HandlerContext } from "../../src/server/engine/handler.js";
import { CardRoute } from "../../src/server/front/card-route.js";
import { Gate } from "../../src/server/front/gate.js";
import { StreamBudget } from "../../src/server/front/stream-budget.js";
import { pumpEvents } from "../../src/server/front/stream-pump.js";
import type { SseStream } from "../../src/transport/server.js";
import { A2AError } from "../../src/versioning/errors.js";

const declaration = (name: string, extensions: { uri: string; required?: boolean }[] = []): AgentCardInit => ({
  name,
  description: "parts",
  version: "1",
  capabilities: { streaming: true, extensions },
});

/** A handler of which only card() and getExtendedAgentCard() are used; `state.card` may be swapped. */
function cardHandler(state: { card: AgentCardInit; extended: boolean }): A2AHandler {
  return {
    card: () => ({ declaration: state.card, extended: state.extended }),
    getExtendedAgentCard: async () => ({ ...state.card, name: `${state.card.name} (extended)` }),
  } as unknown as A2AHandler;
}

const silentLog = { error: () => {}, warn: () => {}, info: () => {} } as never;

describe("CardRoute", () => {
  const route = (state: { card: AgentCardInit; extended: boolean }) =>
    new CardRoute(cardHandler(state), { versions: ["1.0", "0.3"], cardMaxAge: 60, cardAuthenticators: [] });
  const get = (headers: Record<string, string> = {}) => ({
    headers: { "a2a-version": "1.0", ...headers },
    url: "/.well-known/agent-card.json",
  });

  it("serves the card with a validator, answers 304 to it, and rebuilds when the declaration changes", async () => {
    const state = { card: declaration("first"), extended: false };
    const cards = route(state);
    const first = await cards.serve(get(), "http://a.example");
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body).name).toBe("first");
    expect(first.headers["cache-control"]).toBe("public, max-age=60");
    const etag = first.headers.etag!;
    expect((await cards.serve(get({ "if-none-match": etag }), "http://a.example")).status).toBe(304);

    state.card = declaration("second");
    const second = await cards.serve(get({ "if-none-match": etag }), "http://a.example");
    expect(second.status).toBe(200);
    expect(JSON.parse(second.body).name).toBe("second");
    expect(second.headers.etag).not.toBe(etag);
  });

  it("lists the interfaces at the base URL it is given", async () => {
    const cards = route({ card: declaration("x"), extended: false });
    const card = JSON.parse((await cards.serve(get(), "http://b.example/a2a")).body) as {
      supportedInterfaces: { url: string }[];
    };
    expect(card.supportedInterfaces.map((i) => i.url)).toContain("http://b.example/a2a");
  });

  it("publishes the handler's extended card, and refuses it in the version's own error when there is none", async () => {
    const req = create(v1_0.GetExtendedAgentCardRequestSchema, {});
    const ctx: HandlerContext = { principal: "p", version: "0.3", extensions: [], tenant: "", signal: new AbortController().signal };
    await expect(route({ card: declaration("x"), extended: false }).extended("0.3", req, ctx, "http://a.example")).rejects.toBeInstanceOf(
      A2AError,
    );
    const card = await route({ card: declaration("x"), extended: true }).extended(
      "1.0",
      req,
      { ...ctx, version: "1.0" },
      "http://a.example",
    );
    expect(card.name).toBe("x (extended)");
    expect(card.supportedInterfaces.map((i) => i.url)).toContain("http://a.example");
  });
});

describe("Gate", () => {
  const gate = (extensions: { uri: string; required?: boolean }[], maxStreams = 2, hasExtended = false) =>
    new Gate<unknown>({
      cardAuthenticators: [],
      maxStreams,
      streamSlots: localStreamSlots(),
      declared: () => ({
        hasExtended,
        declaredUris: new Set(extensions.map((e) => e.uri)),
        requiredUris: extensions.filter((e) => e.required).map((e) => e.uri),
      }),
      scope: { prefix: "", versions: ["1.0", "0.3"] },
    });

  it("activates only declared extensions and refuses a call without a required one", () => {
    const g = gate([{ uri: "urn:a" }, { uri: "urn:req", required: true }]);
    expect(g.activated(["urn:req", "urn:a", "urn:unknown"])).toEqual(["urn:req", "urn:a"]);
    expect(() => g.activated(["urn:a"])).toThrow(expect.objectContaining({ name: "ExtensionSupportRequiredError" }));
  });

  it("counts an open server's streams per client address, and gives a slot back on release", async () => {
    const g = gate([], 2);
    const a1 = await g.takeStream("anonymous", "10.0.0.1");
    const a2 = await g.takeStream("anonymous", "10.0.0.1");
    expect(a1 && a2).toBeTruthy();
    expect(await g.takeStream("anonymous", "10.0.0.1")).toBeUndefined();
    expect(await g.takeStream("anonymous", "10.0.0.2")).toBeTruthy();
    a1!();
    expect(await g.takeStream("anonymous", "10.0.0.1")).toBeTruthy();
  });

  it("on an open server, asks a credential for the extended card only when there is one", async () => {
    const request = { headers: {}, url: "/" };
    expect(await gate([], 2, false).extendedCardCaller(request)).toBeUndefined();
    expect(await gate([], 2, true).extendedCardCaller(request)).toEqual({ ok: false, error: "missing" });
    expect(await gate([], 2, true).who({ ...request, raw: undefined })).toBe("anonymous");
  });
});

describe("pumpEvents", () => {
  afterEach(() => vi.useRealTimers());

  const sse: SseStream = {
    headers: { "content-type": "text/event-stream" },
    event: (e) => ({ frames: `data: ${e.payload.case}\n\n`, close: false }),
    end: () => "",
    error: (err) => `event: error\ndata: ${err.message}\n\n`,
    closed: false,
  };

  /** Events that arrive only when `push` is called; `returned` once the pump let go. */
  function manualEvents() {
    const waiting: ((r: IteratorResult<v1_0.StreamResponse>) => void)[] = [];
    const state = { returned: false };
    const events: EventStream = {
      next: () => new Promise((resolve) => waiting.push(resolve)),
      return: async () => {
        state.returned = true;
        return { done: true, value: undefined };
      },
    } as EventStream;
    const push = (r: IteratorResult<v1_0.StreamResponse>) => waiting.shift()?.(r);
    return { events, push, state };
  }
  const text = (chunk: string | Uint8Array) => (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());

  it("sends keep-alive comments while the handler is quiet, then its events, and releases the slot at the end", async () => {
    vi.useFakeTimers();
    const { events, push } = manualEvents();
    const release = vi.fn();
    const out = pumpEvents(events, sse, new AbortController().signal, release, {
      budget: new StreamBudget({}),
      keepAliveMs: 1000,
      log: silentLog,
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(text((await out.next()).value)).toMatch(/^:/);
    push({
      done: false,
      value: create(v1_0.StreamResponseSchema, { payload: { case: "task", value: create(v1_0.TaskSchema, { id: "t" }) } }),
    });
    expect(text((await out.next()).value)).toBe("data: task\n\n");
    push({ done: true, value: undefined });
    expect((await out.next()).done).toBe(true);
    expect(release).toHaveBeenCalledOnce();
  });

  it("stops when the client goes, returning the handler's stream and releasing the slot", async () => {
    const { events, state } = manualEvents();
    const release = vi.fn();
    const client = new AbortController();
    const out = pumpEvents(events, sse, client.signal, release, { budget: new StreamBudget({}), keepAliveMs: 0, log: silentLog });
    client.abort();
    expect((await out.next()).done).toBe(true);
    expect(state.returned).toBe(true);
    expect(release).toHaveBeenCalledOnce();
  });

  it("ends a failing stream with one error frame", async () => {
    const events = { next: async () => Promise.reject(new A2AError("TaskNotFoundError", "gone")) } as unknown as EventStream;
    const out = pumpEvents(events, sse, new AbortController().signal, () => {}, {
      budget: new StreamBudget({}),
      keepAliveMs: 0,
      log: silentLog,
    });
    expect(text((await out.next()).value)).toContain("event: error");
    expect((await out.next()).done).toBe(true);
  });
});
