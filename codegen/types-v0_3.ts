// 0.3 JSON-RPC wire types (D03-RPC) from the upstream a2a.json, with json-schema-to-typescript.
import { compile, type JSONSchema } from "json-schema-to-typescript";

const PROSE_KEYWORDS = new Set(["description", "examples", "title", "$comment"]);

/**
 * Removes every prose keyword (description, examples, title) so that no upstream sentence is
 * copied into generated code. With `refSiblings`, also drops keywords beside `$ref`: draft-07
 * ignores them, but json-schema-to-typescript mints numbered duplicates (Message1, Task2, ...).
 */
export function stripProse(schema: unknown, refSiblings = false): unknown {
  const walk = (x: unknown, isPropertyMap = false): unknown => {
    if (Array.isArray(x)) return x.map((v) => walk(v));
    if (!x || typeof x !== "object") return x;
    const o = x as Record<string, unknown>;
    if (!isPropertyMap && refSiblings && typeof o.$ref === "string") return { $ref: o.$ref };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) {
      if (isPropertyMap) out[k] = walk(v);
      else if (!PROSE_KEYWORDS.has(k)) out[k] = walk(v, k === "properties" || k === "definitions" || k === "$defs");
    }
    return out;
  };
  return walk(schema);
}

export async function generateV03Types(schema: Record<string, unknown>): Promise<string> {
  const normalised = stripProse(schema, true) as JSONSchema;
  const ts = await compile({ ...normalised, title: "A2AWireSchema" }, "A2AWireSchema", {
    unreachableDefinitions: true,
    additionalProperties: false,
    unknownAny: true,
    format: true,
    bannerComment: "",
  });
  return (
    ts
      // json2ts emits an empty root interface for the schema itself; it carries no type.
      .replace(/export interface A2AWireSchema \{[^}]*\}\n?/, "")
      .replace(/\/\*\*\n \* This interface was referenced by[\s\S]*?\*\/\n/g, "")
      .trim() + "\n"
  );
}
