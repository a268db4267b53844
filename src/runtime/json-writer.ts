// ProtoJSON writer with the A2A "always emit" overrides built in: the same JSON value as
// protobuf-es' toJson followed by a second pass that adds REQUIRED fields at their default
// (a2a-wire.md §6.2), in one pass. Field order is kept: set fields by field number, then the
// always-emitted defaults in declaration order.
//
// Covered natively: scalars, enums, lists, maps, oneofs, nested messages and
// google.protobuf.Timestamp (formatted without a Date per call). A message instance that sets a
// field of any other well-known type (Struct, Value, Any, Duration …) is written by protobuf-es
// itself and then given the overrides, so those keep protobuf-es' exact behaviour and errors.
// test/contract/json-writer.test.ts checks the equivalence over every 1.0 message.
import { ScalarType, toJson, type DescEnum, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";

export type AlwaysEmit = Readonly<Record<string, readonly string[]>>;

type Writer = (message: Record<string, unknown>) => JsonObject;
type ValueWriter = (value: unknown) => JsonValue;

const cache = new WeakMap<AlwaysEmit, WeakMap<DescMessage, Writer>>();

/** The JSON value of `message` (a `schema` message), with `table`'s fields always present. */
export function writeJson(schema: DescMessage, message: unknown, table: AlwaysEmit): JsonObject {
  return writerFor(schema, table)(message as Record<string, unknown>);
}

function writerFor(desc: DescMessage, table: AlwaysEmit): Writer {
  let byDesc = cache.get(table);
  if (!byDesc) cache.set(table, (byDesc = new WeakMap()));
  let w = byDesc.get(desc);
  if (!w) {
    // A placeholder first, so that recursive types resolve to this entry while compiling.
    const slot: { w?: Writer } = {};
    byDesc.set(desc, (m) => slot.w!(m));
    w = slot.w = compileMessage(desc, table);
    byDesc.set(desc, w);
  }
  return w;
}

/** Fills in the table's defaults on a JSON value protobuf-es wrote, the whole tree down. */
export function applyAlwaysEmit(schema: DescMessage, json: JsonValue, table: AlwaysEmit): void {
  if (!json || typeof json !== "object" || Array.isArray(json)) return;
  const obj = json;
  const emit = table[schema.typeName];
  for (const field of schema.fields) {
    const value = obj[field.jsonName];
    if (value === undefined) {
      if (emit?.includes(field.jsonName)) {
        const d = defaultJson(field);
        if (d !== undefined) obj[field.jsonName] = d;
      }
      continue;
    }
    if (field.fieldKind === "message") applyAlwaysEmit(field.message, value, table);
    else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value))
      for (const item of value) applyAlwaysEmit(field.message, item, table);
    else if (field.fieldKind === "map" && field.mapKind === "message" && value && typeof value === "object")
      for (const item of Object.values(value as JsonObject)) applyAlwaysEmit(field.message, item, table);
  }
}

export function defaultJson(field: DescField): JsonValue | undefined {
  switch (field.fieldKind) {
    case "list":
      return [];
    case "map":
      return {};
    case "scalar":
      switch (field.scalar) {
        case ScalarType.STRING:
        case ScalarType.BYTES:
          return "";
        case ScalarType.BOOL:
          return false;
        case ScalarType.INT64:
        case ScalarType.UINT64:
        case ScalarType.SINT64:
        case ScalarType.FIXED64:
        case ScalarType.SFIXED64:
          return "0";
        default:
          return 0;
      }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------

const TIMESTAMP = "google.protobuf.Timestamp";
const TS_MIN = -62135596800000; // 0001-01-01T00:00:00Z
const TS_MAX = 253402300799000; // 9999-12-31T23:59:59Z

/** A well-known type with a JSON form of its own (Timestamp, Struct, Value, Any …; not Empty). */
function ownJsonForm(desc: DescMessage): boolean {
  return desc.typeName.startsWith("google.protobuf.") && desc.fields.length > 0;
}

function compileMessage(desc: DescMessage, table: AlwaysEmit): Writer {
  // Such a type met at the top level, and the odd field named "__proto__": protobuf-es.
  if (ownJsonForm(desc) || desc.fields.some((f) => f.jsonName === "__proto__")) return (m) => viaProtobufEs(desc, m, table);
  const sorted = [...desc.fields].sort((a, b) => a.number - b.number);
  // Fields of such a type other than Timestamp: when one is set, protobuf-es writes the message.
  const foreign = sorted.filter((f) => {
    const m = messageOf(f);
    return m !== undefined && ownJsonForm(m) && m.typeName !== TIMESTAMP;
  });
  const foreignSet = foreign.map((f): ((m: Record<string, unknown>) => boolean) => {
    if (f.oneof) {
      const oneof = f.oneof.localName;
      return (m) => (m[oneof] as { case?: string }).case === f.localName;
    }
    const local = f.localName;
    if (f.fieldKind === "list") return (m) => (m[local] as unknown[]).length > 0;
    if (f.fieldKind === "map") return (m) => Object.keys(m[local] as object).length > 0;
    return (m) => m[local] !== undefined;
  });
  const writers = sorted.map((f) => compileField(f, table));
  const emit = table[desc.typeName] ?? [];
  const defaults = desc.fields
    .filter((f) => emit.includes(f.jsonName))
    .map((f) => [f.jsonName, defaultJson(f)] as const)
    .filter((d): d is readonly [string, JsonValue] => d[1] !== undefined);
  const typeName = desc.typeName;

  return (m) => {
    if (m.$typeName !== typeName) return viaProtobufEs(desc, m, table);
    for (const isForeign of foreignSet) if (isForeign(m)) return viaProtobufEs(desc, m, table);
    const json: JsonObject = {};
    for (const write of writers) write(m, json);
    for (const [key, d] of defaults) {
      if (json[key] === undefined) json[key] = Array.isArray(d) ? [] : d !== null && typeof d === "object" ? {} : d;
    }
    return json;
  };
}

function viaProtobufEs(desc: DescMessage, m: Record<string, unknown>, table: AlwaysEmit): JsonObject {
  const json = toJson(desc, m as never) as JsonObject;
  applyAlwaysEmit(desc, json, table);
  return json;
}

function messageOf(f: DescField): DescMessage | undefined {
  if (f.fieldKind === "message") return f.message;
  if (f.fieldKind === "list" && f.listKind === "message") return f.message;
  if (f.fieldKind === "map" && f.mapKind === "message") return f.message;
  return undefined;
}

function compileField(field: DescField, table: AlwaysEmit): (m: Record<string, unknown>, json: JsonObject) => void {
  const key = field.jsonName;
  const local = field.localName;
  switch (field.fieldKind) {
    case "list": {
      const item = compileValue(field, table);
      return (m, json) => {
        const list = m[local] as unknown[];
        if (list.length === 0) return;
        const out = new Array<JsonValue>(list.length);
        for (let i = 0; i < list.length; i++) out[i] = item(list[i]);
        json[key] = out;
      };
    }
    case "map": {
      const item = compileValue(field, table);
      return (m, json) => {
        const record = m[local] as Record<string, unknown>;
        const keys = Object.keys(record);
        if (keys.length === 0) return;
        const out: JsonObject = {};
        for (const k of keys) {
          const v = item(record[k]);
          if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
          else out[k] = v;
        }
        json[key] = out;
      };
    }
    default: {
      const write = compileValue(field, table);
      if (field.oneof) {
        const oneof = field.oneof.localName;
        return (m, json) => {
          const o = m[oneof] as { case: string | undefined; value?: unknown };
          if (o.case === local) json[key] = write(o.value);
        };
      }
      if (field.presence !== FeatureSet_FieldPresence.IMPLICIT || field.fieldKind === "message")
        return (m, json) => {
          const v = m[local];
          if (v !== undefined) json[key] = write(v);
        };
      const isZero = zeroCheck(field);
      return (m, json) => {
        const v = m[local];
        if (!isZero(v)) json[key] = write(v);
      };
    }
  }
}

function zeroCheck(field: DescField): (v: unknown) => boolean {
  if (field.fieldKind === "enum") {
    // A proto3 enum's first value is its zero.
    const zero = field.enum.values[0]?.number ?? 0;
    return (v) => v === zero;
  }
  if (field.fieldKind !== "scalar") return () => false;
  switch (field.scalar) {
    case ScalarType.BOOL:
      return (v) => v === false;
    case ScalarType.STRING:
      return (v) => v === "";
    case ScalarType.BYTES:
      return (v) => v instanceof Uint8Array && v.byteLength === 0;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return (v) => Object.is(v, 0);
    default:
      // Loose comparison matches 0n, 0 and "0".
      return (v) => v == 0;
  }
}

function compileValue(field: DescField, table: AlwaysEmit): ValueWriter {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  switch (kind) {
    case "enum":
      return enumWriter(field, (field as { enum: DescEnum }).enum);
    case "message": {
      const desc = (field as { message: DescMessage }).message;
      if (desc.typeName === TIMESTAMP) return (v) => timestampJson(v as { $typeName: string; seconds: bigint; nanos: number });
      const w = writerFor(desc, table);
      return (v) => w(v as Record<string, unknown>);
    }
    default:
      return scalarWriter(field, (field as { scalar: ScalarType }).scalar);
  }
}

function enumWriter(field: DescField, desc: DescEnum): ValueWriter {
  const names = new Map(desc.values.map((v) => [v.number, v.jsonName]));
  const isNull = desc.typeName === "google.protobuf.NullValue";
  return (v) => {
    if (typeof v !== "number") throw new Error(`cannot encode ${desc.toString()} to JSON: expected number, got ${describe(v)}`);
    if (isNull) return null;
    return names.get(v) ?? v;
  };
}

function scalarWriter(field: DescField, scalar: ScalarType): ValueWriter {
  const bad = (v: unknown) =>
    new Error(`cannot encode ${field.toString()} to JSON: expected ${ScalarType[scalar].toLowerCase()}, got ${describe(v)}`);
  switch (scalar) {
    case ScalarType.STRING:
      return (v) => {
        if (typeof v !== "string") throw bad(v);
        return v;
      };
    case ScalarType.BOOL:
      return (v) => {
        if (typeof v !== "boolean") throw bad(v);
        return v;
      };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return (v) => {
        if (typeof v !== "number") throw bad(v);
        if (Number.isNaN(v)) return "NaN";
        if (v === Infinity) return "Infinity";
        if (v === -Infinity) return "-Infinity";
        return v;
      };
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return (v) => {
        if (typeof v === "bigint" || typeof v === "string" || (typeof v === "number" && Number.isInteger(v))) return v.toString();
        throw bad(v);
      };
    case ScalarType.BYTES:
      return (v) => {
        if (!(v instanceof Uint8Array)) throw bad(v);
        return base64Encode(v);
      };
    default:
      return (v) => {
        if (typeof v !== "number") throw bad(v);
        return v;
      };
  }
}

function describe(v: unknown): string {
  return v === null ? "null" : typeof v === "string" ? JSON.stringify(v) : typeof v;
}

// RFC 3339 as protobuf-es writes it: "Z" with no fraction when nanos is 0, else 3, 6 or 9 digits.
let cachedSecond = Number.NaN;
let cachedPrefix = "";

function timestampJson(t: { $typeName: string; seconds: bigint; nanos: number }): string {
  const seconds = Number(t.seconds);
  const ms = seconds * 1000;
  if (ms < TS_MIN || ms > TS_MAX)
    throw new Error(`cannot encode message ${t.$typeName} to JSON: must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z inclusive`);
  if (t.nanos < 0) throw new Error(`cannot encode message ${t.$typeName} to JSON: nanos must not be negative`);
  if (t.nanos > 999999999) throw new Error(`cannot encode message ${t.$typeName} to JSON: nanos must not be greater than 999999999`);
  if (seconds !== cachedSecond) {
    cachedSecond = seconds;
    cachedPrefix = new Date(ms).toISOString().slice(0, -5); // drop ".000Z"
  }
  if (t.nanos === 0) return `${cachedPrefix}Z`;
  const digits = String(t.nanos + 1000000000).slice(1);
  if (digits.endsWith("000000")) return `${cachedPrefix}.${digits.slice(0, 3)}Z`;
  if (digits.endsWith("000")) return `${cachedPrefix}.${digits.slice(0, 6)}Z`;
  return `${cachedPrefix}.${digits}Z`;
}
