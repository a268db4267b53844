// A semantic summary of one spec revision (messages, fields, enums, methods, routes, JSON-RPC
// definitions) and the diff between two summaries, each change marked breaking or additive.
import type { DescField, FileRegistry } from "@bufbuild/protobuf";
import { isRequired } from "./jsonschema.js";
import type { MethodInfo } from "./methods.js";

export interface FieldSummary {
  number: number;
  type: string;
  required: boolean;
}

export interface ApiSummary {
  messages: Record<string, Record<string, FieldSummary>>;
  enums: Record<string, Record<string, number>>;
  methods: Record<string, { jsonRpc: string; request: string; response: string; streaming: boolean; routes: string[] }>;
  /** 0.3 JSON Schema definitions: property -> type, plus required list. */
  jsonDefinitions?: Record<string, { properties: Record<string, string>; required: string[] }>;
}

function fieldType(f: DescField): string {
  switch (f.fieldKind) {
    case "scalar":
      return `${f.proto.proto3Optional ? "optional " : ""}${scalarName(f.scalar)}`;
    case "enum":
      return f.enum.typeName;
    case "message":
      return f.message.typeName;
    case "list":
      return `repeated ${f.listKind === "scalar" ? scalarName(f.scalar) : f.listKind === "enum" ? f.enum.typeName : f.message.typeName}`;
    case "map":
      return `map<${scalarName(f.mapKey)}, ${f.mapKind === "scalar" ? scalarName(f.scalar) : f.mapKind === "enum" ? f.enum.typeName : f.message.typeName}>`;
  }
}

const SCALAR_NAMES: Record<number, string> = {
  1: "double",
  2: "float",
  3: "int64",
  4: "uint64",
  5: "int32",
  6: "fixed64",
  7: "fixed32",
  8: "bool",
  9: "string",
  12: "bytes",
  13: "uint32",
  15: "sfixed32",
  16: "sfixed64",
  17: "sint32",
  18: "sint64",
};
const scalarName = (t: number) => SCALAR_NAMES[t] ?? `scalar${t}`;

const sortKeys = <T>(o: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

export function summarise(
  registry: FileRegistry,
  protoPackage: string,
  methods: MethodInfo[],
  jsonSchema?: Record<string, unknown>,
): ApiSummary {
  const messages: ApiSummary["messages"] = {};
  const enums: ApiSummary["enums"] = {};
  for (const file of registry.files) {
    if (file.proto.package !== protoPackage) continue;
    for (const m of file.messages) {
      messages[m.typeName] = sortKeys(
        Object.fromEntries(m.fields.map((f) => [f.name, { number: f.number, type: fieldType(f), required: isRequired(registry, f) }])),
      );
    }
    for (const e of file.enums) enums[e.typeName] = Object.fromEntries(e.values.map((v) => [v.name, v.number]));
  }
  const summary: ApiSummary = {
    messages: sortKeys(messages),
    enums: sortKeys(enums),
    methods: sortKeys(
      Object.fromEntries(
        methods.map((m) => [
          m.rpc,
          {
            jsonRpc: m.jsonRpcMethod,
            request: m.requestType,
            response: m.responseType,
            streaming: m.streaming,
            routes: m.http.map((h) => `${h.verb} ${h.template}`),
          },
        ]),
      ),
    ),
  };
  if (jsonSchema) summary.jsonDefinitions = summariseJsonSchema(jsonSchema);
  return summary;
}

type JsonDef = { type?: unknown; $ref?: string; const?: unknown; enum?: unknown[]; items?: JsonDef; anyOf?: JsonDef[] };

function jsonType(p: JsonDef): string {
  if (p.$ref) return p.$ref.replace("#/definitions/", "");
  if (p.const !== undefined) return `const ${JSON.stringify(p.const)}`;
  if (p.enum) return `enum ${p.enum.map((v) => JSON.stringify(v)).join("|")}`;
  if (p.anyOf) return p.anyOf.map(jsonType).join(" | ");
  if (p.type === "array" && p.items) return `array<${jsonType(p.items)}>`;
  return Array.isArray(p.type) ? p.type.join("|") : typeof p.type === "string" ? p.type : "any";
}

function summariseJsonSchema(schema: Record<string, unknown>): NonNullable<ApiSummary["jsonDefinitions"]> {
  const defs = (schema.definitions ?? {}) as Record<string, { properties?: Record<string, JsonDef>; required?: string[] } & JsonDef>;
  const out: NonNullable<ApiSummary["jsonDefinitions"]> = {};
  for (const [name, d] of Object.entries(defs).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const properties = d.properties
      ? sortKeys(Object.fromEntries(Object.entries(d.properties).map(([k, v]) => [k, jsonType(v)])))
      : { "(self)": jsonType(d) };
    out[name] = { properties, required: [...(d.required ?? [])].sort() };
  }
  return out;
}

/** The members of an enum (`enum "a"|"b"`) or union (`A | B`) type string; undefined for other types. */
function members(t: string): { kind: "enum" | "union"; values: string[] } | undefined {
  if (t.startsWith("enum ")) return { kind: "enum", values: t.slice(5).split("|") };
  if (t.includes(" | ")) return { kind: "union", values: t.split(" | ") };
  return undefined;
}

export interface Change {
  kind: "breaking" | "additive";
  what: string;
}

/** Every difference between two summaries of the same version, old → new. */
export function diffSummaries(before: ApiSummary, after: ApiSummary): Change[] {
  const changes: Change[] = [];
  const add = (kind: Change["kind"], what: string) => changes.push({ kind, what });
  const keys = (a: object, b: object) => [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();

  for (const name of keys(before.messages, after.messages)) {
    const a = before.messages[name];
    const b = after.messages[name];
    if (!a) {
      add("additive", `message ${name} added`);
      continue;
    }
    if (!b) {
      add("breaking", `message ${name} removed`);
      continue;
    }
    for (const field of keys(a, b)) {
      const fa = a[field];
      const fb = b[field];
      if (!fa) {
        if (fb)
          add(
            fb.required ? "breaking" : "additive",
            `field ${name}.${field} added (#${fb.number} ${fb.type}${fb.required ? ", REQUIRED" : ""})`,
          );
      } else if (!fb) add("breaking", `field ${name}.${field} removed (was #${fa.number} ${fa.type})`);
      else {
        if (fa.number !== fb.number) add("breaking", `field ${name}.${field} number changed #${fa.number} → #${fb.number}`);
        if (fa.type !== fb.type) add("breaking", `field ${name}.${field} type changed ${fa.type} → ${fb.type}`);
        if (fa.required !== fb.required)
          add(fb.required ? "breaking" : "additive", `field ${name}.${field} ${fb.required ? "became REQUIRED" : "is no longer REQUIRED"}`);
      }
    }
  }
  for (const name of keys(before.enums, after.enums)) {
    const a = before.enums[name];
    const b = after.enums[name];
    if (!a) add("additive", `enum ${name} added`);
    else if (!b) add("breaking", `enum ${name} removed`);
    else
      for (const v of keys(a, b)) {
        if (a[v] === undefined) add("additive", `enum value ${name}.${v} added (= ${b[v]})`);
        else if (b[v] === undefined) add("breaking", `enum value ${name}.${v} removed`);
        else if (a[v] !== b[v]) add("breaking", `enum value ${name}.${v} renumbered ${a[v]} → ${b[v]}`);
      }
  }
  for (const name of keys(before.methods, after.methods)) {
    const a = before.methods[name];
    const b = after.methods[name];
    if (!b) {
      add("breaking", `method ${name} removed`);
      continue;
    }
    if (!a) {
      add("additive", `method ${name} added (${b.routes.join(", ")})`);
      continue;
    }
    for (const k of ["jsonRpc", "request", "response", "streaming"] as const)
      if (a[k] !== b[k]) add("breaking", `method ${name} ${k} changed ${String(a[k])} → ${String(b[k])}`);
    for (const r of b.routes.filter((r) => !a.routes.includes(r))) add("additive", `method ${name} route added: ${r}`);
    for (const r of a.routes.filter((r) => !b.routes.includes(r))) add("breaking", `method ${name} route removed: ${r}`);
  }
  const da = before.jsonDefinitions ?? {};
  const db = after.jsonDefinitions ?? {};
  for (const name of keys(da, db)) {
    const a = da[name];
    const b = db[name];
    if (!a) {
      add("additive", `definition ${name} added`);
      continue;
    }
    if (!b) {
      add("breaking", `definition ${name} removed`);
      continue;
    }
    for (const p of keys(a.properties, b.properties)) {
      const req = b.required.includes(p);
      if (a.properties[p] === undefined)
        add(req ? "breaking" : "additive", `property ${name}.${p} added (${b.properties[p]}${req ? ", required" : ""})`);
      else if (b.properties[p] === undefined) add("breaking", `property ${name}.${p} removed`);
      else if (a.properties[p] !== b.properties[p]) {
        const ma = members(a.properties[p]);
        const mb = members(b.properties[p]);
        const where = p === "(self)" ? `definition ${name}` : `property ${name}.${p}`;
        if (ma && mb && ma.kind === mb.kind) {
          // An enum or union that grew is additive (as a new proto enum value is); one that lost a member is not.
          for (const v of mb.values.filter((v) => !ma.values.includes(v))) add("additive", `${where} ${ma.kind} member added: ${v}`);
          for (const v of ma.values.filter((v) => !mb.values.includes(v))) add("breaking", `${where} ${ma.kind} member removed: ${v}`);
        } else add("breaking", `${where} type changed ${a.properties[p]} → ${b.properties[p]}`);
      }
    }
    for (const p of b.required.filter((p) => !a.required.includes(p) && a.properties[p] !== undefined))
      add("breaking", `property ${name}.${p} became required`);
    for (const p of a.required.filter((p) => !b.required.includes(p) && b.properties[p] !== undefined))
      add("additive", `property ${name}.${p} is no longer required`);
  }
  return changes;
}

export function formatChanges(version: string, changes: Change[]): string {
  if (changes.length === 0) return `${version}: no API changes`;
  const breaking = changes.filter((c) => c.kind === "breaking").length;
  const lines = changes.map((c) => `  ${c.kind === "breaking" ? "BREAKING" : "additive"}  ${c.what}`);
  return [`${version}: ${changes.length} change(s), ${breaking} breaking`, ...lines].join("\n");
}
