// Strict ProtoJSON for generated protobuf-es messages, plus the A2A 1.0 overrides on output
// (a2a-wire.md §6.2): REQUIRED fields are emitted even at their default value.
import { fromJson, ScalarType, toJson, type DescMessage, type JsonObject, type JsonValue, type MessageShape } from "@bufbuild/protobuf";

export class ProtoJsonError extends Error {
  constructor(
    message: string,
    /** Fully-qualified name of the message being decoded. */
    readonly typeName: string,
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
 * timestamps are errors.
 */
export function decode<D extends DescMessage>(schema: D, json: unknown): MessageShape<D> {
  try {
    return fromJson(schema, json as JsonValue, { ignoreUnknownFields: true });
  } catch (e) {
    throw new ProtoJsonError(e instanceof Error ? e.message : String(e), schema.typeName);
  }
}

/** Serialises a message as ProtoJSON, applying the overrides in `opts`. */
export function encode<D extends DescMessage>(schema: D, message: MessageShape<D>, opts: EncodeOptions = {}): JsonValue {
  const json = toJson(schema, message);
  if (opts.alwaysEmit) applyAlwaysEmit(schema, json, opts.alwaysEmit);
  return json;
}

function defaultJson(field: DescMessage["fields"][number]): JsonValue | undefined {
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

function applyAlwaysEmit(schema: DescMessage, json: JsonValue, table: Readonly<Record<string, readonly string[]>>): void {
  if (!json || typeof json !== "object" || Array.isArray(json)) return;
  const obj = json as JsonObject;
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
