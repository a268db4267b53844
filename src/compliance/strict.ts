// The compliance suite's strict layer over the generated validators (`$valid`). The generated
// validators are also the versioning layer's, which must read what ProtoJSON readers accept; a
// conformance verdict needs what the spec text demands of a sender:
//   1.0 (`v1_0.*`): timestamps in UTC with `Z` (1.0 §5.6.1), REQUIRED fields "present and set"
//       (§5.7: no empty string, no `*_UNSPECIFIED` enum value), camelCase member names (§5.5).
//   0.3 HTTP+JSON (`v0_3.rest.*`): the members the 0.3 JSON Schema requires of the same messages
//       (generated/v0_3/rest-required.json, mapped by codegen), since the 0.3 proto marks almost none.
// It walks the generated JSON Schemas (generated/<v>/schema.json) beside the value; unknown
// members are left alone (receivers ignore them, 1.0 §5.7), except snake_case ones in 1.0.
import { readFileSync } from "node:fs";
import type { ValidationIssue } from "../runtime/validation.js";
import { packagePath } from "../runtime/package-root.js";
import { isPlainObject } from "./match.js";

type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
};

interface Flavour {
  defs: Record<string, Schema>;
  /** Extra REQUIRED members per definition (0.3 REST). */
  extraRequired: Record<string, string[]>;
  /** 1.0 rules: Z timestamps, REQUIRED set (not empty / not UNSPECIFIED), camelCase names. */
  v1: boolean;
  /** The JSON spelling rules (Z timestamps, camelCase names): off for JSON the runner wrote itself. */
  spelling: boolean;
}

const readJson = (rel: string) => JSON.parse(readFileSync(packagePath("generated", rel), "utf8")) as Record<string, unknown>;
const flavours = new Map<string, Flavour>();

function flavour(prefix: "v1_0." | "v0_3.rest."): Flavour {
  let f = flavours.get(prefix);
  if (!f) {
    if (prefix === "v1_0.")
      f = { defs: readJson("v1_0/schema.json").$defs as Record<string, Schema>, extraRequired: {}, v1: true, spelling: true };
    else {
      const { ["@generated"]: _, ...extra } = readJson("v0_3/rest-required.json");
      f = {
        defs: readJson("v0_3/schema.json").$defs as Record<string, Schema>,
        extraRequired: extra as Record<string, string[]>,
        v1: false,
        spelling: false,
      };
    }
    flavours.set(prefix, f);
  }
  return f;
}

const SNAKE = /_/;
/** REQUIRED strings the text itself sets to "": the final page's token (1.0 §3.1.4: "MUST be set to an empty string"). */
const EMPTY_ALLOWED = new Set(["ListTasksResponse.nextPageToken"]);

function walk(f: Flavour, s: Schema, def: string | undefined, v: unknown, path: string): ValidationIssue | undefined {
  if (v === undefined || v === null) return undefined;
  if (s.$ref) {
    const name = s.$ref.slice(s.$ref.lastIndexOf("/") + 1);
    return f.defs[name] ? walk(f, f.defs[name], name, v, path) : undefined;
  }
  if (f.spelling && s.format === "date-time" && typeof v === "string" && !v.endsWith("Z"))
    return { path, message: `timestamp ${JSON.stringify(v)} is not in UTC with a "Z" suffix (1.0 §5.6.1: MUST be in UTC timezone)` };
  if (s.type === "array" && Array.isArray(v) && s.items) {
    for (const [i, item] of v.entries()) {
      const issue = walk(f, s.items, undefined, item, `${path}/${i}`);
      if (issue) return issue;
    }
    return undefined;
  }
  if (!isPlainObject(v)) return undefined;
  if (!s.properties) {
    // A map (additionalProperties holds the value schema) or a Struct (free-form: nothing to check).
    if (typeof s.additionalProperties !== "object") return undefined;
    for (const [k, item] of Object.entries(v)) {
      const issue = walk(f, s.additionalProperties, undefined, item, `${path}/${k}`);
      if (issue) return issue;
    }
    return undefined;
  }
  const props = s.properties;
  if (f.spelling)
    for (const k of Object.keys(v))
      if (!(k in props) && SNAKE.test(k))
        return { path: `${path}/${k}`, message: `member name "${k}" is snake_case (1.0 §5.5: field names MUST use camelCase)` };
  for (const r of f.extraRequired[def ?? ""] ?? [])
    if (v[r] === undefined || v[r] === null)
      return { path, message: `must have required property '${r}' (0.3 JSON Schema ${def}.required)` };
  if (f.v1)
    for (const r of s.required ?? []) {
      const x = v[r];
      if (x === "" && !EMPTY_ALLOWED.has(`${def}.${r}`))
        return { path: `${path}/${r}`, message: `REQUIRED field "${r}" is an empty string (1.0 §5.7: MUST be present and set)` };
      if (props[r]?.enum && typeof x === "string" && x.endsWith("_UNSPECIFIED"))
        return { path: `${path}/${r}`, message: `REQUIRED field "${r}" is ${x} (1.0 §5.7: MUST be present and set)` };
    }
  for (const [k, ps] of Object.entries(props)) {
    const issue = walk(f, ps, undefined, v[k], `${path}/${k}`);
    if (issue) return issue;
  }
  return undefined;
}

function dropNulls(f: Flavour, s: Schema, v: unknown): unknown {
  if (s.$ref) {
    const d = f.defs[s.$ref.slice(s.$ref.lastIndexOf("/") + 1)];
    return d ? dropNulls(f, d, v) : v;
  }
  if (s.type === "array" && Array.isArray(v) && s.items) return v.map((x) => dropNulls(f, s.items!, x));
  if (!isPlainObject(v)) return v;
  if (!s.properties) {
    const item = s.additionalProperties;
    return typeof item === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, dropNulls(f, item, x)])) : v;
  }
  const props = s.properties;
  return Object.fromEntries(
    Object.entries(v).flatMap(([k, x]) => (x === null && k in props ? [] : [[k, props[k] ? dropNulls(f, props[k], x) : x]])),
  );
}

/**
 * The value as a ProtoJSON reader sees it: `null` for a message field means unset (the ProtoJSON
 * mapping accepts null for every field type), so it is dropped before validating; inside a Struct
 * or Value null is a value and stays. Other validator names: the value unchanged.
 */
export function protoJsonView(name: string, value: unknown): unknown {
  const prefix = name.startsWith("v0_3.rest.") ? "v0_3.rest." : name.startsWith("v1_0.") ? "v1_0." : undefined;
  if (!prefix) return value;
  const f = flavour(prefix);
  const def = f.defs[name.slice(prefix.length)];
  return def ? dropNulls(f, def, value) : value;
}

/**
 * The first strict-layer issue of `value` for validator `name` (`v1_0.Task`, `v0_3.rest.Task`); none for other names.
 * `decoded`: the value is JSON the runner wrote from a decoded message (a gRPC answer, a scenario's
 * 1.0 view), so the JSON spelling rules (Z timestamps, camelCase names) are not judged on it: they
 * could only pass. What a received message can get wrong stays judged: REQUIRED fields unset (""
 * or *_UNSPECIFIED once decoded), enum numbers outside the enum and unset messages (the generated
 * validator), timestamps outside the Timestamp range (the decoder refuses them).
 */
export function strictIssue(name: string, value: unknown, decoded = false): ValidationIssue | undefined {
  const prefix = name.startsWith("v0_3.rest.") ? "v0_3.rest." : name.startsWith("v1_0.") ? "v1_0." : undefined;
  if (!prefix) return undefined;
  const base = flavour(prefix);
  const f = decoded && base.spelling ? { ...base, spelling: false } : base;
  const def = name.slice(prefix.length);
  return f.defs[def] ? walk(f, f.defs[def], def, value, "") : undefined;
}
