// Derives a JSON Schema (2020-12) for the ProtoJSON form of every message of a proto package
// from its descriptors: camelCase names, enum names, well-known types, REQUIRED field behaviour
// and oneof exclusivity. Used for the 1.0 wire (D10) and the 0.3 REST wire (D03-PB).
import { getOption, ScalarType, type DescField, type DescMessage, type FileRegistry } from "@bufbuild/protobuf";

type Schema = Record<string, unknown>;

export interface DeriveOptions {
  /** Proto package whose messages become definitions (e.g. "lf.a2a.v1"). */
  protoPackage: string;
  /**
   * REQUIRED repeated fields that may legitimately be empty on the wire (spec errata E10:
   * an empty ListTasks page, `"skills": []`). They must be present but need no element.
   */
  emptyAllowed: ReadonlySet<string>;
  /**
   * Whether every oneof must have one member set (default: yes for the A2A packages). A2A's oneofs
   * replace 0.3's `kind`/`type` discriminators, so a Part, SendMessageResponse, StreamResponse,
   * SecurityScheme or OAuthFlows without a member carries nothing (a2a-wire.md §2.5, §2.7, §6.1).
   */
  oneofMemberRequired?: boolean;
}

/** Packages whose oneofs are "exactly one of" (1.0 and the 0.3 gRPC/REST proto). */
const A2A_PACKAGES: ReadonlySet<string> = new Set(["lf.a2a.v1", "a2a.v1"]);

/** google.api.FieldBehavior.REQUIRED */
const REQUIRED = 2;

export function isRequired(registry: FileRegistry, field: DescField): boolean {
  const ext = registry.getExtension("google.api.field_behavior");
  if (!ext) return false;
  const values: unknown = getOption(field, ext);
  return Array.isArray(values) && values.includes(REQUIRED);
}

/** Definition key of a message: its name inside the package, nested names joined by "_". */
export function defName(m: DescMessage, protoPackage: string): string {
  return m.typeName.slice(protoPackage.length + 1).replace(/\./g, "_");
}

const TIMESTAMP_PATTERN = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$";

export function deriveSchema(registry: FileRegistry, opts: DeriveOptions): Schema {
  const defs: Record<string, Schema> = {};
  const oneofMemberRequired = opts.oneofMemberRequired ?? A2A_PACKAGES.has(opts.protoPackage);
  const ref = (m: DescMessage): Schema => {
    switch (m.typeName) {
      case "google.protobuf.Struct":
        return { type: "object" };
      case "google.protobuf.Value":
        return {};
      case "google.protobuf.ListValue":
        return { type: "array" };
      case "google.protobuf.Empty":
        return { type: "object" };
      case "google.protobuf.Timestamp":
        // ProtoJSON accepts offsets on input; A2A emits Z only (our codec normalises).
        return { type: "string", format: "date-time", pattern: TIMESTAMP_PATTERN };
      case "google.protobuf.Duration":
        return { type: "string", pattern: "^-?\\d+(\\.\\d{1,9})?s$" };
    }
    addMessage(m);
    return { $ref: `#/$defs/${defName(m, opts.protoPackage)}` };
  };
  const scalar = (t: ScalarType): Schema => {
    switch (t) {
      case ScalarType.STRING:
        return { type: "string" };
      case ScalarType.BOOL:
        return { type: "boolean" };
      case ScalarType.BYTES:
        return { type: "string", pattern: "^[A-Za-z0-9+/_-]*={0,2}$" };
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return { anyOf: [{ type: "number" }, { enum: ["NaN", "Infinity", "-Infinity"] }] };
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        return { anyOf: [{ type: "integer" }, { type: "string", pattern: "^-?\\d+$" }] };
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        return {
          anyOf: [
            { type: "integer", minimum: 0, maximum: 4294967295 },
            { type: "string", pattern: "^-?\\d+$" },
          ],
        };
      default:
        // int32, sint32, sfixed32: ProtoJSON rejects a number outside the 32-bit range.
        return {
          anyOf: [
            { type: "integer", minimum: -2147483648, maximum: 2147483647 },
            { type: "string", pattern: "^-?\\d+$" },
          ],
        };
    }
  };
  const enumSchema = (values: readonly { name: string }[]): Schema => ({
    type: "string",
    enum: values.map((v) => v.name),
  });
  const fieldSchema = (f: DescField): Schema => {
    switch (f.fieldKind) {
      case "scalar":
        return scalar(f.scalar);
      case "enum":
        return enumSchema(f.enum.values);
      case "message":
        return ref(f.message);
      case "list":
        return {
          type: "array",
          items: f.listKind === "scalar" ? scalar(f.scalar) : f.listKind === "enum" ? enumSchema(f.enum.values) : ref(f.message),
        };
      case "map":
        return {
          type: "object",
          additionalProperties:
            f.mapKind === "scalar" ? scalar(f.scalar) : f.mapKind === "enum" ? enumSchema(f.enum.values) : ref(f.message),
        };
    }
  };
  function addMessage(m: DescMessage): void {
    const key = defName(m, opts.protoPackage);
    if (defs[key]) return;
    const s: Schema = { type: "object" };
    defs[key] = s; // registered before recursion: Message -> Part -> ... may cycle
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const f of m.fields) {
      const p = fieldSchema(f);
      if (f.deprecated) p.deprecated = true;
      if (isRequired(registry, f)) {
        required.push(f.jsonName);
        if (f.fieldKind === "list" && !opts.emptyAllowed.has(`${m.typeName}.${f.name}`)) p.minItems = 1;
      }
      properties[f.jsonName] = p;
    }
    s.properties = properties;
    if (required.length > 0) s.required = required;
    const exclusive: Record<string, Schema> = {};
    for (const o of m.oneofs) {
      for (const a of o.fields) {
        const others = o.fields.filter((b) => b !== a);
        exclusive[a.jsonName] = { properties: Object.fromEntries(others.map((b) => [b.jsonName, false])) };
      }
    }
    if (Object.keys(exclusive).length > 0) s.dependentSchemas = exclusive;
    if (oneofMemberRequired) {
      // `properties: {x: true}` only declares the name beside `required` (ajv strictRequired).
      const atLeastOne = m.oneofs.map((o) => ({
        anyOf: o.fields.map((f) => ({ properties: { [f.jsonName]: true }, required: [f.jsonName] })),
      }));
      if (atLeastOne.length === 1) Object.assign(s, atLeastOne[0]);
      else if (atLeastOne.length > 1) s.allOf = atLeastOne;
    }
  }
  for (const file of registry.files) {
    if (file.proto.package !== opts.protoPackage) continue;
    for (const m of file.messages) addMessage(m);
  }
  const sorted = Object.fromEntries(
    Object.keys(defs)
      .sort()
      .map((k) => [k, defs[k]]),
  );
  return { $schema: "https://json-schema.org/draft/2020-12/schema", $defs: sorted };
}

/** 0.3 JSON Schema member names that the 0.3 proto spells differently, per message. */
const JSON_TO_PROTO_0_3: Readonly<Record<string, Readonly<Record<string, string>>>> = { Message: { parts: "content" } };

/**
 * The 0.3 proto marks REQUIRED on a handful of request fields only, none on Task, Message or Part,
 * so its ProtoJSON schema accepts `{}` for any result. The 0.3 JSON Schema's `required` lists say
 * what the same messages must carry; this maps them onto the proto's JSON names, per message, for
 * the compliance suite's strict layer (src/compliance/strict.ts). Left out: JSON-RPC envelopes,
 * members the proto does not have (`kind`), proto REQUIRED fields (the schema has them already)
 * and bool/number scalars, whose default ProtoJSON omits, so "present" cannot be told from "false"/0.
 */
export function requiredFromJsonSchema(
  registry: FileRegistry,
  protoPackage: string,
  definitions: Record<string, { required?: string[] }>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const file of registry.files) {
    if (file.proto.package !== protoPackage) continue;
    const visit = (m: DescMessage) => {
      const name = defName(m, protoPackage);
      const req = definitions[name]?.required ?? [];
      if (req.includes("jsonrpc")) return;
      const fields = req
        .map((r) => m.fields.find((f) => f.jsonName === (JSON_TO_PROTO_0_3[name]?.[r] ?? r)))
        .filter((f): f is DescField => f !== undefined && !isRequired(registry, f))
        .filter((f) => f.fieldKind !== "scalar" || f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES)
        .map((f) => f.jsonName);
      if (fields.length) out[name] = fields.sort();
      m.nestedMessages.forEach(visit);
    };
    file.messages.forEach(visit);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
