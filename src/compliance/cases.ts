// Loading compliance cases: every *.json under compliance/cases/ is one case, its path (without
// .json) is its ID. Each file is validated against compliance/case.schema.json and then checked
// for what a schema cannot say (known operators and validators, the ID matches version and
// binding). Problems are reported per file with a JSON Pointer, all at once.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { jsonSpellingRule, type Citation } from "./citations.js";
import { MATCH_KINDS, OPERATORS, isPlainObject } from "./match.js";
import { resolveValidator } from "./validators.js";
import { grpcMethod, grpcPath } from "./grpc.js";
import { packagePath } from "../runtime/package-root.js";
import type { AbstractCall } from "./projection.js";
import { loadScenarioCases, ScenarioLoadError, SCENARIOS_DIR } from "./scenarios.js";

export type Level = "MUST" | "SHOULD" | "MAY";
export type Version = "1.0" | "0.3";
export type Binding = "json-rpc" | "rest" | "grpc" | "any";
export type Behaviour = "echo" | "ask" | "stream" | "fail" | "slow" | "msg" | "auth" | "parts" | "tck";

export interface CaseRequest {
  /** HTTP method; gRPC requests: "POST" (filled in by the loader). */
  method: string;
  /** gRPC requests: /<service>/<rpc> (filled in by the loader from the generated service descriptor). */
  path: string;
  /** gRPC cases: the A2AService method; headers are metadata, body the request message as ProtoJSON, rawBody its bytes in base64. */
  rpc?: string;
  base?: "interface" | "agent" | "card";
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  /** Leave out the runner's credential headers. */
  withoutCredentials?: boolean;
  /**
   * Send credentials of a scheme the card declares, with a value no server issued, instead of the
   * runner's (runner.ts invalidCredentials); the step does not apply when the card declares no
   * scheme carried in a header.
   */
  invalidCredentials?: boolean;
  /** other: use the second principal's credentials. */
  as?: "main" | "other";
  /** Sent with this method instead when `method` finds no route (405, or a 404 that is no A2A error). */
  fallbackMethod?: "GET" | "POST";
  /** A projected scenario step (src/compliance/scenarios.ts): sent as this abstract call, rendered and encoded at run time. */
  operation?: AbstractCall;
}

export interface StreamExpect {
  first?: unknown;
  last?: unknown;
  each?: unknown;
  inOrder?: unknown[];
  exactly?: unknown[];
  counts?: { where: unknown; min?: number; max?: number }[];
  closes?: boolean;
  /** The client disconnects after this many events. */
  stopAfter?: number;
  /** JSON Pointers: per event the first present one gives a value; all events that have one give the same. */
  sameValue?: string[];
  /** JSON Pointers: per event the first present one gives a value (timestamps as instants); never goes backwards. */
  nonDecreasing?: string[];
  /** The stream ends after the first event matching this; at most `trailer` may follow it. */
  endsAfter?: unknown;
  trailer?: unknown;
  /** Captures the stream's events (each event's value at the JSON Pointer `at`, default the whole event) as a list. */
  capture?: { name: string; at?: string };
}

export interface CaseExpect {
  status?: unknown;
  headers?: Record<string, unknown>;
  body?: unknown;
  stream?: StreamExpect;
  acceptSingleEventStream?: boolean;
  /** gRPC steps: matched against WireResponse.grpc (default {"status": "OK"}). */
  grpc?: unknown;
  /** A projected scenario step: `body` is matched against the 1.0 view of the answer (src/compliance/projection.ts). */
  view?: Omit<AbstractCall, "params"> & { body?: unknown; stream?: StreamExpect };
  /**
   * Named forms of the whole answer, each an expectation of its own (status, headers, body
   * together): the answer must match one of them entirely, and the report names which. A status
   * and a body allowed by different forms (HTTP 200 with an error body) match none.
   */
  forms?: Record<string, CaseExpect>;
}

/** A step's condition on the captures of earlier steps: every key given must hold. */
export interface StepWhen {
  captured?: string;
  notCaptured?: string;
  capture?: string;
  matches?: unknown;
}

/** A step that rests on its own sentence: failures in it are reported at its level. */
export interface StepCitation {
  spec?: Citation[];
  level?: Level;
  /** Run the step only when this holds (else "not applicable", or the case skips per `otherwise`). */
  when?: StepWhen;
  otherwise?: { skip: string };
}

/** A step that runs even after an earlier step failed (or the case ended as SKIP); its failure does not change the verdict. */
export interface StepCleanup {
  cleanup?: boolean;
}

export interface CaseExchange extends StepCitation, StepCleanup {
  name?: string;
  request: CaseRequest;
  /** Re-send the request until the response body matches this (bounded by --task-timeout), then check `expect`. */
  repeatUntil?: unknown;
  expect: CaseExpect;
}

/** Waiting for the agent's webhook calls to the runner's receiver (push-notification delivery). */
export interface WebhookExpect {
  /** Wait (bounded by the stream timeout) until a delivery whose JSON body matches this arrives. */
  until: unknown;
  /** Every delivery received by then must match: method, a subset of headers, body. */
  each?: { method?: unknown; headers?: Record<string, unknown>; body?: unknown };
}

/** A check on values earlier steps captured (no request): the variable named by `capture` must match `matches`. */
export interface CaptureCheck {
  capture: string;
  matches: unknown;
}

/** One exchange, several sent at the same time, a wait for webhook deliveries, or a check of captured values. */
export type CaseStep =
  | CaseExchange
  | ({ name?: string; parallel: CaseExchange[] } & StepCitation & StepCleanup)
  | ({ name?: string; awaitWebhook: WebhookExpect } & StepCitation & StepCleanup)
  | ({ name?: string; check: CaptureCheck } & StepCitation & StepCleanup);

/** The exchanges of a step (none for a webhook wait or a check). */
export function exchangesOf(step: CaseStep): CaseExchange[] {
  if ("parallel" in step) return step.parallel;
  if ("awaitWebhook" in step || "check" in step) return [];
  return [step];
}

export interface Case {
  /** Path below the cases directory without .json, with forward slashes. */
  id: string;
  file: string;
  /** Set when the case is a projection of compliance/scenarios/<scenario>.yaml. */
  scenario?: string;
  /** Set when that scenario is a wire scenario: its steps are raw, spelled in the pair's own version and binding. */
  wire?: true;
  title: string;
  description?: string;
  requirements: string[];
  level: Level;
  /** The spec sentences the case rests on (compliance/README.md, Citations); every case has them (test/unit/compliance-citations.test.ts). */
  spec?: Citation[];
  version: Version;
  binding: Binding;
  capabilities: string[];
  /** Fixture behaviours needed; empty = any agent. */
  behaviours: Behaviour[];
  /** Some request is sent as a second principal (needs --other-header). */
  needsOtherPrincipal: boolean;
  /** The case registers or awaits webhooks (needs the runner's webhook receiver). */
  needsWebhook: boolean;
  /** Preconditions: the card (of the case's version) must match `card`; its captures seed the case's variables. */
  when?: { card?: unknown };
  steps: CaseStep[];
}

export const COMPLIANCE_DIR = packagePath("compliance");
export const CASES_DIR = join(COMPLIANCE_DIR, "cases");

export class CaseLoadError extends Error {
  constructor(readonly problems: string[]) {
    super(`${problems.length} problem(s) in compliance cases:\n  ${problems.join("\n  ")}`);
    this.name = "CaseLoadError";
  }
}

let schemaValidator: ValidateFunction | undefined;

function caseSchema(): ValidateFunction {
  if (!schemaValidator) {
    const schema = JSON.parse(readFileSync(join(COMPLIANCE_DIR, "case.schema.json"), "utf8")) as Record<string, unknown>;
    schemaValidator = new Ajv({ allErrors: true, strict: false, verbose: true }).compile(schema);
  }
  return schemaValidator;
}

function describeSchemaError(e: ErrorObject): string {
  const at = e.instancePath || "/";
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `${at}: required property "${String(p.missingProperty)}" is missing`;
    case "additionalProperties":
      return `${at}: unknown property "${String(p.additionalProperty)}"`;
    case "enum":
      return `${at}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "pattern":
      return `${at}: ${JSON.stringify(e.data)} does not match ${String(p.pattern)}`;
    case "not":
      return `${at}: properties that exclude each other are both set (body/rawBody or body/stream)`;
    default:
      return `${at}: ${e.message ?? e.keyword}`;
  }
}

/** Schema errors, least noisy first: `oneOf`/`const` branch errors are dropped when a more precise one exists. */
function schemaProblems(errors: ErrorObject[]): string[] {
  const precise = errors.filter((e) => !["oneOf", "const", "anyOf", "if"].includes(e.keyword));
  const chosen = precise.length ? precise : errors;
  return [...new Set(chosen.map(describeSchemaError))];
}

/** Walks expected values for operators and names a schema cannot check. */
export function checkMatchers(value: unknown, at: string, problems: string[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => checkMatchers(v, `${at}/${i}`, problems));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith("$")) {
      if (!(OPERATORS as readonly string[]).includes(k)) problems.push(`${at}: unknown operator "${k}" (known: ${OPERATORS.join(", ")})`);
      if (k === "$match" && !(MATCH_KINDS as readonly string[]).includes(v as string))
        problems.push(`${at}/$match: unknown kind ${JSON.stringify(v)} (known: ${MATCH_KINDS.join(", ")})`);
      if (k === "$valid" && (typeof v !== "string" || !resolveValidator(v)))
        problems.push(
          `${at}/$valid: no generated validator named ${JSON.stringify(v)} (use v1_0.<Message>, v0_3.<Definition> or v0_3.rest.<Message>)`,
        );
      if (k === "$capture" && typeof v !== "string") problems.push(`${at}/$capture: must be a variable name`);
      if (k === "$regex") {
        try {
          new RegExp(String(v));
        } catch (e) {
          problems.push(`${at}/$regex: ${(e as Error).message}`);
        }
      }
      if (k === "$oneOf" && !Array.isArray(v)) problems.push(`${at}/$oneOf: must be an array of alternatives`);
      if (k === "$variants" && !(isPlainObject(v) && Object.keys(v).length >= 2))
        problems.push(`${at}/$variants: must be an object of at least two named alternatives ({"1.0.0": a, "1.0.1": b})`);
      if (k === "$range" && !(Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === "number")))
        problems.push(`${at}/$range: must be [low, high]`);
      if (
        k === "$sorted" &&
        !(
          isPlainObject(v) &&
          typeof v.by === "string" &&
          (v.by === "" || v.by.startsWith("/")) &&
          (v.order === "asc" || v.order === "desc")
        )
      )
        problems.push(`${at}/$sorted: must be {"by": "<JSON Pointer>", "order": "asc" | "desc"}`);
      if (k === "$branch") checkBranch(v, `${at}/$branch`, problems);
      if (
        k === "$length" &&
        typeof v !== "number" &&
        !(isPlainObject(v) && Object.keys(v).every((x) => (x === "min" || x === "max") && typeof v[x] === "number"))
      )
        problems.push(`${at}/$length: must be a number or {"min": a, "max": b}`);
    }
    checkMatchers(v, `${at}/${k}`, problems);
  }
}

function checkBranch(v: unknown, at: string, problems: string[]): void {
  const alts = Array.isArray(v) ? v : [];
  const wellFormed = (a: unknown) =>
    isPlainObject(a) &&
    typeof a.name === "string" &&
    a.name !== "" &&
    "if" in a &&
    Object.keys(a).every((k) => ["name", "if", "then"].includes(k));
  if (!alts.length || !alts.every(wellFormed)) problems.push(`${at}: must be an array of {"name": "<name>", "if": m, "then"?: m}`);
  else if (new Set(alts.map((a: { name: string }) => a.name)).size < alts.length) problems.push(`${at}: branch names must differ`);
}

/** Names a matcher captures (`$capture` anywhere inside it; an expectation's `stream.capture`). */
function captureNames(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => captureNames(v, into));
  else if (isPlainObject(value))
    for (const [k, v] of Object.entries(value)) {
      if (k === "$capture" && typeof v === "string") into.add(v);
      if (k === "stream" && isPlainObject(v) && isPlainObject(v.capture) && typeof v.capture.name === "string") into.add(v.capture.name);
      captureNames(v, into);
    }
  return into;
}

/** Variables every case has without capturing them (src/compliance/message.ts, the webhook receiver). */
const RUN_VARIABLES = ["message", "followUp", "parts:message", "parts:followUp", "metadata:message", "webhookUrl"];

/** A step's `when` may only name variables that the card precondition or an earlier step can capture. */
export function checkStepConditions(raw: { when?: { card?: unknown }; steps: CaseStep[] }, problems: string[]): void {
  const known = captureNames(raw.when?.card, new Set(RUN_VARIABLES));
  raw.steps.forEach((s, i) => {
    for (const [key, name] of Object.entries(s.when ?? {}))
      if (key !== "matches" && !known.has(name as string))
        problems.push(
          `/steps/${i}/when/${key}: no earlier step captures "${String(name)}" (captured so far: ${[...known].slice(RUN_VARIABLES.length).join(", ") || "none"})`,
        );
    if (s.when?.matches !== undefined) checkMatchers(s.when.matches, `/steps/${i}/when/matches`, problems);
    if (s.otherwise && !s.when) problems.push(`/steps/${i}/otherwise: needs a when`);
    if ("check" in s) {
      if (!known.has(s.check.capture)) problems.push(`/steps/${i}/check/capture: no earlier step captures "${s.check.capture}"`);
      return;
    }
    captureNames("awaitWebhook" in s ? s.awaitWebhook : exchangesOf(s).map((x) => x.expect), known);
  });
}

/** A gRPC case sends only `rpc` requests, each naming a method of its version's A2AService; other cases none. */
function checkGrpcRequests(raw: { version: Version; binding: Binding; steps: CaseStep[] }, problems: string[]): void {
  raw.steps.forEach((s, i) =>
    exchangesOf(s).forEach((x, j) => {
      const at = "parallel" in s ? `/steps/${i}/parallel/${j}/request` : `/steps/${i}/request`;
      const rpc = x.request.rpc;
      if (raw.binding !== "grpc") {
        if (rpc !== undefined) problems.push(`${at}/rpc: only a gRPC case (binding "grpc") sends rpc requests`);
        return;
      }
      if (rpc === undefined) problems.push(`${at}: a gRPC case sends rpc requests (no method/path)`);
      else if (!grpcMethod(raw.version, rpc))
        problems.push(`${at}/rpc: the ${raw.version} A2AService has no method ${JSON.stringify(rpc)}`);
    }),
  );
}

/** gRPC requests get method POST and the path of their method (reports, pacing and the proxy read them). */
function withGrpcPaths(step: CaseStep, version: Version): CaseStep {
  const ex = (x: CaseExchange): CaseExchange => ({
    ...x,
    request: { ...x.request, method: "POST", path: grpcPath(grpcMethod(version, x.request.rpc!)!) },
    expect: withoutJsonSpelling(x.expect) as CaseExpect,
  });
  if ("parallel" in step) return { ...step, parallel: step.parallel.map(ex) };
  if ("awaitWebhook" in step || "check" in step) return step;
  return ex(step);
}

const VERSION_DIR: Record<Version, string> = { "1.0": "v1_0", "0.3": "v0_3" };

/**
 * A gRPC answer is binary protobuf: its member names and timestamp spellings are not on the wire,
 * and the JSON the runner writes from the decoded message is camelCase by construction. So a
 * `{"$match": "camelCaseKeys"}` in a gRPC case could only pass: it is dropped (what a received
 * message can get wrong, the runner judges: see src/compliance/strict.ts, decoded).
 */
function withoutJsonSpelling(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutJsonSpelling);
  if (!isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!(k === "$match" && x === "camelCaseKeys")) out[k] = withoutJsonSpelling(x);
  return out;
}

/** Validates one parsed case file; returns the case or the list of problems (each prefixed by the ID). */
export function parseCase(id: string, file: string, data: unknown): { case?: Case; problems: string[] } {
  const validate = caseSchema();
  if (!validate(data)) return { problems: schemaProblems(validate.errors ?? []).map((p) => `${id}: ${p}`) };
  const raw = data as Omit<Case, "id" | "file" | "behaviours" | "capabilities"> & { agent: string | string[]; capabilities?: string[] };
  const problems: string[] = [];
  if (raw.when?.card !== undefined) checkMatchers(raw.when.card, "/when/card", problems);
  raw.steps.forEach((s, i) => {
    if ("parallel" in s)
      s.parallel.forEach((x, j) => {
        checkMatchers(x.expect, `/steps/${i}/parallel/${j}/expect`, problems);
        if (x.repeatUntil !== undefined) checkMatchers(x.repeatUntil, `/steps/${i}/parallel/${j}/repeatUntil`, problems);
        if (x.spec || x.level || x.when || x.otherwise)
          problems.push(
            `/steps/${i}/parallel/${j}: spec, level, when and otherwise belong to the parallel step, not to one of its exchanges`,
          );
        if (x.cleanup) problems.push(`/steps/${i}/parallel/${j}: cleanup belongs to the parallel step, not to one of its exchanges`);
      });
    else if ("awaitWebhook" in s) checkMatchers(s.awaitWebhook, `/steps/${i}/awaitWebhook`, problems);
    else if ("check" in s) checkMatchers(s.check.matches, `/steps/${i}/check/matches`, problems);
    else {
      checkMatchers(s.expect, `/steps/${i}/expect`, problems);
      if (s.repeatUntil !== undefined) checkMatchers(s.repeatUntil, `/steps/${i}/repeatUntil`, problems);
      if (s.repeatUntil !== undefined && s.expect.stream)
        problems.push(`/steps/${i}/repeatUntil: matches a JSON body; a stream step cannot repeat (it is bounded by --stream-timeout)`);
    }
  });
  checkStepConditions(raw, problems);
  checkGrpcRequests(raw, problems);
  const [vdir, bdir] = id.split("/");
  if (vdir !== VERSION_DIR[raw.version])
    problems.push(`/version: "${raw.version}" but the case lives under ${vdir}/ (expected ${VERSION_DIR[raw.version]}/)`);
  if (raw.binding !== "any" && bdir !== raw.binding) problems.push(`/binding: "${raw.binding}" but the case lives under ${vdir}/${bdir}/`);
  if (raw.binding === "any" && (bdir === "json-rpc" || bdir === "rest" || bdir === "grpc"))
    problems.push(`/binding: "any" but the case lives under a binding folder ${bdir}/`);
  if (problems.length) return { problems: problems.map((p) => `${id}: ${p}`) };
  const agent = Array.isArray(raw.agent) ? raw.agent : [raw.agent];
  return {
    problems: [],
    case: {
      id,
      file,
      title: raw.title,
      description: raw.description,
      requirements: raw.requirements,
      level: raw.level,
      ...(raw.spec ? { spec: raw.binding === "grpc" ? raw.spec.filter((c) => !jsonSpellingRule(c)) : raw.spec } : {}),
      version: raw.version,
      binding: raw.binding,
      capabilities: raw.capabilities ?? [],
      behaviours: agent.filter((a) => a !== "any").map((a) => a.slice("fixture:".length) as Behaviour),
      needsOtherPrincipal: raw.steps.some((st) => exchangesOf(st).some((x) => x.request.as === "other")),
      needsWebhook: raw.steps.some((st) => "awaitWebhook" in st) || JSON.stringify(raw.steps).includes("{{webhookUrl}}"),
      ...(raw.when ? { when: raw.when } : {}),
      steps:
        raw.version === "1.0" && raw.binding === "rest"
          ? raw.steps.map(withRestErrorShapes)
          : raw.binding === "grpc"
            ? raw.steps.map((st) => withGrpcPaths(st, raw.version))
            : raw.steps,
    },
  };
}

// 1.0 HTTP+JSON error bodies: 1.0.1 §11.6 says "HTTP error responses use the google.rpc.Status JSON
// representation" (code, message, details; no wrapper, no status name), while its example and 1.0.0
// §11.6 (AIP-193) show {"error": {"code", "status", "message", "details"}}. A prose/example conflict,
// so an expected `{"error": {...}}` body accepts either shape and the report names the one the agent
// uses; the status name, shown only in the example and AIP-193, must be right when present.
const AIP_193 = "AIP-193 error object (1.0.0 §11.6, 1.0.1 §11.6 example)";
const RPC_STATUS = "google.rpc.Status (1.0.1 §11.6 prose)";

function errorShapes(body: Record<string, unknown>, prefix = ""): [string, unknown][] | undefined {
  const { error, ...rest } = body;
  if (!isPlainObject(error) || Object.keys(error).some((k) => k.startsWith("$"))) return undefined;
  const { status, ...statusless } = error;
  const wrapped = status === undefined ? error : { ...statusless, status: { $optional: status } };
  return [
    [prefix + AIP_193, { ...rest, error: wrapped }],
    [prefix + RPC_STATUS, { ...rest, ...statusless, error: { $match: "absent" } }],
  ];
}

/** An expected body with both error shapes as `$variants` (alternatives of an existing `$variants` split in two). */
export function restErrorShapes(body: unknown): unknown {
  if (!isPlainObject(body)) return body;
  if (isPlainObject(body.$variants)) {
    const alts = Object.entries(body.$variants).flatMap(
      ([name, alt]): [string, unknown][] => (isPlainObject(alt) && errorShapes(alt, `${name}, `)) || [[name, alt]],
    );
    return { ...body, $variants: Object.fromEntries(alts) };
  }
  const shapes = errorShapes(body);
  return shapes ? { $variants: Object.fromEntries(shapes) } : body;
}

function withRestErrorShapes(step: CaseStep): CaseStep {
  const ex = (x: CaseExchange): CaseExchange =>
    x.expect.body === undefined ? x : { ...x, expect: { ...x.expect, body: restErrorShapes(x.expect.body) } };
  if ("parallel" in step) return { ...step, parallel: step.parallel.map(ex) };
  if ("awaitWebhook" in step || "check" in step) return step;
  return ex(step);
}

function listJson(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listJson(full));
    else if (name.endsWith(".json") && !name.endsWith(".schema.json")) out.push(full);
  }
  return out;
}

/**
 * Every *.json file below `dir` (schemas excepted), in path order, as `{id, file, data}` (its ID
 * is its path without `.json`) or, for a file that is not JSON, `{id, problem}`. Used for server
 * and client cases.
 */
export function readCaseFiles(dir: string): ({ id: string; file: string; data: unknown } | { id: string; problem: string })[] {
  return listJson(dir).map((file) => {
    const id = relative(dir, file)
      .split(sep)
      .join("/")
      .replace(/\.json$/, "");
    try {
      return { id, file, data: JSON.parse(readFileSync(file, "utf8")) as unknown };
    } catch (e) {
      return { id, problem: `${id}: not valid JSON: ${(e as Error).message}` };
    }
  });
}

/**
 * Loads and validates every case below `dir`; throws CaseLoadError listing every problem. The
 * built-in set (`dir` = CASES_DIR) also holds the projections of compliance/scenarios/, in ID order.
 * The built-in set is kept between calls while no file below compliance/cases/ or
 * compliance/scenarios/ changes (name, size, mtime): parsing and checking it takes 0.5–1.3 s, once
 * per runSuite, and a test file runs the suite up to 30 times. Each call gets its own copy.
 */
export function loadCases(dir: string = CASES_DIR): Case[] {
  if (resolve(dir) !== resolve(CASES_DIR)) return readCases(dir);
  const stamp = treeStamp([CASES_DIR, SCENARIOS_DIR]);
  if (builtIn?.stamp !== stamp) builtIn = { stamp, cases: readCases(dir) };
  return structuredClone(builtIn.cases);
}

let builtIn: { stamp: string; cases: Case[] } | undefined;

/** Every file below `dirs` with its size and mtime, as one string: it changes when any file does. */
function treeStamp(dirs: string[]): string {
  const parts: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else {
        const st = statSync(path);
        parts.push(`${path}:${st.size}:${st.mtimeMs}`);
      }
    }
  };
  for (const d of dirs) walk(d);
  return parts.join("\n");
}

function readCases(dir: string): Case[] {
  const problems: string[] = [];
  const cases: Case[] = [];
  for (const entry of readCaseFiles(dir)) {
    if ("problem" in entry) {
      problems.push(entry.problem);
      continue;
    }
    const r = parseCase(entry.id, entry.file, entry.data);
    problems.push(...r.problems);
    if (r.case) cases.push(r.case);
  }
  if (problems.length) throw new CaseLoadError(problems);
  if (resolve(dir) !== resolve(CASES_DIR)) return cases;
  const projected = loadScenarioCases();
  const twice = writtenTwice(cases, projected);
  if (twice.length) throw new CaseLoadError(twice);
  return [...cases, ...projected].sort((a, b) => pathOrder(a.id, b.id));
}

/** A scenario exists once: a case file of its name for any version or binding is a second copy (one problem each). */
export function writtenTwice(files: Pick<Case, "id">[], projected: Pick<Case, "scenario">[]): string[] {
  const scenarios = new Set(projected.map((c) => c.scenario));
  return files
    .map((c) => [c.id, c.id.split("/").slice(2).join("/")] as const)
    .filter(([, name]) => scenarios.has(name))
    .map(([id, name]) => `${id}: also written as the scenario compliance/scenarios/${name}.yaml; delete one`);
}

/** The order of readCaseFiles (each directory's entries sorted by name), over IDs. */
function pathOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const [p, q] = [i === x.length - 1 ? `${x[i]}.json` : x[i]!, i === y.length - 1 ? `${y[i]}.json` : y[i]!];
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * Cases of extra directories (`a2a-toolkit test --cases <dir>`, SuiteOptions.extraCasesDirs), such
 * as `a2a-toolkit record` output: loaded and validated like the built-in ones, each ID put in the
 * namespace of its directory, `<dir name>:<path>` (`recorded:v1_0/json-rpc/recorded/001-sendmessage`;
 * a second directory of the same name gets `<name>~2:`), so it cannot collide with a built-in ID,
 * which never contains ":". They are user data: `spec` citations are optional there (the citation
 * test covers compliance/cases/ only). Problems name the directory.
 */
export function loadExtraCases(dirs: string[]): Case[] {
  const problems: string[] = [];
  const cases: Case[] = [];
  const used = new Map<string, number>();
  for (const dir of dirs) {
    const name = basename(resolve(dir)).replace(/:/g, "_") || "cases";
    const n = (used.get(name) ?? 0) + 1;
    used.set(name, n);
    const ns = n === 1 ? name : `${name}~${n}`;
    let loaded: Case[];
    try {
      if (!statSync(dir).isDirectory()) throw new Error("not a directory");
      // Case files (*.json) and scenarios (<folder>/<name>.yaml, such as `record` writes) alike.
      loaded = [...loadCases(dir), ...loadScenarioCases(dir)];
    } catch (e) {
      if (e instanceof CaseLoadError || e instanceof ScenarioLoadError) problems.push(...e.problems.map((p) => `${dir}: ${p}`));
      else problems.push(`${dir}: cannot read the cases directory: ${(e as Error).message}`);
      continue;
    }
    if (!loaded.length)
      problems.push(`${dir}: no case files (*.json below <v1_0|v0_3>/<binding>/) and no scenarios (<folder>/<name>.yaml)`);
    cases.push(...loaded.map((c) => ({ ...c, id: `${ns}:${c.id}` })));
  }
  if (problems.length) throw new CaseLoadError(problems);
  return cases;
}

/** A `--case` glob that matches no case of the suite (a usage error: exit code 2). */
export class CaseSelectionError extends Error {
  /** `example`: a case ID of the suite searched, shown as the shape IDs have. */
  constructor(
    readonly globs: string[],
    example?: string,
  ) {
    super(
      `${globs.map((g) => `--case "${g}"`).join(", ")} matches no case ID (${example ? `IDs look like ${example}; ` : ""}* stays within one path segment, ** crosses them; --list shows them)`,
    );
    this.name = "CaseSelectionError";
  }
}

/** Throws CaseSelectionError naming each glob that matches none of the IDs. */
export function assertGlobsMatch(ids: string[], globs: string[] | undefined): void {
  const unmatched = (globs ?? []).filter((g) => {
    const re = globToRegExp(g);
    return !ids.some((id) => re.test(id));
  });
  if (unmatched.length) {
    // An ID of this suite as the example: one that shares the glob's first segment when there is one.
    const first = unmatched[0]!.split("/")[0] ?? "";
    throw new CaseSelectionError(unmatched, ids.find((id) => id.startsWith(`${first}/`)) ?? ids[0]);
  }
}

/** Glob over case IDs: `*` within a segment, `**` across segments, `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i);
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        // "**/" is zero or more whole segments
        re += "(?:.*/)?";
        i++;
      } else re += ".*";
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}(\\.json)?$`);
}
