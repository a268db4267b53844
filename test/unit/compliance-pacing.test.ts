// Pacing of the compliance runner (FORMAT12.md §5-7): Retry-After, 429 re-sends, polling intervals
// and the message count, with fake timers: no test waits for real.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseCase } from "../../src/compliance/cases.js";
import type { WireRequest, WireResponse } from "../../src/compliance/http.js";
import { messagesNeeded, pollUntil, retryAfterMs, sendPaced, sendsMessage } from "../../src/compliance/pacing.js";

const req: WireRequest = { method: "POST", url: "http://127.0.0.1:1/rpc", headers: {} };
const res = (status: number, headers: Record<string, string> = {}, json?: unknown): WireResponse => ({
  status,
  headers,
  ...(json ? { json } : {}),
});

/** A fake `send` answering from the list in turn (the last one repeats), recording when each call came. */
function answers(first: WireResponse, ...rest: WireResponse[]) {
  const at: number[] = [];
  const send = vi.fn(async () => {
    at.push(Date.now());
    return [first, ...rest][Math.min(at.length - 1, rest.length)] ?? first;
  });
  return { send, at };
}

/** The time between each call and the one before it. */
function gaps(times: number[]): number[] {
  const out: number[] = [];
  times.reduce((prev, t) => (out.push(t - prev), t));
  return out;
}

describe("Retry-After", () => {
  it("reads delta-seconds and HTTP-dates, and nothing else", () => {
    const now = Date.parse("2026-12-01T12:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs("Tue, 01 Dec 2026 12:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Tue, 01 Dec 2026 11:00:00 GMT", now)).toBe(0); // in the past: at once
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe("429 re-sends", () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse("2026-12-01T12:00:00Z") }));
  afterEach(() => vi.useRealTimers());

  it("waits the Retry-After, then re-sends and reports it", async () => {
    const { send, at } = answers(res(429, { "retry-after": "2" }), res(200));
    const p = sendPaced(send, req, { deadline: Date.now() + 120_000 });
    await vi.advanceTimersByTimeAsync(1999);
    expect(send).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    const { response, notes } = await p;
    expect(response.status).toBe(200);
    expect(gaps(at)[0]).toBe(2000);
    expect(notes).toEqual(["HTTP 429 (Retry-After 2): re-sent after 2000 ms, answered 200"]);
  });

  it("without Retry-After waits 1 s, 2 s, 4 s and stops after 3 re-sends", async () => {
    const { send, at } = answers(res(429));
    const p = sendPaced(send, req, { deadline: Date.now() + 120_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    const { response, notes } = await p;
    expect(response.status).toBe(429);
    expect(send).toHaveBeenCalledTimes(4);
    expect(gaps(at)).toEqual([1000, 2000, 4000]);
    expect(notes).toHaveLength(3);
  });

  it("caps a long Retry-After (HTTP-date) at 60 s", async () => {
    const { send, at } = answers(res(429, { "retry-after": "Tue, 01 Dec 2026 13:00:00 GMT" }), res(200));
    const p = sendPaced(send, req, { deadline: Date.now() + 120_000 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await p).response.status).toBe(200);
    expect(gaps(at)[0]).toBe(60_000);
  });

  it("does not wait past --task-timeout, nor re-send a message when the budget is spent", async () => {
    const late = answers(res(429, { "retry-after": "30" }));
    const a = await sendPaced(late.send, req, { deadline: Date.now() + 10_000 });
    expect(late.send).toHaveBeenCalledTimes(1);
    expect(a.notes[0]).toMatch(/not re-sent, the wait of 30000 ms would pass --task-timeout/);

    const budget = { left: 1 };
    const spent = answers(res(429, { "retry-after": "0" }));
    const b = await sendPaced(spent.send, req, { deadline: Date.now() + 10_000, budget });
    expect(spent.send).toHaveBeenCalledTimes(1);
    expect(budget.left).toBe(0);
    expect(b.notes[0]).toMatch(/budget is spent/);
  });

  it("charges every send of a message, re-sends included", async () => {
    const budget = { left: 5 };
    const { send } = answers(res(429, { "retry-after": "0" }), res(429, { "retry-after": "0" }), res(200));
    const p = sendPaced(send, req, { deadline: Date.now() + 10_000, budget });
    await vi.advanceTimersByTimeAsync(10);
    expect((await p).response.status).toBe(200);
    expect(budget.left).toBe(2);
  });

  it("does not take for a 429 re-send the messages the case still has to send", async () => {
    const budget = { left: 2, reserved: 2 }; // this send and one more of the same case
    const { send } = answers(res(429, { "retry-after": "0" }), res(200));
    const { response, notes } = await sendPaced(send, req, { deadline: Date.now() + 10_000, budget });
    expect(response.status).toBe(429);
    expect(budget).toEqual({ left: 1, reserved: 1, sent: 1 });
    expect(notes[0]).toMatch(/budget is spent/);
  });

  it("leaves a non-429 answer alone", async () => {
    const { send } = answers(res(503, { "retry-after": "1" }));
    const { response, notes } = await sendPaced(send, req, { deadline: Date.now() + 10_000 });
    expect(response.status).toBe(503);
    expect(send).toHaveBeenCalledTimes(1);
    expect(notes).toEqual([]);
  });
});

describe("polling (repeatUntil)", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const working = res(200, {}, { state: "working" });
  const done = (r: WireResponse) => (r.json as { state?: string } | undefined)?.state === "completed";

  it("re-sends after 250 ms, doubling up to 2 s, until the body matches", async () => {
    const { send, at } = answers(working, working, working, working, working, res(200, {}, { state: "completed" }));
    const start = Date.now();
    const p = pollUntil(send, working, done, start + 120_000);
    await vi.advanceTimersByTimeAsync(10_000);
    const r = await p;
    expect(r).toMatchObject({ polls: 6, timedOut: false, response: { json: { state: "completed" } } });
    expect(gaps([start, ...at])).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });

  it("honours a Retry-After on the working answer", async () => {
    const { send, at } = answers(res(200, { "retry-after": "5" }, { state: "completed" }));
    const start = Date.now();
    const p = pollUntil(send, res(200, { "retry-after": "5" }, { state: "working" }), done, start + 120_000);
    await vi.advanceTimersByTimeAsync(5000);
    expect((await p).polls).toBe(1);
    expect(gaps([start, ...at])[0]).toBe(5000);
  });

  it("gives up at the deadline, the last wait cut to it", async () => {
    const { send, at } = answers(working);
    const start = Date.now();
    const p = pollUntil(send, working, done, start + 1000);
    await vi.advanceTimersByTimeAsync(2000);
    const r = await p;
    expect(r.timedOut).toBe(true);
    expect(at.map((t) => t - start)).toEqual([250, 750, 1000]);
  });

  it("does not poll a body that already matches", async () => {
    const { send } = answers(working);
    expect(await pollUntil(send, res(200, {}, { state: "completed" }), done, Date.now() + 1000)).toMatchObject({
      polls: 0,
      timedOut: false,
    });
    expect(send).not.toHaveBeenCalled();
  });
});

describe("messages a request sends", () => {
  it("knows the JSON-RPC methods and REST paths of both versions", () => {
    const rpc = (method: string) => ({ method: "POST", path: "", body: { jsonrpc: "2.0", id: 1, method } });
    for (const m of ["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]) expect(sendsMessage(rpc(m))).toBe(true);
    for (const m of ["GetTask", "tasks/get", "CancelTask"]) expect(sendsMessage(rpc(m))).toBe(false);
    expect(sendsMessage({ method: "POST", path: "/v1/message:send" })).toBe(true);
    expect(sendsMessage({ method: "POST", path: "/message:stream?x=1" })).toBe(true);
    expect(sendsMessage({ method: "GET", path: "/tasks/1" })).toBe(false);
    expect(sendsMessage({ method: "POST", path: "", rawBody: '{"jsonrpc":"2.0","id":1,"method":"message/send"}' })).toBe(true);
    expect(sendsMessage({ method: "POST", path: "", rawBody: "{not json" })).toBe(false);
    expect(sendsMessage({ method: "POST", path: "", body: [{ method: "GetTask" }, { method: "SendMessage" }] })).toBe(true);
  });

  it("counts every exchange of a case that sends one, parallel ones included", () => {
    const x = (method: string) => ({ request: { method: "POST", path: "", body: { jsonrpc: "2.0", id: 1, method } }, expect: {} });
    const { case: c, problems } = parseCase("v1_0/json-rpc/x/y", "f.json", {
      title: "t",
      requirements: ["S-23"],
      level: "MUST",
      version: "1.0",
      binding: "json-rpc",
      agent: "any",
      steps: [
        x("SendMessage"),
        x("GetTask"),
        { parallel: [x("SendStreamingMessage"), x("SendMessage")] },
        { ...x("CancelTask"), cleanup: true },
      ],
    });
    expect(problems).toEqual([]);
    expect(messagesNeeded(c!)).toBe(3);
  });
});

describe("case format: repeatUntil and cleanup", () => {
  const exchange = { request: { method: "POST", path: "", body: {} }, expect: {} };
  const problems = (steps: unknown[]) =>
    parseCase("v1_0/json-rpc/x/y", "f.json", {
      title: "t",
      requirements: ["S-23"],
      level: "MUST",
      version: "1.0",
      binding: "json-rpc",
      agent: "any",
      steps,
    }).problems;

  it("accepts them on exchanges, and cleanup on parallel and webhook steps", () => {
    expect(
      problems([
        { ...exchange, repeatUntil: { result: { status: { state: "TASK_STATE_COMPLETED" } } } },
        { ...exchange, cleanup: true },
      ]),
    ).toEqual([]);
    expect(
      problems([
        { parallel: [exchange, exchange], cleanup: true },
        { awaitWebhook: { until: {} }, cleanup: true },
      ]),
    ).toEqual([]);
  });

  it("rejects a bad matcher in repeatUntil, a non-boolean cleanup and cleanup on one exchange of a parallel step", () => {
    expect(problems([{ ...exchange, repeatUntil: { $nope: 1 } }])).toEqual([
      expect.stringMatching(/\/steps\/0\/repeatUntil: unknown operator "\$nope"/),
    ]);
    expect(problems([{ ...exchange, expect: { stream: {} }, repeatUntil: {} }])).toEqual([
      expect.stringMatching(/\/steps\/0\/repeatUntil: matches a JSON body/),
    ]);
    expect(problems([{ ...exchange, cleanup: "yes" }])).toEqual([expect.stringMatching(/\/steps\/0\/cleanup: must be boolean/)]);
    expect(problems([{ parallel: [{ ...exchange, cleanup: true }, exchange] }])).toEqual([
      expect.stringMatching(/\/steps\/0\/parallel\/0: cleanup belongs to the parallel step/),
    ]);
  });
});
