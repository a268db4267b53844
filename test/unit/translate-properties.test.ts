// Fast round-trip property run in the default `make test`: every family of test/properties/families.ts,
// 200 runs each with a fixed seed. The long run (≥10,000 per family) is `make test-properties`.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { families } from "../properties/families.js";

const RUNS = 200;
const SEED = 20261130;

describe("translation round trips (fast run)", () => {
  for (const f of families((a, b, what) => expect(a, what).toEqual(b))) {
    it(`${f.name}: ${RUNS} runs, seed ${SEED}`, () => {
      fc.assert(f.property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
    });
  }
});
