// Limits on a parsed JSON request body that its schema cannot express: no non-finite number (JSON
// text such as `1e999` parses to Infinity, which no A2A field can hold and ProtoJSON refuses) and no
// nesting deeper than MAX_JSON_DEPTH (code that walks a value recursively, such as the 0.3
// translator, must never meet a depth that could exhaust the stack). The walk is iterative, so any
// depth JSON.parse accepts is checked safely. Transports answer a violation as InvalidParams with
// its path (docs/limits.md).
import type { ValidationIssue } from "./validation.js";

/**
 * The deepest nesting a request's parameters may have, counting every object and array from the
 * parameters themselves (JSON-RPC `params`, or the HTTP+JSON body, is level 1). A real A2A message is about 8 levels deep with its metadata; 100
 * leaves room for deep user data and stays far below any recursion risk.
 */
export const MAX_JSON_DEPTH = 100;

const pointer = (path: string, key: string | number) => `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;

/** The first value of `value` that breaks a limit (JSON Pointer from `base`), or undefined. */
export function jsonLimitIssue(value: unknown, base = "", maxDepth = MAX_JSON_DEPTH): ValidationIssue | undefined {
  const stack: [unknown, string, number][] = [[value, base, 1]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return { path, message: "must be a finite number (the value is out of range)" };
    } else if (v !== null && typeof v === "object") {
      if (depth > maxDepth) return { path, message: `is nested deeper than ${maxDepth} levels` };
      if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], pointer(path, i), depth + 1]);
      else for (const [k, x] of Object.entries(v)) stack.push([x, pointer(path, k), depth + 1]);
    }
  }
  return undefined;
}
