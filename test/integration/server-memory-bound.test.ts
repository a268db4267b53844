// Issue 18, finding 1: small requests that build large tasks must not end the server. Before the
// byte limits, `stream 100000` kept a 100,000-part task (about 18 MB of heap) and the memory store
// kept 10,000 tasks whatever their size, so a few hundred such requests, or a few thousand 1 MiB
// echoes, ended the process with "JavaScript heap out of memory".
//
// Default run (scaled down): the server runs with a 96 MB heap and `--max-store-bytes 4 MiB`;
// 8 `stream 100000` and 24 echoes of 1 MiB would need about 200 MB of heap without the limits
// (the code before them dies on the fourth or fifth stream). `make test-limits` (A2A_LIMITS_FULL=1)
// runs the full sizes, 200 streams and 4,000 echoes, against the default limits with no heap
// cap, and checks the README's bound on resident memory.
import { afterEach, describe, expect, it } from "vitest";
import { flood, sendText, serveChild, type ServeChild } from "../support/serve-child.js";

const FULL = process.env.A2A_LIMITS_FULL === "1";
const MiB = 1024 * 1024;
/** README "Limits and timeouts": resident memory of `serve --store memory` with the default limits. */
const RSS_BOUND_DEFAULTS = 1024 * MiB; // measured: peak 693–730 MiB, 230–500 MiB between bursts
const RSS_BOUND_SCALED = 250 * MiB;
const ECHO = `echo ${"x".repeat(MiB - 400)}`; // the request stays within the 1 MiB body limit

let server: ServeChild | undefined;
afterEach(async () => server?.stop());

describe("memory stays bounded by bytes", () => {
  it(
    FULL ? "200 × stream 100000 and 4,000 × 1 MiB echo, default limits" : "8 × stream 100000 and 24 × 1 MiB echo in a 96 MB heap",
    async () => {
      server = FULL
        ? await serveChild(["--store", "memory"])
        : await serveChild(["--store", "memory", "--max-store-bytes", String(4 * MiB)], ["--max-old-space-size=96"]);
      const s = server;
      let peak = 0;
      const sample = setInterval(() => {
        if (s.child.exitCode === null) peak = Math.max(peak, s.rss());
      }, 50);
      try {
        const streams = await flood(s.url, FULL ? 200 : 8, () => "stream 100000", 4);
        expect(streams).toEqual({ TASK_STATE_COMPLETED: FULL ? 200 : 8 });
        const echoes = await flood(s.url, FULL ? 4000 : 24, () => ECHO, 4);
        expect(echoes).toEqual({ TASK_STATE_COMPLETED: FULL ? 4000 : 24 });
      } finally {
        clearInterval(sample);
      }
      expect(s.child.exitCode, s.stderr()).toBeNull();
      const after = await sendText(s.url, "echo still answering");
      expect(after.result?.task?.status.state).toBe("TASK_STATE_COMPLETED");
      peak = Math.max(peak, s.rss());
      if (FULL) console.log(`peak RSS ${(peak / MiB).toFixed(0)} MiB`);
      expect(peak).toBeLessThan(FULL ? RSS_BOUND_DEFAULTS : RSS_BOUND_SCALED);
    },
    FULL ? 1_800_000 : 60_000,
  );
});
