// Compiles JSON Schemas into standalone ajv validator modules (no schema compilation at run time).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// ajv ships CommonJS; createRequire keeps the default-export dance out of the ESM code.
const Ajv = (require("ajv") as typeof import("ajv")).default;
const Ajv2020 = (require("ajv/dist/2020") as typeof import("ajv/dist/2020.js")).default;
const addFormats = (require("ajv-formats") as typeof import("ajv-formats")).default;
const standaloneCode = (require("ajv/dist/standalone") as typeof import("ajv/dist/standalone/index.js")).default;

export interface CompiledValidators {
  /** ESM JavaScript module exporting one validate function per name. */
  js: string;
  /** Matching declarations. */
  dts: string;
}

/**
 * @param draft "07" for the upstream 0.3 JSON Schema, "2020-12" for schemas derived from protos.
 * @param exportsByName exported identifier -> JSON pointer into the schema ("#/definitions/Task").
 */
export function compileValidators(
  schema: Record<string, unknown>,
  draft: "07" | "2020-12",
  id: string,
  exportsByName: Record<string, string>,
): CompiledValidators {
  const opts = {
    strict: true,
    allowUnionTypes: true,
    allErrors: false,
    code: { source: true, esm: true, lines: true, optimize: true },
  } as const;
  const ajv = draft === "07" ? new Ajv(opts) : new Ajv2020(opts);
  addFormats(ajv, ["date-time"]);
  ajv.addSchema({ ...schema, $id: id });
  const refs = Object.fromEntries(Object.entries(exportsByName).map(([name, ptr]) => [name, `${id}${ptr}`]));
  let js = standaloneCode(ajv, refs);
  // ajv emits require() for formats even in ESM mode: turn it into an import.
  const formatsRequire = 'require("ajv-formats/dist/formats").fullFormats';
  if (js.includes(formatsRequire)) {
    js = 'import { fullFormats as __fullFormats } from "ajv-formats/dist/formats.js";\n' + js.replaceAll(formatsRequire, "__fullFormats");
  }
  const ucs2 = 'require("ajv/dist/runtime/ucs2length").default';
  if (js.includes(ucs2)) {
    js = 'import __ucs2length from "ajv/dist/runtime/ucs2length.js";\n' + js.replaceAll(ucs2, "__ucs2length.default");
  }
  if (/\brequire\(/.test(js)) throw new Error(`${id}: standalone validator code still contains require()`);
  const names = Object.keys(exportsByName).sort();
  const dts =
    'import type { ValidateFunction } from "ajv";\n' + names.map((n) => `export declare const ${n}: ValidateFunction;`).join("\n") + "\n";
  return { js, dts };
}
