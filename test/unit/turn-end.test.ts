// TurnEnd (src/server/adapters/node-http.ts): both HTTP adapters ask for the end of the turn in which
// they hand a request to the front, and write a reply ready within that turn only then.
import { describe, expect, it } from "vitest";
import { TurnEnd } from "../../src/server/adapters/node-http.js";

describe("TurnEnd", () => {
  it("holds every reply of a turn until that turn's check phase, then lets them all go at once", async () => {
    const turn = new TurnEnd();
    const log: string[] = [];
    // Work already queued for this turn (an I/O callback's immediate, a microtask) comes first.
    setImmediate(() => log.push("immediate queued before"));
    queueMicrotask(() => log.push("microtask"));
    const a = turn.wait().then(() => log.push("reply a"));
    const b = turn.wait().then(() => log.push("reply b"));
    expect(turn.wait()).toBe(turn.wait());
    await Promise.all([a, b]);
    expect(log).toEqual(["microtask", "immediate queued before", "reply a", "reply b"]);
  });

  it("starts over for the next turn: a reply made after the last flush waits for the next one", async () => {
    const turn = new TurnEnd();
    const first = turn.wait();
    await first;
    const second = turn.wait();
    expect(second).not.toBe(first);
    let released = false;
    void second.then(() => (released = true));
    await Promise.resolve();
    expect(released).toBe(false);
    await second;
    expect(released).toBe(true);
  });

  it("a reply ready after the turn it was handed over in goes at once, not a turn later", async () => {
    const turn = new TurnEnd();
    const log: string[] = [];
    const turnOver = turn.wait(); // the adapter hands the request to the front
    await new Promise<void>((done) =>
      // The SQLite store's group commit, at the end of the same turn, makes the reply ready.
      setImmediate(() => {
        setImmediate(() => {
          log.push("the next turn");
          done();
        });
        void turnOver.then(() => log.push("reply written"));
      }),
    );
    expect(log).toEqual(["reply written", "the next turn"]);
  });
});
