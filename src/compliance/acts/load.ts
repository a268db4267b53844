// ACTS loader: parses an ACTS YAML document, validates it against our schema
// (compliance/acts/acts.schema.json, derived from ACTS §12.1 / Appendix A) and
// maps the corpus's push-config operation names onto §4.1's, reporting each use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { COMPLIANCE_DIR } from "../cases.js";

/** Corpus operation names that ACTS §4.1 spells differently. */
export const OPERATION_ALIASES: Readonly<Record<string, string>> = {
  set_push_notification_config: "create_push_config",
  get_push_notification_config: "get_push_config",
  list_push_notification_configs: "list_push_configs",
  delete_push_notification_config: "delete_push_config",
};

export interface ActsDeviation {
  file: string;
  /** JSON Pointer of the `operation` member that used an alias. */
  path: string;
  used: string;
  canonical: string;
}

export interface ActsDocument {
  file: string;
  data: Record<string, unknown>;
  deviations: ActsDeviation[];
}

export class ActsLoadError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: invalid ACTS document:\n  ${problems.join("\n  ")}`);
    this.name = "ActsLoadError";
  }
}

let validator: ValidateFunction | undefined;
function validate(): ValidateFunction {
  if (!validator) {
    const schema = JSON.parse(readFileSync(join(COMPLIANCE_DIR, "acts", "acts.schema.json"), "utf8")) as object;
    validator = new Ajv({ allErrors: true, strict: false }).compile(schema);
  }
  return validator;
}

function canonicalise(node: unknown, pointer: string, file: string, out: ActsDeviation[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => canonicalise(item, `${pointer}/${i}`, file, out));
    return;
  }
  if (node === null || typeof node !== "object") return;
  const obj = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(obj)) {
    const here = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (key === "operation" && typeof value === "string" && value in OPERATION_ALIASES) {
      const canonical = OPERATION_ALIASES[value]!;
      out.push({ file, path: here, used: value, canonical });
      obj[key] = canonical;
    } else {
      canonicalise(value, here, file, out);
    }
  }
}

/** Parses and validates ACTS text; `file` names it in errors and deviations. */
export function parseActs(text: string, file: string): ActsDocument {
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    throw new ActsLoadError(file, [`YAML: ${(err as Error).message}`]);
  }
  const check = validate();
  if (!check(data)) {
    const problems = (check.errors ?? []).map(
      (e) =>
        `${e.instancePath || "/"}: ${e.message ?? "invalid"}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
    );
    throw new ActsLoadError(file, problems);
  }
  const deviations: ActsDeviation[] = [];
  canonicalise(data, "", file, deviations);
  return { file, data: data as Record<string, unknown>, deviations };
}

export function loadActsFile(file: string): ActsDocument {
  return parseActs(readFileSync(file, "utf8"), file);
}
