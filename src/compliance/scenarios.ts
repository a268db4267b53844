// Scenarios: a server case written once (compliance/scenarios/<operation>/<scenario>.yaml, an ACTS
// document of one suite and one test, our extras under `x-a2a-toolkit`) and projected onto every
// (version, binding) it applies to. Each projection is an ordinary Case whose ID is the one the
// hand-projected copies had (`v1_0/json-rpc/get-task/returns-completed-task`), so --case globs,
// known-failing lists and reports see no difference. A step is an ACTS abstract operation (§4.1)
// with 1.0 ProtoJSON params; its `expect.body` (our matchers) is matched against the 1.0 view of
// the answer (§4.2; src/compliance/projection.ts), its `expect_error` and the envelope of every
// answer against the binding's wire rules (src/compliance/wire-rules.ts).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parse } from "yaml";
import { packagePath } from "../runtime/package-root.js";
import { jsonSpellingRule, type Citation } from "./citations.js";
import {
  checkMatchers,
  checkStepConditions,
  parseCase,
  restErrorShapes,
  type Behaviour,
  type Case,
  type CaseExchange,
  type CaseExpect,
  type CaseStep,
  type Level,
  type StepWhen,
  type StreamExpect,
  type Version,
} from "./cases.js";
import { grpcMethod, grpcPath } from "./grpc.js";
import { anyError } from "./scenario-outcomes.js";
import { projectCall, type AbstractCall, type Operation, type WireBinding } from "./projection.js";
import { withStepHeaders, withStepWire, wireCheckProblems, type ScopedWireChecks } from "./step-wire.js";
import { isErrorName, WIRE_RULES, type ErrorCheck, type WireRule } from "./wire-rules.js";

// Found from the package root, as the case files are: in a checkout and in dist/ alike.
export const SCENARIOS_DIR = packagePath("compliance", "scenarios");

/** ACTS §4.1 abstract operations → the 1.0 operation each stands for. */
export const ABSTRACT_OPERATIONS: Readonly<Record<string, Operation>> = {
  send_message: "SendMessage",
  send_streaming_message: "SendStreamingMessage",
  get_task: "GetTask",
  list_tasks: "ListTasks",
  cancel_task: "CancelTask",
  subscribe_to_task: "SubscribeToTask",
  get_extended_agent_card: "GetExtendedAgentCard",
  create_push_config: "CreateTaskPushNotificationConfig",
  get_push_config: "GetTaskPushNotificationConfig",
  list_push_configs: "ListTaskPushNotificationConfigs",
  delete_push_config: "DeleteTaskPushNotificationConfig",
};

const STREAMING = new Set(["send_streaming_message", "subscribe_to_task"]);
const VERSIONS: Version[] = ["1.0", "0.3"];
const WIRE_BINDINGS: WireBinding[] = ["json-rpc", "rest", "grpc"];
const VERSION_DIR: Record<Version, string> = { "1.0": "v1_0", "0.3": "v0_3" };
const BINDING_TITLE: Record<WireBinding, string> = { "json-rpc": "JSON-RPC", rest: "HTTP+JSON", grpc: "gRPC" };
const EXTRA = "x-a2a-toolkit";

/** Per version, or per "<version>/<binding>" for what only one binding adds. */
type Scoped<T> = Partial<Record<string, T[]>>;

/** A step's extras: our step conditions, its own level and sentences, the pairs it applies to. */
interface StepExtras {
  when?: StepWhen;
  otherwise?: { skip: string };
  level?: Level;
  spec?: Citation[];
  cleanup?: boolean;
  /**
   * A step that takes whatever the agent answers (no wire rule, no view): `expect: {}`; a clean-up
   * step, or one whose `status` alone is judged (and captured to branch on: `{$capture: name, ...}`).
   */
  anyAnswer?: boolean;
  repeatUntil?: unknown;
  /** The versions or "<version>/<binding>" pairs the step is projected onto (default: all of the scenario's). */
  only?: string[];
  /** A stream step's expectations ACTS §7 has no key for, on the events' 1.0 view (StreamExpect of cases.ts). */
  stream?: Omit<StreamExpect, "last" | "each">;
  /** The HTTP status of a successful answer, where a recording keeps it (`record --exact`). */
  status?: unknown;
  /** Sent without the runner's credentials, with invalid ones of the card's schemes, or as the second principal. */
  withoutCredentials?: boolean;
  invalidCredentials?: boolean;
  as?: "main" | "other";
  /**
   * `true` with `expect: {}`: a step the agent must refuse with an error of its choice (the pair's
   * rule.refused). "authentication" with `expect_error: {}`: the error is no A2A error type but a
   * refusal of the request's credentials (1.0.1 §3.3.2 "Authentication Errors"), checked by the
   * pair's `unauthenticated` rule. "error" with `expect_error: {}`: an error of the agent's choice in
   * the pair's full error shape (src/compliance/scenario-outcomes.ts anyError).
   */
  refused?: true | "authentication" | "error";
  /**
   * More outcomes the step accepts, each an ACTS §6.2 error type (src/versioning/errors.ts): with
   * `expect_error`, the answer is any of these errors or error_type (each binding's form of it, check
   * by check); with `expect`, the answer is the expected result or one of these errors ("any": an
   * error of the agent's choice, as `refused: true`; "error": one in the pair's error shape, as
   * `refused: error`), judged by the error's first check only.
   */
  orErrors?: string[];
  /**
   * The JSON-RPC id the request carries and the reply must echo, in place of the step's string `id`
   * (a number, say); only the JSON-RPC pairs send one.
   */
  rpcId?: string | number;
  /** Request headers over the pair rule's (a value replaces the rule's, null leaves it out): src/compliance/step-wire.ts. */
  headers?: Record<string, string | null>;
  /** Per scope ("*", version, pair): matchers on the undecoded answer merged into the rule's (step-wire.ts). */
  onWire?: ScopedWireChecks;
  /** A wire scenario's raw step: the request members ACTS §4.4 has no key for (rpc, rawBody, as, ...). */
  request?: Record<string, unknown>;
  /** A wire scenario's raw step: its expectation in our matchers (CaseExpect of cases.ts), on the wire. */
  expect?: unknown;
}

interface ScenarioStep {
  id: string;
  description?: string;
  operation: string;
  /** ACTS §4.4 raw step (wire scenarios only): method, path, headers and body, sent as they are. */
  raw?: Record<string, unknown>;
  params?: unknown;
  expect?: { body?: unknown; [k: string]: unknown };
  expect_error?: { error_type?: string };
  /** ACTS §7 on the events' 1.0 view: final_event (the last event), each_event (every event), our matchers. */
  expect_stream?: { final_event?: unknown; each_event?: unknown; min_count?: number; max_count?: number };
  [EXTRA]?: StepExtras;
}

interface ScenarioExtras {
  /**
   * The level on one version, or one "<version>/<binding>" pair, where it differs from the test's
   * (0.3's text is often weaker); the pair's key wins over its version's.
   */
  levels?: Partial<Record<string, "must" | "should" | "may">>;
  /**
   * Per version, or per "<version>/<binding>" (which wins over its version's): what the card must
   * declare for the case to apply (Case.when.card); its captures seed the steps.
   */
  card?: Partial<Record<string, unknown>>;
  agent?: string | string[];
  versions?: Version[];
  bindings?: WireBinding[];
  capabilities?: string[];
  requirements: Scoped<string>;
  spec: Scoped<Citation>;
  /** One text, or per version and "<version>/<binding>" (the pair's text follows its version's, as with `spec`). */
  description?: string | Partial<Record<string, string>>;
  /**
   * A wire scenario: every step is a raw step (ACTS §4.4) or a whole case step, scoped to the pairs
   * it is sent on by `only`; each pair's case is `case` with `per[pair]` over it (title, level,
   * requirements, spec, agent, when, ...), checked by cases.ts's parseCase as a case file is.
   */
  wire?: { pairs: string[]; case: Record<string, unknown>; per?: Record<string, Record<string, unknown>> };
}

interface ScenarioTest {
  id: string;
  name: string;
  level: "must" | "should" | "may";
  steps: ScenarioStep[];
  [EXTRA]: ScenarioExtras;
}

/** A scenario as loaded: where it lives, its operation folder and name, the test. */
export interface Scenario {
  file: string;
  /** `<operation>/<scenario>`: the tail of every projected ID. */
  name: string;
  test: ScenarioTest;
}

export class ScenarioLoadError extends Error {
  constructor(readonly problems: string[]) {
    super(`${problems.length} problem(s) in compliance scenarios:\n  ${problems.join("\n  ")}`);
    this.name = "ScenarioLoadError";
  }
}

function listYaml(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listYaml(full));
    else if (name.endsWith(".yaml")) out.push(full);
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The frame every scenario file shares (server and client): `<folder>/<base>.yaml` holding an ACTS
 * document of one suite, named after the folder, of one test; the test, or the file's problems.
 */
export function readActsFile(dir: string, file: string): { name: string; base: string; test?: unknown; problems: string[] } {
  const name = relative(dir, file)
    .split(sep)
    .join("/")
    .replace(/\.yaml$/, "");
  const [folder, base = "", ...rest] = name.split("/");
  const fail = (p: string) => ({ name, base, problems: [`${name}: ${p}`] });
  if (!folder || !base || rest.length) return fail("a scenario lives at <operation>/<scenario>.yaml");
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, "utf8"));
  } catch (e) {
    return fail(`not valid YAML: ${(e as Error).message}`);
  }
  const suite = isObject(doc) && Array.isArray(doc.suites) && doc.suites.length === 1 ? (doc.suites[0] as unknown) : undefined;
  if (!isObject(doc) || doc.acts_version === undefined || !isObject(suite) || !Array.isArray(suite.tests) || suite.tests.length !== 1)
    return fail("must be an ACTS document (acts_version, spec_version) with one suite of one test");
  const problems =
    suite.id === folder ? [] : [`${name}: /suites/0/id: ${JSON.stringify(suite.id)} but the scenario lives under ${folder}/`];
  return { name, base, test: suite.tests[0], problems };
}

/** Reads one scenario file: an ACTS document with one suite named after the folder and one test named after the file. */
export function readScenario(dir: string, file: string): { scenario?: Scenario; problems: string[] } {
  const frame = readActsFile(dir, file);
  if (frame.test === undefined) return { problems: frame.problems };
  const { name, base } = frame;
  const problems: string[] = frame.problems.map((p) => p.slice(name.length + 2));
  const test = frame.test as ScenarioTest;
  const at = "/suites/0/tests/0";
  if (test.id !== base) problems.push(`${at}/id: ${JSON.stringify(test.id)} but the file is ${base}.yaml`);
  if (typeof test.name !== "string" || !test.name) problems.push(`${at}/name: required`);
  if (!["must", "should", "may"].includes(test.level)) problems.push(`${at}/level: must be must, should or may`);
  const extras = test[EXTRA];
  if (isObject(extras) && extras.wire !== undefined) problems.push(...wireProblems(test, at));
  else if (!isObject(extras) || !isObject(extras.requirements) || !isObject(extras.spec))
    problems.push(`${at}/${EXTRA}: needs requirements and spec (per version)`);
  if (!Array.isArray(test.steps) || !test.steps.length) problems.push(`${at}/steps: at least one step`);
  else if (isObject(extras) && extras.wire !== undefined) {
    /* checked per pair by parseCase */
  } else
    test.steps.forEach((s, i) => {
      const sat = `${at}/steps/${i}`;
      if (!(s.operation in ABSTRACT_OPERATIONS))
        problems.push(`${sat}/operation: ${JSON.stringify(s.operation)} is no ACTS §4.1 operation this runner projects`);
      const expects = [s.expect, s.expect_error, s.expect_stream].filter((e) => e !== undefined).length;
      if (expects !== 1) problems.push(`${sat}: exactly one of expect, expect_error and expect_stream`);
      const streaming = STREAMING.has(s.operation);
      if (s.expect_stream !== undefined && !streaming) problems.push(`${sat}/expect_stream: ${s.operation} answers no stream`);
      if (s.expect !== undefined && streaming) problems.push(`${sat}/expect: ${s.operation} answers a stream (expect_stream)`);
      for (const [k, m] of Object.entries({ ...s.expect_stream, ...s[EXTRA]?.stream }))
        if (!["closes", "stopAfter", "sameValue", "nonDecreasing"].includes(k)) checkMatchers(m, `${sat}/stream/${k}`, problems);
      const refused = s[EXTRA]?.refused;
      const errorOfChoice = refused === "authentication" || refused === "error";
      if (refused !== undefined && !errorOfChoice && refused !== true)
        problems.push(`${sat}/${EXTRA}/refused: true, "error" or "authentication"`);
      else if (refused === true && s.expect === undefined) problems.push(`${sat}/${EXTRA}/refused: true goes with expect: {}`);
      else if (errorOfChoice && (!s.expect_error || s.expect_error.error_type !== undefined))
        problems.push(`${sat}/${EXTRA}/refused: goes with expect_error: {} (no error_type)`);
      else if (s.expect_error && !errorOfChoice && !isErrorName(s.expect_error.error_type ?? ""))
        problems.push(`${sat}/expect_error/error_type: unknown error ${JSON.stringify(s.expect_error.error_type)}`);
      if (s.expect?.body !== undefined) checkMatchers(s.expect.body, `${sat}/expect/body`, problems);
      const x = s[EXTRA];
      if (x?.onWire !== undefined) {
        const wp = wireCheckProblems(x.onWire, `${sat}/${EXTRA}/onWire`);
        problems.push(...wp);
        if (!wp.length) for (const [k, c] of Object.entries(x.onWire)) checkMatchers(c, `${sat}/${EXTRA}/onWire/${k}`, problems);
        if (x.anyAnswer) problems.push(`${sat}/${EXTRA}/onWire: a step that takes any answer checks no wire`);
      }
      if (x?.headers !== undefined && (!isObject(x.headers) || Object.values(x.headers).some((v) => v !== null && typeof v !== "string")))
        problems.push(`${sat}/${EXTRA}/headers: header names to strings (null: left out)`);
      if (x?.anyAnswer && ((!x.cleanup && x.status === undefined) || s.expect?.body !== undefined))
        problems.push(`${sat}/${EXTRA}/anyAnswer: a clean-up step, or one that judges only its status, with no expected body`);
      if (x?.status !== undefined) checkMatchers(x.status, `${sat}/${EXTRA}/status`, problems);
      if (x?.refused && s.expect?.body !== undefined) problems.push(`${sat}/${EXTRA}/refused: a refused step expects no body`);
      if (x?.rpcId !== undefined && !(typeof x.rpcId === "string" ? x.rpcId : Number.isSafeInteger(x.rpcId)))
        problems.push(`${sat}/${EXTRA}/rpcId: a non-empty string or an integer (a JSON-RPC request id)`);
      if (x?.repeatUntil !== undefined) checkMatchers(x.repeatUntil, `${sat}/${EXTRA}/repeatUntil`, problems);
      if (x?.orErrors !== undefined && (s.expect_stream || x.refused || x.anyAnswer || !Array.isArray(x.orErrors)))
        problems.push(`${sat}/${EXTRA}/orErrors: a list, beside expect (no refused, anyAnswer) or expect_error with an error_type`);
      for (const t of Array.isArray(x?.orErrors) ? x.orErrors : [])
        if (!isErrorName(t) && !((t === "any" || t === "error") && s.expect !== undefined))
          problems.push(`${sat}/${EXTRA}/orErrors: unknown error ${JSON.stringify(t)} ("any" and "error" only beside expect)`);
    });
  for (const [v, card] of Object.entries(isObject(extras) && isObject(extras.card) ? extras.card : {}))
    checkMatchers(card, `${at}/${EXTRA}/card/${v}`, problems);
  if (problems.length) return { problems: problems.map((p) => `${name}: ${p}`) };
  return { scenario: { file, name, test }, problems: [] };
}

const PAIR_NAMES = VERSIONS.flatMap((v) => WIRE_BINDINGS.map((b) => `${v}/${b}`));

/** The shape of a wire scenario's extras and steps (what each pair's case says, parseCase checks). */
function wireProblems(test: ScenarioTest, at: string): string[] {
  const w = test[EXTRA].wire;
  const out: string[] = [];
  if (!isObject(w) || !Array.isArray(w.pairs) || !w.pairs.length || !isObject(w.case)) return [`${at}/${EXTRA}/wire: needs pairs and case`];
  for (const p of w.pairs) if (!PAIR_NAMES.includes(p)) out.push(`${at}/${EXTRA}/wire/pairs: unknown pair ${JSON.stringify(p)}`);
  for (const p of Object.keys(w.per ?? {})) if (!w.pairs.includes(p)) out.push(`${at}/${EXTRA}/wire/per: ${p} is not in pairs`);
  (Array.isArray(test.steps) ? test.steps : []).forEach((st, i) => {
    if (!isObject(st.raw) || st[EXTRA]?.expect === undefined)
      out.push(`${at}/steps/${i}: a wire scenario's step is an ACTS §4.4 raw step with ${EXTRA}.expect`);
    for (const p of st[EXTRA]?.only ?? []) if (!w.pairs.includes(p)) out.push(`${at}/steps/${i}/${EXTRA}/only: ${p} is not in pairs`);
  });
  return out;
}

/** A wire scenario's case on one pair, as the case file it replaced held it, checked by parseCase. */
function wireCase(s: Scenario, version: Version, binding: WireBinding): { case?: Case; problems: string[] } {
  const w = s.test[EXTRA].wire!;
  const pair = `${version}/${binding}`;
  const steps = s.test.steps
    .filter((st) => !st[EXTRA]?.only || st[EXTRA].only.includes(pair))
    .map((st) => {
      const { only: _only, request, expect, ...rest } = st[EXTRA] ?? {};
      return { ...(st.description !== undefined ? { name: st.description } : {}), request: { ...st.raw, ...request }, expect, ...rest };
    });
  const data = {
    title: `${version} ${BINDING_TITLE[binding]}: ${s.test.name}`,
    ...w.case,
    ...w.per?.[pair],
    version,
    binding,
    steps,
  };
  const r = parseCase(`${VERSION_DIR[version]}/${binding}/${s.name}`, s.file, data);
  return r.case
    ? { case: { ...r.case, scenario: s.name, wire: true }, problems: [] }
    : { problems: r.problems.map((p) => `${p} (${s.name}.yaml)`) };
}

/** The (version, binding) pairs a scenario is projected onto. */
export function pairsOf(s: Scenario): [Version, WireBinding][] {
  const x = s.test[EXTRA];
  if (x.wire) return x.wire.pairs.map((p) => p.split("/") as [Version, WireBinding]);
  return (x.versions ?? VERSIONS).flatMap((v) => (x.bindings ?? WIRE_BINDINGS).map((b): [Version, WireBinding] => [v, b]));
}

const scoped = <T>(s: Scoped<T>, version: Version, binding: WireBinding): T[] => [
  ...(s[version] ?? []),
  ...(s[`${version}/${binding}`] ?? []),
];

function dedupCitations(cs: Citation[]): Citation[] {
  const seen = new Set<string>();
  return cs.filter((c) => {
    const k = `${c.version}|${c.section}|${c.quote}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The methods 0.3's gRPC service names otherwise than the 1.0 operation (generated/v0_3/methods.ts). */
const GRPC_0_3_NAMES: Partial<Record<Operation, string>> = {
  SubscribeToTask: "TaskSubscription",
  ListTaskPushNotificationConfigs: "ListTaskPushNotificationConfig",
  GetExtendedAgentCard: "GetAgentCard",
};

/** A placeholder value for each template, so a request can be projected before the run (pacing, listings). */
function placeholders(v: unknown): unknown {
  if (v === "{{parts:message}}" || v === "{{parts:followUp}}") return [{ text: "x" }];
  if (typeof v === "string") return v.replace(/\{\{[^}]*\}\}/g, "x");
  if (Array.isArray(v)) return v.map(placeholders);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, placeholders(x)]));
  return v;
}

/** One expectation of named whole-answer forms (gRPC: any status, which each form then judges). */
function withForms(binding: WireBinding, forms: Record<string, CaseExpect>): CaseExpect {
  return { ...(binding === "grpc" ? { grpc: { $match: "any" } } : {}), forms };
}

/**
 * The checks of an error step that accepts any of `types` (`expect_error.error_type` and the step's
 * `orErrors`): the rule's checks of each, as `at` judges them, check by check (every type has as many
 * on one pair), the answer matching one type's form of each; one type is its own checks.
 */
function errorChecks(
  rule: WireRule,
  binding: WireBinding,
  types: string[],
  rpcId: string | number,
  at: (e: CaseExpect) => CaseExpect,
): ErrorCheck[] {
  const per = types.map((t) => rule.error(t, rpcId));
  return per[0]!.map((first, i) => {
    const forms = Object.fromEntries(types.map((t, k) => [t, at(per[k]![i]!.expect)]));
    // Where the pair writes every type alike (0.3 HTTP+JSON: any client error), one expectation.
    const alike = Object.values(forms).every((f) => JSON.stringify(f) === JSON.stringify(forms[types[0]!]));
    return { ...first, expect: alike ? forms[types[0]!]! : withForms(binding, forms) };
  });
}

/** A streaming step's expectation on the events' views: x-a2a-toolkit.stream, with ACTS's counts. */
function projectStep(step: ScenarioStep, version: Version, binding: WireBinding): CaseExchange[] {
  const op = ABSTRACT_OPERATIONS[step.operation]!;
  const rule = WIRE_RULES[version][binding];
  const x = step[EXTRA] ?? {};
  const rpcId = x.rpcId ?? step.id;
  const call: AbstractCall = { operation: op, params: step.params ?? {}, version, binding, rpcId };
  let shape: ReturnType<typeof projectCall>;
  try {
    shape = projectCall({ ...call, params: placeholders(call.params) });
  } catch {
    shape = { method: "POST", path: "" };
  }
  const rpc = version === "0.3" ? (GRPC_0_3_NAMES[op] ?? op) : op;
  const grpc = binding === "grpc" ? grpcMethod(version, rpc) : undefined;
  const request = {
    method: shape.method,
    path: grpc ? grpcPath(grpc) : shape.path,
    headers: withStepHeaders(rule.headers(shape.body !== undefined && binding === "rest"), x.headers),
    ...(grpc ? { rpc } : {}),
    ...(shape.body !== undefined ? { body: shape.body } : {}),
    ...(shape.fallbackMethod ? { fallbackMethod: shape.fallbackMethod } : {}),
    ...(x.withoutCredentials ? { withoutCredentials: true } : {}),
    ...(x.invalidCredentials ? { invalidCredentials: true } : {}),
    ...(x.as ? { as: x.as } : {}),
    operation: call,
  };
  const name = step.description ?? step.id;
  const common = {
    ...(x.when ? { when: x.when } : {}),
    ...(x.cleanup ? { cleanup: true } : {}),
  };
  // An error check's expectation as this pair judges it: 1.0 HTTP+JSON's two §11.6 shapes; a
  // streaming operation may answer its error as the one event of a stream.
  const errorExpect = (e: CaseExpect): CaseExpect => {
    const body = version === "1.0" && binding === "rest" ? restErrorShapes(e.body) : e.body;
    const single = STREAMING.has(step.operation) && binding !== "grpc" ? { acceptSingleEventStream: true } : {};
    return { ...e, ...(body !== undefined ? { body } : {}), ...single };
  };
  if (step.expect_error) {
    const types = [step.expect_error.error_type!, ...(x.orErrors ?? [])];
    const checks =
      x.refused === "authentication"
        ? rule.unauthenticated(rpcId)
        : x.refused === "error"
          ? [{ expect: errorExpect(anyError(rule, version, binding, rpcId)) }]
          : errorChecks(rule, binding, types, rpcId, errorExpect);
    return checks.map((check, i) => {
      const level = check.level ?? x.level;
      const spec = check.spec ?? x.spec;
      return {
        name: name + (check.suffix ?? ""),
        request,
        expect: withStepWire(x.refused === "authentication" ? errorExpect(check.expect) : check.expect, x.onWire, version, binding, true),
        ...common,
        ...(i === 0 && x.otherwise ? { otherwise: x.otherwise } : {}),
        ...(level ? { level } : {}),
        ...(spec ? { spec } : {}),
      };
    });
  }
  const viewOf = { operation: op, version, binding, rpcId };
  let expect: CaseExchange["expect"];
  if (step.expect_stream) {
    // The wire rule judges the stream (and reads it: closes, stopAfter); the scenario its events' 1.0 view.
    const { closes, stopAfter, ...own } = x.stream ?? {};
    const wire = rule.stream(op, rpcId, closes !== false && stopAfter === undefined);
    const view: StreamExpect = {
      ...own,
      ...(step.expect_stream.final_event !== undefined ? { last: step.expect_stream.final_event } : {}),
      ...(step.expect_stream.each_event !== undefined ? { each: step.expect_stream.each_event } : {}),
    };
    const { min_count: min, max_count: max } = step.expect_stream;
    if (min !== undefined || max !== undefined)
      view.counts = [...(view.counts ?? []), { where: {}, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) }];
    expect = {
      ...wire,
      stream: { ...wire.stream, ...(closes !== undefined ? { closes } : {}), ...(stopAfter !== undefined ? { stopAfter } : {}) },
      view: { ...viewOf, stream: view },
    };
  } else if (x.anyAnswer) expect = {};
  else if (x.refused === true) expect = rule.refused(rpcId);
  else expect = { ...rule.success(op, rpcId), view: { ...viewOf, body: step.expect?.body } };
  // A result or an error: the answer is the success above or the first (MUST) check of a named error.
  if (x.orErrors?.length && !step.expect_stream)
    expect = withForms(binding, {
      result: expect,
      ...Object.fromEntries(
        x.orErrors.map((t) => [
          t,
          t === "any"
            ? rule.refused(rpcId)
            : errorExpect(t === "error" ? anyError(rule, version, binding, rpcId) : rule.error(t, rpcId)[0]!.expect),
        ]),
      ),
    });
  if (x.status !== undefined) expect = { ...expect, status: x.status };
  expect = withStepWire(expect, x.onWire, version, binding);
  return [
    {
      name,
      request,
      ...(x.repeatUntil !== undefined ? { repeatUntil: x.repeatUntil } : {}),
      expect,
      ...common,
      ...(x.otherwise ? { otherwise: x.otherwise } : {}),
      ...(x.level ? { level: x.level } : {}),
      ...(x.spec ? { spec: x.spec } : {}),
    },
  ];
}

function applies(only: string[] | undefined, version: Version, binding: WireBinding): boolean {
  return !only || only.includes(version) || only.includes(`${version}/${binding}`);
}

/** The case a scenario becomes on one (version, binding). */
export function projectScenario(s: Scenario, version: Version, binding: WireBinding): Case {
  if (s.test[EXTRA].wire) {
    const r = wireCase(s, version, binding);
    if (!r.case) throw new ScenarioLoadError(r.problems);
    return r.case;
  }
  const t = s.test;
  const x = t[EXTRA];
  const rule = WIRE_RULES[version][binding];
  const steps: CaseStep[] = t.steps
    .filter((st) => applies(st[EXTRA]?.only, version, binding))
    .flatMap((st) => projectStep(st, version, binding));
  const hasError = t.steps.some((st) => st.expect_error && st[EXTRA]?.refused !== "authentication");
  const card = x.card?.[`${version}/${binding}`] ?? x.card?.[version];
  const agent = x.agent === undefined ? [] : Array.isArray(x.agent) ? x.agent : [x.agent];
  const description =
    typeof x.description === "string"
      ? x.description
      : [x.description?.[version], x.description?.[`${version}/${binding}`]].filter((d) => d).join(" ");
  return {
    id: `${VERSION_DIR[version]}/${binding}/${s.name}`,
    file: s.file,
    scenario: s.name,
    title: `${version} ${BINDING_TITLE[binding]}: ${t.name}`,
    ...(description ? { description } : {}),
    requirements: [...new Set(scoped(x.requirements, version, binding))],
    level: (x.levels?.[`${version}/${binding}`] ?? x.levels?.[version] ?? t.level).toUpperCase() as Level,
    spec: dedupCitations([
      ...scoped(x.spec, version, binding),
      ...rule.spec,
      ...(hasError ? rule.errorSpec : []),
      ...(t.steps.some((st) => st.expect_stream) ? rule.streamSpec : []),
    ]).filter((c) => binding !== "grpc" || !jsonSpellingRule(c)),
    version,
    binding,
    capabilities: x.capabilities ?? [],
    behaviours: agent.filter((a) => a !== "any").map((a) => a.slice("fixture:".length) as Behaviour),
    needsOtherPrincipal: t.steps.some((st) => st[EXTRA]?.as === "other"),
    ...(card !== undefined ? { when: { card } } : {}),
    needsWebhook: JSON.stringify(t.steps).includes("{{webhookUrl}}"),
    steps,
  };
}

/** Every file below `dir` read by `read` (server or client scenarios), with the problems of those that do not load. */
export function readScenarios<T>(
  dir: string,
  read: (dir: string, file: string) => { scenario?: T; problems: string[] },
): { scenarios: T[]; problems: string[] } {
  const problems: string[] = [];
  const scenarios: T[] = [];
  for (const file of listYaml(dir)) {
    const r = read(dir, file);
    problems.push(...r.problems);
    if (r.scenario) scenarios.push(r.scenario);
  }
  return { scenarios, problems };
}

/** Every scenario below `dir`; throws ScenarioLoadError listing every problem. */
export function loadScenarios(dir: string = SCENARIOS_DIR): Scenario[] {
  const { scenarios, problems } = readScenarios(dir, readScenario);
  if (problems.length) throw new ScenarioLoadError(problems);
  return scenarios;
}

/** The cases of every scenario below `dir`, one per (version, binding) it applies to. */
export function loadScenarioCases(dir: string = SCENARIOS_DIR): Case[] {
  const problems: string[] = [];
  const cases = loadScenarios(dir).flatMap((s) =>
    pairsOf(s).flatMap(([v, b]) => {
      if (s.test[EXTRA].wire) {
        const r = wireCase(s, v, b);
        problems.push(...r.problems);
        return r.case ? [r.case] : [];
      }
      const c = projectScenario(s, v, b);
      const own: string[] = [];
      checkStepConditions(c, own);
      problems.push(...own.map((p) => `${c.id} (${s.name}.yaml): ${p}`));
      return [c];
    }),
  );
  if (problems.length) throw new ScenarioLoadError(problems);
  return cases;
}
