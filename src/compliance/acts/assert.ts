// ACTS assertions (§5), paths (§5.2), variables (§8, §12.2) and until expressions (§9.1), over
// plain JSON values: the decoded 1.0 object of a step (§4.2) as ProtoJSON.
//
//   check(assertion, actual, path, vars)   → the first failure, or undefined
//   pathValues(root, "a.b[0].c[*]")        → the values a dot-path names (wildcards: several)
//   interpolate(value, vars)               → {{…}} substituted in every string (a string that is one
//                                            reference takes the referenced value as it is)
//   untilHolds("status.state in [A, B]", root)
import { randomUUID } from "node:crypto";
import { isPlainObject } from "../match.js";

export interface ActsFailure {
  message: string;
  /** Dot-path of the failed field. */
  path: string;
  expected?: unknown;
  actual?: unknown;
}

/** A variable that cannot be resolved: the step fails with this (§12.2). */
export class UnresolvedVariableError extends Error {
  override readonly name = "UnresolvedVariableError";
  /** The variable's name, when one name could not be resolved. */
  constructor(
    message: string,
    readonly variable?: string,
  ) {
    super(message);
  }
}

const OPERATORS = new Set([
  "type",
  "exists",
  "absent",
  "contains",
  "matches",
  "starts_with",
  "ends_with",
  "gte",
  "lte",
  "gt",
  "lt",
  "count",
  "count_gte",
  "count_lte",
  "one_of",
  "all_of",
  "any_of",
  "not",
]);

/** The variables of a test: captures (`step.var`), the document's `variables`, the environment. */
export interface Vars {
  captures: Map<string, unknown>;
  document: Record<string, string>;
  env: Record<string, string | undefined>;
}

function lookup(name: string, vars: Vars, depth: number): unknown {
  const n = name.trim();
  if (n === "$uuid") return randomUUID();
  if (vars.captures.has(n)) return vars.captures.get(n);
  if (Object.hasOwn(vars.document, n)) return interpolate(vars.document[n], vars, depth + 1);
  if (n.startsWith("env.")) {
    const v = vars.env[n.slice(4)];
    if (v !== undefined) return v;
  }
  throw new UnresolvedVariableError(
    `variable {{${n}}} cannot be resolved (no capture, document variable or environment variable of that name)`,
    n,
  );
}

const REF = /\{\{([^{}]+)\}\}/g;

export function interpolate(value: unknown, vars: Vars, depth = 0): unknown {
  if (depth > 10) throw new UnresolvedVariableError("variables refer to each other in a loop");
  if (typeof value === "string") {
    const whole = /^\{\{([^{}]+)\}\}$/.exec(value);
    if (whole) return lookup(whole[1]!, vars, depth);
    return value.replace(REF, (_, name: string) => {
      const v = lookup(name, vars, depth);
      return typeof v === "string" ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, vars, depth));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, vars, depth)]));
  return value;
}

/** Splits `task.artifacts[0].parts[*].text` into segments: names, indexes, "*". */
function segments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const part of path.split(".").filter(Boolean)) {
    const m = /^([^[\]]*)((?:\[(?:\d+|\*)\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1]) out.push(m[1]);
    for (const idx of m[2]!.match(/\[(\d+|\*)\]/g) ?? []) {
      const i = idx.slice(1, -1);
      out.push(i === "*" ? "*" : Number(i));
    }
  }
  return out;
}

/** The values at a dot-path: one (or none) without wildcards, every match with them. */
export function pathValues(root: unknown, path: string): unknown[] {
  let current: unknown[] = [root];
  for (const seg of segments(path)) {
    const next: unknown[] = [];
    for (const v of current) {
      if (seg === "*") {
        if (Array.isArray(v)) next.push(...(v as unknown[]));
      } else if (typeof seg === "number") {
        if (Array.isArray(v) && seg < v.length) next.push(v[seg]);
      } else if (isPlainObject(v) && Object.hasOwn(v, seg)) next.push(v[seg]);
    }
    current = next;
  }
  return current;
}

export function pathValue(root: unknown, path: string): unknown {
  return path.trim() === "" ? root : pathValues(root, path)[0];
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function show(v: unknown): string {
  return v === undefined ? "absent" : JSON.stringify(v);
}

const join = (path: string, key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key);

function fail(path: string, message: string, expected?: unknown, actual?: unknown): ActsFailure {
  return { path, message: `${path || "(root)"}: ${message}`, expected, actual };
}

/** Checks one operator; undefined when it holds. */
function operator(op: string, arg: unknown, actual: unknown, path: string, vars: Vars): ActsFailure | undefined {
  const str = typeof actual === "string" ? actual : undefined;
  const num = typeof actual === "number" ? actual : undefined;
  const len = Array.isArray(actual) ? actual.length : undefined;
  switch (op) {
    case "type":
      return typeName(actual) === arg ? undefined : fail(path, `expected a value of type ${String(arg)}, got ${show(actual)}`, arg, actual);
    case "exists":
      return actual !== undefined ? undefined : fail(path, "expected the field to be present", "present", undefined);
    case "absent":
      return actual === undefined ? undefined : fail(path, `expected the field to be absent, got ${show(actual)}`, "absent", actual);
    case "contains":
      return str?.includes(String(arg))
        ? undefined
        : fail(path, `expected a string containing ${show(arg)}, got ${show(actual)}`, arg, actual);
    case "starts_with":
      return str?.startsWith(String(arg))
        ? undefined
        : fail(path, `expected a string starting with ${show(arg)}, got ${show(actual)}`, arg, actual);
    case "ends_with":
      return str?.endsWith(String(arg))
        ? undefined
        : fail(path, `expected a string ending with ${show(arg)}, got ${show(actual)}`, arg, actual);
    case "matches":
      return str !== undefined && new RegExp(String(arg), "u").test(str)
        ? undefined
        : fail(path, `expected a string matching /${String(arg)}/, got ${show(actual)}`, arg, actual);
    case "gte":
    case "lte":
    case "gt":
    case "lt": {
      const n = Number(arg);
      const ok = num !== undefined && (op === "gte" ? num >= n : op === "lte" ? num <= n : op === "gt" ? num > n : num < n);
      return ok ? undefined : fail(path, `expected a number ${op} ${n}, got ${show(actual)}`, `${op} ${n}`, actual);
    }
    case "count":
    case "count_gte":
    case "count_lte": {
      const n = Number(arg);
      const ok = len !== undefined && (op === "count" ? len === n : op === "count_gte" ? len >= n : len <= n);
      return ok
        ? undefined
        : fail(
            path,
            `expected an array of ${op === "count" ? "" : op === "count_gte" ? "at least " : "at most "}${n} element(s), got ${len === undefined ? show(actual) : `${len}`}`,
            `${op} ${n}`,
            len ?? actual,
          );
    }
    case "one_of":
    case "any_of": {
      const options = Array.isArray(arg) ? arg : [arg];
      if (options.some((o) => check(o, actual, path, vars) === undefined)) return undefined;
      return fail(path, `expected ${op === "one_of" ? "one of" : "any of"} ${show(options)}, got ${show(actual)}`, options, actual);
    }
    case "all_of":
      for (const o of Array.isArray(arg) ? arg : [arg]) {
        const f = check(o, actual, path, vars);
        if (f) return f;
      }
      return undefined;
    case "not":
      return check(arg, actual, path, vars) === undefined
        ? fail(path, `expected the value not to match ${show(arg)}, got ${show(actual)}`, { not: arg }, actual)
        : undefined;
  }
  return undefined;
}

/** `type` is an operator when it names a type; `type: {type: string}` asserts a field named type. */
function isOperator(key: string, arg: unknown): boolean {
  return OPERATORS.has(key) && (key !== "type" || typeof arg === "string");
}

/** A map asserting an array (`type: array` or a count operator): where the corpus writes `items`. */
export function isArrayAssertion(map: Record<string, unknown>): boolean {
  return map.type === "array" || "count" in map || "count_gte" in map || "count_lte" in map;
}

/**
 * Checks `actual` against an ACTS assertion: a scalar (equality, after variables), a list
 * (element i checked against the i-th assertion; more elements may follow), or a map whose
 * operator keys (§5.4) are operators and whose other keys name fields (§5.2 nesting).
 */
export function check(assertion: unknown, actual: unknown, path: string, vars: Vars): ActsFailure | undefined {
  if (typeof assertion === "string" && assertion.includes("{{")) assertion = interpolate(assertion, vars);
  if (assertion === null || typeof assertion !== "object") {
    return actual === assertion ? undefined : fail(path, `expected ${show(assertion)}, got ${show(actual)}`, assertion, actual);
  }
  if (Array.isArray(assertion)) {
    if (!Array.isArray(actual)) return fail(path, `expected an array, got ${show(actual)}`, "array", actual);
    for (let i = 0; i < assertion.length; i++) {
      if (i >= actual.length)
        return fail(
          join(path, i),
          `expected at least ${assertion.length} element(s), got ${actual.length}`,
          assertion.length,
          actual.length,
        );
      const f = check(assertion[i], actual[i], join(path, i), vars);
      if (f) return f;
    }
    return undefined;
  }
  const map = assertion as Record<string, unknown>;
  for (const [key, arg] of Object.entries(map)) {
    if (!isOperator(key, arg)) continue;
    const f = operator(key, arg, actual, path, vars);
    if (f) return f;
  }
  // `items` beside array operators: the corpus's JSON Schema spelling (a deviation the loader
  // reports): a list checks elements by position, a map checks every element.
  if ("items" in map && Array.isArray(actual) && isArrayAssertion(map)) {
    const items = map.items;
    const f = Array.isArray(items)
      ? check(items, actual, path, vars)
      : actual.map((a, i) => check(items, a, join(path, i), vars)).find(Boolean);
    if (f) return f;
  }
  const fields = Object.keys(map).filter((k) => !isOperator(k, map[k]) && !(k === "items" && isArrayAssertion(map)));
  if (!fields.length) return undefined;
  if (!isPlainObject(actual)) return fail(path, `expected an object with ${fields.join(", ")}, got ${show(actual)}`, "object", actual);
  for (const key of fields) {
    const f = check(map[key], actual[key], join(path, key), vars);
    if (f) return f;
  }
  return undefined;
}

/** A literal of an until expression: JSON when it parses, else the bare word. */
function literal(text: string): unknown {
  const t = text.trim();
  try {
    return JSON.parse(t);
  } catch {
    return t.replace(/^'(.*)'$/, "$1");
  }
}

/** §9.1: `path == value`, `path != value`, `path in [v1, v2]`. Throws on any other form. */
export function untilHolds(expression: string, root: unknown): boolean {
  const inList = /^\s*(\S+)\s+in\s+\[(.*)\]\s*$/.exec(expression);
  if (inList) {
    const v = pathValue(root, inList[1]!);
    return inList[2]!
      .split(",")
      .map(literal)
      .some((l) => l === v);
  }
  const cmp = /^\s*(\S+)\s*(==|!=)\s*(.+?)\s*$/.exec(expression);
  if (!cmp) throw new Error(`repeat.until: "${expression}" is none of the §9.1 forms (path == value, path != value, path in [values])`);
  const equal = pathValue(root, cmp[1]!) === literal(cmp[3]!);
  return cmp[2] === "==" ? equal : !equal;
}
