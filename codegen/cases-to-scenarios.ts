// Converts the hand-projected server cases of one operation folder (compliance/cases/<v>/<binding>/<op>/)
// into scenarios (compliance/scenarios/<op>/<scenario>.yaml, src/compliance/scenarios.ts), one per
// scenario name, and deletes the copies it replaced. The 1.0 JSON-RPC twin is the source of the
// steps (its `params` are 1.0 ProtoJSON and its `result` expectations are the 1.0 view); the other
// twins give the pairs the scenario applies to and their requirement IDs and citations. A scenario
// that is not an exchange of abstract operations (raw bodies, streams, parallel or webhook steps,
// wire-level checks such as member spelling) or has no 1.0 JSON-RPC twin is left as it is, named
// with the reason; so is one whose twins are at different levels (decide it by hand). The 1.0 view
// cannot tell an empty list from an absent one, nor see unknown request members, member spelling or
// the error's `data`: a check of those stays a case file even when this script converts it, which
// `make test-verdict-diff` and the fault tests (compliance-mutation, compliance-fake-server) catch.
//
//   npx tsx codegen/cases-to-scenarios.ts <operation> [--write]
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

const ROOT = fileURLToPath(new URL("../compliance/", import.meta.url));
export const PAIRS = ["v1_0/json-rpc", "v1_0/rest", "v1_0/grpc", "v0_3/json-rpc", "v0_3/rest", "v0_3/grpc"] as const;
export const VERSION: Record<string, string> = { v1_0: "1.0", v0_3: "0.3" };

/** 1.0 JSON-RPC method → ACTS §4.1 abstract operation. */
export const OPERATIONS: Record<string, string> = {
  SendMessage: "send_message",
  SendStreamingMessage: "send_streaming_message",
  GetTask: "get_task",
  ListTasks: "list_tasks",
  CancelTask: "cancel_task",
  SubscribeToTask: "subscribe_to_task",
  GetExtendedAgentCard: "get_extended_agent_card",
  CreateTaskPushNotificationConfig: "create_push_config",
  GetTaskPushNotificationConfig: "get_push_config",
  ListTaskPushNotificationConfigs: "list_push_configs",
  DeleteTaskPushNotificationConfig: "delete_push_config",
};

/** JSON-RPC error code → ACTS §6.2 abstract error. */
export const ERRORS: Record<number, string> = {
  [-32001]: "TaskNotFoundError",
  [-32002]: "TaskNotCancelableError",
  [-32003]: "PushNotificationNotSupportedError",
  [-32004]: "UnsupportedOperationError",
  [-32005]: "ContentTypeNotSupportedError",
  [-32602]: "InvalidParamsError",
};

type Json = Record<string, unknown>;
export interface Citation {
  version: string;
  section: string;
  quote: string;
}

export const key = (c: Citation) => `${c.version}|${c.section}|${c.quote}`;

function read(pair: string, op: string, name: string): Json | undefined {
  const file = join(ROOT, "cases", pair, op, `${name}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Json) : undefined;
}

/** The steps of the 1.0 JSON-RPC twin as scenario steps, or why they cannot be. */
function steps(source: Json): { steps?: Json[]; why?: string } {
  const out: Json[] = [];
  const ids = new Set<string>();
  for (const [i, step] of (source.steps as Json[]).entries()) {
    if (!("request" in step)) return { why: "a parallel or webhook step" };
    const req = step.request as Json;
    const expect = step.expect as Json;
    const body = req.body as Json | undefined;
    if (req.rawBody !== undefined || !body || typeof body.method !== "string") return { why: "a raw request body" };
    if (req.path !== "" || req.base || req.as || req.withoutCredentials) return { why: "a request beside the interface's operations" };
    const headers = Object.keys((req.headers as Json | undefined) ?? {}).map((h) => h.toLowerCase());
    if (headers.some((h) => h !== "content-type" && h !== "a2a-version")) return { why: "request headers the wire rules do not send" };
    const version = Object.entries((req.headers as Json | undefined) ?? {}).find(([h]) => h.toLowerCase() === "a2a-version")?.[1];
    if (version !== "1.0") return { why: "an A2A-Version header other than the wire rules' 1.0" };
    if (typeof body.id === "number" || JSON.stringify(body.params ?? {}).includes('"kind"'))
      return { why: "a wire-level check (request id or member spelling)" };
    if (JSON.stringify(step).includes("camelCaseKeys")) return { why: "a wire-level check (member spelling)" };
    const op = OPERATIONS[body.method];
    if (!op) return { why: `method ${body.method}` };
    /** The step as a scenario step: its id (the JSON-RPC id, unique), name, operation and params, then `rest`. */
    const emit = (rest: Json, extras: Json): void => {
      let id = typeof body.id === "string" ? body.id : `step-${i + 1}`;
      while (ids.has(id)) id += "-b";
      ids.add(id);
      out.push({
        id,
        ...(typeof step.name === "string" && step.name !== id ? { description: step.name } : {}),
        operation: op,
        params: body.params ?? {},
        ...rest,
        ...(Object.keys(extras).length ? { "x-a2a-toolkit": extras } : {}),
      });
    };
    const extrasOf = (...keys: string[]): Json => Object.fromEntries(keys.filter((k) => step[k] !== undefined).map((k) => [k, step[k]]));
    if (expect.stream) {
      const converted = streamOf(expect, body.id);
      if ("why" in converted) return converted;
      if (step.repeatUntil !== undefined) return { why: "polling (repeatUntil is matched on the wire body)" };
      if (JSON.stringify(body.params ?? {}).match(/"\$|\{\{url:/)) return { why: "params with matchers or URL templates" };
      const stream = converted.extra ? { stream: converted.extra } : {};
      emit({ expect_stream: converted.acts }, { ...extrasOf("when", "otherwise", "level", "spec", "cleanup"), ...stream });
      continue;
    }
    const answer = expect.body as Json | undefined;
    const anyAnswer =
      step.cleanup === true &&
      Object.keys(expect).every((k) => k === "status") &&
      JSON.stringify(expect.status ?? { $match: "integer" }) === '{"$match":"integer"}';
    if (anyAnswer) {
      emit({ expect: {} }, { cleanup: true, anyAnswer: true });
      continue;
    }
    if (!answer || answer.$variants || answer.$oneOf || answer.$branch) return { why: "an answer that is no plain JSON-RPC envelope" };
    if (step.repeatUntil !== undefined) return { why: "polling (repeatUntil is matched on the wire body)" };
    if (JSON.stringify(body.params ?? {}).match(/"\$|\{\{url:/)) return { why: "params with matchers or URL templates" };
    // `error: {$match: "absent"}` is a success; an error whose code is a matcher names no one error.
    const error =
      answer.error !== undefined && !Object.keys(answer.error as Json).some((k) => k.startsWith("$")) ? (answer.error as Json) : undefined;
    if (error && typeof error.code !== "number") {
      // Refused with any error: the wire rules' `refused` form, when that is all the step says.
      // With or without the content type and 1.0's optional typed `data`, which the rule checks.
      const { data, ...bare } = error;
      const typed = { $optional: { $each: { "@type": { $match: "nonEmptyString" } } } };
      const plain =
        Object.keys(expect).every((k) => k === "body" || k === "headers") &&
        (expect.headers === undefined || JSON.stringify(expect.headers) === '{"content-type":{"$regex":"^application/json"}}') &&
        (data === undefined || JSON.stringify(data) === JSON.stringify(typed)) &&
        JSON.stringify({ ...answer, error: bare }) ===
          JSON.stringify({
            jsonrpc: "2.0",
            id: body.id,
            error: { code: { $match: "integer" }, message: { $match: "string" } },
            result: { $match: "absent" },
          });
      if (!plain) return { why: "an error of any code (no one ACTS §6.2 error type)" };
      emit({ expect: {} }, { ...extrasOf("when", "otherwise", "level", "spec"), refused: true });
      continue;
    }
    const extras = extrasOf("when", "otherwise", "level", "spec", "cleanup", "repeatUntil");
    if (error !== undefined) {
      const type = ERRORS[error.code as number];
      if (!type) return { why: `error code ${String(error.code)}` };
      if (type === "InvalidParamsError") return { why: "an invalid request (the codecs encode valid ones only)" };
      emit({ expect_error: { error_type: type } }, extras);
    } else emit({ expect: { body: answer.result } }, extras);
  }
  return { steps: out };
}

/** A 1.0 JSON-RPC stream event matcher without its envelope: the StreamResponse matcher, or undefined when it is none. */
function unwrap(m: unknown, id: unknown): unknown {
  if (!m || typeof m !== "object" || Array.isArray(m)) return undefined;
  const o = m as Json;
  if (Array.isArray(o.$oneOf) && Object.keys(o).length === 1) {
    const alts = o.$oneOf.map((a) => unwrap(a, id));
    return alts.every((a) => a !== undefined) ? { $oneOf: alts } : undefined;
  }
  const { jsonrpc, id: rid, result, error, ...rest } = o;
  if (jsonrpc !== "2.0" || rid !== id || result === undefined || Object.keys(rest).length) return undefined;
  if (error !== undefined && JSON.stringify(error) !== '{"$match":"absent"}') return undefined;
  return result;
}

/** A 1.0 JSON-RPC stream expectation on the events' 1.0 view: ACTS §7 keys and our extras, or why not. */
function streamOf(expect: Json, id: unknown): { acts: Json; extra?: Json } | { why: string } {
  const headers = JSON.stringify(expect.headers ?? {});
  if ((expect.status !== undefined && expect.status !== 200) || (headers !== "{}" && !headers.includes("text/event-stream")))
    return { why: "a stream whose status or headers the wire rules do not check" };
  if (expect.body !== undefined || expect.acceptSingleEventStream) return { why: "a stream step that also expects a body" };
  const s = expect.stream as Json;
  const acts: Json = {};
  const extra: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "closes" || k === "stopAfter") extra[k] = v;
    else if (k === "sameValue" || k === "nonDecreasing") {
      if (!(v as string[]).every((p) => p.startsWith("/result/"))) return { why: `stream ${k} outside the result` };
      extra[k] = (v as string[]).map((p) => p.slice("/result".length));
    } else if (k === "each") {
      const r = unwrap(v, id) as Json | undefined;
      if (r === undefined) return { why: "a stream event matcher beside the JSON-RPC envelope" };
      const { $valid, ...own } = r;
      if ($valid !== undefined && $valid !== "v1_0.StreamResponse") return { why: `each event valid as ${JSON.stringify($valid)}` };
      if (Object.keys(own).length) acts.each_event = own;
    } else if (k === "inOrder" || k === "exactly") {
      const r = (v as unknown[]).map((m) => unwrap(m, id));
      if (r.some((m) => m === undefined)) return { why: "a stream event matcher beside the JSON-RPC envelope" };
      extra[k] = r;
    } else if (k === "counts") {
      const r = (v as Json[]).map((c) => ({ ...c, where: unwrap(c.where, id) }));
      if (r.some((c) => c.where === undefined)) return { why: "a stream event matcher beside the JSON-RPC envelope" };
      extra[k] = r;
    } else {
      const r = unwrap(v, id);
      if (r === undefined) return { why: "a stream event matcher beside the JSON-RPC envelope" };
      if (k === "last") acts.final_event = r;
      else extra[k] = r;
    }
  }
  return { acts, ...(Object.keys(extra).length ? { extra } : {}) };
}

/** Whether an expectation names one error (a literal code, status or gRPC status) or accepts any ("any"). */
function errorKind(expect: Json): "one" | "any" | undefined {
  const grpc = expect.grpc as Json | undefined;
  const body = expect.body as Json | undefined;
  const literal = (v: unknown) => typeof v === "number" || typeof v === "string" || (!!v && typeof v === "object" && "$variants" in v);
  if (grpc && "$variants" in grpc) return "any";
  if (grpc?.status !== undefined && grpc.status !== "OK") return literal(grpc.status) ? "one" : "any";
  const error = (body?.error ?? undefined) as Json | undefined;
  if (error && typeof error === "object" && !("$match" in error)) return literal(error.code) ? "one" : "any";
  if (typeof expect.status === "number" && expect.status >= 400) return "one";
  return undefined;
}

/** Why a twin does not say what the 1.0 JSON-RPC twin says about errors, if it does not. */
function twinDisagrees(source: Json, twins: [string, Json][]): string | undefined {
  const wants = (source.steps as Json[]).map((s) => (s.expect ? errorKind(s.expect as Json) : undefined));
  for (const [pair, c] of twins) {
    const steps = c.steps as Json[];
    if (steps.length !== wants.length) return `its ${pair} twin has ${steps.length} steps, the 1.0 JSON-RPC twin ${wants.length}`;
    for (const [i, s] of steps.entries()) {
      const kind = s.expect ? errorKind(s.expect as Json) : undefined;
      if (wants[i] === "one" && kind !== "one")
        return `its ${pair} twin accepts ${kind === "any" ? "any error" : "an answer"} where the 1.0 JSON-RPC twin names one error (step ${i + 1}): decide by hand`;
    }
  }
  return undefined;
}

/**
 * Scenarios this script would convert but that lose their point in the projection, decided by hand
 * (the verdict diff or the fault tests showed it); each stays a case file, with the reason.
 */
const KEEP: Record<string, string> = {
  "push-notifications/create-without-url-is-rejected": "an invalid request (the codecs encode valid ones only)",
  "send-message/unknown-request-fields-are-ignored": "unknown request members (the codecs drop them)",
  "send-message/unknown-request-members-are-ignored": "unknown request members (the codecs drop them)",
  "send-message/no-kind-discriminator": "member spelling on the wire (the 1.0 view has no kind; fault v1-kind-present)",
  "json-rpc-errors/task-not-found-carries-error-info":
    "the error's data (expect_error names the type only; variant jsonrpc-error-info-omitted)",
};

/** Per version the citations (or IDs) every twin of it has; per pair what only that twin adds. */
export function scoped<T>(twins: [string, Json][], of: (c: Json) => T[], k: (t: T) => string): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const v of ["v1_0", "v0_3"]) {
    const mine = twins.filter(([p]) => p.startsWith(v));
    if (!mine.length) continue;
    const common = of(mine[0]![1]).filter((t) => mine.every(([, c]) => of(c).some((u) => k(u) === k(t))));
    out[VERSION[v]!] = common;
    for (const [p, c] of mine) {
      const extra = of(c).filter((t) => !common.some((u) => k(u) === k(t)));
      if (extra.length) out[`${VERSION[v]}/${p.split("/")[1]}`] = extra;
    }
  }
  return out;
}

export function convert(op: string, name: string): { yaml?: string; files?: string[]; why?: string } {
  const kept = KEEP[`${op}/${name}`];
  if (kept) return { why: kept };
  const twins = PAIRS.map((p): [string, Json | undefined] => [p, read(p, op, name)]).filter((t): t is [string, Json] => !!t[1]);
  const source = twins.find(([p]) => p === "v1_0/json-rpc")?.[1];
  if (!source) return { why: "no 1.0 JSON-RPC twin to take the 1.0 view from" };
  // One level per version: 0.3's text is often weaker than 1.0's (a SHOULD where 1.0 says MUST).
  const levelOf = (v: string) => new Set(twins.filter(([p]) => p.startsWith(v)).map(([, c]) => c.level as string));
  const [l10, l03] = [levelOf("v1_0"), levelOf("v0_3")];
  if (l10.size > 1 || l03.size > 1)
    return {
      why: `its twins of one version are at different levels (1.0: ${[...l10].join(", ")}; 0.3: ${[...l03].join(", ")}): decide by hand`,
    };
  const level03 = [...l03][0];
  if (twins.some(([, c]) => c.when !== undefined)) return { why: "a precondition on the card (no scenario key carries it yet)" };
  const s = steps(source);
  if (!s.steps) return { why: s.why };
  const disagree = twinDisagrees(source, twins);
  if (disagree) return { why: disagree };
  const versions = [...new Set(twins.map(([p]) => VERSION[p.split("/")[0]!]))];
  const bindings = [...new Set(twins.map(([p]) => p.split("/")[1]))];
  const full = versions.flatMap((v) => bindings.map((b) => `${v === "1.0" ? "v1_0" : "v0_3"}/${b}`));
  if (full.some((p) => !twins.some(([q]) => q === p))) return { why: `its twins (${twins.map(([p]) => p).join(", ")}) are no full grid` };
  const extras: Json = {
    ...(level03 && level03 !== source.level ? { levels: { "0.3": level03.toLowerCase() } } : {}),
    ...(source.agent !== "any" ? { agent: source.agent } : {}),
    ...(versions.length < 2 ? { versions } : {}),
    ...(bindings.length < 3 ? { bindings } : {}),
    ...(source.capabilities ? { capabilities: source.capabilities } : {}),
    requirements: scoped(
      twins,
      (c) => c.requirements as string[],
      (r) => r,
    ),
    spec: scoped(twins, (c) => (c.spec as Citation[] | undefined) ?? [], key),
    ...(source.description ? { description: source.description } : {}),
  };
  const doc = actsDocument(op, {
    id: name,
    name: (source.title as string).replace(/^1\.0 JSON-RPC: /, ""),
    level: source.level as string,
    steps: s.steps,
    extras,
  });
  return { yaml: stringify(doc, { lineWidth: 0 }), files: twins.map(([p]) => join(ROOT, "cases", p, op, `${name}.json`)) };
}

/** An ACTS document of one suite (`op`) holding one test, our extras under x-a2a-toolkit. */
export function actsDocument(
  op: string,
  t: { id: string; name: string; level: string; tags?: string[]; steps: Json[]; extras: Json },
): Json {
  const test = {
    id: t.id,
    name: t.name,
    level: t.level.toLowerCase(),
    ...(t.tags ? { tags: t.tags } : {}),
    steps: t.steps,
    "x-a2a-toolkit": t.extras,
  };
  return { acts_version: "1.0", spec_version: "1.0", suites: [{ id: op, name: op, tests: [test] }] };
}

/** Converts every scenario name of one folder of `from` (its pairs' <op>/ folders) into `to`/<op>/, deleting the copies with --write. */
export function convertFolder(
  from: string,
  to: string,
  convertOne: (op: string, name: string) => { yaml?: string; files?: string[]; why?: string },
  [op, flag]: string[],
): void {
  if (!op) throw new Error(`usage: <script> <operation> [--write]`);
  const names = new Set<string>();
  for (const p of PAIRS) {
    const dir = join(ROOT, from, p, op);
    if (existsSync(dir)) for (const f of readdirSync(dir)) if (f.endsWith(".json")) names.add(f.replace(/\.json$/, ""));
  }
  for (const name of [...names].sort()) {
    const r = convertOne(op, name);
    if (!r.yaml) {
      console.log(`kept   ${op}/${name}: ${r.why}`);
      continue;
    }
    console.log(`${flag === "--write" ? "wrote" : "would write"} ${op}/${name}.yaml (replaces ${r.files!.length} files)`);
    if (flag !== "--write") continue;
    mkdirSync(join(ROOT, to, op), { recursive: true });
    writeFileSync(join(ROOT, to, op, `${name}.yaml`), r.yaml);
    for (const f of r.files!) rmSync(f);
  }
}

const TITLE: Record<string, string> = {
  "v1_0/json-rpc": "1.0 JSON-RPC",
  "v1_0/rest": "1.0 HTTP+JSON",
  "v1_0/grpc": "1.0 gRPC",
  "v0_3/json-rpc": "0.3 JSON-RPC",
  "v0_3/rest": "0.3 HTTP+JSON",
  "v0_3/grpc": "0.3 gRPC",
};
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A scenario `convert` keeps as a wire scenario (src/compliance/scenarios.ts `wire`): one file whose
 * steps are the twins' steps as ACTS §4.4 raw steps (method, path, string headers, body; the rest of
 * the request and the expectation in our matchers under x-a2a-toolkit), each written once and scoped
 * (`only`) to the pairs that send it, and the twins' case fields written once where they agree, per
 * pair where not. The test's `transport` filter names its bindings (§4.4 asks it of raw-only tests).
 * Each pair's projection is the case file it replaces, so nothing it decides changes.
 */
export function convertWire(op: string, name: string): { yaml?: string; files?: string[]; why?: string } {
  const twins = PAIRS.map((p): [string, Json | undefined] => [p, read(p, op, name)]).filter((t): t is [string, Json] => !!t[1]);
  if (!twins.length) return { why: "no twin on a binding's folder" };
  if (twins.some(([, c]) => (c.steps as Json[]).some((st) => !("request" in st))))
    return { why: "a parallel or webhook step (ACTS §4.4 raw steps are single exchanges)" };
  const pairOf = (p: string) => `${VERSION[p.split("/")[0]!]}/${p.split("/")[1]}`;
  // The test's name: the title without its pair prefix, when every twin's is that.
  const rests = twins.map(([p, c]) => (c.title as string).startsWith(`${TITLE[p]}: `) && (c.title as string).slice(TITLE[p]!.length + 2));
  const name0 = rests.every((r) => r !== false && r === rests[0]) ? (rests[0] as string) : undefined;
  const fields = new Set(twins.flatMap(([, c]) => Object.keys(c)));
  for (const k of ["$schema", "version", "binding", "steps", ...(name0 !== undefined ? ["title"] : [])]) fields.delete(k);
  const common: Json = {};
  const per: Record<string, Json> = {};
  for (const k of fields) {
    if (twins.every(([, c]) => k in c && same(c[k], twins[0]![1][k]))) common[k] = twins[0]![1][k];
    else for (const [p, c] of twins) if (k in c) (per[pairOf(p)] ??= {})[k] = c[k];
  }
  // Steps: each pair's in order, a step equal to one already written for another pair shared with it.
  const merged: { step: Json; pairs: string[] }[] = [];
  for (const [p, c] of twins) {
    let at = 0;
    for (const step of c.steps as Json[]) {
      const found = merged.findIndex((m, i) => i >= at && !m.pairs.includes(pairOf(p)) && same(m.step, step));
      if (found >= 0) {
        merged[found]!.pairs.push(pairOf(p));
        at = found + 1;
      } else merged.splice(at++, 0, { step, pairs: [pairOf(p)] });
    }
  }
  const all = twins.map(([p]) => pairOf(p));
  const steps = merged.map(({ step, pairs }, i): Json => {
    const only = pairs.length === all.length ? {} : { only: pairs };
    // ACTS §4.4 keys where the request has them; the rest of it, and our expectations, as extras.
    const { name: description, request, expect, ...rest } = step as { name?: string; request: Json; expect: Json };
    const { method, path, headers, body, ...more } = request;
    const plain = headers === undefined || Object.values(headers as Json).every((h) => typeof h === "string");
    // A gRPC request names its rpc; as a raw step it is the POST of that method's path (both versions' service is a2a.v1.A2AService).
    const grpc = method === undefined && typeof more.rpc === "string";
    const raw = {
      method: grpc ? "POST" : method,
      path: grpc ? `/a2a.v1.A2AService/${more.rpc as string}` : path,
      ...(plain && headers !== undefined ? { headers } : {}),
      ...(body !== undefined ? { body } : {}),
    };
    const extra = { ...(plain ? {} : { headers }), ...more };
    return {
      id: `step-${i + 1}`,
      ...(description !== undefined ? { description } : {}),
      raw,
      "x-a2a-toolkit": { ...only, ...(Object.keys(extra).length ? { request: extra } : {}), expect, ...rest },
    };
  });
  const first = twins[0]![1];
  const transport = [...new Set(twins.map(([p]) => p.split("/")[1]!.replace("json-rpc", "jsonrpc")))];
  const test = {
    id: name,
    name: name0 ?? (first.title as string),
    level: (first.level as string).toLowerCase(),
    transport,
    steps,
    "x-a2a-toolkit": { wire: { pairs: all, case: common, ...(Object.keys(per).length ? { per } : {}) } },
  };
  const doc = { acts_version: "1.0", spec_version: "1.0", suites: [{ id: op, name: op, tests: [test] }] };
  return { yaml: stringify(doc, { lineWidth: 0 }), files: twins.map(([p]) => join(ROOT, "cases", p, op, `${name}.json`)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const wire = args.includes("--wire");
  convertFolder(
    "cases",
    "scenarios",
    (op, name) => {
      const r = convert(op, name);
      return r.yaml || !wire ? r : convertWire(op, name);
    },
    args.filter((a) => a !== "--wire"),
  );
}
