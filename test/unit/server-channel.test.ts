import { describe, expect, it } from "vitest";
import { Channel, SubscriberOverflowError } from "../../src/server/engine/channel.js";

async function drain<T>(it: AsyncIterator<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for (;;) {
      const r = await it.next();
      if (r.done) return { items };
      items.push(r.value);
    }
  } catch (error) {
    return { items, error };
  }
}

describe("Channel", () => {
  it("every subscriber gets every event in order, after its first items", async () => {
    const ch = new Channel<number>();
    const a = ch.subscribe([0]);
    ch.publish(1);
    const b = ch.subscribe([10]);
    ch.publish(2);
    ch.close();
    expect((await drain(a)).items).toEqual([0, 1, 2]);
    expect((await drain(b)).items).toEqual([10, 2]);
  });

  it("stopAfter ends a subscription after the matching event, which is still delivered", async () => {
    const ch = new Channel<number>();
    const s = ch.subscribe([], (n) => n === 2);
    for (const n of [1, 2, 3]) ch.publish(n);
    expect((await drain(s)).items).toEqual([1, 2]);
    expect(ch.size).toBe(0);
  });

  it("a subscriber that falls too far behind is cut off with an error after what it was owed; others go on", async () => {
    let emptied = 0;
    const ch = new Channel<number>(3, () => emptied++);
    const slow = ch.subscribe();
    const fast = ch.subscribe();
    const got: number[] = [];
    for (let n = 1; n <= 5; n++) {
      ch.publish(n);
      got.push((await fast.next()).value as number);
    }
    const r = await drain(slow);
    expect(r.items).toEqual([1, 2, 3]);
    expect(r.error).toBeInstanceOf(SubscriberOverflowError);
    expect(got).toEqual([1, 2, 3, 4, 5]);
    await fast.return();
    expect(emptied).toBe(1);
  });

  it("a subscriber with more than maxBytes waiting is cut off too; reading frees room; one large item alone is kept", async () => {
    const ch = new Channel<number>(1000, undefined, { maxBytes: 100, sizeOf: (n) => n });
    const reader = ch.subscribe();
    const slow = ch.subscribe();
    for (const n of [40, 40]) ch.publish(n);
    expect((await reader.next()).value).toBe(40);
    ch.publish(50); // reader: 40 + 50 waiting; slow: 40 + 40 + 50 > 100
    const r = await drain(slow);
    expect(r.items).toEqual([40, 40]);
    expect((r.error as Error).message).toMatch(/100 bytes behind/);
    expect([(await reader.next()).value, (await reader.next()).value]).toEqual([40, 50]);
    ch.publish(500);
    expect((await reader.next()).value).toBe(500);
    await reader.return();
  });

  it("return() while a reader waits resolves the wait and detaches", async () => {
    const ch = new Channel<number>();
    const s = ch.subscribe();
    const pending = s.next();
    await s.return();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(ch.size).toBe(0);
  });
});
