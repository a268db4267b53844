// Runs a slice of the round-trip families with the long-run settings (fixed seed, ≥10,000 runs each).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { families } from "./families.js";

export const RUNS = Number(process.env.A2A_PROPERTY_RUNS ?? 10_000);
export const SEED = 20261130;

export function runFamilies(title: string, pick: (name: string) => boolean): void {
  describe(title, () => {
    for (const f of families((a, b, what) => expect(a, what).toEqual(b)).filter((f) => pick(f.name))) {
      it(`${f.name}: ${RUNS} runs, seed ${SEED}`, () => {
        const started = performance.now();
        fc.assert(f.property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
        console.log(`${f.name}: ${RUNS} runs in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      });
    }
  });
}
