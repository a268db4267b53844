// Our ProtoJSON codec against an independent oracle: Google's own runtime (python3-protobuf
// json_format) produced test/fixtures/protojson/expected.json from cases.json (`make oracle-corpus`).
// For every case, decode then encode (plain ProtoJSON, no A2A overrides) must give the oracle's JSON,
// and every input the oracle rejects must be rejected. The few cases where the oracle is more lenient
// than the ProtoJSON spec are listed, with reasons, in oracle-deviations.json.
import { readFileSync } from "node:fs";
import type { DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decode, encode } from "../../src/runtime/protojson.js";

interface Case {
  id: string;
  type: string;
  note?: string;
  input: unknown;
}
type Outcome = { ok: unknown } | { error: true; reason?: string };
interface Deviation {
  id: string;
  ours: Outcome;
  why: string;
}

const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../fixtures/protojson/${name}`, import.meta.url), "utf8")) as T;
const cases = read<Case[]>("cases.json");
const oracle = read<{ oracle: string; cases: Record<string, Outcome> }>("expected.json");
const deviations = read<{ deviations: Deviation[] }>("oracle-deviations.json").deviations;
const deviating = new Set(deviations.map((d) => d.id));
const byId = new Map(cases.map((c) => [c.id, c]));
/** The oracle's outcome for a case; the corpus holds one for every case (make oracle-corpus). */
function oracleOf(id: string): Outcome {
  const o = oracle.cases[id];
  if (!o) throw new Error(`${id} is not in expected.json: run make oracle-corpus`);
  return o;
}

function schemaFor(type: string): DescMessage {
  const schema = (v1_0 as Record<string, unknown>)[`${type}Schema`] as DescMessage | undefined;
  if (schema?.kind !== "message") throw new Error(`no generated 1.0 message named ${type}`);
  return schema;
}

/** decode then encode, as a peer would receive it (JSON text, parsed back). */
function roundTrip(c: Case): unknown {
  const schema = schemaFor(c.type);
  return JSON.parse(JSON.stringify(encode(schema, decode(schema, c.input))));
}

/** Our outcome for a case, in the oracle's terms. */
function ours(c: Case): Outcome {
  try {
    return { ok: roundTrip(c) };
  } catch {
    return { error: true };
  }
}

const compared = cases.filter((c) => !deviating.has(c.id));
const accepted = compared.filter((c) => "ok" in oracleOf(c.id));
const rejected = compared.filter((c) => "error" in oracleOf(c.id));

describe(`ProtoJSON corpus: ${compared.length}/${cases.length} cases agree with ${oracle.oracle}; ${deviations.length} documented deviations`, () => {
  it("has an oracle result for every case, at least 60 cases, and deviations only for known cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(byId.size).toBe(cases.length);
    expect(cases.filter((c) => !(c.id in oracle.cases)).map((c) => c.id)).toEqual([]);
    expect(Object.keys(oracle.cases).filter((id) => !byId.has(id))).toEqual([]);
    expect(deviations.filter((d) => !byId.has(d.id)).map((d) => d.id)).toEqual([]);
  });
});

describe("the codec agrees with Google's runtime on the inputs it accepts", () => {
  it.each(accepted.map((c) => [c.id, c] as const))("%s", (_id, c) => {
    expect(roundTrip(c)).toEqual((oracle.cases[c.id] as { ok: unknown }).ok);
  });
});

describe("the codec rejects the inputs Google's runtime rejects", () => {
  it.each(rejected.map((c) => [c.id, c] as const))("%s", (_id, c) => {
    const reason = (oracle.cases[c.id] as { reason: string }).reason;
    expect(() => roundTrip(c), `oracle: ${reason}`).toThrow();
  });
});

describe("documented deviations still hold (an entry that stops deviating must be removed)", () => {
  it.each(deviations.map((d) => [d.id, d] as const))("%s", (_id, d) => {
    const c = byId.get(d.id)!;
    const mine = ours(c);
    expect(mine, d.why).toEqual(d.ours);
    expect(mine, "the oracle now agrees with us: drop the deviation").not.toEqual(
      "error" in oracleOf(c.id) ? { error: true } : oracleOf(c.id),
    );
  });
});
