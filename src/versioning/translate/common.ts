// Helpers shared by the 0.3 ⇄ 1.0 translators (rpc0_3.ts, rest0_3.ts): input/output validation,
// the loss bookkeeping that is the same in both 0.3 dialects, enum tables, timestamps, base64.
// Everything here works on wire JSON; nothing here knows about transports.
import type { ValidateFunction } from "ajv";
import { check } from "../../runtime/validation.js";
import { A2AError, invalidParams } from "../errors.js";
import { LossLog, type LossDirection, type Translated } from "../loss.js";
import { FIELDS } from "./fields.js";

export { FIELDS };

export type JsonObject = { [k: string]: unknown };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Throws InvalidParams (path-precise) when `value` does not pass the generated validator of its dialect. */
export function validateInput(validator: ValidateFunction, value: unknown, pointer = ""): void {
  const issue = check(validator, value);
  if (issue) throw invalidParams(pointer + issue.path, issue.message);
}

/**
 * Checks a translation's output against the target dialect. A failure means the (valid) input holds
 * something the target cannot express (for example an empty `parts` array, L27), so the caller
 * gets InvalidParams naming the target dialect.
 */
export function validateOutput(validator: ValidateFunction, value: unknown, dialect: string, pointer = ""): void {
  const issue = check(validator, value);
  if (issue) throw invalidParams(pointer + issue.path, `cannot be expressed in ${dialect}: ${issue.message}`);
}

// ---- validation around a translation ------------------------------------------------------------
//
// Every public translator validates its input with the source dialect's validator and its output with
// the target's (`translate` below). The codec seam also translates values the toolkit made itself: the
// 1.0 JSON its own ProtoJSON encoder wrote from a protobuf-es message, downgraded to 0.3 on the way out.
// Validating those (input and output) finds only toolkit bugs, which the property and contract tests
// look for, so the codec runs such downgrades with `{validate: false}`, where that validation is skipped.
// On the way in, a translator's output is validated against the 1.0 validator, and the codec's ProtoJSON
// decode would validate the same value with the same validator again: the result's `validated`
// member tells it so.
// A codec made with `strictValidation` (codecFor's option; default: A2A_STRICT_VALIDATION=1 in the
// environment) validates those too.

/** Options of one translation. */
export interface TranslateOptions {
  /**
   * Validate the input and the output (default true). False only for 1.0 JSON the toolkit itself
   * encoded from a protobuf-es message: validating it finds only toolkit bugs.
   */
  validate?: boolean;
}

/** Whether the environment asks for strict validation (A2A_STRICT_VALIDATION=1), read once at start. */
export const STRICT_VALIDATION_FROM_ENV = typeof process !== "undefined" && process.env?.A2A_STRICT_VALIDATION === "1";

/**
 * One translation: validates `input` (source dialect), runs `fn` with a fresh loss log, validates the
 * output (target dialect; `null`: the caller does) and returns `{value, losses}`. `dialect0_3` names
 * the 0.3 dialect in messages about outputs it cannot express. `opts.validate: false` skips both
 * validations.
 */
export function translate<I, O>(
  input: I,
  inV: ValidateFunction,
  outV: ValidateFunction | null,
  direction: LossDirection,
  dialect0_3: string,
  fn: (x: I, log: LossLog) => O,
  opts?: TranslateOptions,
): Translated<O> {
  const validating = opts?.validate !== false;
  if (validating) validateInput(inV, input);
  const log = new LossLog(direction);
  const value = fn(input, log);
  if (!outV || !validating) return log.done(value);
  validateOutput(outV, value, direction === "to-1.0" ? "A2A 1.0" : dialect0_3);
  return { ...log.done(value), validated: { value, validator: outV } };
}

/** An A2AError for a value the target dialect has no form for, with the loss id in ErrorInfo metadata. */
export function untranslatable(path: string, description: string, lossId?: string): A2AError {
  const e = invalidParams(path, description);
  if (lossId) e.metadata.loss = lossId;
  return e;
}

/**
 * L24: fields the translator does not know are dropped and reported, one loss per field. ProtoJSON
 * cannot round-trip unknown fields either (ADR-001), so the target could not have carried them.
 */
export function reportUnknown(obj: object, known: ReadonlySet<string>, path: string, log: LossLog): void {
  // for…in rather than Object.keys: no array per translated object (wire JSON has no inherited keys).
  for (const k in obj) {
    if (!known.has(k)) log.add("L24", `${path}/${escapePointer(k)}`, `field "${k}" is not part of the schema and is dropped`);
  }
}

/** An Artifact of any of the three dialects: the same fields everywhere, only the parts differ. */
export interface ArtifactLike<P> {
  artifactId?: string;
  name?: string;
  description?: string;
  parts?: P[];
  metadata?: unknown;
  extensions?: string[];
}

/**
 * Translates an Artifact (either direction, either 0.3 dialect): the fields are copied, unknown
 * ones reported (L24), big integers in metadata reported (L25), and the parts translated by `parts`.
 */
export function translateArtifact<P, Q>(
  a: ArtifactLike<P>,
  path: string,
  log: LossLog,
  parts: (ps: P[] | undefined, path: string, log: LossLog) => Q[],
): ArtifactLike<Q> {
  reportUnknown(a, FIELDS.artifact, path, log);
  if (a.metadata) scanPrecision(a.metadata, `${path}/metadata`, log);
  return compact({
    artifactId: a.artifactId,
    name: a.name,
    description: a.description,
    parts: parts(a.parts, `${path}/parts`, log),
    metadata: a.metadata,
    extensions: a.extensions,
  });
}

/** The one member of a oneof-like object that is set; InvalidParams when none or several are. */
export function oneMember<M extends string>(o: object, members: readonly M[], path: string, what: string): M {
  const set = members.filter((m) => (o as JsonObject)[m] !== undefined);
  const [only] = set;
  if (only === undefined || set.length !== 1) throw untranslatable(path, `a ${what} must set exactly one of ${members.join(", ")}`);
  return only;
}

export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * `obj` without its `undefined` members, so outputs carry only what is set (ProtoJSON never emits
 * null/undefined). Returns a copy: deleting members would turn the object into a slow dictionary.
 */
export function compact<T extends object>(obj: T): T {
  const out = {} as T;
  for (const k in obj) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/** ProtoJSON implicit presence: "" is the default of a string field and is the same as absent. */
export function str(v: string | undefined): string | undefined {
  return v === undefined || v === "" ? undefined : v;
}

export function nonEmpty<T>(a: T[] | undefined): T[] | undefined {
  return a && a.length > 0 ? a : undefined;
}

/**
 * L25: numbers in Struct/Value are IEEE-754 doubles in 1.0 (and become doubles over gRPC). An integer
 * outside ±2^53 has already lost precision or will; reported, the value is passed unchanged.
 */
export function scanPrecision(value: unknown, path: string, log: LossLog): void {
  if (typeof value === "number") {
    if (Number.isInteger(value) && !Number.isSafeInteger(value))
      log.add("L25", path, `integer ${value} is outside ±2^53 and is not exact as a protobuf double`);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) value.forEach((v, i) => scanPrecision(v, `${path}/${i}`, log));
  else for (const [k, v] of Object.entries(value)) scanPrecision(v, `${path}/${escapePointer(k)}`, log);
}

// ---- enums (a2a-wire.md §2.1) -------------------------------------------------------------------

export const STATE_RPC_TO_1_0 = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  canceled: "TASK_STATE_CANCELED",
  failed: "TASK_STATE_FAILED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
  unknown: "TASK_STATE_UNSPECIFIED",
} as const;

export const STATE_1_0_TO_RPC = Object.fromEntries(Object.entries(STATE_RPC_TO_1_0).map(([k, v]) => [v, k])) as {
  [K in keyof typeof STATE_RPC_TO_1_0 as (typeof STATE_RPC_TO_1_0)[K]]: K;
};

/** D03-PB spells CANCELED with a double L (P03); every other name is the same as 1.0. */
export function statePbTo1_0<S extends string>(s: S): string {
  return s === "TASK_STATE_CANCELLED" ? "TASK_STATE_CANCELED" : s;
}
export function state1_0ToPb(s: string): string {
  return s === "TASK_STATE_CANCELED" ? "TASK_STATE_CANCELLED" : s;
}

// ---- timestamps (L19) ---------------------------------------------------------------------------

const TS = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2}))?(?:[.,](\d+))?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Normalises an ISO 8601 / RFC 3339 timestamp to the 1.0 form: UTC with `Z`, fractional digits
 * 0, 3, 6 or 9 (what ProtoJSON emits). L19 is reported when the input had no zone (assumed UTC),
 * a non-Z offset (converted) or more than 9 fractional digits (truncated). Unparseable → InvalidParams.
 */
export function timestampTo1_0(s: string, path: string, log: LossLog): string {
  const m = TS.exec(s);
  if (!m) throw invalidParams(path, `"${s}" is not an ISO 8601 date-time`);
  const [, y, mo, d, h, mi, sec = "00", frac = "", zone] = m;
  let offsetMin = 0;
  if (!zone) log.add("L19", path, `timestamp "${s}" has no time zone; assumed UTC`);
  else if (zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || "0"));
    if (offsetMin !== 0) log.add("L19", path, `timestamp "${s}" offset ${zone} converted to UTC`);
  }
  if (frac.length > 9) log.add("L19", path, `timestamp "${s}" has more than 9 fractional digits; truncated`);
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d)); // not Date.UTC: it maps years 0..99 to 1900..1999
  date.setUTCHours(Number(h), Number(mi) - offsetMin, Number(sec), 0);
  const ms = date.getTime();
  if (Number.isNaN(ms) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 60)
    throw invalidParams(path, `"${s}" is not a valid date-time`);
  if (date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) throw invalidParams(path, `"${s}" is outside years 0001..9999`);
  const nanos = Number(frac.slice(0, 9).padEnd(9, "0"));
  return formatTimestamp(date, nanos);
}

function formatTimestamp(date: Date, nanos: number): string {
  const head = date.toISOString().slice(0, 19); // whole seconds (years 0001..9999 print as 4 digits)
  let f = "";
  if (nanos !== 0) {
    const n9 = String(nanos).padStart(9, "0");
    f = "." + (nanos % 1_000_000 === 0 ? n9.slice(0, 3) : nanos % 1000 === 0 ? n9.slice(0, 6) : n9);
  }
  return `${head}${f}Z`;
}

// ---- bytes -----------------------------------------------------------------------------------

const B64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Standard padded base64, as ProtoJSON emits `bytes`; accepts URL-safe and unpadded input. */
export function canonicalBase64(s: string, path: string): string {
  const body = s.replace(/=+$/, "");
  if (!B64.test(s) || body.length % 4 === 1) throw invalidParams(path, "is not valid base64");
  return Buffer.from(body.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("base64");
}

// ---- part extras (L3, L4) ---------------------------------------------------------------------

/**
 * Metadata key under which 1.0 `mediaType`/`filename` of text and data parts travel in 0.3 (L3).
 * Removed again on upgrade. `bare: true` records that the 1.0 part had no metadata of its own.
 */
export const PART_EXTRAS_KEY = "a2a-toolkit/part";
/** Prior-art marker (a2a-python, a2a-js) for a non-object `data` value wrapped as `{"value": X}` (L4). */
export const DATA_COMPAT_KEY = "data_part_compat";
