// Strict ProtoJSON for generated protobuf-es messages, plus the A2A 1.0 overrides on output
// (a2a-wire.md §6.2): REQUIRED fields are emitted even at their default value.
import { fromJson, toJson, type DescEnum, type DescField, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { writeJson } from "./json-writer.js";

export class ProtoJsonError extends Error {
  constructor(
    message: string,
    /** Fully-qualified name of the message being decoded. */
    readonly typeName: string,
    /** JSON Pointer of the offending value, when known ("" = the whole document). */
    readonly path?: string,
  ) {
    super(message);
    this.name = "ProtoJsonError";
  }
}

export interface EncodeOptions {
  /** Per message type: JSON names of fields to emit even when they hold their default. */
  alwaysEmit?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Parses ProtoJSON into a message. Unknown fields are ignored (A2A 1.0 §5.7); everything else
 * is strict: wrong types, unknown enum names, two members of one oneof and malformed
 * timestamps are errors. The thrown ProtoJsonError names the offending field, e.g.
 * `cannot decode field lf.a2a.v1.TaskStatus.state from JSON: "BOGUS" is not a value of enum
 * lf.a2a.v1.TaskState (at /status/state)`.
 *
 * Agreement with Google's own runtime is checked in test/contract/protojson-oracle.test.ts.
 */
export function decode<D extends DescMessage>(schema: D, json: unknown): MessageShape<D> {
  const prepared = prepare(schema, json, "");
  try {
    // Unknown fields were dropped by prepare(); protobuf-es' own ignoreUnknownFields would also
    // turn an unknown enum name into "unset" instead of an error.
    return fromJson(schema, prepared as JsonValue, { ignoreUnknownFields: false });
  } catch (e) {
    throw new ProtoJsonError(e instanceof Error ? e.message : String(e), schema.typeName);
  }
}

/**
 * Parses ProtoJSON that a schema validator has already accepted: canonical JSON names, enum names,
 * no nulls standing for "unset". Unknown fields are skipped by fromJson itself, so the copy that
 * decode() makes to drop them is not needed; every other check of fromJson still applies.
 */
export function decodeValidated<D extends DescMessage>(schema: D, json: JsonValue): MessageShape<D> {
  try {
    return fromJson(schema, json, { ignoreUnknownFields: true });
  } catch (e) {
    throw new ProtoJsonError(e instanceof Error ? e.message : String(e), schema.typeName);
  }
}

/** Well-known types with a JSON form of their own: protobuf-es reads them as they are. */
const specialJson = new Set([
  "google.protobuf.Any",
  "google.protobuf.Duration",
  "google.protobuf.FieldMask",
  "google.protobuf.ListValue",
  "google.protobuf.Struct",
  "google.protobuf.Timestamp",
  "google.protobuf.Value",
  "google.protobuf.BoolValue",
  "google.protobuf.BytesValue",
  "google.protobuf.DoubleValue",
  "google.protobuf.FloatValue",
  "google.protobuf.Int32Value",
  "google.protobuf.Int64Value",
  "google.protobuf.StringValue",
  "google.protobuf.UInt32Value",
  "google.protobuf.UInt64Value",
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function show(v: unknown): string {
  if (Array.isArray(v)) return "an array";
  if (v === null) return "null";
  if (typeof v === "object") return "an object";
  // What JSON cannot write (undefined, a function or symbol out of a hand-built value) is named by its type.
  return JSON.stringify(v) ?? typeof v;
}

const pointer = (path: string, key: string | number) => `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;

function fieldError(desc: DescMessage, field: DescField, path: string, reason: string): ProtoJsonError {
  return new ProtoJsonError(
    `cannot decode field ${desc.typeName}.${field.name} from JSON: ${reason} (at ${path || "/"})`,
    desc.typeName,
    path,
  );
}

/** Fields by JSON name and by proto name (both are accepted on input). */
const fieldIndex = new WeakMap<DescMessage, Map<string, DescField>>();
function fieldsOf(desc: DescMessage): Map<string, DescField> {
  let index = fieldIndex.get(desc);
  if (!index) {
    index = new Map();
    for (const f of desc.fields) index.set(f.name, f);
    for (const f of desc.fields) index.set(f.jsonName, f);
    fieldIndex.set(desc, index);
  }
  return index;
}

/** A JSON null is a value (NullValue) only for google.protobuf.Value and NullValue fields. */
function nullIsValue(field: DescField): boolean {
  if (field.fieldKind === "message") return field.message.typeName === "google.protobuf.Value";
  if (field.fieldKind === "enum") return field.enum.typeName === "google.protobuf.NullValue";
  return false;
}

/**
 * An enum value is a value name or an int32 (proto3 enums are open), also quoted ("2") as
 * Google's parsers accept; returns it as protobuf-es reads it, or undefined if it is neither.
 */
function enumValue(desc: DescEnum, v: unknown): string | number | undefined {
  if (typeof v === "string") {
    if (desc.values.some((x) => x.name === v)) return v;
    if (!/^-?[0-9]+$/.test(v)) return undefined;
    v = Number(v);
  }
  return typeof v === "number" && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? v : undefined;
}

/**
 * Returns a copy of `json` without unknown fields and without nulls that only mean "unset" (so
 * that `{"task": null, "message": {…}}` sets one oneof member, as in Google's runtime), with
 * quoted enum numbers turned into numbers. Throws, naming the field and its JSON path, where
 * protobuf-es would only name a type: non-object messages, bad enum values, bad well-known-type
 * values. Every other problem is left for fromJson, whose messages name the field.
 */
function prepare(desc: DescMessage, json: unknown, path: string): unknown {
  if (specialJson.has(desc.typeName)) return json;
  if (!isObject(json))
    throw new ProtoJsonError(
      `cannot decode message ${desc.typeName} from JSON: expected an object, got ${show(json)} (at ${path || "/"})`,
      desc.typeName,
      path,
    );
  const fields = fieldsOf(desc);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    const field = fields.get(key);
    if (!field) continue;
    if (value === null && !nullIsValue(field)) continue;
    out[key] = prepareField(desc, field, value, pointer(path, key));
  }
  return out;
}

function prepareMessage(desc: DescMessage, field: DescField, message: DescMessage, value: unknown, path: string): unknown {
  if (!specialJson.has(message.typeName)) {
    if (!isObject(value)) throw fieldError(desc, field, path, `expected an object (${message.typeName}), got ${show(value)}`);
    return prepare(message, value, path);
  }
  if (message.typeName === "google.protobuf.Struct" && !isObject(value))
    throw fieldError(desc, field, path, `expected an object (google.protobuf.Struct), got ${show(value)}`);
  try {
    fromJson(message, value as JsonValue);
  } catch (e) {
    const reason = (e instanceof Error ? e.message : String(e)).replace(/^cannot decode message (\S+) from JSON:? /, "$1: ");
    throw fieldError(desc, field, path, reason);
  }
  return value;
}

function prepareEnum(desc: DescMessage, field: DescField, enumDesc: DescEnum, value: unknown, path: string): unknown {
  const v = enumValue(enumDesc, value);
  if (v === undefined) throw fieldError(desc, field, path, `${show(value)} is not a value of enum ${enumDesc.typeName}`);
  return v;
}

function prepareField(desc: DescMessage, field: DescField, value: unknown, path: string): unknown {
  switch (field.fieldKind) {
    case "message":
      return prepareMessage(desc, field, field.message, value, path);
    case "enum":
      return prepareEnum(desc, field, field.enum, value, path);
    case "list":
      if (!Array.isArray(value)) return value;
      if (field.listKind === "message")
        return value.map((v: unknown, i) => (v === null ? v : prepareMessage(desc, field, field.message, v, pointer(path, i))));
      if (field.listKind === "enum")
        return value.map((v: unknown, i) => (v === null ? v : prepareEnum(desc, field, field.enum, v, pointer(path, i))));
      return value;
    case "map":
      if (!isObject(value)) return value;
      if (field.mapKind === "message")
        return Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, v === null ? v : prepareMessage(desc, field, field.message, v, pointer(path, k))]),
        );
      if (field.mapKind === "enum")
        return Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, v === null ? v : prepareEnum(desc, field, field.enum, v, pointer(path, k))]),
        );
      return value;
    default:
      return value;
  }
}

/** Serialises a message as ProtoJSON, applying the overrides in `opts`. */
export function encode<D extends DescMessage>(schema: D, message: MessageShape<D>, opts: EncodeOptions = {}): JsonValue {
  return opts.alwaysEmit ? writeJson(schema, message, opts.alwaysEmit) : toJson(schema, message);
}
