// Limits on a parsed JSON request body that its schema cannot express: no non-finite number (JSON
// text such as `1e999` parses to Infinity, which no A2A field can hold and ProtoJSON refuses) and no
// nesting deeper than MAX_JSON_DEPTH (code that walks a value recursively, such as the 0.3
// translator, must never meet a depth that could exhaust the stack). The walk recurses no deeper
// than the limit itself, so any depth JSON.parse accepts is checked safely. Transports answer a
// violation as InvalidParams with its path (docs/limits.md).
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
  const keys: (string | number)[] = [];
  const message = firstIssue(value, 1, maxDepth, keys);
  if (message === undefined) return undefined;
  // Keys were collected on the way back up: innermost first.
  let path = base;
  for (let i = keys.length - 1; i >= 0; i--) path = pointer(path, keys[i]!);
  return { path, message };
}

/**
 * Depth first, array items in order and object members last to first (the order this check has
 * always reported the first of several issues in). The recursion stops at `maxDepth`, so it never
 * nests deeper than that, whatever depth the value has; paths are built only for an issue.
 */
function firstIssue(v: unknown, depth: number, maxDepth: number, keys: (string | number)[]): string | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? undefined : "must be a finite number (the value is out of range)";
  if (v === null || typeof v !== "object") return undefined;
  if (depth > maxDepth) return `is nested deeper than ${maxDepth} levels`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const m = firstIssue(v[i], depth + 1, maxDepth, keys);
      if (m !== undefined) return (keys.push(i), m);
    }
    return undefined;
  }
  const ks = Object.keys(v);
  for (let i = ks.length - 1; i >= 0; i--) {
    const m = firstIssue((v as Record<string, unknown>)[ks[i]!], depth + 1, maxDepth, keys);
    if (m !== undefined) return (keys.push(ks[i]!), m);
  }
  return undefined;
}
