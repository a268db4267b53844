// ProtoJSON writer with the A2A "always emit" overrides built in: the same JSON value as
// protobuf-es' toJson followed by a second pass that adds REQUIRED fields at their default
// (a2a-wire.md §6.2), in one pass. Field order is kept: set fields by field number, then the
// always-emitted defaults in declaration order.
//
// Covered natively: scalars, enums, lists, maps, oneofs, nested messages and
// google.protobuf.Timestamp (formatted without a Date per call). A message instance that sets a
// field of any other well-known type (Struct, Value, Any, Duration …) is written by protobuf-es
// itself and then given the overrides, so those keep protobuf-es' exact behaviour and errors.
// writeJsonText writes the same value as JSON text in the same pass (JSON.stringify's text, without
// the tree it would walk again): what a server answers a 1.0 request with.
// test/contract/json-writer.test.ts checks the equivalence over every 1.0 message.
import { ScalarType, toJson, type DescEnum, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";

export type AlwaysEmit = Readonly<Record<string, readonly string[]>>;

type Writer = (message: Record<string, unknown>) => JsonObject;
type ValueWriter = (value: unknown) => JsonValue;
type TextWriter = (message: Record<string, unknown>) => string;
type Compiled<W> = WeakMap<AlwaysEmit, WeakMap<DescMessage, W>>;

const cache: Compiled<Writer> = new WeakMap();
const textCache: Compiled<TextWriter> = new WeakMap();

/** The JSON value of `message` (a `schema` message), with `table`'s fields always present. */
export function writeJson(schema: DescMessage, message: unknown, table: AlwaysEmit): JsonObject {
  return writerFor(schema, table)(message as Record<string, unknown>);
}

/** `JSON.stringify(writeJson(schema, message, table))`, written in one pass. */
export function writeJsonText(schema: DescMessage, message: unknown, table: AlwaysEmit): string {
  return textWriterFor(schema, table)(message as Record<string, unknown>);
}

const writerFor = (desc: DescMessage, table: AlwaysEmit) => compiled(cache, desc, table, compileMessage);
const textWriterFor = (desc: DescMessage, table: AlwaysEmit) => compiled(textCache, desc, table, compileMessageText);

function compiled<W extends (m: Record<string, unknown>) => unknown>(
  in_: Compiled<W>,
  desc: DescMessage,
  table: AlwaysEmit,
  compile: (desc: DescMessage, table: AlwaysEmit) => W,
): W {
  let byDesc = in_.get(table);
  if (!byDesc) in_.set(table, (byDesc = new WeakMap()));
  let w = byDesc.get(desc);
  if (!w) {
    // A placeholder first, so that recursive types resolve to this entry while compiling.
    const slot: { w?: W } = {};
    byDesc.set(desc, ((m: Record<string, unknown>) => slot.w!(m)) as W);
    w = slot.w = compile(desc, table);
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

/** Whether a message is written by protobuf-es rather than compiled: such a type met at the top level, or the odd field named "__proto__". */
function notCompiled(desc: DescMessage): boolean {
  return ownJsonForm(desc) || desc.fields.some((f) => f.jsonName === "__proto__");
}

/** For each field of such a type other than Timestamp: whether it is set (then protobuf-es writes the message). */
function foreignChecks(sorted: readonly DescField[]): ((m: Record<string, unknown>) => boolean)[] {
  const foreign = sorted.filter((f) => {
    const m = messageOf(f);
    return m !== undefined && ownJsonForm(m) && m.typeName !== TIMESTAMP;
  });
  return foreign.map((f): ((m: Record<string, unknown>) => boolean) => {
    if (f.oneof) {
      const oneof = f.oneof.localName;
      return (m) => (m[oneof] as { case?: string }).case === f.localName;
    }
    const local = f.localName;
    if (f.fieldKind === "list") return (m) => (m[local] as unknown[]).length > 0;
    if (f.fieldKind === "map") return (m) => Object.keys(m[local] as object).length > 0;
    return (m) => m[local] !== undefined;
  });
}

/** The always-emitted fields of `desc` with their defaults, in declaration order. */
function defaultsOf(desc: DescMessage, table: AlwaysEmit): (readonly [DescField, JsonValue])[] {
  const emit = table[desc.typeName] ?? [];
  return desc.fields
    .filter((f) => emit.includes(f.jsonName))
    .map((f) => [f, defaultJson(f)] as const)
    .filter((d): d is readonly [DescField, JsonValue] => d[1] !== undefined);
}

function compileMessage(desc: DescMessage, table: AlwaysEmit): Writer {
  if (notCompiled(desc)) return (m) => viaProtobufEs(desc, m, table);
  const sorted = [...desc.fields].sort((a, b) => a.number - b.number);
  const foreignSet = foreignChecks(sorted);
  const writers = sorted.map((f) => compileField(f, table));
  const defaults = defaultsOf(desc, table).map(([f, d]) => [f.jsonName, d] as const);
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

/**
 * The text twin of compileMessage: each field writes `"key":value` or nothing; the defaults of the
 * always-emitted fields not written follow, in declaration order, as compileMessage adds them.
 */
function compileMessageText(desc: DescMessage, table: AlwaysEmit): TextWriter {
  const viaTree: TextWriter = (m) => JSON.stringify(writerFor(desc, table)(m));
  const defaults = defaultsOf(desc, table);
  // Which defaults a message still needs is kept in the bits of one number.
  if (notCompiled(desc) || defaults.length > 30) return viaTree;
  const sorted = [...desc.fields].sort((a, b) => a.number - b.number);
  const foreignSet = foreignChecks(sorted);
  const fields = sorted.map((f) => {
    const i = defaults.findIndex(([d]) => d === f);
    return { write: compileFieldText(f, table), bit: i < 0 ? 0 : 1 << i };
  });
  const defaultTexts = defaults.map(([f, d]) => `${JSON.stringify(f.jsonName)}:${JSON.stringify(d)}`);
  const typeName = desc.typeName;

  return (m) => {
    if (m.$typeName !== typeName) return viaTree(m);
    for (const isForeign of foreignSet) if (isForeign(m)) return viaTree(m);
    let out = "";
    let unwritten = 0;
    for (const f of fields) {
      const text = f.write(m);
      if (text === undefined) unwritten |= f.bit;
      else out += out === "" ? text : `,${text}`;
    }
    for (let i = 0; unwritten !== 0 && i < defaultTexts.length; i++)
      if (unwritten & (1 << i)) out += out === "" ? defaultTexts[i] : `,${defaultTexts[i]}`;
    return `{${out}}`;
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

/** compileField's text twin: `"key":value`, or undefined when the field is not written. */
function compileFieldText(field: DescField, table: AlwaysEmit): (m: Record<string, unknown>) => string | undefined {
  const key = `${JSON.stringify(field.jsonName)}:`;
  const local = field.localName;
  const write = compileValueText(field, table);
  switch (field.fieldKind) {
    case "list":
      return (m) => {
        const list = m[local] as unknown[];
        if (list.length === 0) return undefined;
        let out = `${key}[${write(list[0])}`;
        for (let i = 1; i < list.length; i++) out += `,${write(list[i])}`;
        return `${out}]`;
      };
    case "map":
      return (m) => {
        const record = m[local] as Record<string, unknown>;
        let out = "";
        // The order JSON.stringify gives the object compileField builds: Object.keys order.
        for (const k of Object.keys(record)) out += `${out === "" ? "" : ","}${JSON.stringify(k)}:${write(record[k])}`;
        return out === "" ? undefined : `${key}{${out}}`;
      };
    default: {
      if (field.oneof) {
        const oneof = field.oneof.localName;
        return (m) => {
          const o = m[oneof] as { case: string | undefined; value?: unknown };
          return o.case === local ? key + write(o.value) : undefined;
        };
      }
      if (field.presence !== FeatureSet_FieldPresence.IMPLICIT || field.fieldKind === "message")
        return (m) => {
          const v = m[local];
          return v === undefined ? undefined : key + write(v);
        };
      const isZero = zeroCheck(field);
      return (m) => {
        const v = m[local];
        return isZero(v) ? undefined : key + write(v);
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

/** compileValue's text twin: a value's JSON text. */
function compileValueText(field: DescField, table: AlwaysEmit): (value: unknown) => string {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  if (kind === "message") {
    const desc = (field as { message: DescMessage }).message;
    // A timestamp's text needs no escaping.
    if (desc.typeName === TIMESTAMP) return (v) => `"${timestampJson(v as { $typeName: string; seconds: bigint; nanos: number })}"`;
    const w = textWriterFor(desc, table);
    return (v) => w(v as Record<string, unknown>);
  }
  const write = compileValue(field, table);
  if (kind === "enum") {
    // The text of each name, made once.
    const quoted = new Map((field as { enum: DescEnum }).enum.values.map((x) => [x.jsonName, JSON.stringify(x.jsonName)]));
    return (v) => {
      const json = write(v);
      return (typeof json === "string" && quoted.get(json)) || JSON.stringify(json);
    };
  }
  return (v) => JSON.stringify(write(v));
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
// Also the timestamps of the 0.3 one-pass writer (src/versioning/write0_3.ts).
let cachedSecond = Number.NaN;
let cachedPrefix = "";

export function timestampJson(t: { $typeName: string; seconds: bigint; nanos: number }): string {
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
