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
