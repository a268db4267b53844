// Client scenarios: a client case written once (compliance/client-scenarios/<op>/<scenario>.yaml, an
// ACTS document of one suite and one test whose steps are ACTS §10 client steps, our extras under
// `x-a2a-toolkit`) and projected onto every (version, binding) it applies to, as the server scenarios
// are (../scenarios.ts). Each projection is an ordinary ClientCase with the ID the hand-projected
// copies had (`v1_0/rest/get/task-not-found-error`), so --case globs and known-failing lists see no
// difference.
//
// A step's `client_response` is what the fixture plays, as the 1.0 view: `wire_payload` (the 1.0
// ProtoJSON response of its operation), or under `x-a2a-toolkit` an `error` (an A2A error name) or
// `events` (1.0 StreamResponses, `end: drop` to cut the stream). It is encoded for each pair by the
// SERVER side of the project's codecs (src/transport/server.ts encodeResult, encodeError and
// openStream; src/versioning/grpc.ts for gRPC), the seam the reference server answers through. What
// the client sent is matched in two parts: what the pair's wire must look like, written once per pair
// here (WIRE), and `x-a2a-toolkit.request`, matchers on the request decoded by the same server codecs
// to its 1.0 view (fixture-server.ts compareRequest, `view`), with any `headers` the step adds.
//
// What no codec writes is said once, scoped to its version or pair: a step's `wire` (that pair's raw
// answer or request: proto spellings, unknown members, another server's error shape), a card case's
// `card`, and `variants`, the other server shapes of the scenario, each a case of its own name
// (`get/task-not-found-error-message-body`) in the same file.
import { toJson } from "@bufbuild/protobuf";
import { packagePath } from "../../runtime/package-root.js";
import { encodeError, encodeResult, openStream, type DecodedCall, type HttpReply } from "../../transport/server.js";
import { decode1_0, jsonRpcMethodOf, OPERATIONS, type Operation } from "../../versioning/codec.js";
import { A2AError, ERRORS, GRPC_CODES, type A2AErrorName } from "../../versioning/errors.js";
import { encodeGrpcResponse, grpcEventEncoder, grpcStatusOf } from "../../versioning/grpc.js";
import type { Citation } from "../citations.js";
import type { Level, Version } from "../cases.js";
import { grpcMethod, grpcPath } from "../grpc.js";
import { ABSTRACT_OPERATIONS, readActsFile, readScenarios } from "../scenarios.js";
import type { ClientCase, ClientCheck, ClientExchange } from "./cases.js";

export const CLIENT_SCENARIOS_DIR = packagePath("compliance", "client-scenarios");

type Pair = `${Version}/${ClientCase["binding"]}`;
type Scoped<T> = Partial<Record<string, T>>;
const X = "x-a2a-toolkit";
const VERSION_DIR: Record<Version, string> = { "1.0": "v1_0", "0.3": "v0_3" };
const BINDING_TITLE = { "json-rpc": "JSON-RPC", rest: "HTTP+JSON", grpc: "gRPC" } as const;
const PAIRS: Pair[] = ["1.0/json-rpc", "1.0/rest", "1.0/grpc", "0.3/json-rpc", "0.3/rest", "0.3/grpc"];

/** Our extras of one step (an ACTS client step). */
interface StepExtras {
  /** Matchers on the request as its 1.0 view (ProtoJSON of the operation's request message). */
  request?: unknown;
  error?: A2AErrorName;
  events?: unknown[];
  end?: "drop";
  optional?: boolean;
  level?: Level;
  spec?: Citation[];
  /** Versions or pairs the step applies to (default all). */
  only?: string[];
  /** Header matchers the client's request carries beyond its pair's wire (credentials, Accept), once or per scope. */
  headers?: MaybeScoped<Record<string, unknown>>;
  /** Per version or pair: the request and/or answer as raw wire data, where no codec writes them. */
  wire?: WireOverrides;
}

/**
 * What a pair sends or plays as raw wire data instead of the projection (a scope is a version or a
 * pair, the pair's own first): answers the codecs would write canonical (proto field names, unknown
 * members), other servers' error shapes (a2a-python 0.3 bodies, the 1.0.0 mapping), a 0.3 gRPC error
 * without ErrorInfo, a request that only the wire can say.
 */
type WireOverrides = Scoped<{
  request?: ClientExchange["request"];
  response?: ClientExchange["response"];
  /** Headers over the projected answer's (`application/a2a+json`, which 1.0.1 §11.1 says SHOULD be used). */
  responseHeaders?: Record<string, string>;
}>;

interface ClientScenarioStep {
  id: string;
  description?: string;
  client_response: { operation: string; wire_payload?: unknown };
  expect_parsed: Record<string, unknown>;
  [X]?: StepExtras;
}

/**
 * A check of the scenario: `request` is matched on the 1.0 view of `exchange`'s request, `wire` on
 * the request as sent (a wire-level rule, scoped with `only` to the pairs it is written for).
 */
type ScenarioCheck = Omit<ClientCheck, "request"> & { request?: unknown; wire?: ClientCheck["request"]; only?: string[] };

/** A value for every pair, or one per version or pair (each key a version or a pair). */
type MaybeScoped<T> = T | Scoped<T>;

interface TestExtras {
  instruction: MaybeScoped<ClientCase["instruction"]>;
  /** The driver result's matcher, per version or pair. */
  result: Scoped<unknown>;
  checks?: ScenarioCheck[];
  requirements: Scoped<string[]>;
  spec: Scoped<Citation[]>;
  levels?: Scoped<Level>;
  titles?: Scoped<string>;
  descriptions?: Scoped<string>;
  pairs: Pair[];
  capabilities?: MaybeScoped<Record<string, unknown>>;
  tenant?: MaybeScoped<string>;
  /** The card served instead of the default one (a card case: raw, per version or pair). */
  card?: MaybeScoped<Record<string, unknown>>;
  interfaceUrl?: MaybeScoped<string>;
  /**
   * Other shapes of the same scenario, each a case of its own name (`<op>/<name>`): another server's
   * answer the text allows (a2a-python 0.3 bodies, the 1.0.0 mapping), the 0.3 form of a 1.0 rule.
   * A variant is these extras with its own over them, and its steps' `wire` by step id.
   */
  variants?: Record<string, Partial<Omit<TestExtras, "variants">> & { pairs: Pair[]; wire?: Record<string, WireOverrides> }>;
}

export interface ClientScenario {
  file: string;
  /** `<op>/<scenario>`: the tail of every projected ID. */
  name: string;
  test: { id: string; name: string; level: "must" | "should" | "may"; steps: ClientScenarioStep[]; [X]: TestExtras };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const applies = (only: string[] | undefined, version: Version, pair: Pair) => !only || only.includes(version) || only.includes(pair);
/** The value for a pair: its own, else its version's. */
const pick = <T>(s: Scoped<T> | undefined, version: Version, pair: Pair): T | undefined => s?.[pair] ?? s?.[version];
const joined = <T>(s: Scoped<T[]>, version: Version, pair: Pair): T[] => [...(s[version] ?? []), ...(s[pair] ?? [])];
const SCOPES = new Set<string>(["1.0", "0.3", ...PAIRS]);
/** A value written once, or per version or pair (an object whose every key is a scope). */
function pickMaybe<T>(v: MaybeScoped<T> | undefined, version: Version, pair: Pair): T | undefined {
  const scoped = isObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => SCOPES.has(k));
  return scoped ? pick(v, version, pair) : (v as T | undefined);
}

/** Reads one client scenario: one suite named after the folder, one test named after the file, ACTS client steps. */
export function readClientScenario(dir: string, file: string): { scenario?: ClientScenario; problems: string[] } {
  const frame = readActsFile(dir, file);
  if (frame.test === undefined) return { problems: frame.problems };
  const { name, base } = frame;
  const problems: string[] = frame.problems.map((p) => p.slice(name.length + 2));
  const test = frame.test as ClientScenario["test"];
  if (test.id !== base) problems.push(`/suites/0/tests/0/id: ${JSON.stringify(test.id)} but the file is ${base}.yaml`);
  const x = test[X];
  if (!isObject(x) || !Array.isArray(x.pairs) || !x.pairs.every((p) => PAIRS.includes(p)))
    problems.push(`/suites/0/tests/0/${X}: needs pairs (of ${PAIRS.join(", ")}), instruction, result, requirements and spec`);
  (test.steps ?? []).forEach((s, i) => {
    const at = `/suites/0/tests/0/steps/${i}`;
    if (!isObject(s.client_response) || !(s.client_response.operation in ABSTRACT_OPERATIONS))
      problems.push(`${at}/client_response/operation: no ACTS §4.1 operation`);
    if (!isObject(s.expect_parsed)) problems.push(`${at}/expect_parsed: required (ACTS §10)`);
    const e = s[X]?.error;
    if (e !== undefined && !(e in ERRORS)) problems.push(`${at}/${X}/error: unknown A2A error ${JSON.stringify(e)}`);
    for (const k of Object.keys(s[X]?.wire ?? {})) if (!SCOPES.has(k)) problems.push(`${at}/${X}/wire: ${k} is no version or pair`);
  });
  for (const [v, variant] of Object.entries(isObject(x) && isObject(x.variants) ? x.variants : {})) {
    const at = `/suites/0/tests/0/${X}/variants/${v}`;
    if (!Array.isArray(variant.pairs) || !variant.pairs.every((p) => PAIRS.includes(p))) problems.push(`${at}/pairs: needs pairs`);
    for (const id of Object.keys(variant.wire ?? {}))
      if (!(test.steps ?? []).some((st) => st.id === id)) problems.push(`${at}/wire/${id}: no step with this id`);
  }
  if (problems.length) return { problems: problems.map((p) => `${name}: ${p}`) };
  return { scenario: { file, name, test }, problems: [] };
}

/** What the wire of a pair must look like for one operation's request, written once per pair. */
function wireRequest(version: Version, binding: ClientCase["binding"], op: Operation): ClientExchange["request"] {
  const header = version === "1.0" ? { "a2a-version": "1.0" } : { "a2a-version": { $optional: { $regex: "^0\\.3$" } } };
  if (binding === "grpc") {
    const m = grpcMethod(version, op);
    return {
      method: "POST",
      ...(m ? { path: grpcPath(m) } : {}),
      headers: version === "1.0" ? { "a2a-version": { $regex: "^1\\.0$" } } : {},
    };
  }
  if (binding === "rest") return { headers: header };
  const request = OPERATIONS[op].request.name;
  // 0.3 JSON-RPC names its request envelopes after the methods (some differ from the 1.0 message name).
  const request03 =
    {
      SubscribeToTask: "TaskResubscriptionRequest",
      SendStreamingMessage: "SendStreamingMessageRequest",
      GetExtendedAgentCard: "GetAuthenticatedExtendedCardRequest",
    }[op as string] ?? request;
  return {
    method: "POST",
    path: "",
    headers: header,
    body: {
      ...(version === "1.0" ? {} : { $valid: `v0_3.${request03}` }),
      jsonrpc: "2.0",
      id: { $capture: "rpcId", $oneOf: [{ $match: "string" }, { $match: "integer" }] },
      method: jsonRpcMethodOf(version, op),
      ...(version === "1.0" ? { params: { $valid: `v1_0.${request}`, $match: "camelCaseKeys" } } : {}),
    },
  };
}

/** The call the server codecs answer: what decodeCall would have made of the client's request. */
function callOf(version: Version, binding: "json-rpc" | "rest", op: Operation, streaming: boolean): DecodedCall {
  return {
    kind: "call",
    version,
    binding: binding === "json-rpc" ? "JSONRPC" : "HTTP+JSON",
    operation: op,
    streaming,
    request: undefined as never,
    // Rendered to the captured id when the fixture answers.
    rpcId: "{{rpcId}}",
    extensions: [],
    tenant: "",
    losses: [],
    mediaType: "application/json",
  };
}

const fromReply = (r: HttpReply): ClientExchange["response"] => ({
  status: r.status,
  headers: { "content-type": r.headers["content-type"] ?? "application/json" },
  body: JSON.parse(r.body) as unknown,
});

const sseEvents = (frames: string): unknown[] =>
  frames
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as unknown);

/** What the fixture plays for a step on one pair: the 1.0 view encoded by the server side of the codecs. */
function response(step: ClientScenarioStep, version: Version, binding: ClientCase["binding"], op: Operation): ClientExchange["response"] {
  const x = step[X] ?? {};
  const events = x.events?.map((e) =>
    decode1_0<typeof OPERATIONS.SendStreamingMessage.response>(OPERATIONS.SendStreamingMessage.response, e, "response"),
  );
  const end = x.end ? { end: x.end } : {};
  if (binding === "grpc") {
    const method = grpcMethod(version, op)!;
    if (x.error) {
      const err = new A2AError(x.error);
      const status = grpcStatusOf(version, err);
      const name = Object.entries(GRPC_CODES).find(([, c]) => c === status.code)![0];
      return { grpc: { status: name, message: status.message, ...(err.spec.reason ? { errorInfo: { reason: err.spec.reason } } : {}) } };
    }
    if (events) {
      const enc = grpcEventEncoder(version);
      const messages = events.flatMap((e) => enc.push(e).messages);
      if (!x.end) messages.push(...enc.end());
      return { events: messages.map((m) => toJson(method.output, m as never)), ...end };
    }
    const value = decode1_0(OPERATIONS[op].response, step.client_response.wire_payload, "response");
    return { body: toJson(method.output, encodeGrpcResponse(version, op, value as never).value as never) };
  }
  const call = callOf(version, binding, op, events !== undefined);
  if (x.error) return fromReply(encodeError(call, new A2AError(x.error)));
  if (events) {
    const stream = openStream(call);
    let frames = events.map((e) => stream.event(e).frames).join("");
    if (!x.end) frames += stream.end();
    return { status: 200, headers: { "content-type": "text/event-stream" }, events: sseEvents(frames), ...end };
  }
  return fromReply(encodeResult(call, decode1_0(OPERATIONS[op].response, step.client_response.wire_payload, "response") as never));
}

const withHeaders = (r: ClientExchange["response"], headers: Record<string, string> | undefined): ClientExchange["response"] =>
  headers ? { ...r, headers: { ...r.headers, ...headers } } : r;

/** The client case a scenario (or its variant `variant`) becomes on one pair. */
export function projectClientScenario(s: ClientScenario, pair: Pair, variant?: string): ClientCase {
  const [version, binding] = pair.split("/") as [Version, ClientCase["binding"]];
  const t = s.test;
  const { variants, ...base } = t[X];
  const { wire: variantWire, ...own } = variant ? variants![variant]! : {};
  const x: TestExtras = { ...base, ...own };
  const view = (op: Operation, params: unknown) => ({ view: { operation: op, version, binding, params: params ?? {} } });
  const opOf = (step: ClientScenarioStep) => ABSTRACT_OPERATIONS[step.client_response.operation]!;
  const steps = t.steps.filter((st) => applies(st[X]?.only, version, pair));
  const exchanges: ClientExchange[] = steps.map((st) => {
    const sx = st[X] ?? {};
    const op = opOf(st);
    const raw = pick(variantWire?.[st.id], version, pair) ?? pick(sx.wire, version, pair);
    const wire = wireRequest(version, binding, op);
    const headers = pickMaybe(sx.headers, version, pair);
    return {
      name: st.id,
      ...(sx.spec ? { spec: sx.spec } : {}),
      ...(sx.level ? { level: sx.level } : {}),
      ...(sx.optional ? { optional: true } : {}),
      request: raw?.request ?? {
        ...wire,
        ...(headers && Object.keys(headers).length ? { headers: { ...wire.headers, ...headers } } : {}),
        ...view(op, sx.request),
      },
      response: raw?.response ?? withHeaders(response(st, version, binding, op), raw?.responseHeaders),
    };
  });
  const checks = (x.checks ?? [])
    .filter((k) => applies(k.only, version, pair))
    .map(({ only: _only, request, wire, ...k }): ClientCheck => {
      if (wire) return { ...k, request: wire };
      const st = steps.find((q) => q.id === k.exchange);
      return { ...k, ...(request !== undefined && st ? { request: view(opOf(st), request) } : {}) };
    });
  const instruction = pickMaybe(x.instruction, version, pair)!;
  const title = pick(x.titles, version, pair) ?? t.name;
  const description = pick(x.descriptions, version, pair);
  const card = {
    card: pickMaybe(x.card, version, pair),
    capabilities: pickMaybe(x.capabilities, version, pair),
    tenant: pickMaybe(x.tenant, version, pair),
    interfaceUrl: pickMaybe(x.interfaceUrl, version, pair),
  };
  return {
    id: `${VERSION_DIR[version]}/${binding}/${variant ? `${s.name.slice(0, s.name.lastIndexOf("/"))}/${variant}` : s.name}`,
    file: s.file,
    title: `${version} ${BINDING_TITLE[binding]}: ${title}`,
    ...(description ? { description } : {}),
    requirements: [...new Set(joined(x.requirements, version, pair))],
    level: pick(x.levels, version, pair) ?? (t.level.toUpperCase() as Level),
    spec: joined(x.spec, version, pair),
    version,
    binding,
    ...Object.fromEntries(Object.entries(card).filter(([, v]) => v !== undefined)),
    instruction,
    exchanges,
    result: pick(x.result, version, pair) ?? {},
    ...(checks.length ? { checks } : {}),
  };
}

/** Every client scenario below `dir`, with the problems of those that do not load. */
export function loadClientScenarios(dir: string = CLIENT_SCENARIOS_DIR): { scenarios: ClientScenario[]; problems: string[] } {
  return readScenarios(dir, readClientScenario);
}

/** The cases of every client scenario: one per pair it lists. */
export function clientScenarioCases(scenarios: ClientScenario[]): ClientCase[] {
  return scenarios.flatMap((s) => [
    ...s.test[X].pairs.map((p) => projectClientScenario(s, p)),
    ...Object.entries(s.test[X].variants ?? {}).flatMap(([v, { pairs }]) => pairs.map((p) => projectClientScenario(s, p, v))),
  ]);
}
