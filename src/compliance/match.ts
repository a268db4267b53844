// Matching an actual wire value against the expected value written in a case file, with
// operators for volatile values, captures for values reused by later steps, and schema
// assertions. Every mismatch is one Diff at the JSON Pointer where it occurs, so a failure
// names exactly what differs and nothing else.
//
// Expected-value language (documented in compliance/README.md):
//   literal                 equal (objects: every listed key matches, other keys are allowed;
//                           arrays: same length, element by element)
//   "{{name}}"              equal to the value captured as `name` (inside a longer string: text substitution)
//   {"$match": "<kind>"}    a named check (MATCH_KINDS below)
//   {"$capture": "name"}    any present value, remembered as `name` for later steps
//   {"$valid": "v1_0.Task"} the value passes that generated validator (see validators.ts)
//   {"$regex": "^a"}        a string matching the regular expression
//   {"$includes": "text"}   a string containing the text
//   {"$oneOf": [A, B]}      matches at least one alternative
//   {"$variants": {"1.0.0": A, "1.0.1": B}}
//                           named alternatives the spec allows (patch releases, prose vs proto); the
//                           first that matches is recorded, so the report names the one the agent follows
//   {"$range": [lo, hi]}    a number lo <= n <= hi
//   {"$each": M}            an array whose every element matches M
//   {"$some": M}            an array with at least one element matching M
//   {"$length": n}          an array (or string) of exactly n items ({"min": a, "max": b}: a range)
//   {"$optional": M}        absent or null, or present and matching M
//   {"$not": M}             present and not matching M (e.g. {"$not": "{{taskId}}"}: a different id)
//   {"$sorted": {"by": "/status/timestamp", "order": "desc"}}
//                           an array ordered by the value at that pointer in each item (timestamps as instants)
//   {"$branch": [{"name": "task", "if": M1, "then": M2}, …]}
//                           the first alternative whose `if` matches is taken (recorded like $variants) and
//                           the value must then match its `then` too
//   {"$base64urlJson": M}   a base64url string (no padding, RFC 7515 §2) whose decoded UTF-8 text is JSON matching M
//                           (a JWS protected header: {"$base64urlJson": {"alg": …, "kid": …}})
// Operators combine in one object ({"$capture": "id", "$match": "nonEmptyString"}); ordinary
// keys beside operators are matched as a partial object after the operators.
import { check, type ValidationIssue } from "../runtime/validation.js";
import { protoJsonView, strictIssue } from "./strict.js";
import { resolveValidator } from "./validators.js";

export interface Diff {
  /** JSON Pointer into the compared document (the runner prefixes /body, /events/3 …). */
  path: string;
  /** What the case expected, in words or as the literal. */
  expected: unknown;
  /** What was on the wire (undefined = absent). */
  actual: unknown;
  message: string;
  /** The expectation names a variable no earlier step captured: the agent did not give it (nothing is judged here). */
  uncaptured?: string;
  /**
   * A stream still open after an interrupted state (input-required, auth-required): no MUST asks
   * it to close (stream-end.ts), so the runner judges this difference at SHOULD at most.
   */
  openAfterInterrupted?: true;
}

export const MATCH_KINDS = [
  "any",
  "present",
  "nonNull",
  "absent",
  "null",
  "string",
  "nonEmptyString",
  "number",
  "integer",
  "boolean",
  "object",
  "array",
  "nonEmptyArray",
  "nonEmptyObject",
  "uuid",
  "timestamp",
  "datetime",
  "camelCaseKeys",
] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

export const OPERATORS = [
  "$match",
  "$capture",
  "$valid",
  "$regex",
  "$includes",
  "$oneOf",
  "$variants",
  "$range",
  "$each",
  "$some",
  "$length",
  "$optional",
  "$not",
  "$sorted",
  "$base64urlJson",
  "$branch",
] as const;

/** One alternative of `$branch`: taken when `if` matches; the value must then match `then` as well. */
export interface BranchAlternative {
  name: string;
  if: unknown;
  then?: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** RFC 3339 in UTC with a literal Z, as A2A 1.0 requires (1.0 §5.6.1). */
const TIMESTAMP_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
/** ISO 8601 date-time with or without offset (0.3 examples omit the zone, a2a-wire.md E23). */
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Values known to a match: captures from earlier steps and the ones made during this match. */
export class Scope {
  /** Captures made by the current match; committed by the caller when the match succeeds. */
  readonly staged = new Map<string, unknown>();
  /** The `$variants` alternative chosen at each path (JSON Pointer -> name). */
  readonly chosen = new Map<string, string>();
  /**
   * `decoded`: the value matched is JSON the runner wrote from a decoded message (a gRPC answer,
   * a scenario's 1.0 view), not JSON the agent sent: `$valid` leaves out the JSON spelling rules.
   */
  constructor(
    readonly vars: ReadonlyMap<string, unknown>,
    public decoded = false,
  ) {}

  /** `f` run with `decoded` set (the JSON it matches is the runner's own), then restored. */
  decodedFor<T>(f: () => T): T {
    const was = this.decoded;
    this.decoded = true;
    try {
      return f();
    } finally {
      this.decoded = was;
    }
  }

  lookup(name: string): { found: boolean; value?: unknown } {
    if (this.staged.has(name)) return { found: true, value: this.staged.get(name) };
    if (this.vars.has(name)) return { found: true, value: this.vars.get(name) };
    return { found: false };
  }

  /** A child scope for a trial match (an alternative of $oneOf, a candidate event). */
  fork(): Scope {
    const child = new Scope(this.vars, this.decoded);
    for (const [k, v] of this.staged) child.staged.set(k, v);
    for (const [k, v] of this.chosen) child.chosen.set(k, v);
    return child;
  }

  adopt(child: Scope): void {
    for (const [k, v] of child.staged) this.staged.set(k, v);
    for (const [k, v] of child.chosen) this.chosen.set(k, v);
  }
}

const TEMPLATE = /\{\{\s*([A-Za-z0-9_:$.-]+)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\{\{\s*([A-Za-z0-9_:$.-]+)\s*\}\}$/;

export function isOperatorObject(v: unknown): v is Record<string, unknown> {
  return isPlainObject(v) && Object.keys(v).some((k) => k.startsWith("$"));
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  if (v === undefined) return "(absent)";
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

function typeName(v: unknown): string {
  if (v === undefined) return "absent";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/**
 * Resolves `{{name}}` references in an expected string. A whole-string reference yields the
 * captured value itself (which may be a number); an unknown name is reported, not guessed.
 */
function resolveTemplate(s: string, scope: Scope): { ok: true; value: unknown } | { ok: false; name: string } {
  const [, name] = WHOLE_TEMPLATE.exec(s) ?? [];
  if (name !== undefined) {
    const r = scope.lookup(name);
    return r.found ? { ok: true, value: r.value } : { ok: false, name };
  }
  let missing: string | undefined;
  const value = s.replace(TEMPLATE, (_m, name: string) => {
    const r = scope.lookup(name);
    if (!r.found) missing ??= name;
    return r.found ? String(r.value) : "";
  });
  return missing ? { ok: false, name: missing } : { ok: true, value };
}

function checkKind(kind: MatchKind, actual: unknown): boolean {
  switch (kind) {
    case "any":
    case "present":
      return actual !== undefined;
    case "nonNull":
      return actual !== undefined && actual !== null;
    case "absent":
      // ProtoJSON reads null as unset, and a JSON-RPC error's optional `data` may be null.
      return actual === undefined || actual === null;
    case "null":
      return actual === null;
    case "string":
      return typeof actual === "string";
    case "nonEmptyString":
      return typeof actual === "string" && actual.length > 0;
    case "number":
      return typeof actual === "number" && Number.isFinite(actual);
    case "integer":
      return typeof actual === "number" && Number.isInteger(actual);
    case "boolean":
      return typeof actual === "boolean";
    case "object":
      return isPlainObject(actual);
    case "array":
      return Array.isArray(actual);
    case "nonEmptyArray":
      return Array.isArray(actual) && actual.length > 0;
    case "nonEmptyObject":
      return isPlainObject(actual) && Object.keys(actual).length > 0;
    case "uuid":
      return typeof actual === "string" && UUID.test(actual);
    case "timestamp":
      return typeof actual === "string" && TIMESTAMP_UTC.test(actual) && !Number.isNaN(Date.parse(actual));
    case "datetime":
      return typeof actual === "string" && DATETIME.test(actual);
    case "camelCaseKeys":
      return firstNonCamelKey(actual) === undefined;
  }
}

/** Members whose values are free-form payloads (Struct, extension params): their keys are the user's. */
const FREE_FORM = new Set(["metadata", "data", "params"]);
const CAMEL = /^(@type|[a-z][a-zA-Z0-9]*)$/;

/** The path of the first member name that is not lowerCamelCase, outside free-form payloads. */
export function firstNonCamelKey(v: unknown, path = ""): string | undefined {
  if (Array.isArray(v)) {
    for (const [i, item] of v.entries()) {
      const hit = firstNonCamelKey(item, `${path}/${i}`);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  if (!isPlainObject(v)) return undefined;
  for (const [k, item] of Object.entries(v)) {
    if (!CAMEL.test(k)) return `${path}/${k}`;
    if (FREE_FORM.has(k)) continue;
    const hit = firstNonCamelKey(item, `${path}/${k}`);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** True when `expected` accepts an absent value (so a missing key is not a difference). */
function acceptsAbsent(expected: unknown): boolean {
  if (!isOperatorObject(expected)) return false;
  if ("$optional" in expected) return true;
  if (expected.$match === "absent") return true;
  if (Array.isArray(expected.$oneOf)) return expected.$oneOf.some(acceptsAbsent);
  if (isPlainObject(expected.$variants)) return Object.values(expected.$variants).some(acceptsAbsent);
  if (Array.isArray(expected.$branch)) return (expected.$branch as BranchAlternative[]).some((b) => acceptsAbsent(b.if));
  return false;
}

/** Compares `actual` with `expected`; returns every difference (empty = match). Captures go to scope.staged. */
export function match(expected: unknown, actual: unknown, path = "", scope: Scope = new Scope(new Map())): Diff[] {
  if (typeof expected === "string" && expected.includes("{{")) {
    const r = resolveTemplate(expected, scope);
    if (!r.ok) return [{ path, expected, actual, message: `variable "${r.name}" was not captured by an earlier step`, uncaptured: r.name }];
    // A captured value is compared as a whole: it must be the same value again (a list or object: reported where it first differs).
    const d = firstDifference(r.value, actual, path);
    if (!d) return [];
    const at = d.path === path ? "" : ` at ${d.path.slice(path.length)}`;
    return [
      {
        path: d.path,
        expected: d.expected,
        actual: d.actual,
        message: `expected ${show(d.expected)} (from ${expected}${at}), got ${show(d.actual)}`,
      },
    ];
  }
  if (isOperatorObject(expected)) return matchOperators(expected, actual, path, scope);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [{ path, expected: "an array", actual, message: `expected an array, got ${typeName(actual)}` }];
    const diffs: Diff[] = [];
    if (expected.length !== actual.length) {
      diffs.push({
        path,
        expected: `${expected.length} item(s)`,
        actual: `${actual.length} item(s)`,
        message: `expected ${expected.length} item(s), got ${actual.length}`,
      });
    }
    for (let i = 0; i < Math.min(expected.length, actual.length); i++)
      diffs.push(...match(expected[i], actual[i], pointer(path, i), scope));
    return diffs;
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return [{ path, expected: "an object", actual, message: `expected an object, got ${typeName(actual)}` }];
    return matchKeys(expected, actual, path, scope);
  }
  return literal(expected, actual, path);
}

function literal(expected: unknown, actual: unknown, path: string): Diff[] {
  if (expected === actual) return [];
  return [{ path, expected, actual, message: `expected ${show(expected)}, got ${show(actual)}` }];
}

/** Where two values first differ (undefined: they are equal), descending into lists and objects of both. */
function firstDifference(a: unknown, b: unknown, path: string): { path: string; expected: unknown; actual: unknown } | undefined {
  if (deepEqual(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], pointer(path, i));
      if (d) return d;
    }
    return { path, expected: `${a.length} item(s)`, actual: `${b.length} item(s)` };
  }
  if (isPlainObject(a) && isPlainObject(b))
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], pointer(path, k));
      if (d) return d;
    }
  return { path, expected: a, actual: b };
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

function matchKeys(expected: Record<string, unknown>, actual: Record<string, unknown>, path: string, scope: Scope): Diff[] {
  const diffs: Diff[] = [];
  for (const [key, exp] of Object.entries(expected)) {
    if (key.startsWith("$")) continue;
    const act = Object.prototype.hasOwnProperty.call(actual, key) ? actual[key] : undefined;
    const at = pointer(path, key);
    if (act === undefined && !acceptsAbsent(exp)) {
      diffs.push({ path: at, expected: describe(exp), actual: undefined, message: `missing; expected ${show(describe(exp))}` });
      continue;
    }
    diffs.push(...match(exp, act, at, scope));
  }
  return diffs;
}

/** A short description of an expected value, for diff output. */
export function describe(expected: unknown): unknown {
  if (!isOperatorObject(expected)) return expected;
  const parts: string[] = [];
  if (typeof expected.$match === "string") parts.push(expected.$match);
  if (typeof expected.$capture === "string") parts.push(`captured as ${expected.$capture}`);
  if (typeof expected.$valid === "string") parts.push(`valid ${expected.$valid}`);
  if (typeof expected.$regex === "string") parts.push(`matching /${expected.$regex}/`);
  if (typeof expected.$includes === "string") parts.push(`containing ${JSON.stringify(expected.$includes)}`);
  if ("$oneOf" in expected) parts.push(`one of ${show(expected.$oneOf)}`);
  if (isPlainObject(expected.$variants))
    parts.push(`one of the variants ${Object.keys(expected.$variants).join(", ")}: ${show(expected.$variants)}`);
  if ("$range" in expected) parts.push(`in range ${show(expected.$range)}`);
  if ("$each" in expected) parts.push(`each ${show(expected.$each)}`);
  if ("$some" in expected) parts.push(`some ${show(expected.$some)}`);
  if ("$length" in expected) parts.push(`length ${show(expected.$length)}`);
  if ("$optional" in expected) parts.push(`optional ${show(expected.$optional)}`);
  if ("$not" in expected) parts.push(`not ${show(expected.$not)}`);
  if ("$sorted" in expected) parts.push(`sorted ${show(expected.$sorted)}`);
  if ("$base64urlJson" in expected) parts.push(`base64url JSON ${show(expected.$base64urlJson)}`);
  if (Array.isArray(expected.$branch))
    parts.push(`one of the branches ${(expected.$branch as BranchAlternative[]).map((b) => b.name).join(", ")}`);
  const rest = Object.keys(expected).filter((k) => !k.startsWith("$"));
  if (rest.length) parts.push(`object with ${rest.join(", ")}`);
  return parts.join("; ");
}

function matchOperators(exp: Record<string, unknown>, actual: unknown, path: string, scope: Scope): Diff[] {
  const diffs: Diff[] = [];
  const fail = (expected: unknown, message: string) => diffs.push({ path, expected, actual, message });

  if ("$optional" in exp) {
    // null counts as absent (ProtoJSON: unset); "present, non-null" is {"$match": "nonNull"}.
    if (actual === undefined || actual === null) return [];
    diffs.push(...match(exp.$optional, actual, path, scope));
  }
  if (typeof exp.$match === "string") {
    const kind = exp.$match as MatchKind;
    if (kind === "camelCaseKeys") {
      const bad = firstNonCamelKey(actual);
      if (bad !== undefined)
        diffs.push({
          path: path + bad,
          expected: "a lowerCamelCase member name",
          actual: bad.slice(bad.lastIndexOf("/") + 1),
          message: "member name is not lowerCamelCase",
        });
    } else if (!checkKind(kind, actual)) fail(kind, `expected ${kind}, got ${show(actual)}`);
  }
  if ("$not" in exp) {
    if (actual === undefined) fail(`not ${show(exp.$not)}`, "missing");
    else if (match(exp.$not, actual, path, scope.fork()).length === 0)
      fail(`not ${show(exp.$not)}`, `expected anything but ${show(exp.$not)}, got ${show(actual)}`);
  }
  if (typeof exp.$regex === "string") {
    if (typeof actual !== "string" || !new RegExp(exp.$regex).test(actual))
      fail(`/${exp.$regex}/`, `expected a string matching /${exp.$regex}/, got ${show(actual)}`);
  }
  if (typeof exp.$includes === "string") {
    // The text may name a captured value: {"$includes": "{{extensionUri}}"}.
    const r = exp.$includes.includes("{{") ? resolveTemplate(exp.$includes, scope) : { ok: true as const, value: exp.$includes };
    if (!r.ok) fail(exp.$includes, `variable "${r.name}" was not captured by an earlier step`);
    else {
      const text = String(r.value);
      if (typeof actual !== "string" || !actual.includes(text))
        fail(`containing ${JSON.stringify(text)}`, `expected a string containing ${JSON.stringify(text)}, got ${show(actual)}`);
    }
  }
  if ("$base64urlJson" in exp) {
    const decoded = decodeBase64urlJson(actual);
    if (!decoded.ok) fail(`base64url JSON ${show(exp.$base64urlJson)}`, decoded.message);
    else diffs.push(...match(exp.$base64urlJson, decoded.value, path, scope));
  }
  if (Array.isArray(exp.$range)) {
    const [lo, hi] = exp.$range as [number, number];
    if (typeof actual !== "number" || actual < lo || actual > hi)
      fail(`${lo}..${hi}`, `expected a number in ${lo}..${hi}, got ${show(actual)}`);
  }
  if ("$length" in exp) {
    const want = exp.$length as number | { min?: number; max?: number };
    const [lo, hi] = typeof want === "number" ? [want, want] : [want.min ?? 0, want.max ?? Infinity];
    const text = lo === hi ? `${lo}` : `${lo}..${hi === Infinity ? "" : hi}`;
    const len = Array.isArray(actual) || typeof actual === "string" ? actual.length : undefined;
    if (len === undefined || len < lo || len > hi)
      fail(`length ${text}`, `expected length ${text}, got ${len === undefined ? typeName(actual) : len}`);
  }
  if (Array.isArray(exp.$oneOf))
    diffs.push(
      ...firstMatching(
        exp.$oneOf.map((alt) => [undefined, alt]),
        actual,
        path,
        scope,
      ),
    );
  if (isPlainObject(exp.$variants)) diffs.push(...firstMatching(Object.entries(exp.$variants), actual, path, scope));
  if (Array.isArray(exp.$branch)) diffs.push(...matchBranch(exp.$branch as BranchAlternative[], actual, path, scope));
  if ("$each" in exp) {
    if (!Array.isArray(actual)) fail("an array", `expected an array, got ${typeName(actual)}`);
    else actual.forEach((item, i) => diffs.push(...match(exp.$each, item, pointer(path, i), scope)));
  }
  if ("$some" in exp) {
    if (!Array.isArray(actual)) fail("an array", `expected an array, got ${typeName(actual)}`);
    else {
      const hit = actual.some((item, i) => {
        const trial = scope.fork();
        if (match(exp.$some, item, pointer(path, i), trial).length) return false;
        scope.adopt(trial);
        return true;
      });
      if (!hit) fail(`some item: ${show(describe(exp.$some))}`, `no item matches ${show(exp.$some)}`);
    }
  }
  if (isPlainObject(exp.$sorted)) {
    const by = typeof exp.$sorted.by === "string" ? exp.$sorted.by : "";
    const desc = exp.$sorted.order === "desc";
    if (!Array.isArray(actual)) fail("an array", `expected an array, got ${typeName(actual)}`);
    else {
      const key = (v: unknown) => orderKey(valueAt(v, by));
      for (let i = 1; i < actual.length; i++) {
        const a = key(actual[i - 1]);
        const b = key(actual[i]);
        if (a === undefined || b === undefined) {
          diffs.push({
            path: pointer(path, a === undefined ? i - 1 : i) + by,
            expected: "a sortable value",
            actual: undefined,
            message: `no value at ${by} to sort by`,
          });
          break;
        }
        if (desc ? a < b : a > b) {
          diffs.push({
            path: pointer(path, i) + by,
            expected: `${desc ? "at most" : "at least"} ${show(valueAt(actual[i - 1], by))}`,
            actual: valueAt(actual[i], by),
            message: `not sorted ${desc ? "descending" : "ascending"} by ${by}: item ${i} comes after ${show(valueAt(actual[i - 1], by))}`,
          });
          break;
        }
      }
    }
  }
  if (typeof exp.$valid === "string") {
    const validator = resolveValidator(exp.$valid);
    if (!validator) fail(exp.$valid, `unknown validator "${exp.$valid}"`);
    else if (actual === undefined) fail(exp.$valid, `missing; expected a valid ${exp.$valid}`);
    else {
      const view = protoJsonView(exp.$valid, actual);
      const issue: ValidationIssue | undefined = check(validator, view) ?? strictIssue(exp.$valid, view, scope.decoded);
      if (issue)
        diffs.push({
          path: `${path}${issue.path}`,
          expected: `valid ${exp.$valid}`,
          actual: valueAt(actual, issue.path),
          message: `not a valid ${exp.$valid}: ${issue.message}`,
        });
    }
  }
  const rest = Object.keys(exp).filter((k) => !k.startsWith("$"));
  if (rest.length) {
    if (!isPlainObject(actual)) fail("an object", `expected an object, got ${typeName(actual)}`);
    else diffs.push(...matchKeys(exp, actual, path, scope));
  }
  if (typeof exp.$capture === "string") {
    if (actual === undefined) fail(`captured as ${exp.$capture}`, `missing; nothing to capture as "${exp.$capture}"`);
    else if (diffs.length === 0) scope.staged.set(exp.$capture, actual);
  }
  return diffs;
}

/** A value to order by: a date-time as its instant, a number or a string as itself; else undefined. */
export function orderKey(x: unknown): number | string | undefined {
  if (typeof x === "string" && DATETIME.test(x) && !Number.isNaN(Date.parse(x))) return Date.parse(x);
  return typeof x === "number" || typeof x === "string" ? x : undefined;
}

/** `$branch`: the first alternative whose `if` matches is taken (its name recorded at the path), then `then` must match. */
function matchBranch(alts: BranchAlternative[], actual: unknown, path: string, scope: Scope): Diff[] {
  for (const alt of alts) {
    const trial = scope.fork();
    if (match(alt.if, actual, path, trial).length) continue;
    trial.chosen.set(path, alt.name);
    const diffs = alt.then === undefined ? [] : match(alt.then, actual, path, trial);
    scope.adopt(trial);
    return diffs;
  }
  const names = alts.map((a) => a.name).join(", ");
  return [{ path, expected: `one of: ${names}`, actual, message: `matches none of: ${names} (got ${summarise(actual)})` }];
}

/** A short description of an actual value: its type, and an object's member names. */
function summarise(v: unknown): string {
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    return keys.length ? `an object with ${keys.slice(0, 6).join(", ")}${keys.length > 6 ? ", …" : ""}` : "an empty object";
  }
  if (Array.isArray(v)) return `an array of ${v.length} item(s)`;
  return show(v);
}

/**
 * The first alternative that matches wins (its captures, and its name for a named variant, go to
 * the scope); when none does, the closest one's differences are reported.
 */
function firstMatching(alts: [string | undefined, unknown][], actual: unknown, path: string, scope: Scope): Diff[] {
  let best: { name?: string; diffs: Diff[] } | undefined;
  for (const [name, alt] of alts) {
    const trial = scope.fork();
    const d = match(alt, actual, path, trial);
    if (d.length === 0) {
      if (name !== undefined) trial.chosen.set(path, name);
      scope.adopt(trial);
      return [];
    }
    if (!best || d.length < best.diffs.length) best = { name, diffs: d };
  }
  if (!best) return [];
  if (alts.length < 2) return best.diffs;
  const which = best.name !== undefined ? `variant ${best.name}, closest of ${alts.length}` : `closest of ${alts.length} alternatives`;
  return best.diffs.map((d) => ({ ...d, message: `${d.message} (${which})` }));
}

/** The value at a JSON Pointer inside `doc` (undefined when absent). */
export function valueAt(doc: unknown, ptr: string): unknown {
  if (!ptr) return doc;
  let cur: unknown = doc;
  for (const raw of ptr.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (isPlainObject(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

/** Substitutes `{{name}}`, `{{uuid:name}}` and `{{url:name}}` in a request template before it is sent. */
export function render(template: unknown, vars: Map<string, unknown>): unknown {
  if (typeof template === "string") {
    const [, whole] = WHOLE_TEMPLATE.exec(template) ?? [];
    if (whole !== undefined && !whole.startsWith("uuid:") && !whole.startsWith("url:")) return lookupOrThrow(whole, vars);
    return template.replace(TEMPLATE, (_m, name: string) => String(lookupOrThrow(name, vars)));
  }
  if (Array.isArray(template)) return template.map((t) => render(t, vars));
  if (isPlainObject(template)) return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, render(v, vars)]));
  return template;
}

function lookupOrThrow(name: string, vars: Map<string, unknown>): unknown {
  // {{url:name}}: the value percent-encoded for a path segment or query value (page tokens, ids).
  if (name.startsWith("url:")) return encodeURIComponent(String(lookupOrThrow(name.slice(4), vars)));
  if (name.startsWith("uuid:")) {
    // A fresh identifier per run, stable within the case: {{uuid:m1}} twice gives the same value.
    if (!vars.has(name)) vars.set(name, crypto.randomUUID());
    return vars.get(name);
  }
  if (!vars.has(name)) throw new Error(`variable "${name}" was not captured by an earlier step`);
  return vars.get(name);
}

/** base64url without padding (RFC 7515 §2), decoded as UTF-8 JSON. */
function decodeBase64urlJson(actual: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (typeof actual !== "string" || !/^[A-Za-z0-9_-]*$/.test(actual) || actual.length % 4 === 1)
    return { ok: false, message: `expected a base64url string without padding, got ${show(actual)}` };
  try {
    return { ok: true, value: JSON.parse(Buffer.from(actual, "base64url").toString("utf8")) };
  } catch (e) {
    return { ok: false, message: `base64url text is not JSON: ${(e as Error).message}` };
  }
}
