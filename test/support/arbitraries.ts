// fast-check arbitraries derived from the JSON Schemas of the wire dialects, so property tests draw
// from everything a schema allows rather than from hand-picked samples:
//   - generated/v1_0/schema.json  (2020-12, $defs; proto oneofs as `dependentSchemas` exclusions plus an
//     `anyOf` of `required` branches when one member must be set), dialect D10
//   - generated/v0_3/schema.json  (same generator, v0.3.0 a2a.proto), dialect D03-PB
//   - spec/upstream/v0.3/a2a.json (draft-07, definitions; anyOf/const/enum/$ref), dialect D03-RPC
//     (materialised by `make spec`)
//
// Supported keywords: $ref, type (object/array/string/integer/number/boolean), properties, required,
// additionalProperties (maps), items, minItems, enum, const, anyOf, type lists, pattern, format date-time,
// dependentSchemas (oneof groups). Sizes are bounded (maxItems, maxKeys, JSON depth).
//
// Where a schema leaves a field as a bare string but the protocol gives it a format (0.3 timestamps
// are "ISO 8601", 0.3 `bytes` are base64, a card's protocolVersion is Major.Minor.Patch), the caller
// passes an override for that one field; the rest of the value is still drawn from the schema.
import fc from "fast-check";
import { readFileSync } from "node:fs";

type Schema = boolean | { [k: string]: unknown };
type Obj = { [k: string]: unknown };
type Arb = fc.Arbitrary<unknown>;

export interface SchemaArbitraryOptions {
  /** Longest array / map generated. */
  maxItems?: number;
  /** Depth of free-form JSON (Struct, Value, `additionalProperties: {}`). */
  jsonDepth?: number;
  /** "Def.prop" → arbitrary for that property (replaces what the schema would draw). */
  overrides?: Record<string, Arb>;
  /** Def → extra properties to treat as required (protocol rules the schema does not state). */
  require?: Record<string, readonly string[]>;
  /** Def → properties never to generate. */
  exclude?: Record<string, readonly string[]>;
  /** "Def.prop" → minimum array length. */
  minItems?: Record<string, number>;
  /** Defs whose oneof group must have a member set even if the schema does not say so. */
  requiredOneofs?: readonly string[];
}

const B64_PATTERN = "^[A-Za-z0-9+/_-]*={0,2}$";

/** Free-form JSON as ProtoJSON Struct/Value can carry it: no -0, no NaN/Infinity, bounded depth. */
export function jsonValue(depth: number): Arb {
  const leaf = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }).map((d) => (Object.is(d, -0) ? 0 : d)),
    fc.string({ maxLength: 6 }),
  );
  if (depth <= 0) return leaf;
  const inner = jsonValue(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    fc.array(inner, { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), inner, { maxKeys: 3 }),
  );
}

export function jsonObject(depth: number): fc.Arbitrary<Obj> {
  return fc.dictionary(fc.string({ maxLength: 6 }), jsonValue(depth - 1), { maxKeys: 3 });
}

/** Standard, URL-safe, padded or unpadded base64 of random bytes (all legal ProtoJSON `bytes`). */
export function base64Any(): fc.Arbitrary<string> {
  return fc.tuple(fc.uint8Array({ maxLength: 12 }), fc.constantFrom("std", "url", "nopad")).map(([b, style]) => {
    const s = Buffer.from(b).toString("base64");
    if (style === "url") return s.replace(/\+/g, "-").replace(/\//g, "_");
    if (style === "nopad") return s.replace(/=+$/, "");
    return s;
  });
}

export function base64Standard(): fc.Arbitrary<string> {
  return fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString("base64"));
}

/**
 * RFC 3339 / ISO 8601 date-times: `Z` or an offset, 0..maxFraction fractional digits, optionally no
 * zone at all (0.3 JSON-RPC examples have none).
 */
export function isoTimestamp(opts: { allowNoZone: boolean; maxFraction: number }): fc.Arbitrary<string> {
  return fc
    .record({
      ms: fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2199, 11, 31) }),
      frac: fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: opts.maxFraction }),
      zone: opts.allowNoZone ? fc.constantFrom("Z", "", "+02:00", "-05:30", "+00:00") : fc.constantFrom("Z", "+02:00", "-05:30", "+00:00"),
    })
    .map(({ ms, frac, zone }) => `${new Date(ms).toISOString().slice(0, 19)}${frac ? "." + frac : ""}${zone}`);
}

export class SchemaArbitraries {
  private readonly cache = new Map<string, Arb>();
  private readonly building = new Set<string>();
  private readonly opts: Required<SchemaArbitraryOptions>;

  constructor(
    private readonly defs: Record<string, Schema>,
    private readonly refPrefix: string,
    opts: SchemaArbitraryOptions = {},
  ) {
    this.opts = {
      maxItems: 3,
      jsonDepth: 2,
      overrides: {},
      require: {},
      exclude: {},
      minItems: {},
      requiredOneofs: [],
      ...opts,
    };
  }

  /** generated/v1_0/schema.json or generated/v0_3/schema.json (D03-PB). */
  static fromProtoSchema(file: URL, opts?: SchemaArbitraryOptions): SchemaArbitraries {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { $defs: Record<string, Schema> };
    return new SchemaArbitraries(doc.$defs, "#/$defs/", opts);
  }

  /** The 0.3 a2a.json (D03-RPC). */
  static fromA2aJson(file: URL, opts?: SchemaArbitraryOptions): SchemaArbitraries {
    const doc = JSON.parse(readFileSync(file, "utf8")) as { definitions: Record<string, Schema> };
    return new SchemaArbitraries(doc.definitions, "#/definitions/", opts);
  }

  /** An arbitrary of valid values of definition `name`. */
  of<T = unknown>(name: string): fc.Arbitrary<T> {
    const hit = this.cache.get(name);
    if (hit) return hit as fc.Arbitrary<T>;
    if (this.building.has(name)) throw new Error(`recursive schema at ${name}: not supported (A2A schemas are acyclic)`);
    const schema = this.defs[name];
    if (schema === undefined) throw new Error(`no definition ${name}`);
    this.building.add(name);
    const arb = this.build(schema, name, "");
    this.building.delete(name);
    this.cache.set(name, arb);
    return arb as fc.Arbitrary<T>;
  }

  private build(s: Schema, def: string, prop: string): Arb {
    const override = prop ? this.opts.overrides[`${def}.${prop}`] : undefined;
    if (override) return override;
    if (s === true) return jsonValue(this.opts.jsonDepth);
    if (s === false) throw new Error(`${def}.${prop}: false schema cannot be generated`);
    if (typeof s.$ref === "string") {
      if (!s.$ref.startsWith(this.refPrefix)) throw new Error(`unsupported $ref ${s.$ref}`);
      return this.of(s.$ref.slice(this.refPrefix.length));
    }
    if ("const" in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    if (Array.isArray(s.type)) return fc.oneof(...(s.type as string[]).map((t) => this.build({ ...s, type: t }, def, prop)));
    const type = s.type as string | undefined;
    if (Array.isArray(s.anyOf) && type !== "object")
      return fc.oneof(...(s.anyOf as Schema[]).map((b, i) => this.build(b, def, prop ? `${prop}|${i}` : "").map((v) => v)));
    switch (type) {
      case "string":
        return this.string(s);
      case "integer":
        return fc.integer({ min: -100_000, max: 100_000 });
      case "number":
        return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }).map((d) => (Object.is(d, -0) ? 0 : d));
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array": {
        const min = this.opts.minItems[`${def}.${prop}`] ?? (typeof s.minItems === "number" ? s.minItems : 0);
        return fc.array(this.build((s.items as Schema) ?? true, def, `${prop}[]`), {
          minLength: min,
          maxLength: Math.max(min, this.opts.maxItems),
        });
      }
      case "object":
      case undefined:
        if (type === undefined && !s.properties && !s.additionalProperties) return jsonValue(this.opts.jsonDepth);
        return this.object(s, def, prop);
      default:
        throw new Error(`${def}.${prop}: unsupported type ${String(type)}`);
    }
  }

  private string(s: Obj): fc.Arbitrary<string> {
    if (s.format === "date-time") return isoTimestamp({ allowNoZone: false, maxFraction: 9 });
    if (s.pattern === B64_PATTERN) return base64Any();
    if (s.pattern === "^-?\\d+$") return fc.integer({ min: -100_000, max: 100_000 }).map(String);
    if (typeof s.pattern === "string") return fc.stringMatching(new RegExp(s.pattern));
    return fc.string({ maxLength: 8 });
  }

  private object(s: Obj, def: string, prop: string): Arb {
    // Nested anonymous objects are named after the property holding them, for overrides.
    const name = prop ? `${def}.${prop}` : def;
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const exclude = new Set(this.opts.exclude[name] ?? []);
    const keys = Object.keys(props).filter((k) => !exclude.has(k));
    const propSchema = (k: string): Schema => props[k] ?? {}; // k comes from Object.keys(props)
    if (keys.length === 0) {
      const extra = s.additionalProperties;
      if (extra === undefined || extra === true || (typeof extra === "object" && extra !== null && Object.keys(extra).length === 0))
        return jsonObject(this.opts.jsonDepth);
      return fc.dictionary(fc.string({ maxLength: 6 }), this.build(extra as Schema, def, `${prop}{}`), { maxKeys: this.opts.maxItems });
    }
    const required = new Set([...((s.required as string[]) ?? []), ...(this.opts.require[name] ?? [])]);
    // Oneof groups: a member whose dependent schema forbids other members.
    const dep = (s.dependentSchemas ?? {}) as Record<string, { properties?: Record<string, unknown> }>;
    const group = Object.keys(dep).filter((k) => keys.includes(k) && Object.values(dep[k]?.properties ?? {}).every((v) => v === false));
    const branches = (s.anyOf ?? []) as Obj[];
    const mustSetOne =
      this.opts.requiredOneofs.includes(name) ||
      (branches.length > 0 && branches.every((b) => Array.isArray(b.required) && (b.required as string[]).length === 1));
    const plain = keys.filter((k) => !group.includes(k));
    const model: Record<string, Arb> = {};
    for (const k of plain) model[k] = this.build(propSchema(k), name === def ? def : name, k);
    const base = fc.record(model, { requiredKeys: plain.filter((k) => required.has(k)) });
    if (group.length === 0) return base;
    const member = fc.oneof(...group.map((k) => this.build(propSchema(k), name === def ? def : name, k).map((v) => ({ [k]: v }))));
    const choice = mustSetOne ? member : fc.option(member, { nil: {}, freq: 4 });
    return fc.tuple(base, choice).map(([b, m]) => ({ ...b, ...m }));
  }
}
