// Twin fixtures: the same conversation in the three wire forms (test/fixtures/twins/<scenario>/
// {v1_0,v0_3-rpc,v0_3-rest}.json). Each form must translate into the other two, step by step, with
// exactly the losses the fixture declares (`upgradeLosses`; downgrades of these conversations lose nothing).
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Translated } from "../../src/versioning/loss.js";
import * as rest from "../../src/versioning/rest0_3.js";
import * as rpc from "../../src/versioning/rpc0_3.js";
import { zip } from "../support/zip.js";

interface Step {
  type: string;
  value: unknown;
  /** 0.3 status updates: the `final` flag, which 1.0 does not carry. */
  final?: boolean;
  /** Loss ids the upgrade of this 0.3 step reports. */
  upgradeLosses?: string[];
}
interface Twin {
  scenario: string;
  steps: Step[];
}

const dir = new URL("../fixtures/twins/", import.meta.url);
const load = (scenario: string, form: string): Twin => JSON.parse(readFileSync(new URL(`${scenario}/${form}.json`, dir), "utf8")) as Twin;

type Fn = (value: unknown, extra?: unknown) => Translated<unknown>;
function translator(mod: typeof rpc | typeof rest, direction: "upgrade" | "downgrade", step: Step): (v: unknown) => Translated<unknown> {
  const f = (mod as unknown as Record<string, Fn>)[`${direction}${step.type}`];
  if (!f) throw new Error(`no ${direction}${step.type}`);
  if (direction === "downgrade" && step.type === "StreamResponse") return (v) => f(v, { final: step.final ?? false });
  return (v) => f(v);
}

const scenarios = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

describe("twin fixtures", () => {
  it("there are twin scenarios, each in all three forms with the same steps", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(5);
    for (const s of scenarios) {
      const types = ["v1_0", "v0_3-rpc", "v0_3-rest"].map((f) => load(s, f).steps.map((x) => x.type));
      expect(types[1], s).toEqual(types[0]);
      expect(types[2], s).toEqual(types[0]);
    }
  });

  for (const scenario of scenarios) {
    describe(scenario, () => {
      const v1 = load(scenario, "v1_0").steps;
      const forms = [
        { name: "0.3 JSON-RPC", mod: rpc, steps: load(scenario, "v0_3-rpc").steps },
        { name: "0.3 HTTP+JSON", mod: rest, steps: load(scenario, "v0_3-rest").steps },
      ] as const;
      for (const { name, mod, steps } of forms) {
        it(`${name} → 1.0`, () => {
          zip(steps, v1).forEach(([step, one], i) => {
            const r = translator(mod, "upgrade", step)(step.value);
            expect(r.value, `step ${i} ${step.type}`).toEqual(one.value);
            expect(
              r.losses.map((l) => l.id),
              `step ${i} ${step.type} losses`,
            ).toEqual(step.upgradeLosses ?? []);
          });
        });
        it(`1.0 → ${name}`, () => {
          zip(steps, v1).forEach(([step, one], i) => {
            const r = translator(mod, "downgrade", step)(one.value);
            expect(r.value, `step ${i} ${step.type}`).toEqual(step.value);
            expect(r.losses, `step ${i} ${step.type} losses`).toEqual([]);
          });
        });
      }
      it("0.3 JSON-RPC ⇄ 0.3 HTTP+JSON through 1.0", () => {
        const [a, b] = forms;
        zip(a.steps, b.steps).forEach(([step, other], i) => {
          const viaA = translator(b.mod, "downgrade", other)(translator(a.mod, "upgrade", step)(step.value).value).value;
          expect(viaA, `step ${i} ${step.type} rpc → rest`).toEqual(other.value);
          const viaB = translator(a.mod, "downgrade", step)(translator(b.mod, "upgrade", other)(other.value).value).value;
          expect(viaB, `step ${i} ${step.type} rest → rpc`).toEqual(step.value);
        });
      });
    });
  }
});
