// Turns ajv errors from the generated validators into one readable sentence with a JSON path.
import type { ErrorObject, ValidateFunction } from "ajv";

export interface ValidationIssue {
  /** JSON Pointer of the offending value ("" = the whole document). */
  path: string;
  /** The rule that failed, in words. */
  message: string;
}

function describe(e: ErrorObject): ValidationIssue {
  const path = e.instancePath;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { path: `${path}/${String(p.missingProperty)}`, message: `required field "${String(p.missingProperty)}" is missing` };
    case "false schema": {
      // Emitted by the oneof exclusivity rule: this member may not sit beside another one.
      const field = path.slice(path.lastIndexOf("/") + 1);
      return { path, message: `"${field}" is a member of a oneof that already has a value set; set only one` };
    }
    case "enum":
      return { path, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}` };
    case "const":
      return { path, message: `must be ${JSON.stringify(p.allowedValue)}` };
    case "type":
      return { path, message: `must be of type ${String(p.type)}` };
    case "minItems":
      return { path, message: `must contain at least ${String(p.limit)} item(s)` };
    case "pattern":
    case "format":
      return { path, message: `is not a valid ${e.keyword === "format" ? String(p.format) : "value"} (${e.message ?? ""})` };
    default:
      return { path, message: e.message ?? e.keyword };
  }
}

/** Runs a generated validator; returns undefined when valid, else the first issue. */
export function check(validate: ValidateFunction, value: unknown): ValidationIssue | undefined {
  if (validate(value)) return undefined;
  const errors = validate.errors ?? [];
  // anyOf/oneOf report every branch; the deepest error is the most specific one.
  const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  return best ? describe(best) : { path: "", message: "invalid" };
}

export function formatIssue(issue: ValidationIssue): string {
  return `${issue.path || "/"}: ${issue.message}`;
}
