// Runs compliance cases against an agent: selects the cases that apply to what the card
// declares (skipping the rest with the reason), executes each step over raw HTTP, matches the
// response with the case's expectations and records expected and actual wire side by side with
// the differences. Cases run a few at a time (--concurrency; 1: one after another in ID order);
// the report lists them in ID order either way, so runs are reproducible.
import type { Citation } from "./citations.js";
import type {
  Behaviour,
  CaptureCheck,
  Case,
  CaseExchange,
  CaseExpect,
  CaseRequest,
  CaseStep,
  Level,
  StepWhen,
  StreamExpect,
  Version,
  WebhookExpect,
} from "./cases.js";
import { exchangesOf } from "./cases.js";
import { globToRegExp } from "./cases.js";
import { PROTOCOL_BINDING, type AgentInterfaceInfo, type Discovery } from "./discovery.js";
import { exchange, type WireRequest, type WireResponse } from "./http.js";
import { grpcExchange, grpcMethod, grpcOrigin, type GrpcCall } from "./grpc.js";
import { Scope, deepEqual, describe, isPlainObject, match, orderKey, render, valueAt, type Diff } from "./match.js";
import { messageVars, type RunMessage } from "./message.js";
import { CLOSE_GRACE_MS, lastState } from "./stream-end.js";
import { DEFAULT_CONCURRENCY, DEFAULT_STREAM_TIMEOUT_MS, DEFAULT_TASK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from "./defaults.js";
import { messagesNeeded, pollUntil, sendPaced, sendsMessage, type MessageBudget } from "./pacing.js";
import { projectCall, streamViewOf, viewOf } from "./projection.js";
import {
  changesTask,
  expectsRefusal,
  ownTurnNeeded,
  seesOtherCases,
  shareableFirst,
  turnKey,
  withUuidPlaceholders,
  type SharedTurn,
  type SharedTurns,
} from "./turns.js";
import { invalidCredentials } from "./credentials.js";
import type { Delivery, WebhookSink } from "./webhook-sink.js";

/**
 * warn: a SHOULD or MAY failure (without --strict); it does not fail the run. inconclusive: the case
 * ran, but what the agent did left its rule untested (it answered with a Message where the case
 * needs a Task, its task did not end within the runner's patience, ...): never a failure, since
 * the spec bounds neither.
 */
export type CaseStatus = "pass" | "fail" | "warn" | "skip" | "inconclusive" | "not-offered" | "known-failing";

export interface StepResult {
  name: string;
  /** The request as sent (after variables were substituted). */
  request?: WireRequest;
  /** The expectation as written in the case. */
  expected: CaseExpect | WebhookExpect | CaptureCheck;
  /** The response as received. */
  actual?: WireResponse;
  /** Client cases: `actual` is a request the client sent; its method and path (path and query), shown with it. */
  sent?: { method: string; path: string };
  /** Webhook calls received (webhook steps). */
  deliveries?: Delivery[];
  /** The captured value a check step judged. */
  checked?: unknown;
  diffs: Diff[];
  /**
   * "not run" when an earlier step failed; "not applicable" when its `when` did not hold;
   * "inconclusive" when the agent's answer leaves the step's rule untested (`reason` says why).
   */
  status: "pass" | "fail" | "not run" | "not applicable" | "inconclusive";
  reason?: string;
  error?: string;
  /** The step's own level and citations, when it rests on another sentence than the case. */
  level?: Level;
  spec?: Citation[];
  /** Choices the spec leaves open that the agent made here: `$variants` names by JSON Pointer, the HTTP method used. */
  variants?: Record<string, string>;
  /** A `cleanup` step: it ran even after a failure, and its own failure does not change the verdict. */
  cleanup?: boolean;
  /** What the runner did beyond one exchange: 429 re-sends, polls of `repeatUntil`. */
  notes?: string[];
}

export interface CaseResult {
  id: string;
  title: string;
  version: Version;
  binding: string;
  level: Level;
  /** The case's citations (the sentences shown beside a failure). */
  spec?: Citation[];
  /** Which allowed variant the agent followed, per step and place ("cancel /status: 1.0.0"). */
  variants?: string[];
  requirements: string[];
  status: CaseStatus;
  /** The level the failure is reported at: the failing step's own level, else the case's. */
  failureLevel?: Level;
  /** Skip reason, or a one-line failure summary. */
  reason?: string;
  interface?: AgentInterfaceInfo;
  steps: StepResult[];
  durationMs: number;
}

export interface SelectOptions {
  versions?: Version[];
  bindings?: ("json-rpc" | "rest" | "grpc")[];
  /** Globs over case IDs; a case runs if any glob matches. */
  caseGlobs?: string[];
  /** Highest level to include: must = MUST only, should = MUST+SHOULD, may = all. */
  level?: "must" | "should" | "may";
}

export interface RunOptions extends RunMessage {
  /** Headers added to every request (credentials such as Authorization), unless a request says withoutCredentials. */
  headers?: Record<string, string>;
  /** Credentials of a second principal, for requests a case sends "as": "other". */
  otherHeaders?: Record<string, string>;
  /** The webhook receiver for push-delivery cases ({{webhookUrl}}). */
  webhook?: WebhookSink;
  timeoutMs?: number;
  streamTimeoutMs?: number;
  /** Bound for polling a task (`repeatUntil`) and for 429 re-sends of one request (default 120000). */
  taskTimeoutMs?: number;
  /** At most this many message-sending requests in the whole run (default unlimited). */
  maxMessages?: number;
  /** SHOULD and MAY failures fail the run too (else they are warnings). */
  strict?: boolean;
  /** Cases run at the same time (default DEFAULT_CONCURRENCY; 1: one after another, in ID order). */
  concurrency?: number;
  /**
   * Cases that open with the same message and then only read share that agent turn (turns.ts;
   * default true). runCases keeps the turns of one run in `sharedTurns`.
   */
  shareTurns?: boolean;
  sharedTurns?: SharedTurns;
  /**
   * Set by runCases for the cases that may change the task of their shared turn, which run after
   * every case that only reads it (turns.ts): the keys of the shared tasks one of them changed (a
   * changing request not refused). Such a case uses the shared task unless its key is here; then
   * it sends its own turn.
   */
  changedTurns?: Set<string>;
  onProgress?: (event: { index: number; total: number; result: CaseResult }) => void;
}

/**
 * The verdict of a case that ran: the first failing step decides it, at that step's level (else
 * the case's). A MUST failure fails; a SHOULD failure is a warning unless `strict`; a MAY failure is
 * "not offered".
 */
export function verdict(caseLevel: Level, steps: StepResult[], strict = false): Pick<CaseResult, "status" | "failureLevel" | "reason"> {
  // The strongest failure decides: a MAY check that fails first must not hide a MUST failure after it.
  const failed = steps
    .filter((s) => s.status === "fail" && !s.cleanup)
    .sort((a, b) => LEVEL_RANK[a.level ?? caseLevel] - LEVEL_RANK[b.level ?? caseLevel])[0];
  if (!failed) return { status: "pass" };
  const failureLevel = failed.level ?? caseLevel;
  const what =
    failed.error ??
    failed.diffs
      .map((x) => `${x.path || "/"} ${x.message}`)
      .slice(0, 3)
      .join("; ");
  // A MAY the agent does not offer is no defect (RFC 2119: "truly optional"): "not offered", never
  // a warning nor, even with --strict, a failure. A SHOULD not met is a warning.
  if (failureLevel === "MAY") return { status: "not-offered", failureLevel, reason: `${failed.name}: ${what}` };
  return { status: failureLevel === "MUST" || strict ? "fail" : "warn", failureLevel, reason: `${failed.name}: ${what}` };
}

const LEVEL_RANK: Record<Level, number> = { MUST: 0, SHOULD: 1, MAY: 2 };
const LIMIT_RANK = { must: 0, should: 1, may: 2 } as const;

/** Cases selected by the command-line filters (the others are not part of the run at all). */
export function selectCases(cases: Case[], opts: SelectOptions): Case[] {
  const globs = opts.caseGlobs?.map(globToRegExp);
  return cases.filter(
    (c) =>
      (!opts.versions || opts.versions.includes(c.version)) &&
      (!opts.bindings || c.binding === "any" || opts.bindings.includes(c.binding)) &&
      (!globs || globs.some((g) => g.test(c.id))) &&
      (!opts.level || LEVEL_RANK[c.level] <= LIMIT_RANK[opts.level]),
  );
}

/** Why a case cannot run against this agent, or undefined with the interface to use. */
export function applicability(
  c: Case,
  d: Discovery,
  opts: Pick<RunOptions, "otherHeaders" | "webhook"> = {},
): { skip?: string; iface?: AgentInterfaceInfo; vars?: Map<string, unknown> } {
  let iface = d.interfaces.find((i) => i.version === c.version && (c.binding === "any" || i.binding === c.binding));
  // A 1.0 card that is no card at all must not turn the card cases into skips: they run against the agent URL.
  if (!iface && c.binding === "any" && c.version === "1.0" && d.unrecognisedCard1_0)
    iface = { version: "1.0", binding: "json-rpc", url: d.agentUrl, source: "none: the 1.0 card is in neither card shape" };
  if (!iface && !d.interfaces.length && !d.card1_0 && !d.card0_3 && !d.unrecognisedCard1_0)
    return { skip: "no agent card found (the report's notes list the URLs tried)" };
  if (!iface) {
    const what = c.binding === "any" ? `${c.version} interface` : `${c.version} ${PROTOCOL_BINDING[c.binding]} interface`;
    return { skip: `binding not declared: the agent card declares no ${what}` };
  }
  const caps = d.capabilities[c.version];
  for (const need of c.capabilities) {
    const negated = need.startsWith("!");
    const name = negated ? need.slice(1) : need;
    const on = caps[name] === true;
    if (!negated && !on) return { skip: `capability absent: capabilities.${name} is not true in the ${c.version} card` };
    if (negated && on) return { skip: `capability present: the case checks an agent without capabilities.${name}` };
  }
  if (c.behaviours.length) {
    if (!d.behaviours)
      return {
        skip: `needs scripted behaviour (${c.behaviours.join(", ")}): neither the card (fixture extension) nor --profile/--behaviours claims it`,
      };
    const missing = c.behaviours.filter((b: Behaviour) => !d.behaviours!.includes(b));
    if (missing.length) return { skip: `fixture behaviour not declared by the agent: ${missing.join(", ")}` };
  }
  if (c.needsOtherPrincipal && !opts.otherHeaders) return { skip: "needs a second principal's credentials (--other-header)" };
  if (c.needsWebhook && !opts.webhook) return { skip: "needs a webhook receiver the agent can reach (--webhook-listen)" };
  const vars = new Map<string, unknown>();
  if (c.when?.card !== undefined) {
    // A precondition on the card (a required extension, declared security …); its captures seed the case.
    const card = c.version === "1.0" ? (d.card1_0 ?? d.card0_3) : (d.card0_3 ?? d.card1_0);
    const scope = new Scope(new Map());
    const diffs = match(c.when.card, card, "", scope);
    const [first] = diffs;
    if (first) return { skip: `the card does not declare what the case checks: ${first.path || "/"} ${first.message}` };
    for (const [k, v] of scope.staged) vars.set(k, v);
  }
  return { iface, vars };
}

function joinUrl(base: string, path: string, grpc: boolean): string {
  if (grpc) return grpcOrigin(base) + path; // a gRPC interface URL is host:port; the path is the method's
  if (!path) return base;
  const u = new URL(base);
  const [p, q] = path.split("?", 2) as [string, string | undefined];
  u.pathname = u.pathname.replace(/\/+$/, "") + p;
  if (q !== undefined) u.search = q;
  return u.toString();
}

function buildRequest(
  req: CaseRequest,
  baseUrl: string,
  vars: Map<string, unknown>,
  creds: Pick<RunOptions, "headers" | "otherHeaders"> & { invalidHeaders?: Record<string, string> } = {},
): WireRequest {
  const extra = (req.invalidCredentials ? creds.invalidHeaders : req.as === "other" ? creds.otherHeaders : creds.headers) ?? {};
  const path = render(req.path, vars) as string;
  const own = render(req.headers ?? {}, vars) as Record<string, string>;
  const ownNames = new Set(Object.keys(own).map((k) => k.toLowerCase()));
  const added = req.withoutCredentials ? {} : Object.fromEntries(Object.entries(extra).filter(([k]) => !ownNames.has(k.toLowerCase())));
  const headers = { ...added, ...own };
  let body: string | undefined;
  let method = req.method;
  let at = path;
  if (req.operation) {
    // A scenario step: its 1.0 params rendered, then projected onto the case's version and binding.
    const wire = projectCall({ ...req.operation, params: render(req.operation.params, vars) });
    method = wire.method;
    if (req.rpc === undefined) at = wire.path;
    if (wire.body !== undefined) body = JSON.stringify(wire.body);
  } else if (req.rawBody !== undefined) body = render(req.rawBody, vars) as string;
  else if (req.body !== undefined) body = JSON.stringify(render(req.body, vars));
  return { method, url: joinUrl(baseUrl, at, req.rpc !== undefined), headers, ...(body !== undefined ? { body } : {}) };
}

/** Compares one response with a step's expectation; captures go into scope. */
export function compareResponse(expect: CaseExpect, res: WireResponse, scope: Scope, streamTimeoutMs = 0): Diff[] {
  const diffs: Diff[] = [];
  if (res.status === 0)
    return [{ path: "", expected: "a response", actual: undefined, message: `no response: ${res.error ?? "unknown error"}` }];
  // A gRPC answer is judged as the protobuf message received, not as the JSON written from it here.
  if (res.decoded && !scope.decoded) return scope.decodedFor(() => compareResponse(expect, res, scope, streamTimeoutMs));
  if (expect.forms) {
    const { forms, ...rest } = expect;
    return [...compareResponse(rest, res, scope, streamTimeoutMs), ...compareForms(forms, res, scope, streamTimeoutMs)];
  }
  const [only, ...more] = res.events ?? [];
  if (expect.acceptSingleEventStream && expect.body !== undefined && only?.json !== undefined && !more.length)
    return match(expect.body, only.json, "/events/0", scope);
  if (expect.status !== undefined) diffs.push(...match(expect.status, res.status, "/status", scope));
  if (res.grpc) diffs.push(...match(expect.grpc ?? { status: "OK" }, res.grpc, "/grpc", scope));
  for (const [name, exp] of Object.entries(expect.headers ?? {}))
    diffs.push(...match(exp, res.headers[name.toLowerCase()], `/headers/${name.toLowerCase()}`, scope));
  // A gRPC error carries no message: the status (expected or not) says it all.
  const grpcError = res.grpc !== undefined && res.grpc.status !== "OK" && res.json === undefined && !res.events?.length;
  if (expect.body !== undefined && !grpcError) {
    if (res.events)
      diffs.push({ path: "/body", expected: "a JSON body", actual: "an SSE stream", message: "expected a JSON body, got an SSE stream" });
    else if (res.error)
      diffs.push({ path: "/body", expected: describe(expect.body), actual: undefined, message: `body not read: ${res.error}` });
    else if (res.json === undefined && isPlainObject(expect.body) && "$optional" in expect.body) {
      // `{"$optional": m}`: no JSON body at all (empty, or plain text) is allowed.
    } else if (res.json === undefined)
      diffs.push({
        path: "/body",
        expected: describe(expect.body),
        actual: res.text,
        message: res.text ? "body is not JSON" : "body is empty",
      });
    else diffs.push(...match(expect.body, res.json, "/body", scope));
  }
  if (expect.stream) diffs.push(...compareStream(expect, res, scope, streamTimeoutMs));
  if (expect.view) diffs.push(...compareView(expect.view, res, scope, streamTimeoutMs));
  return diffs;
}

/** The answer against named whole-answer forms: the first that matches entirely is chosen (recorded at "/"). */
function compareForms(forms: Record<string, CaseExpect>, res: WireResponse, scope: Scope, streamTimeoutMs: number): Diff[] {
  let closest: Diff[] | undefined;
  for (const [name, form] of Object.entries(forms)) {
    const trial = scope.fork();
    const diffs = compareResponse(form, res, trial, streamTimeoutMs);
    if (!diffs.length) {
      scope.adopt(trial);
      scope.chosen.set("/", name);
      return [];
    }
    if (!closest || diffs.length < closest.length) closest = diffs;
  }
  const names = Object.keys(forms).join("; ");
  return [
    { path: "", expected: `one of: ${names}`, actual: `HTTP ${res.status}`, message: `the answer is none of: ${names}` },
    ...(closest ?? []),
  ];
}

/** A scenario step: its expectation matched against the 1.0 view of the answer (ACTS §4.2), at /view. */
function compareView(view: NonNullable<CaseExpect["view"]>, res: WireResponse, scope: Scope, streamTimeoutMs: number): Diff[] {
  if (view.stream) {
    // The wire rules judged the stream itself (content type, envelopes, closing): here its events' 1.0 view.
    if (!res.events) return [];
    const decoded = streamViewOf(view, res.events);
    const bad = decoded.flatMap((d, i) =>
      "problem" in d
        ? [{ path: `/view/events/${i}`, expected: "a 1.0 StreamResponse", actual: res.events![i]?.data, message: d.problem }]
        : [],
    );
    if (bad.length) return bad;
    const events = decoded.map((d, i) => ({ ...res.events![i]!, json: (d as { view: unknown }).view }));
    return compareStream({ stream: { ...view.stream, closes: false } }, { ...res, events, error: undefined }, scope, streamTimeoutMs).map(
      (d) => ({
        ...d,
        path: `/view${d.path}`,
      }),
    );
  }
  if (view.body === undefined) return [];
  const decoded = viewOf(view, res);
  if ("problem" in decoded) return [{ path: "/view", expected: describe(view.body), actual: undefined, message: decoded.problem }];
  return scope.decodedFor(() => match(view.body, decoded.view, "/view", scope));
}

function compareStream(expect: CaseExpect, res: WireResponse, scope: Scope, streamTimeoutMs: number): Diff[] {
  const s = expect.stream!;
  if (!res.events) {
    return [
      {
        path: "/headers/content-type",
        expected: "text/event-stream",
        actual: res.headers["content-type"],
        message: `expected an SSE stream, got ${res.headers["content-type"] ?? "no content-type"}${res.json !== undefined ? `: ${JSON.stringify(res.json).slice(0, 200)}` : ""}`,
      },
    ];
  }
  const diffs: Diff[] = [];
  const events = res.events;
  events.forEach((e, i) => {
    if (e.parseError)
      diffs.push({ path: `/events/${i}`, expected: "JSON data", actual: e.data, message: `event data is not JSON: ${e.parseError}` });
  });
  if (res.error) diffs.push({ path: "/events", expected: "a complete stream", actual: `${events.length} event(s)`, message: res.error });
  if ((s.closes ?? true) && s.stopAfter === undefined && !res.closed && !res.error) {
    const waited = res.closingAt === undefined ? streamTimeoutMs : Math.min(CLOSE_GRACE_MS, streamTimeoutMs);
    const after = res.closingAt === undefined ? "" : ` after event ${res.closingAt} ended the task's stream`;
    diffs.push({
      path: "/events",
      expected: "the server closes the stream",
      actual: `still open${after} (waited ${waited} ms; ${events.length} event(s))`,
      message: `the stream was not closed by the server${after} (waited ${waited} ms)`,
      ...(res.closing === "interrupted" ? { openAfterInterrupted: true as const } : {}),
    });
  }
  const data = events.map((e) => e.json);
  if (s.capture) scope.staged.set(s.capture.name, s.capture.at ? data.map((d) => valueAt(d, s.capture!.at!)) : data);
  if (!events.length) {
    if (s.first !== undefined || s.last !== undefined || s.inOrder?.length || s.exactly?.length || s.endsAfter !== undefined)
      diffs.push({ path: "/events", expected: "at least one event", actual: "no events", message: "the stream carried no events" });
    return diffs;
  }
  if (s.first !== undefined) diffs.push(...match(s.first, data[0], "/events/0", scope));
  if (s.inOrder) {
    let j = 0;
    let lastHit = -1;
    for (let i = 0; i < data.length && j < s.inOrder.length; i++) {
      const trial = scope.fork();
      if (match(s.inOrder[j], data[i], `/events/${i}`, trial).length === 0) {
        scope.adopt(trial);
        lastHit = i;
        j++;
      }
    }
    if (j < s.inOrder.length) {
      diffs.push({
        path: "/events",
        expected: describe(s.inOrder[j]),
        actual: `${data.length} event(s); in-order match stopped at expectation ${j}${lastHit >= 0 ? ` after event ${lastHit}` : ""}`,
        message: `no event${lastHit >= 0 ? ` after event ${lastHit}` : ""} matches in-order expectation ${j}: ${JSON.stringify(s.inOrder[j])}`,
      });
    }
  }
  if (s.each !== undefined) data.forEach((d, i) => diffs.push(...match(s.each, d, `/events/${i}`, scope)));
  if (s.exactly) diffs.push(...match(s.exactly, data, "/events", scope));
  for (const c of s.counts ?? []) {
    const n = data.filter((d) => match(c.where, d, "", scope.fork()).length === 0).length;
    if ((c.min !== undefined && n < c.min) || (c.max !== undefined && n > c.max)) {
      const range = c.min === c.max ? `${c.min}` : `${c.min ?? 0}..${c.max ?? "∞"}`;
      diffs.push({
        path: "/events",
        expected: `${range} event(s) matching ${JSON.stringify(c.where)}`,
        actual: `${n}`,
        message: `expected ${range} event(s) matching ${JSON.stringify(c.where)}, got ${n}`,
      });
    }
  }
  if (s.last !== undefined) diffs.push(...match(s.last, data[data.length - 1], `/events/${data.length - 1}`, scope));
  if (s.sameValue) diffs.push(...sameValue(s.sameValue, data));
  if (s.nonDecreasing) diffs.push(...nonDecreasing(s.nonDecreasing, data));
  if (s.endsAfter !== undefined) diffs.push(...endsAfter(s.endsAfter, s.trailer, data, scope));
  return diffs;
}

/** The value of the first of `pointers` present in an event, with the pointer. */
function firstPresent(pointers: string[], event: unknown): { at: string; value: unknown } | undefined {
  for (const at of pointers) {
    const value = valueAt(event, at);
    if (value !== undefined) return { at, value };
  }
  return undefined;
}

/** `sameValue`: every event that has one of the pointers gives the same value as the first such event. */
function sameValue(pointers: string[], data: unknown[]): Diff[] {
  let ref: { i: number; at: string; value: unknown } | undefined;
  const diffs: Diff[] = [];
  data.forEach((e, i) => {
    const hit = firstPresent(pointers, e);
    if (!hit) return;
    if (!ref) ref = { i, ...hit };
    else if (!deepEqual(ref.value, hit.value))
      diffs.push({
        path: `/events/${i}${hit.at}`,
        expected: ref.value,
        actual: hit.value,
        message: `expected the same value as event ${ref.i} at ${ref.at} (${JSON.stringify(ref.value)}), got ${JSON.stringify(hit.value)}`,
      });
  });
  return diffs;
}

/** `nonDecreasing`: the values at the pointers (timestamps as instants) never go backwards over the events. */
function nonDecreasing(pointers: string[], data: unknown[]): Diff[] {
  let prev: { i: number; at: string; value: unknown; key: number | string } | undefined;
  for (const [i, e] of data.entries()) {
    const hit = firstPresent(pointers, e);
    if (!hit) continue;
    const key = orderKey(hit.value);
    const path = `/events/${i}${hit.at}`;
    if (key === undefined)
      return [
        { path, expected: "a timestamp or number", actual: hit.value, message: `not a timestamp or number: ${JSON.stringify(hit.value)}` },
      ];
    if (prev && (typeof prev.key !== typeof key || key < prev.key))
      return [
        {
          path,
          expected: `at least ${JSON.stringify(prev.value)} (event ${prev.i})`,
          actual: hit.value,
          message: `goes backwards: ${JSON.stringify(hit.value)} after ${JSON.stringify(prev.value)} at event ${prev.i}${prev.at}`,
        },
      ];
    prev = { i, ...hit, key };
  }
  return [];
}

/** `endsAfter` (+ `trailer`): the stream ends after the first event matching m, or after one trailer event. */
function endsAfter(m: unknown, trailer: unknown, data: unknown[], scope: Scope): Diff[] {
  const k = data.findIndex((d, i) => {
    const trial = scope.fork();
    if (match(m, d, `/events/${i}`, trial).length) return false;
    scope.adopt(trial);
    return true;
  });
  if (k < 0)
    return [
      {
        path: "/events",
        expected: describe(m),
        actual: `${data.length} event(s)`,
        message: `no event matched endsAfter ${JSON.stringify(m)}`,
      },
    ];
  const after = data.length - k - 1;
  if (after === 0) return [];
  if (after > 1 || trailer === undefined)
    return [
      {
        path: `/events/${k + 1}`,
        expected: trailer === undefined ? `the end of the stream after event ${k}` : `at most one event after event ${k}`,
        actual: `${after} more event(s)`,
        message: `the stream goes on after event ${k} (which matched endsAfter) with ${after} more event(s)${trailer === undefined ? "" : "; at most one trailer may follow"}`,
      },
    ];
  return match(trailer, data[k + 1], `/events/${k + 1}`, scope);
}
/** What a request path is relative to (CaseRequest.base). */
type BaseUrls = Record<"interface" | "agent" | "card", string>;

/** Sends one request (429s paid per pacing.ts); what happened goes into `notes`. */
async function sendOnce(
  step: CaseExchange,
  r: WireRequest,
  baseUrls: BaseUrls,
  opts: StepOptions,
  deadline: number,
  notes: string[],
): Promise<WireResponse> {
  const paced = { deadline, ...(sendsMessage(step.request) ? { budget: opts.budget } : {}) };
  const bounds = { timeoutMs: opts.timeoutMs, streamTimeoutMs: opts.streamTimeoutMs, stopAfter: step.expect.stream?.stopAfter };
  const rpc = step.request.rpc;
  const once = (x: WireRequest) =>
    rpc === undefined ? exchange(x, bounds) : grpcExchange(grpcCall(x, baseUrls.interface, opts.version, rpc, step.request), bounds);
  const { response, notes: n } = await sendPaced(once, r, paced);
  notes.push(...n);
  return response;
}

/** Sends a step's request, and with `fallbackMethod` the other verb when the first finds no route. */
async function sendStep(
  step: CaseExchange,
  first: WireRequest,
  baseUrls: BaseUrls,
  opts: StepOptions,
  deadline: number,
): Promise<Omit<SharedTurn, "uuids">> {
  const notes: string[] = [];
  const chosen: Record<string, string> = {};
  let request = first;
  let actual = await sendOnce(step, request, baseUrls, opts, deadline, notes);
  const fallback = step.request.fallbackMethod;
  if (fallback && routeMissing(actual)) {
    // The spec names two verbs for this route (prose and proto disagree): the agent may serve either.
    const { body: _body, ...bodiless } = request;
    const second: WireRequest = { ...(fallback === "GET" ? bodiless : request), method: fallback };
    const retry = await sendOnce(step, second, baseUrls, opts, deadline, notes);
    if (!routeMissing(retry)) {
      chosen.method = `${fallback} (${request.method} answered ${actual.status})`;
      request = second;
      actual = retry;
    }
  } else if (fallback) chosen.method = request.method;
  return { request, actual, notes, chosen };
}

async function runExchange(
  step: CaseExchange,
  name: string,
  baseUrls: BaseUrls,
  vars: Map<string, unknown>,
  opts: StepOptions,
): Promise<{ result: StepResult; scope?: Scope }> {
  let request: WireRequest;
  let actual: WireResponse;
  const notes: string[] = [];
  const chosen: Record<string, string> = {};
  const deadline = Date.now() + opts.taskTimeoutMs;
  const obtain = async (): Promise<SharedTurn> => {
    const built = buildRequest(step.request, baseUrls[step.request.base ?? "interface"], vars, opts);
    // A message the agent refused is not sent again by the same case: the refusal is judged again.
    const same = sendsMessage(step.request) ? JSON.stringify([built, step.request.rpc ?? null]) : undefined;
    const earlier = same === undefined ? undefined : opts.refusals?.get(same);
    const got = earlier
      ? { ...earlier, notes: [...earlier.notes, "not sent again: an earlier step of this case sent the same request, which was refused"] }
      : await sendStep(step, built, baseUrls, opts, deadline);
    if (same !== undefined && !earlier && refused(got.actual)) opts.refusals?.set(same, got);
    return { ...got, uuids: [...vars].filter(([k]) => k.startsWith("uuid:")) };
  };
  try {
    let got: SharedTurn;
    if (opts.shared) {
      // A first turn other cases share (turns.ts): the first case to get here sends it, the others read its answer.
      const { turns, key } = opts.shared;
      let turn = turns.get(key);
      if (!turn) turns.set(key, (turn = obtain()));
      got = await turn;
      for (const [k, v] of got.uuids) vars.set(k, v);
    } else got = await obtain();
    ({ request, actual } = got);
    notes.push(...got.notes);
    Object.assign(chosen, got.chosen);
  } catch (e) {
    const missing = /^variable "(.+)" was not captured/.exec((e as Error).message)?.[1];
    if (missing) return { result: { name, expected: step.expect, diffs: [], status: "inconclusive", reason: notGiven(missing) } };
    return { result: { name, expected: step.expect, diffs: [], status: "fail", error: (e as Error).message } };
  }
  const send = (r: WireRequest) => sendOnce(step, r, baseUrls, opts, deadline, notes);
  if (step.repeatUntil !== undefined) {
    const until = step.repeatUntil;
    // A scenario step polls on the 1.0 view of the answer, as its expectations are matched.
    const call = step.request.operation;
    const bodyOf = (res: WireResponse): unknown => {
      if (!call) return res.json;
      const v = viewOf(call, res);
      return "view" in v ? v.view : undefined;
    };
    const done = (res: WireResponse) => {
      const body = bodyOf(res);
      return body !== undefined && match(until, body, "/body", new Scope(vars)).length === 0;
    };
    const polled = await pollUntil(() => send(request), actual, done, deadline);
    actual = polled.response;
    if (polled.polls) notes.push(`re-sent ${polled.polls} time(s) until the body matched repeatUntil`);
    if (polled.timedOut) {
      const what = describe(until);
      const reason = `the task did not reach ${typeof what === "string" ? what : JSON.stringify(what)} within --task-timeout (${opts.taskTimeoutMs} ms)`;
      return { result: { name, request, expected: step.expect, actual, diffs: [], status: "inconclusive", notes, reason } };
    }
  }
  const untested = untestedBy(step.expect, actual, opts, request);
  if (untested && !actual.events?.length)
    return { result: { name, request, expected: step.expect, actual, diffs: [], status: "inconclusive", notes, reason: untested } };
  const scope = new Scope(vars);
  // A stream still open on a running task: what arrived is judged (its first event, each event),
  // what did not arrive yet (the last event, the order up to the end, counts) is not missing.
  const arrived = (s: StreamExpect | undefined) => ({ first: s?.first, each: s?.each, closes: false });
  const view = step.expect.view;
  const judged = untested
    ? {
        ...step.expect,
        stream: arrived(step.expect.stream),
        ...(view?.stream ? { view: { ...view, stream: arrived(view.stream) } } : {}),
      }
    : step.expect;
  const diffs = compareResponse(judged, actual, scope, opts.streamTimeoutMs);
  if (untested && !diffs.length)
    return { result: { name, request, expected: step.expect, actual, diffs, status: "inconclusive", notes, reason: untested }, scope };
  // Only values the agent never gave are missing (a contextId it did not set): nothing was judged.
  const missing = diffs.length && diffs.every((d) => d.uncaptured) ? diffs[0]?.uncaptured : undefined;
  if (missing)
    return {
      result: { name, request, expected: step.expect, actual, diffs: [], status: "inconclusive", notes, reason: notGiven(missing) },
      scope,
    };
  for (const [k, v] of scope.chosen) chosen[k] = v;
  const variants = Object.keys(chosen).length ? { variants: chosen } : {};
  const noted = notes.length ? { notes } : {};
  return {
    result: { name, request, expected: step.expect, actual, diffs, status: diffs.length ? "fail" : "pass", ...variants, ...noted },
    scope,
  };
}

/**
 * The sentences that ask a stream to close at an interrupted state. They have no keyword (1.0.1
 * §11.7), or are an example (0.3 §9.3), so they give at most SHOULD, while the closing MUST of
 * 1.0.1 §3.1.2 names the terminal states only.
 */
const CLOSES_WHEN_INTERRUPTED: Record<Version, Citation[]> = {
  "1.0": [
    {
      version: "1.0.1",
      section: "11.7",
      quote:
        "Streaming responses are simple, linearly ordered sequences: first a `Task` (or single `Message`), then zero or more status or artifact update events until the task reaches a terminal or interrupted state, at which point the stream closes.",
    },
  ],
  "0.3": [{ version: "0.3.0", section: "9.3", quote: "_(Server closes the SSE connection after the `final:true` event)._" }],
};

/**
 * A MUST step whose only complaint about a stream is that it stayed open after an interrupted
 * state is not failed at MUST: that check moves to a SHOULD result of its own (a warning), and the
 * step keeps the verdict of its other checks.
 */
function atMostShould(rs: StepResult[], level: Level, version: Version): StepResult[] {
  if (level !== "MUST") return rs;
  return rs.flatMap((r) => {
    const open = r.diffs.filter((x) => x.openAfterInterrupted);
    if (r.status !== "fail" || !open.length) return [r];
    const rest = r.diffs.filter((x) => !x.openAfterInterrupted);
    const note =
      "the stream stayed open after an interrupted state: judged at SHOULD in the next result, since the closing MUST (1.0.1 §3.1.2) names the terminal states only";
    return [
      { ...r, diffs: rest, status: rest.length || r.error ? "fail" : "pass", notes: [...(r.notes ?? []), note] },
      {
        name: `${r.name}: the stream closes at the interrupted state`,
        expected: r.expected,
        ...(r.request ? { request: r.request } : {}),
        ...(r.actual ? { actual: r.actual } : {}),
        diffs: open,
        status: "fail",
        level: "SHOULD",
        spec: CLOSES_WHEN_INTERRUPTED[version],
      },
    ];
  });
}

/** The reason of a step that needs a value the agent's earlier answers did not give. */
function notGiven(variable: string): string {
  return `the agent's earlier answers gave no ${variable}, which this step needs`;
}

/**
 * Why an answer leaves the step untested (undefined: it does not): the agent did not answer
 * within --timeout, or a stream was still open at --stream-timeout with no event that ends it
 * (stream-end.ts), so what the step expects of its end (endsAfter, last, counts) has not come yet. No spec sentence bounds how long an agent may work.
 */
function untestedBy(expect: CaseExpect, res: WireResponse, opts: StepOptions, req: WireRequest): string | undefined {
  if (!res.timedOut) return undefined;
  // A send that asked to return at once is bounded: 1.0.1 §3.2.2 "The operation MUST return
  // immediately after creating the task" (0.3: blocking false). Its timeout stays a failure.
  if (!res.events) return asksToReturnAtOnce(req.body) ? undefined : `the agent did not answer within --timeout (${opts.timeoutMs} ms)`;
  const s = expect.stream;
  if (!s || s.stopAfter !== undefined || res.closingAt !== undefined || res.error) return undefined;
  const state = lastState(res.events);
  return `the stream was still open after --stream-timeout (${opts.streamTimeoutMs} ms) with the task ${state ? `still ${state}` : "not ended"}: it must close only once the task ends (1.0.1 §3.1.2)`;
}

/** Whether a request body is a send with returnImmediately (1.0) or blocking: false (0.3), any binding. */
function asksToReturnAtOnce(body: string | undefined): boolean {
  if (body === undefined) return false;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return false;
  }
  const params = isPlainObject(json) && isPlainObject(json.params) ? json.params : json;
  const conf = isPlainObject(params) ? params.configuration : undefined;
  return isPlainObject(conf) && (conf.returnImmediately === true || conf.blocking === false);
}

/** The gRPC call a built request stands for: its headers are the metadata, its body the ProtoJSON (or base64) message. */
function grpcCall(x: WireRequest, target: string, version: Version, rpc: string, req: CaseRequest): GrpcCall {
  const method = grpcMethod(version, rpc)!; // the loader checked the name
  const message = x.body === undefined ? {} : req.rawBody !== undefined ? { rawBody: x.body } : { body: JSON.parse(x.body) as unknown };
  return { target, version, method, metadata: x.headers, ...message };
}

/**
 * A 405, or a 404 that is not an A2A error (no AIP-193 `error` object, no `code`): the server has
 * no such route for this method, as opposed to a TaskNotFoundError.
 */
function routeMissing(res: WireResponse): boolean {
  if (res.status === 405) return true;
  if (res.status !== 404) return false;
  const j = res.json;
  return !(isPlainObject(j) && (isPlainObject(j.error) || j.code !== undefined));
}

type StepOptions = Required<Pick<RunOptions, "timeoutMs" | "streamTimeoutMs" | "taskTimeoutMs">> &
  Pick<RunOptions, "headers" | "otherHeaders" | "webhook"> & {
    runId?: string;
    budget?: MessageBudget;
    version: Version;
    /** This step is a first turn other cases share: the run's turns and its key (turns.ts). */
    shared?: { turns: SharedTurns; key: string };
    /** Credentials no server issued, for the card's declared schemes (credentials.ts). */
    invalidHeaders?: Record<string, string>;
    /** The case's message requests the agent refused, by the request as sent, with their answers. */
    refusals?: Map<string, Omit<SharedTurn, "uuids">>;
  };

async function awaitWebhook(w: WebhookExpect, name: string, vars: Map<string, unknown>, opts: StepOptions): Promise<StepResult> {
  const sink = opts.webhook;
  const runId = opts.runId ?? "";
  if (!sink) return { name, expected: w, diffs: [], status: "fail", error: "no webhook receiver (--webhook-listen)" };
  const accept = (d: Delivery) => match(w.until, d.json, "", new Scope(vars)).length === 0;
  const arrived = await sink.waitFor(runId, accept, opts.streamTimeoutMs);
  const deliveries = sink.deliveries(runId);
  const scope = new Scope(vars);
  const diffs: Diff[] = [];
  if (!arrived)
    diffs.push({
      path: "/deliveries",
      expected: describe(w.until),
      actual: `${deliveries.length} delivery(ies)`,
      message: `no webhook call matching ${JSON.stringify(w.until)} within ${opts.streamTimeoutMs} ms (${deliveries.length} received)`,
    });
  else match(w.until, deliveries.find(accept)?.json, "", scope); // captures from the awaited call
  deliveries.forEach((d, i) => {
    const at = `/deliveries/${i}`;
    if (w.each?.method !== undefined) diffs.push(...match(w.each.method, d.method, `${at}/method`, scope));
    for (const [h, exp] of Object.entries(w.each?.headers ?? {}))
      diffs.push(...match(exp, d.headers[h.toLowerCase()], `${at}/headers/${h.toLowerCase()}`, scope));
    if (w.each?.body !== undefined) {
      if (d.json === undefined)
        diffs.push({ path: `${at}/body`, expected: describe(w.each.body), actual: d.text, message: "webhook body is not JSON" });
      else diffs.push(...match(w.each.body, d.json, `${at}/body`, scope));
    }
  });
  if (!diffs.length) for (const [k, v] of scope.staged) vars.set(k, v);
  // The choices of all calls at one place, named once ("/deliveries/*/headers/content-type": "1.0.1").
  const names = new Map<string, string[]>();
  for (const [at, v] of scope.chosen) {
    const key = at.replace(/^\/deliveries\/\d+/, "/deliveries/*");
    const seen = names.get(key) ?? [];
    if (!seen.includes(v)) names.set(key, [...seen, v]);
  }
  const variants = names.size ? { variants: Object.fromEntries([...names].map(([k, v]) => [k, v.join(" and ")])) } : {};
  return { name, expected: w, deliveries, diffs, status: diffs.length ? "fail" : "pass", ...variants };
}

/** A check step: the captured value against its matcher; a value the agent never gave leaves it untested. */
function checkCaptured(c: CaptureCheck, name: string, vars: Map<string, unknown>): StepResult {
  const scope = new Scope(vars);
  const diffs = match(c.matches, vars.get(c.capture), `/${c.capture}`, scope);
  const missing = vars.has(c.capture) ? diffs.find((d) => d.uncaptured)?.uncaptured : c.capture;
  if (missing) return { name, expected: c, diffs: [], status: "inconclusive", reason: notGiven(missing) };
  if (!diffs.length) for (const [k, v] of scope.staged) vars.set(k, v);
  return { name, expected: c, checked: vars.get(c.capture), diffs, status: diffs.length ? "fail" : "pass" };
}

/** What a step that sends nothing itself expects (a webhook wait, a check); undefined for exchanges. */
function ownExpectation(step: CaseStep): WebhookExpect | CaptureCheck | undefined {
  if ("awaitWebhook" in step) return step.awaitWebhook;
  if ("check" in step) return step.check;
  return undefined;
}

/** Runs one step (one exchange, a parallel group, a webhook wait or a check); captures are kept only when everything matched. */
export async function runStep(
  step: CaseStep,
  index: number,
  baseUrls: BaseUrls,
  vars: Map<string, unknown>,
  opts: StepOptions,
): Promise<StepResult[]> {
  const name = step.name ?? `step ${index + 1}`;
  if ("awaitWebhook" in step) return [await awaitWebhook(step.awaitWebhook, name, vars, opts)];
  if ("check" in step) return [checkCaptured(step.check, name, vars)];
  const group = "parallel" in step ? step.parallel.map((x, j) => ({ x, name: `${name} [${x.name ?? j + 1}]` })) : [{ x: step, name }];
  const outcomes = await Promise.all(group.map((g) => runExchange(g.x, g.name, baseUrls, vars, opts)));
  // A stream that only stayed open after an interrupted state gave its values all the same (atMostShould).
  const matched = (r: StepResult) =>
    r.status === "pass" || (r.status === "fail" && !r.error && r.diffs.every((x) => x.openAfterInterrupted));
  if (outcomes.every((o) => matched(o.result))) for (const o of outcomes) for (const [k, v] of o.scope?.staged ?? []) vars.set(k, v);
  return outcomes.map((o) => o.result);
}

/** What a result says of its case before anything ran (server and client cases alike). */
export function resultHead(
  c: Pick<Case, "id" | "title" | "version" | "binding" | "level" | "spec" | "requirements">,
): Omit<CaseResult, "status" | "steps" | "durationMs"> {
  return {
    id: c.id,
    title: c.title,
    version: c.version,
    binding: c.binding,
    level: c.level,
    ...(c.spec ? { spec: c.spec } : {}),
    requirements: c.requirements,
  };
}
/** Notes on each first step that read a turn other cases read too (how many cases it served). */
function noteSharedTurns(results: CaseResult[], keys: (string | undefined)[]): void {
  const readers = (k: string | undefined) => results.filter((r, i) => keys[i] === k && r.steps[0]?.actual).length;
  results.forEach((r, i) => {
    const n = keys[i] === undefined ? 0 : readers(keys[i]);
    const first = r.steps[0];
    if (n > 1 && first?.actual)
      first.notes = [
        ...(first.notes ?? []),
        `one agent turn for ${n} cases that open with this message and then only read; each judges the answer`,
      ];
  });
}

/**
 * What a case needs before it runs: why it is skipped, else its interface, its variables (card
 * captures, the run message) and the key of its first turn when other cases may share it.
 */
function prepareCase(
  c: Case,
  d: Discovery,
  opts: RunOptions,
): { skip?: string; iface?: AgentInterfaceInfo; vars: Map<string, unknown>; key?: string } {
  const { skip, iface, vars: seeded } = applicability(c, d, opts);
  const vars = seeded ?? new Map<string, unknown>();
  if (skip || !iface) return { skip, vars };
  // A scenario's params are 1.0 ProtoJSON whatever the pair: its message parts too (a wire scenario's raw steps are the pair's own).
  const spelling = c.scenario && !c.wire ? (["1.0", "json-rpc"] as const) : ([c.version, iface.binding] as const);
  for (const [k, v] of messageVars(opts, ...spelling)) if (!vars.has(k)) vars.set(k, v);
  // With --max-messages a case's cost must be known before it runs: it shares only a turn it never re-sends.
  const first =
    opts.shareTurns !== false && opts.sharedTurns && (opts.maxMessages === undefined || ownTurnNeeded(c, () => true) === false)
      ? shareableFirst(c)
      : undefined;
  const key = first && firstTurnKey(first, c.version, { interface: iface.url, agent: d.agentUrl, card: d.cardUrl }, vars, opts);
  return { iface, vars, ...(key !== undefined ? { key } : {}) };
}

/** `budget`: what --max-messages leaves (runCases shares one across the run; default: opts.maxMessages for this case alone). */
export async function runCase(
  c: Case,
  d: Discovery,
  opts: RunOptions = {},
  budget: MessageBudget = { left: opts.maxMessages ?? Infinity },
): Promise<CaseResult> {
  const started = Date.now();
  const base = resultHead(c);
  const { skip, iface, vars, key } = prepareCase(c, d, opts);
  if (skip || !iface) return { ...base, status: "skip", reason: skip, steps: [], durationMs: 0 };
  const shared = key !== undefined && opts.sharedTurns ? { turns: opts.sharedTurns, key } : undefined;
  // A turn another case already took costs no message.
  const needed = messagesNeeded(c) - (shared?.turns.has(shared.key) ? 1 : 0);
  if (needed > budget.left)
    return {
      ...base,
      status: "skip",
      reason: `needs ${needed} messages; --max-messages budget left: ${budget.left}`,
      steps: [],
      durationMs: 0,
    };
  budget.reserved = needed;
  const steps: StepResult[] = [];
  const runId = crypto.randomUUID();
  if (opts.webhook) vars.set("webhookUrl", opts.webhook.urlFor(runId));
  const timeouts: StepOptions = {
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    streamTimeoutMs: opts.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS,
    taskTimeoutMs: opts.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS,
    budget,
    headers: opts.headers,
    otherHeaders: opts.otherHeaders,
    webhook: opts.webhook,
    runId,
    version: c.version,
    invalidHeaders: invalidCredentials(c.version === "1.0" ? (d.card1_0 ?? d.card0_3) : (d.card0_3 ?? d.card1_0)),
    refusals: new Map(),
  };
  // A case stops at its first failing step of its highest level only: a SHOULD or MAY step that
  // fails does not keep a later MUST step from running (and from failing the case).
  const top = Math.min(LEVEL_RANK[c.level], ...c.steps.map((st) => LEVEL_RANK[st.level ?? c.level]));
  let failed: StepResult | undefined;
  let stopped = false;
  /** The key of the shared turn this case changes instead of sending its own (opts.changedTurns). */
  let changer: string | undefined;
  // The agent's answer left the rule untested (inconclusive): later steps do not run.
  let untested: string | undefined;
  for (const [i, step] of c.steps.entries()) {
    if ((stopped || untested) && !step.cleanup) {
      const expected = ownExpectation(step);
      if (expected) steps.push({ name: step.name ?? `step ${i + 1}`, expected, diffs: [], status: "not run" });
      for (const x of exchangesOf(step))
        steps.push({ name: x.name ?? step.name ?? `step ${i + 1}`, expected: x.expect, diffs: [], status: "not run" });
      continue;
    }
    const unmet =
      (step.when && unmetCondition(step.when, vars)) ||
      (exchangesOf(step).some((x) => x.request.invalidCredentials) && !Object.keys(timeouts.invalidHeaders ?? {}).length
        ? "the card declares no security scheme whose credentials go in a header"
        : undefined);
    if (unmet) {
      // otherwise.skip ends the case as inconclusive (its cleanup steps still run); else the step does not apply.
      const reason = !step.cleanup && step.otherwise ? renderReason(step.otherwise.skip, vars) : undefined;
      if (reason) untested = reason;
      else steps.push(...notApplicable(step, i, unmet));
      continue;
    }
    const own = {
      ...(step.level ? { level: step.level } : {}),
      ...(step.spec ? { spec: step.spec } : {}),
      ...(step.cleanup ? { cleanup: true } : {}),
    };
    const stepOpts = i === 0 && shared ? { ...timeouts, shared } : timeouts;
    const urls = { interface: iface.url, agent: d.agentUrl, card: d.cardUrl };
    const before = i === 0 && shared ? new Map(vars) : undefined;
    let ran = (await runStep(step, i, urls, vars, stepOpts)).map((r) => ({ ...r, ...own }));
    const changes = before && ownTurnNeeded(c, (w) => !unmetCondition(w, vars));
    // Every reader of the shared turn is done (runCases): the first case to change it may use it.
    if (changes && opts.changedTurns && !opts.changedTurns.has(shared!.key)) changer = shared!.key;
    else if (changes) {
      // The shared answer is one this case would change (turns.ts): it sends its own first message.
      vars.clear();
      for (const [k, v] of before) vars.set(k, v);
      ran = (await runStep(step, i, urls, vars, timeouts)).map((r) => ({
        ...r,
        ...own,
        notes: [...(r.notes ?? []), "the shared first answer is one this case changes: the case sent its own"],
      }));
    }
    const rs = atMostShould(ran, step.level ?? c.level, c.version);
    steps.push(...rs);
    // A request the agent refused changed nothing: the shared task stays as the readers saw it.
    if (changer !== undefined && i > 0 && exchangesOf(step).some((x) => changesTask(x.request)) && !rs.every((r) => refused(r.actual)))
      opts.changedTurns?.add(changer);
    if (step.cleanup) continue;
    const failure = rs.find((r) => r.status === "fail");
    failed ??= failure;
    if (failure && LEVEL_RANK[failure.level ?? c.level] <= top) stopped = true;
    untested ??= rs.find((r) => r.status === "inconclusive")?.reason;
  }
  if (untested && !failed)
    return { ...base, status: "inconclusive", reason: untested, interface: iface, steps, durationMs: Date.now() - started };
  const variants = steps.flatMap((st) => Object.entries(st.variants ?? {}).map(([at, name]) => `${st.name} ${at}: ${name}`));
  const checks = steps.filter((st) => !st.cleanup);
  if (checks.every((st) => st.status === "not applicable"))
    return {
      ...base,
      status: "skip",
      reason: `no step applied (${checks[0]?.reason ?? "no steps"})`,
      interface: iface,
      steps,
      durationMs: Date.now() - started,
    };
  return {
    ...base,
    ...verdict(c.level, steps, opts.strict),
    ...(variants.length ? { variants } : {}),
    interface: iface,
    steps,
    durationMs: Date.now() - started,
  };
}

/** Answers that say "not now" rather than "not this request": trying again may be answered otherwise. */
const TRANSIENT_GRPC = new Set(["CANCELLED", "UNKNOWN", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED", "INTERNAL", "UNAVAILABLE"]);

/**
 * Whether an answer refuses its request for what it is (so it changed nothing): a 4xx other than
 * 408 and 429, a JSON-RPC error, a gRPC status other than OK and the transient ones.
 */
function refused(a: WireResponse | undefined): boolean {
  if (!a || a.error !== undefined || a.timedOut) return false;
  if (a.grpc) return a.grpc.status !== undefined && a.grpc.status !== "OK" && !TRANSIENT_GRPC.has(a.grpc.status);
  if (a.status === 408 || a.status === 429 || a.status >= 500) return false;
  if (a.status >= 400) return true;
  const bodies = a.events ? a.events.map((e) => e.json) : [a.json];
  return bodies.length > 0 && bodies.every((b) => isPlainObject(b) && isPlainObject(b.error));
}

/** The key of a first turn other cases may share (turns.ts); undefined when it cannot be rendered yet. */
function firstTurnKey(
  x: CaseExchange,
  version: Version,
  baseUrls: BaseUrls,
  vars: Map<string, unknown>,
  opts: RunOptions,
): string | undefined {
  try {
    return turnKey(x, version, buildRequest(x.request, baseUrls[x.request.base ?? "interface"], withUuidPlaceholders(x, vars), opts));
  } catch {
    return undefined;
  }
}

/** Why a step's `when` does not hold (undefined: it holds). */
export function unmetCondition(w: StepWhen, vars: ReadonlyMap<string, unknown>): string | undefined {
  if (w.captured !== undefined && !vars.has(w.captured)) return `when: "${w.captured}" was not captured`;
  if (w.notCaptured !== undefined && vars.has(w.notCaptured)) return `when: "${w.notCaptured}" was captured`;
  if (w.capture !== undefined) {
    if (!vars.has(w.capture)) return `when: "${w.capture}" was not captured`;
    const value = vars.get(w.capture);
    if (match(w.matches, value, "", new Scope(vars)).length)
      return `when: "${w.capture}" is ${JSON.stringify(value)}, not ${JSON.stringify(describe(w.matches))}`;
  }
  return undefined;
}

function renderReason(reason: string, vars: Map<string, unknown>): string {
  try {
    return String(render(reason, vars));
  } catch {
    return reason;
  }
}

/** The results of a step whose `when` did not hold. */
function notApplicable(step: CaseStep, i: number, reason: string): StepResult[] {
  const name = step.name ?? `step ${i + 1}`;
  const expected = ownExpectation(step);
  if (expected) return [{ name, expected, diffs: [], status: "not applicable", reason }];
  return exchangesOf(step).map((x, j) => ({
    name: "parallel" in step ? `${name} [${x.name ?? j + 1}]` : name,
    expected: x.expect,
    diffs: [],
    status: "not applicable" as const,
    reason,
  }));
}

/**
 * Runs the cases, `concurrency` at a time (an agent's turns take seconds; the cases are
 * independent: each has its own ids, contexts and tasks). Results come back in case order
 * whatever the order they finish in. A --max-messages budget runs them one at a time, in order,
 * so which case the budget runs out on does not depend on timing. Cases that may change the task
 * of a shared turn run after its readers, those of one turn one at a time (turns.ts). Cases that
 * list tasks run last, alone (seesOtherCases). `budget.sent` counts the messages sent.
 */
export async function runCases(
  cases: Case[],
  d: Discovery,
  opts: RunOptions = {},
  budget: MessageBudget = { left: opts.maxMessages ?? Infinity },
): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array<CaseResult>(cases.length);
  const width = opts.maxMessages === undefined ? Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY) : 1;
  // One map of shared first turns for the whole run (turns.ts).
  if (opts.shareTurns !== false) opts = { ...opts, sharedTurns: opts.sharedTurns ?? new Map() };
  let finished = 0;
  // The key of each case's shared first turn (turns.ts), and the turns whose first case is still running.
  const keys = cases.map((c) => (opts.sharedTurns ? prepareCase(c, d, opts).key : undefined));
  const started = new Set<string>();
  const pending = new Set<string>();
  const runAll = async (indices: number[], n: number) => {
    const queue = [...indices];
    const deferred: number[] = [];
    // The next case in ID order, passing over (for now) a case whose turn another case is still
    // waiting for: the workers send distinct turns side by side instead of waiting on one.
    const take = (): number | undefined => {
      while (queue.length) {
        const i = queue.shift()!;
        const k = keys[i];
        if (n > 1 && k !== undefined && pending.has(k)) deferred.push(i);
        else return i;
      }
      return deferred.shift();
    };
    const worker = async () => {
      for (let i = take(); i !== undefined; i = take()) {
        const k = keys[i];
        const owns = k !== undefined && !started.has(k);
        if (owns) {
          started.add(k);
          pending.add(k);
        }
        const result = await runCase(cases[i]!, d, opts, budget);
        if (owns) pending.delete(k);
        results[i] = result;
        opts.onProgress?.({ index: finished++, total: cases.length, result });
      }
    };
    await Promise.all(Array.from({ length: Math.min(n, indices.length) }, worker));
  };
  const all = cases.map((_, i) => i);
  const alone = width > 1 ? all.filter((i) => seesOtherCases(cases[i]!)) : [];
  // Cases that may change the task of their shared turn run after all that only read it (turns.ts).
  const after = all.filter((i) => keys[i] !== undefined && !alone.includes(i) && ownTurnNeeded(cases[i]!, () => true));
  // Cases that poll a task may wait up to --task-timeout: they start first, so the wait overlaps the other cases.
  const polls = (i: number) => cases[i]!.steps.flatMap(exchangesOf).some((x) => x.repeatUntil !== undefined);
  const pooled = all.filter((i) => !alone.includes(i) && !after.includes(i));
  await runAll(width > 1 ? [...pooled.filter(polls), ...pooled.filter((i) => !polls(i))] : pooled, width);
  // Those of one turn one at a time, in ID order (so which one changes it does not depend on timing),
  // those whose changes are to be refused first: a refusal leaves the shared task to the next case.
  const groups = new Map<string, number[]>();
  const refusalFirst = [...after.filter((i) => expectsRefusal(cases[i]!)), ...after.filter((i) => !expectsRefusal(cases[i]!))];
  for (const i of refusalFirst) groups.set(keys[i]!, [...(groups.get(keys[i]!) ?? []), i]);
  const queue = [...groups.values()];
  opts = { ...opts, changedTurns: new Set() };
  await Promise.all(
    Array.from({ length: Math.min(width, queue.length) }, async () => {
      for (let group = queue.shift(); group; group = queue.shift()) await runAll(group, 1);
    }),
  );
  opts = { ...opts, changedTurns: undefined };
  await runAll(alone, 1);
  noteSharedTurns(results, keys);
  return results;
}
