// Names a case file may use in "$valid": "<version>.<Message>" resolved to a generated validator.
//   v1_0.<Message>       1.0 ProtoJSON (every binding)             generated/v1_0/validators.js
//   v0_3.<Definition>    0.3 JSON-RPC (a2a.json definitions)       generated/v0_3/validators.js
//   v0_3.rest.<Message>  0.3 HTTP+JSON (0.3 a2a.proto ProtoJSON)   generated/v0_3/rest-validators.js
import type { ValidateFunction } from "ajv";
import * as v1_0 from "../../generated/v1_0/validators.js";
import * as v0_3 from "../../generated/v0_3/validators.js";
import * as v0_3rest from "../../generated/v0_3/rest-validators.js";

const tables: Record<string, Record<string, ValidateFunction>> = {
  "v1_0.": v1_0,
  "v0_3.rest.": v0_3rest,
  "v0_3.": v0_3,
};

export function resolveValidator(name: string): ValidateFunction | undefined {
  for (const [prefix, table] of Object.entries(tables)) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    if (rest.includes(".")) continue;
    const v = table[rest];
    return typeof v === "function" ? v : undefined;
  }
  return undefined;
}

export function validatorNames(): string[] {
  return Object.entries(tables).flatMap(([prefix, table]) => Object.keys(table).map((k) => prefix + k));
}
