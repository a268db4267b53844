// The stream buffer budget (src/server/front/stream-budget.ts): who is cut and when, what a queue counts,
// and that a cut queue lets go of what it held.
import { describe, expect, it } from "vitest";
import { EventWait, StreamBudget, StreamQueue, type Packing } from "../../src/server/front/stream-budget.js";

const TEXT: Packing<string> = { pack: (s) => Buffer.from(s), unpack: (b) => Buffer.from(b).toString() };

describe("StreamBudget", () => {
  it("cuts a stream over the per-stream limit, whatever the others hold", () => {
    const budget = new StreamBudget({ maxBytes: 1000, maxBytesPerStream: 100 });
    const cuts: number[] = [];
    const a = budget.open((limit) => cuts.push(limit));
    a.set(100);
    expect(cuts).toEqual([]);
    a.set(101);
    expect(cuts).toEqual([100]);
    expect(budget.bytes).toBe(0);
    expect(budget.streams).toBe(0);
  });

  it("over the total, cuts the streams over their share, largest first, until within it", () => {
    const budget = new StreamBudget({ maxBytes: 300, maxBytesPerStream: 300 });
    const cut: string[] = [];
    const small = budget.open(() => cut.push("small"));
    const big = budget.open(() => cut.push("big"));
    const mid = budget.open(() => cut.push("mid"));
    small.set(20);
    big.set(200);
    mid.set(80);
    expect(cut).toEqual([]); // 300: within
    small.set(30); // 310 > 300; share 100: only big is over it
    expect(cut).toEqual(["big"]);
    expect(budget.bytes).toBe(110);
    expect(budget.peak).toBe(300);
  });
});

describe("BudgetHold (request bodies in the same budget)", () => {
  it("counts a body's bytes with the streams' and lets go of them on release", () => {
    const budget = new StreamBudget({ maxBytes: 1000, maxBytesPerStream: 1000 });
    const s = budget.open(() => {});
    s.set(300);
    const body = budget.hold();
    expect(body.grow(200)).toBe(true);
    expect(body.grow(100)).toBe(true);
    expect(budget.bytes).toBe(600);
    expect(budget.heldBytes).toBe(300);
    body.release();
    body.release();
    expect(budget.bytes).toBe(300);
    expect(budget.heldBytes).toBe(0);
  });

  it("cuts the stream furthest over its share to make room for a body", () => {
    const budget = new StreamBudget({ maxBytes: 1000, maxBytesPerStream: 1000 });
    const cut: string[] = [];
    const reader = budget.open(() => cut.push("reader"));
    const laggard = budget.open(() => cut.push("laggard"));
    reader.set(100);
    laggard.set(800);
    expect(budget.hold().grow(300)).toBe(true); // 1200 > 1000: the laggard (over 500) goes
    expect(cut).toEqual(["laggard"]);
    expect(budget.bytes).toBe(400);
  });

  it("refuses a body that does not fit when no stream is over its share", () => {
    const budget = new StreamBudget({ maxBytes: 1000, maxBytesPerStream: 1000 });
    const cut: string[] = [];
    const a = budget.open(() => cut.push("a"));
    const b = budget.open(() => cut.push("b"));
    a.set(300);
    b.set(300);
    const first = budget.hold();
    expect(first.grow(400)).toBe(true);
    const second = budget.hold();
    expect(second.grow(1)).toBe(false); // a and b are within their share of what the holds leave (300)
    expect(cut).toEqual([]);
    expect(budget.bytes).toBe(1000);
    first.release();
    expect(second.grow(1)).toBe(true);
  });

  it("a stream's share is what the holds leave of the budget", () => {
    const budget = new StreamBudget({ maxBytes: 1000, maxBytesPerStream: 1000 });
    const cut: number[] = [];
    const body = budget.hold();
    expect(body.grow(600)).toBe(true);
    const s = budget.open((limit) => cut.push(limit));
    s.set(400);
    expect(cut).toEqual([]);
    s.set(401);
    expect(cut).toEqual([400]);
  });
});

describe("StreamQueue", () => {
  it("hands an item to a waiting writer without counting it; counts what waits, in whole blocks", async () => {
    const budget = new StreamBudget({ maxBytes: 1 << 20, maxBytesPerStream: 1 << 20 });
    const q = new StreamQueue(budget, TEXT, () => {});
    const first = q.next();
    q.push("hello");
    expect(await first).toEqual({ value: "hello", done: false });
    expect(budget.bytes).toBe(0);
    q.push("a");
    q.push("b");
    expect(budget.bytes).toBe(64 * 1024 + 16); // one 64 KiB block and two lengths
    expect((await q.next()).value).toBe("a");
    expect((await q.next()).value).toBe("b");
    expect(budget.bytes).toBe(0);
    q.end();
    expect(await q.next()).toEqual({ value: undefined, done: true });
    expect(budget.streams).toBe(0);
  });

  it("keeps order across blocks, an item larger than a block included", async () => {
    const q = new StreamQueue(new StreamBudget({ maxBytes: 1 << 30, maxBytesPerStream: 1 << 30 }), TEXT, () => {});
    const items = Array.from({ length: 50 }, (_, i) => String(i).repeat(i % 7 === 0 ? 40_000 : 3_000));
    for (const x of items) q.push(x);
    q.end();
    const out: string[] = [];
    for await (const x of q) out.push(x);
    expect(out).toEqual(items);
  });

  it("cut: drops what waits and ends as onCut says; the writer reads the last item, then the end", async () => {
    const budget = new StreamBudget({ maxBytes: 64 * 1024, maxBytesPerStream: 16 * 1024 });
    const q: StreamQueue<string> = new StreamQueue(budget, TEXT, (limit) => {
      q.push(`cut at ${limit}`);
      q.end();
    });
    for (let i = 0; i < 100; i++) q.push("x".repeat(1000));
    const out: string[] = [];
    for await (const x of q) out.push(x);
    expect(out).toEqual([`cut at ${16 * 1024}`]);
    expect(budget.bytes).toBe(0);
  });

  it("cut after its end (the task finished, the client had not read): the writer still gets the cut's ending", async () => {
    const budget = new StreamBudget({ maxBytes: 20 * 1024, maxBytesPerStream: 16 * 1024 });
    const q: StreamQueue<string> = new StreamQueue(budget, TEXT, (limit) => {
      q.push(`cut at ${limit}`);
      q.end();
    });
    for (let i = 0; i < 12; i++) q.push("x".repeat(1000));
    q.end();
    // Another stream grows: the budget is over, and this one is over its share (10 KiB).
    const other = new StreamQueue(budget, TEXT, () => {});
    for (let i = 0; i < 8; i++) other.push("y".repeat(1000));
    const out: string[] = [];
    for await (const x of q) out.push(x);
    expect(out).toEqual([`cut at ${10 * 1024}`]);
    // The same with an ending that fails (gRPC: RESOURCE_EXHAUSTED), not an OK end.
    const grpc: StreamQueue<string> = new StreamQueue(budget, TEXT, () => grpc.fail(new Error("cut")));
    for (let i = 0; i < 12; i++) grpc.push("x".repeat(1000));
    grpc.end();
    for (let i = 0; i < 8; i++) other.push("y".repeat(1000));
    await expect(grpc.next()).rejects.toThrow("cut");
  });

  it("a failed queue throws to the writer after what waits", async () => {
    const q = new StreamQueue(undefined, TEXT, () => {});
    q.push("a");
    q.fail(new Error("boom"));
    expect((await q.next()).value).toBe("a");
    await expect(q.next()).rejects.toThrow("boom");
  });
});

describe("EventWait", () => {
  it("gives the event, or the stop (lasting) or nudge (this wait only)", async () => {
    const w = new EventWait();
    const STOP = Symbol("stop");
    const TICK = Symbol("tick");
    expect(await w.wait(Promise.resolve(1))).toBe(1);
    const never = new Promise<number>(() => {});
    const nudged = w.wait(never);
    w.nudge(TICK);
    expect(await nudged).toBe(TICK);
    const stopped = w.wait(never);
    w.stop(STOP);
    expect(await stopped).toBe(STOP);
    expect(await w.wait(Promise.resolve(2))).toBe(STOP);
  });
});
