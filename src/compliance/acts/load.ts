// ACTS loader: parses an ACTS YAML document, validates it against our schema
// (compliance/acts/acts.schema.json, derived from ACTS §12.1 / Appendix A) and
// maps the corpus's push-config operation names onto §4.1's, reporting each use.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parse } from "yaml";
import { COMPLIANCE_DIR } from "../cases.js";
import { isArrayAssertion } from "./assert.js";

/** Corpus operation names that ACTS §4.1 spells differently. */
export const OPERATION_ALIASES: Readonly<Record<string, string>> = {
  set_push_notification_config: "create_push_config",
  get_push_notification_config: "get_push_config",
  list_push_notification_configs: "list_push_configs",
  delete_push_notification_config: "delete_push_config",
};

export interface ActsDeviation {
  file: string;
  /** JSON Pointer of the member that deviates from the ACTS structure. */
  path: string;
  used: string;
  canonical: string;
}

export interface ActsDocument {
  file: string;
  data: Record<string, unknown>;
  deviations: ActsDeviation[];
  /** Per test id, the sha256 of the test as published (before any mapping): adjudications name it. */
  testHashes: Record<string, string>;
}

/** sha256 of a value's JSON with sorted keys. */
export function canonicalHash(value: unknown): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash("sha256")
    .update(JSON.stringify(canon(value)))
    .digest("hex");
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

type StepKind = "serverStep" | "clientStep" | "assertionStep" | "rawStep";
type Definition = "document" | "test" | StepKind;
let validators: Record<Definition, ValidateFunction> | undefined;
function validatorOf(which: Definition): ValidateFunction {
  if (!validators) {
    const schema = JSON.parse(readFileSync(join(COMPLIANCE_DIR, "acts", "acts.schema.json"), "utf8")) as { $id: string };
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addSchema(schema);
    const def = (name: string) => ajv.getSchema(`${schema.$id}#/definitions/${name}`)!;
    validators = {
      document: ajv.getSchema(schema.$id)!,
      test: def("test"),
      serverStep: def("serverStep"),
      clientStep: def("clientStep"),
      assertionStep: def("assertionStep"),
      rawStep: def("rawStep"),
    };
  }
  return validators[which];
}

function problemsOf(check: ValidateFunction, base: string): string[] {
  return (check.errors ?? []).map(
    (e) =>
      `${base}${e.instancePath}${base || e.instancePath ? "" : "/"}: ${e.message ?? "invalid"}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`,
  );
}

/** Which of the four step rules (§4) a step follows: its distinguishing member. */
function stepKind(step: Record<string, unknown>): StepKind {
  if ("raw" in step) return "rawStep";
  if ("client_response" in step) return "clientStep";
  if ("assertion" in step) return "assertionStep";
  return "serverStep";
}

/**
 * Corpus spellings of expect blocks that §6 does not have, mapped to §6's and reported:
 * `expect_error.code` (§6.2: error_type), `expect_error.data` (§6.2: details), and expect members
 * beside `status`/`body` (§6.1: assertions on the response go under `body`).
 */
function normaliseExpects(step: Record<string, unknown>, pointer: string, file: string, out: ActsDeviation[]): void {
  const err = step.expect_error;
  if (err && typeof err === "object" && !Array.isArray(err)) {
    const e = err as Record<string, unknown>;
    if ("code" in e && !("error_type" in e)) {
      out.push({ file, path: `${pointer}/expect_error/code`, used: "expect_error.code", canonical: "expect_error.error_type" });
      e.error_type = e.code;
      delete e.code;
    }
    if (!("error_type" in e))
      out.push({ file, path: `${pointer}/expect_error`, used: "expect_error without error_type", canonical: "expect_error.error_type" });
    else if (e.error_type && typeof e.error_type === "object")
      out.push({
        file,
        path: `${pointer}/expect_error/error_type`,
        used: "expect_error.error_type as an assertion",
        canonical: "one error_type",
      });
    if ("data" in e && !("details" in e)) {
      out.push({ file, path: `${pointer}/expect_error/data`, used: "expect_error.data", canonical: "expect_error.details" });
      e.details = e.data;
      delete e.data;
    }
  }
  // §4.3 puts a send's task and context on the message; the corpus also writes them beside it.
  const params = step.params;
  if ((step.operation === "send_message" || step.operation === "send_streaming_message") && params && typeof params === "object") {
    const p = params as Record<string, unknown>;
    const message = p.message;
    for (const key of ["taskId", "contextId"])
      if (key in p && message && typeof message === "object" && !Array.isArray(message) && !(key in message)) {
        out.push({ file, path: `${pointer}/params/${key}`, used: `params.${key}`, canonical: `params.message.${key}` });
        (message as Record<string, unknown>)[key] = p[key];
        delete p[key];
      }
  }
  const exp = step.expect;
  if (exp && typeof exp === "object" && !Array.isArray(exp)) {
    const x = exp as Record<string, unknown>;
    const stray = Object.keys(x).filter((k) => k !== "status" && k !== "body");
    if (stray.length && !("body" in x)) {
      out.push({ file, path: `${pointer}/expect`, used: `expect.{${stray.join(", ")}}`, canonical: "expect.body" });
      step.expect = { ...("status" in x ? { status: x.status } : {}), body: Object.fromEntries(stray.map((k) => [k, x[k]])) };
    }
  }
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

/** `items` beside array operators (JSON Schema's spelling; §5 has no such operator), reported. */
function reportItems(node: unknown, pointer: string, file: string, out: ActsDeviation[]): void {
  if (Array.isArray(node)) return node.forEach((n, i) => reportItems(n, `${pointer}/${i}`, file, out));
  if (node === null || typeof node !== "object") return;
  const map = node as Record<string, unknown>;
  if ("items" in map && isArrayAssertion(map))
    out.push({ file, path: `${pointer}/items`, used: "assertion operator items", canonical: "§5.5 collection assertion (any/all)" });
  for (const [k, v] of Object.entries(map)) reportItems(v, `${pointer}/${k}`, file, out);
}

/** Parses and validates ACTS text; `file` names it in errors and deviations. */
export function parseActs(text: string, file: string): ActsDocument {
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    throw new ActsLoadError(file, [`YAML: ${(err as Error).message}`]);
  }
  const check = validatorOf("document");
  if (!check(data)) throw new ActsLoadError(file, problemsOf(check, ""));
  const deviations: ActsDeviation[] = [];
  const testHashes: Record<string, string> = {};
  for (const suite of (data as { suites?: { tests: { id?: unknown }[] }[] }).suites ?? [])
    for (const test of suite.tests) testHashes[String(test.id)] = canonicalHash(test);
  canonicalise(data, "", file, deviations);
  const problems: string[] = [];
  const doc = data as { suites?: { tests: Record<string, unknown>[] }[] };
  (doc.suites ?? []).forEach((suite, si) =>
    suite.tests.forEach((test, ti) => {
      const tp = `/suites/${si}/tests/${ti}`;
      const steps = Array.isArray(test.steps) ? (test.steps as unknown[]) : [];
      steps.forEach((step, i) => {
        if (!step || typeof step !== "object" || Array.isArray(step)) return;
        normaliseExpects(step as Record<string, unknown>, `${tp}/steps/${i}`, file, deviations);
        for (const k of ["expect", "expect_stream"])
          reportItems((step as Record<string, unknown>)[k], `${tp}/steps/${i}/${k}`, file, deviations);
      });
      const t = validatorOf("test");
      if (!t(test)) problems.push(...problemsOf(t, tp));
      steps.forEach((step, i) => {
        if (!step || typeof step !== "object" || Array.isArray(step)) return;
        const kind = stepKind(step as Record<string, unknown>);
        let checked = step as Record<string, unknown>;
        if (kind === "rawStep" && "expect_stream" in checked) {
          // §4.4 has no expect_stream on raw steps; the corpus asserts a raw SSE answer with one.
          deviations.push({
            file,
            path: `${tp}/steps/${i}/expect_stream`,
            used: "raw step with expect_stream",
            canonical: "raw step with expect",
          });
          const { expect_stream: _, ...rest } = checked;
          checked = rest;
        }
        const v = validatorOf(kind);
        if (!v(checked)) problems.push(...problemsOf(v, `${tp}/steps/${i}`));
      });
    }),
  );
  if (problems.length) throw new ActsLoadError(file, problems);
  return { file, data: data as Record<string, unknown>, deviations, testHashes };
}

export function loadActsFile(file: string): ActsDocument {
  return parseActs(readFileSync(file, "utf8"), file);
}
