// The ACTS executor: one test (§3.2) on one binding of the agent. Abstract operations (§4.1) go
// through the client seam (src/transport/client.ts encodeCall / decodeReply / decodeStreamEvent
// for JSON-RPC and HTTP+JSON, src/transport/grpc-client.ts for gRPC); assertions run on the
// decoded 1.0 object as ProtoJSON (§4.2). Raw steps (§4.4) go out as written, on the HTTP
// bindings only.
//
//   applicability(test, ctx)   → why the test does not run here (transport filter, preconditions
//                                §12.5, runner requirements, client steps), or undefined
//   runActsTest(spec, ctx)     → ActsTestResult: per step pass/fail/skip/error with failure details
//
// What a runner must choose and ACTS leaves open, chosen here:
//   - gRPC has no HTTP status: a call that ends OK counts as `status: 200` (§6.1's default).
//   - A stream event (§7) is seen as its StreamResponse ProtoJSON plus the §7 spellings of its
//     payload (`status_update`, `artifact_update`) plus the payload's own members, so that
//     `final_event: {status: …}` reads a Task and a status update alike.
//   - expect_error (§6.2) compares the A2A error the seam decoded (by code, reason or status, as
//     the A2A specification maps them: it takes precedence over the §6.2 table) with error_type.
//   - `{{step.response}}` is the step's assertion root (its raw body for raw steps).
import { randomUUID } from "node:crypto";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { DescMessage } from "@bufbuild/protobuf";
import * as pb from "../../../generated/v1_0/a2a_pb.js";
import { alwaysEmit } from "../../../generated/v1_0/protojson-overrides.js";
import { decode, encode } from "../../runtime/protojson.js";
import { decodeReply, decodeStreamEvent, encodeCall, NotA2AReplyError, type TargetLike } from "../../transport/client.js";
import { GrpcStatusError, grpcStream, grpcUnary } from "../../transport/grpc-client.js";
import { parseAgentCard } from "../../versioning/card.js";
import { encodeGrpcRequest } from "../../versioning/grpc.js";
import { exchange, type WireResponse } from "../http.js";
import { isPlainObject } from "../match.js";
import { sendsMessage } from "../pacing.js";
import { check, interpolate, pathValue, pathValues, untilHolds, UnresolvedVariableError, type ActsFailure, type Vars } from "./assert.js";

export type ActsBinding = "jsonrpc" | "rest" | "grpc";
export const ACTS_BINDINGS: readonly ActsBinding[] = ["jsonrpc", "rest", "grpc"];
/** The transport layer's name of each ACTS binding. */
const TRANSPORT_BINDING = { jsonrpc: "JSONRPC", rest: "HTTP+JSON" } as const;

type Op = Parameters<typeof encodeCall>[1];

/** §4.1 operation → the operation of the seam and the schemas of its request and answer. */
const OPERATIONS: Record<string, { op: Op; request: DescMessage; response: DescMessage; streaming?: true }> = {
  send_message: { op: "SendMessage", request: pb.SendMessageRequestSchema, response: pb.SendMessageResponseSchema },
  send_streaming_message: {
    op: "SendStreamingMessage",
    request: pb.SendMessageRequestSchema,
    response: pb.StreamResponseSchema,
    streaming: true,
  },
  get_task: { op: "GetTask", request: pb.GetTaskRequestSchema, response: pb.TaskSchema },
  list_tasks: { op: "ListTasks", request: pb.ListTasksRequestSchema, response: pb.ListTasksResponseSchema },
  cancel_task: { op: "CancelTask", request: pb.CancelTaskRequestSchema, response: pb.TaskSchema },
  subscribe_to_task: {
    op: "SubscribeToTask",
    request: pb.SubscribeToTaskRequestSchema,
    response: pb.StreamResponseSchema,
    streaming: true,
  },
  get_extended_agent_card: { op: "GetExtendedAgentCard", request: pb.GetExtendedAgentCardRequestSchema, response: pb.AgentCardSchema },
  create_push_config: {
    op: "CreateTaskPushNotificationConfig",
    request: pb.TaskPushNotificationConfigSchema,
    response: pb.TaskPushNotificationConfigSchema,
  },
  get_push_config: {
    op: "GetTaskPushNotificationConfig",
    request: pb.GetTaskPushNotificationConfigRequestSchema,
    response: pb.TaskPushNotificationConfigSchema,
  },
  list_push_configs: {
    op: "ListTaskPushNotificationConfigs",
    request: pb.ListTaskPushNotificationConfigsRequestSchema,
    response: pb.ListTaskPushNotificationConfigsResponseSchema,
  },
  delete_push_config: {
    op: "DeleteTaskPushNotificationConfig",
    request: pb.DeleteTaskPushNotificationConfigRequestSchema,
    response: EmptySchema,
  },
};

/** §6.2 names whose A2A 1.0 name differs (the A2A specification's table decides, §6.2 note). */
const ERROR_NAMES: Record<string, string> = {
  ExtendedCardNotSupportedError: "ExtendedAgentCardNotConfiguredError",
  StreamingNotSupportedError: "UnsupportedOperationError",
};

export interface ActsContext {
  binding: ActsBinding;
  /**
   * The interface's A2A version (default 1.0). On 0.3 the abstract operations go through the
   * translation layer (the client seam encodes the 1.0 request for 0.3 and decodes the answer to its
   * 1.0 view); a step 0.3 cannot express skips the test with its loss register row (LOSSY.md).
   */
  version?: "1.0" | "0.3";
  /** The interface URL the card declares for the binding (gRPC: host:port or a URL). */
  url: string;
  /** The agent card (1.0 shape) and where it was read. */
  card: Record<string, unknown>;
  cardUrl: string;
  /** Headers sent with every abstract operation (credentials); raw steps send only their own. */
  headers?: Record<string, string>;
  timeoutMs: number;
  streamTimeoutMs: number;
  env?: Record<string, string | undefined>;
  /** Waits (delay_ms, repeat); tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Counts the messages the steps send (the report's "messages sent"), shared by the interfaces of a run. */
  sent?: { messages: number };
}

export interface ActsTestSpec {
  file: string;
  suite: { id: string; name: string };
  test: Record<string, unknown>;
  /** The document's `variables`. */
  variables: Record<string, string>;
  /** sha256 of the test as published (load.ts canonicalHash). */
  hash: string;
}

export type ActsResult = "pass" | "fail" | "skip" | "error";

/** §13.3 failure-detail. */
export interface ActsFailureDetail {
  message: string;
  step_id?: string;
  expected?: string;
  actual?: string;
  assertion_path?: string;
}

export interface ActsStepResult {
  id: string;
  result: ActsResult;
  duration_ms: number;
  failure?: ActsFailureDetail;
}

export interface ActsTestResult {
  id: string;
  name: string;
  level: "must" | "should" | "may";
  result: ActsResult;
  duration_ms: number;
  skip_reason?: string;
  failure?: ActsFailureDetail;
  steps?: ActsStepResult[];
}

/** What one step got back. */
interface Outcome {
  /** HTTP status (gRPC: 200 for OK, undefined for an error status). */
  status?: number;
  /** The assertion root (§4.2) of a successful answer. */
  root?: unknown;
  /** Streams: each event's view (§7). */
  events?: unknown[];
  /** The A2A error the call ended with (a stream's error too). */
  error?: { type: string; message: string; details: Record<string, unknown> };
  /** The answer is no A2A answer (not JSON, a broken envelope, no connection …). */
  problem?: string;
}

const stringify = (v: unknown) => (v === undefined ? "absent" : typeof v === "string" ? v : JSON.stringify(v));

function detail(f: ActsFailure, stepId?: string): ActsFailureDetail {
  return {
    message: f.message,
    ...(stepId ? { step_id: stepId } : {}),
    ...(f.expected !== undefined ? { expected: stringify(f.expected) } : {}),
    ...("actual" in f ? { actual: stringify(f.actual) } : {}),
    ...(f.path ? { assertion_path: f.path } : {}),
  };
}

const failure = (message: string, path = ""): ActsFailure => ({ message, path });

// ---- applicability ----

function equalJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Why the test is not run on this binding and agent, or undefined. */
export function applicability(test: Record<string, unknown>, ctx: Pick<ActsContext, "binding" | "card" | "version">): string | undefined {
  const steps = (test.steps as Record<string, unknown>[]) ?? [];
  if (steps.some((s) => "client_response" in s)) return "client test (§10): it judges a client's parsing, not a server";
  const transport = test.transport as string[] | undefined;
  if (transport && !transport.includes(ctx.binding)) return `transport filter [${transport.join(", ")}] (§12.3): not run on ${ctx.binding}`;
  if (ctx.binding === "grpc" && steps.some((s) => "raw" in s)) return "raw HTTP step (§4.4): not run on the gRPC binding";
  if (ctx.version === "0.3" && steps.some((s) => "raw" in s))
    return "raw step (§4.4) written for the 1.0 wire (its methods, paths and A2A-Version): not sent to a 0.3 interface";
  const requirements = test.runner_requirements as string[] | undefined;
  if (requirements?.length) return `runner requirement ${requirements.join(", ")} (§3.2): not provided by this runner`;
  const pre = test.preconditions as Record<string, unknown> | undefined;
  if (!pre) return undefined;
  const caps = isPlainObject(ctx.card.capabilities) ? ctx.card.capabilities : {};
  for (const [name, want] of Object.entries((pre.capabilities as Record<string, unknown>) ?? {})) {
    const have = caps[name];
    const met = want === false ? have === undefined || have === false : equalJson(have, want);
    if (!met) return `precondition capabilities.${name}: ${JSON.stringify(want)} (§12.5): the card has ${stringify(have)}`;
  }
  const skills = Array.isArray(ctx.card.skills) ? (ctx.card.skills as { id?: unknown }[]).map((s) => s.id) : [];
  for (const s of (pre.skills as { id: string }[]) ?? [])
    if (!skills.includes(s.id)) return `precondition skill ${s.id} (§12.5): not in the card`;
  const extensions = Array.isArray(caps.extensions) ? (caps.extensions as { uri?: unknown }[]).map((e) => e.uri) : [];
  for (const uri of (pre.extensions as string[]) ?? [])
    if (!extensions.includes(uri)) return `precondition extension ${uri} (§12.5): not in the card`;
  const preTransport = pre.transport as string[] | undefined;
  if (preTransport && !preTransport.includes(ctx.binding))
    return `precondition transport [${preTransport.join(", ")}] (§12.5): not ${ctx.binding}`;
  return undefined;
}

// ---- requests ----

function requestJson(operation: string, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  // §4.3 / §12.4: a message without messageId gets one.
  if (isPlainObject(out.message) && out.message.messageId === undefined) out.message = { ...out.message, messageId: randomUUID() };
  // §4.3 spells a push config as {taskId, pushNotificationConfig}; 1.0 has it flat (TaskPushNotificationConfig).
  if (operation === "create_push_config" && isPlainObject(out.pushNotificationConfig)) {
    const { pushNotificationConfig, ...rest } = out;
    return { ...pushNotificationConfig, ...rest };
  }
  return out;
}

function a2aErrorOf(e: unknown): Outcome["error"] | undefined {
  if (!(e instanceof Error) || !("spec" in e) || typeof (e as { type?: unknown }).type !== "string") return undefined;
  const err = e as unknown as Error & { type: string; metadata?: Record<string, string>; details?: Record<string, unknown>[] };
  return { type: err.type, message: err.message, details: { ...(err.metadata ?? {}), details: err.details ?? [] } };
}

function outcomeOfError(e: unknown): Outcome {
  const a2a = a2aErrorOf(e);
  if (a2a) return { error: a2a };
  if (e instanceof GrpcStatusError) return { problem: `gRPC status ${e.codeName}: ${e.message}` };
  if (e instanceof NotA2AReplyError) return { status: e.status, problem: e.message };
  return { problem: e instanceof Error ? e.message : String(e) };
}

/** A stream event as assertions see it (§7). */
function eventView(json: unknown): unknown {
  if (!isPlainObject(json)) return json;
  const [kind] = Object.keys(json);
  const payload = kind === undefined ? undefined : json[kind];
  if (!isPlainObject(payload)) return json;
  const alias = kind === "statusUpdate" ? "status_update" : kind === "artifactUpdate" ? "artifact_update" : kind!;
  return { ...payload, ...json, [alias]: payload };
}

const toJsonOf = (schema: DescMessage, message: unknown) => encode(schema, message as never, { alwaysEmit });

async function callHttp(
  ctx: ActsContext,
  operation: (typeof OPERATIONS)[string],
  request: unknown,
  streamTimeoutMs: number,
): Promise<Outcome> {
  const target: TargetLike = { url: ctx.url, binding: TRANSPORT_BINDING[ctx.binding as "jsonrpc" | "rest"], version: ctx.version ?? "1.0" };
  let wire: ReturnType<typeof encodeCall>;
  try {
    wire = encodeCall(target, operation.op, request as never);
  } catch (e) {
    throw notExpressible(operation.op, e) ?? e;
  }
  // L10 (historyLength 0 on the 0.3 protobuf shape) is made good on the way back (decodeReply's `sent`).
  unexpressed(
    operation.op,
    wire.losses.filter((l) => l.id !== "L10"),
  );
  const res = await exchange(
    {
      method: wire.method,
      url: wire.url,
      headers: { ...wire.headers, ...ctx.headers },
      ...(wire.body !== undefined ? { body: wire.body } : {}),
    },
    { timeoutMs: ctx.timeoutMs, streamTimeoutMs },
  );
  if (res.status === 0) return { problem: res.error ?? "no answer" };
  if (res.events) {
    const events: unknown[] = [];
    for (const ev of res.events) {
      const d = decodeStreamEvent(target, operation.op, ev.data, ev.event);
      if ("error" in d) {
        const err = a2aErrorOf(d.error);
        return err ? { status: res.status, events, error: err } : { status: res.status, events, problem: d.error.message };
      }
      events.push(eventView(toJsonOf(pb.StreamResponseSchema, d.event)));
    }
    return { status: res.status, events };
  }
  try {
    const value = decodeReply(
      target,
      operation.op,
      { status: res.status, json: res.json, text: res.text },
      { rpcId: wire.rpcId, sent: wire.losses },
    );
    const json = toJsonOf(operation.response, value);
    // 0.3 leaves the success status of its HTTP+JSON binding open (the SDK 0.3.14 answers message:send
    // with 201): through translation a decoded success reads as the 200 the corpus (written for 1.0) expects.
    const status = ctx.version === "0.3" && res.status >= 200 && res.status < 300 ? 200 : res.status;
    return operation.streaming ? { status, events: [eventView(json)] } : { status, root: json };
  } catch (e) {
    return { status: res.status, ...outcomeOfError(e) };
  }
}

async function callGrpc(
  ctx: ActsContext,
  operation: (typeof OPERATIONS)[string],
  request: unknown,
  streamTimeoutMs: number,
): Promise<Outcome> {
  const target = { url: ctx.url, version: ctx.version ?? "1.0" };
  let losses: Loss[];
  try {
    losses = encodeGrpcRequest(target.version, operation.op, request as never).losses;
  } catch (e) {
    throw notExpressible(operation.op, e) ?? e;
  }
  unexpressed(operation.op, losses);
  if (!operation.streaming) {
    try {
      const value = await grpcUnary(target, operation.op, request as never, { headers: ctx.headers, timeoutMs: ctx.timeoutMs });
      return { status: 200, root: toJsonOf(operation.response, value) };
    } catch (e) {
      return outcomeOfError(e);
    }
  }
  const events: unknown[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), streamTimeoutMs);
  try {
    for await (const { event } of grpcStream(target, operation.op as "SendStreamingMessage", request as never, {
      headers: ctx.headers,
      signal: controller.signal,
    }))
      events.push(eventView(toJsonOf(pb.StreamResponseSchema, event)));
    return { status: 200, events };
  } catch (e) {
    // A stream still open at the bound is read as far as it went (like an SSE stream).
    if (controller.signal.aborted) return { status: 200, events };
    return { ...outcomeOfError(e), events };
  } finally {
    clearTimeout(timer);
  }
}

async function getCard(ctx: ActsContext): Promise<Outcome> {
  const version = ctx.version ?? "1.0";
  const res = await exchange(
    { method: "GET", url: ctx.cardUrl, headers: { accept: "application/json", "A2A-Version": version, ...ctx.headers } },
    { timeoutMs: ctx.timeoutMs, streamTimeoutMs: ctx.timeoutMs },
  );
  if (res.status === 0) return { problem: res.error ?? "no answer" };
  if (res.status !== 200 || !isPlainObject(res.json))
    return { status: res.status, problem: `GET ${ctx.cardUrl}: HTTP ${res.status}, no JSON card` };
  if (version === "1.0") return { status: res.status, root: res.json };
  // The 0.3 card, read through the card translator: its 1.0 view.
  try {
    return { status: res.status, root: toJsonOf(pb.AgentCardSchema, parseAgentCard(res.json).value) };
  } catch (e) {
    return { status: res.status, problem: `GET ${ctx.cardUrl}: not a card (${(e as Error).message})` };
  }
}

function rawUrl(base: string, path: string): string {
  if (/^https?:\/\//i.test(path)) return path;
  return path === "/" ? base : base.replace(/\/+$/, "") + (path.startsWith("/") ? path : `/${path}`);
}

async function callRaw(ctx: ActsContext, raw: Record<string, unknown>, streamTimeoutMs: number): Promise<Outcome> {
  // Exactly the step's headers (§4.4: raw steps check "exact wire-level behavior"): the runner's
  // credentials are not added, so a raw step without Authorization is an unauthenticated request
  // (SEC-EXTCARD-001/004).
  const headers = (raw.headers as Record<string, string>) ?? {};
  const body = typeof raw.body_raw === "string" ? raw.body_raw : raw.body !== undefined ? JSON.stringify(raw.body) : undefined;
  const res: WireResponse = await exchange(
    { method: String(raw.method), url: rawUrl(ctx.url, String(raw.path)), headers, ...(body !== undefined ? { body } : {}) },
    { timeoutMs: ctx.timeoutMs, streamTimeoutMs },
  );
  if (res.status === 0) return { problem: res.error ?? "no answer" };
  if (res.events) return { status: res.status, events: res.events.map((e) => e.json ?? e.data) };
  const out: Outcome = { status: res.status, root: res.json ?? res.text };
  // An A2A error in the answer, as the binding spells it, for expect_error on raw steps.
  const target: TargetLike = { url: ctx.url, binding: TRANSPORT_BINDING[ctx.binding as "jsonrpc" | "rest"], version: "1.0" };
  try {
    decodeReply(target, "GetTask", { status: res.status, json: res.json, text: res.text });
  } catch (e) {
    const err = a2aErrorOf(e);
    if (err) out.error = err;
  }
  return out;
}

// ---- expectations ----

const TERMINAL = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);

function stateOf(event: unknown): string | undefined {
  if (!isPlainObject(event)) return undefined;
  for (const k of ["statusUpdate", "task"]) {
    const p = event[k];
    if (isPlainObject(p) && isPlainObject(p.status) && typeof p.status.state === "string") return p.status.state;
  }
  return undefined;
}

/** §7.1 monotonic_state: nothing returns to SUBMITTED, nothing follows a terminal state. */
function ordering(events: unknown[]): ActsFailure | undefined {
  let previous: string | undefined;
  for (let i = 0; i < events.length; i++) {
    const state = stateOf(events[i]);
    if (!state) continue;
    if (previous !== undefined && TERMINAL.has(previous) && state !== previous)
      return {
        path: `events[${i}]`,
        message: `events[${i}]: state ${state} after the terminal state ${previous} (§7.1)`,
        expected: previous,
        actual: state,
      };
    if (previous !== undefined && state === "TASK_STATE_SUBMITTED" && previous !== state)
      return {
        path: `events[${i}]`,
        message: `events[${i}]: state returns to TASK_STATE_SUBMITTED after ${previous} (§7.1)`,
        expected: "no SUBMITTED",
        actual: state,
      };
    previous = state;
  }
  return undefined;
}

const EVENT_KEYS = new Set(["description", "match", "index"]);

export function checkStream(spec: Record<string, unknown>, events: unknown[], vars: Vars): ActsFailure | undefined {
  const n = events.length;
  if (typeof spec.min_count === "number" && n < spec.min_count)
    return { path: "events", message: `expected at least ${spec.min_count} event(s), got ${n}`, expected: spec.min_count, actual: n };
  if (typeof spec.max_count === "number" && n > spec.max_count)
    return { path: "events", message: `expected at most ${spec.max_count} event(s), got ${n}`, expected: spec.max_count, actual: n };
  if (spec.ordering === "monotonic_state") {
    const f = ordering(events);
    if (f) return f;
  }
  const list = (spec.events as Record<string, unknown>[]) ?? [];
  for (let i = 0; i < list.length; i++) {
    const ea = list[i]!;
    const assertion = Object.fromEntries(Object.entries(ea).filter(([k]) => !EVENT_KEYS.has(k)));
    const what = typeof ea.description === "string" ? ` (${ea.description})` : "";
    if (ea.match === "any_position") {
      if (!events.some((e) => check(assertion, e, "", vars) === undefined))
        return { path: `events`, message: `no event matches events[${i}]${what}`, expected: assertion, actual: `${n} event(s)` };
      continue;
    }
    const at = typeof ea.index === "number" ? ea.index : i;
    if (at >= n) return { path: `events[${at}]`, message: `events[${at}]${what}: the stream has ${n} event(s)`, expected: assertion };
    const f = check(assertion, events[at], `events[${at}]`, vars);
    if (f) return { ...f, message: `${f.message}${what}` };
  }
  if (isPlainObject(spec.final_event)) {
    if (!n) return { path: "final_event", message: "no event came, so there is no final event", expected: spec.final_event };
    const f = check(spec.final_event, events[n - 1], `events[${n - 1}]`, vars);
    if (f) return { ...f, message: `final event: ${f.message}` };
  }
  if (isPlainObject(spec.each_event))
    for (let i = 0; i < n; i++) {
      const f = check(spec.each_event, events[i], `events[${i}]`, vars);
      if (f) return f;
    }
  return undefined;
}

function checkError(spec: Record<string, unknown>, out: Outcome, vars: Vars): ActsFailure | undefined {
  if (!out.error) {
    const got = out.problem ? `no A2A error: ${out.problem}` : "the call succeeded";
    return {
      path: "error",
      message: `expected ${stringify(spec.error_type ?? "an A2A error")}, ${got}`,
      expected: spec.error_type ?? "an error",
      actual: out.problem ?? out.root,
    };
  }
  if (spec.error_type !== undefined) {
    const wanted =
      isPlainObject(spec.error_type) && Array.isArray(spec.error_type.one_of)
        ? (spec.error_type.one_of as string[])
        : [typeof spec.error_type === "string" ? spec.error_type : JSON.stringify(spec.error_type)];
    const names = wanted.map((w) => ERROR_NAMES[w] ?? w);
    if (!names.includes(out.error.type))
      return {
        path: "error_type",
        message: `expected ${wanted.join(" or ")}, got ${out.error.type}: ${out.error.message}`,
        expected: wanted.join(" | "),
        actual: out.error.type,
      };
  }
  if (spec.message !== undefined) {
    const f = check(spec.message, out.error.message, "message", vars);
    if (f) return f;
  }
  if (spec.details !== undefined) {
    const f = check(spec.details, out.error.details, "details", vars);
    if (f) return f;
  }
  return undefined;
}

function checkStep(step: Record<string, unknown>, out: Outcome, vars: Vars): ActsFailure | undefined {
  if (isPlainObject(step.expect_error)) return checkError(step.expect_error, out, vars);
  if (out.problem) return failure(`not an A2A answer: ${out.problem}${out.status ? ` (HTTP ${out.status})` : ""}`);
  const isRaw = "raw" in step;
  if (out.error && !isRaw)
    return {
      path: "error",
      message: `the call failed: ${out.error.type}: ${out.error.message}`,
      expected: "success",
      actual: out.error.type,
    };
  if (isPlainObject(step.expect)) {
    if (step.expect.status !== undefined) {
      const f = check(step.expect.status, out.status, "status", vars);
      if (f) return f;
    }
    if (isPlainObject(step.expect.body)) {
      const f = check(step.expect.body, out.root, "", vars);
      if (f) return f;
    }
  }
  if (isPlainObject(step.expect_stream)) {
    if (!out.events) return failure("expected a stream, got a single answer", "events");
    return checkStream(step.expect_stream, out.events, vars);
  }
  return undefined;
}

/** §5.5 named and inline assertions. */
export function checkNamed(a: Record<string, unknown>, vars: Vars): ActsFailure | undefined {
  const source = typeof a.source === "string" ? interpolate(a.source, vars) : undefined;
  const base = typeof a.path === "string" ? pathValue(source, a.path) : source;
  const label = typeof a.id === "string" ? `${a.id}: ` : "";
  if (a.match !== undefined) {
    const f = check(a.match, base, typeof a.path === "string" ? a.path : "", vars);
    if (f) return { ...f, message: `${label}${f.message}` };
  }
  for (const kind of ["any", "all", "none"] as const) {
    const cm = a[kind];
    if (!isPlainObject(cm)) continue;
    const items = pathValues(base, String(cm.path));
    const ok = items.map((item) => check(cm.match, item, String(cm.path), vars) === undefined);
    const holds = kind === "any" ? ok.some(Boolean) : kind === "all" ? ok.every(Boolean) : !ok.some(Boolean);
    if (!holds)
      return {
        path: String(cm.path),
        message: `${label}${kind === "any" ? "no element" : kind === "all" ? "not every element" : "an element"} of ${String(cm.path)} (${items.length}) matches ${JSON.stringify(cm.match)}`,
        expected: { [kind]: cm.match },
        actual: items,
      };
  }
  return undefined;
}

// ---- the test ----

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function execute(step: Record<string, unknown>, ctx: ActsContext, vars: Vars): Promise<Outcome> {
  const streamTimeoutMs =
    isPlainObject(step.expect_stream) && typeof step.expect_stream.timeout_ms === "number"
      ? step.expect_stream.timeout_ms
      : ctx.streamTimeoutMs;
  if (isPlainObject(step.raw)) {
    const raw = interpolate(step.raw, vars) as Record<string, unknown>;
    const sends = sendsMessage({
      method: String(raw.method),
      path: String(raw.path),
      body: raw.body,
      ...(typeof raw.body_raw === "string" ? { rawBody: raw.body_raw } : {}),
    });
    if (sends && ctx.sent) ctx.sent.messages++;
    return callRaw(ctx, raw, streamTimeoutMs);
  }
  let name = String(step.operation);
  if ((name === "send_message" || name === "send_streaming_message") && ctx.sent) ctx.sent.messages++;
  let params = interpolate(step.params ?? {}, vars) as Record<string, unknown>;
  // get_agent_card with `extended: true` is the binding's GetExtendedAgentCard (§4.1), not the public card.
  if (name === "get_agent_card" && params.extended === true) [name, params] = ["get_extended_agent_card", {}];
  if (name === "get_agent_card") return getCard(ctx);
  const operation = OPERATIONS[name];
  if (!operation) return { problem: `operation ${name} is not one of §4.1's` };
  let request: unknown;
  try {
    request = decode(operation.request, requestJson(name, params));
  } catch (e) {
    throw new StepError(`params are no ${operation.request.typeName}: ${(e as Error).message}`);
  }
  return ctx.binding === "grpc" ? callGrpc(ctx, operation, request, streamTimeoutMs) : callHttp(ctx, operation, request, streamTimeoutMs);
}

/** The runner could not carry out the step (§13: an error, not a failure). */
class StepError extends Error {}

/** A step the interface's version cannot express (a loss register row): the test is skipped. */
class NotExpressibleError extends Error {}

/** A translation loss as the seam reports it (src/versioning's Loss: register row, JSON Pointer, words). */
interface Loss {
  id: string;
  path: string;
  detail: string;
}

/** The skip for an operation 0.3 does not have (the seam refuses it with an A2A error naming the row: ListTasks, L6). */
function notExpressible(op: string, e: unknown): NotExpressibleError | undefined {
  const loss = a2aErrorOf(e) ? (e as { metadata?: Record<string, string> }).metadata?.loss : undefined;
  return loss
    ? new NotExpressibleError(`0.3 cannot express ${op}: loss register ${loss} (${e instanceof Error ? e.message : ""})`)
    : undefined;
}

/** Throws the skip when translating the request lost something (each row named). */
function unexpressed(op: string, losses: readonly Loss[]): void {
  if (!losses.length) return;
  const rows = [...new Set(losses.map((l) => `${l.id} (${l.path || "/"}: ${l.detail})`))];
  throw new NotExpressibleError(`0.3 cannot express this ${op} request: loss register ${rows.join("; ")}`);
}

async function runStep(step: Record<string, unknown>, ctx: ActsContext, vars: Vars): Promise<ActsFailure | undefined> {
  const sleep = ctx.sleep ?? defaultSleep;
  const id = String(step.id);
  if (isPlainObject(step.assertion)) return checkNamed(step.assertion, vars);
  if (typeof step.delay_ms === "number" && step.delay_ms > 0) await sleep(step.delay_ms);
  let out = await execute(step, ctx, vars);
  if (isPlainObject(step.repeat)) {
    const r = step.repeat;
    const max = typeof r.max_attempts === "number" ? r.max_attempts : 10;
    const delay = typeof r.delay_ms === "number" ? r.delay_ms : 1000;
    for (let attempt = 1; !untilHolds(String(r.until), out.root); attempt++) {
      if (attempt >= max)
        return {
          path: String(r.until).split(/\s/)[0]!,
          message: `repeat.until "${String(r.until)}" still false after ${max} attempt(s) (§9)`,
          expected: r.until,
          actual: pathValue(out.root, String(r.until).split(/\s/)[0]!),
        };
      await sleep(r.backoff === "linear" ? delay * attempt : r.backoff === "exponential" ? delay * 2 ** (attempt - 1) : delay);
      out = await execute(step, ctx, vars);
    }
  }
  const f = checkStep(step, out, vars);
  // Captures and the response are kept before any failure is returned: later assertions may name them.
  const root = out.root ?? (out.events ? out.events : undefined);
  vars.captures.set(`${id}.response`, root);
  if (isPlainObject(step.capture))
    for (const [name, path] of Object.entries(step.capture)) {
      const value = pathValue(out.root, String(path));
      if (value !== undefined) vars.captures.set(`${id}.${name}`, value);
    }
  if (f) return f;
  for (const a of (step.assertions as Record<string, unknown>[]) ?? []) {
    const g = checkNamed(a, vars);
    if (g) return g;
  }
  return undefined;
}

/** The name of a runner-provided variable an error says is missing: no step capture (`step.var`), no `env.`. */
function runnerVariable(e: unknown): string | undefined {
  const v = e instanceof UnresolvedVariableError ? e.variable : undefined;
  return v && !v.includes(".") ? v : undefined;
}

export async function runActsTest(spec: ActsTestSpec, ctx: ActsContext): Promise<ActsTestResult> {
  const t = spec.test;
  const started = Date.now();
  const base = { id: String(t.id), name: String(t.name), level: t.level as ActsTestResult["level"] };
  const skip = applicability(t, ctx);
  if (skip) return { ...base, result: "skip", duration_ms: 0, skip_reason: skip };
  const vars: Vars = { captures: new Map(), document: spec.variables, env: ctx.env ?? process.env };
  const steps: ActsStepResult[] = [];
  let result: ActsResult = "pass";
  let first: ActsFailureDetail | undefined;
  for (const step of t.steps as Record<string, unknown>[]) {
    const id = String(step.id);
    if (result !== "pass") {
      steps.push({ id, result: "skip", duration_ms: 0 });
      continue;
    }
    const s0 = Date.now();
    let f: ActsFailure | undefined;
    let kind: ActsResult = "fail";
    try {
      f = await runStep(step, ctx, vars);
    } catch (e) {
      if (e instanceof NotExpressibleError) {
        steps.push({ id, result: "skip", duration_ms: Date.now() - s0 });
        return { ...base, result: "skip", duration_ms: Date.now() - started, skip_reason: e.message, steps };
      }
      const needed = runnerVariable(e);
      if (needed) {
        // A value the runner is to provide (a webhook URL, a credential), neither captured nor defined
        // by the document: ACTS §3.2 says a runner that cannot satisfy such a requirement SHOULD skip.
        const skip_reason = `runner-provided variable {{${needed}}} (§3.2): not provided by this runner`;
        steps.push({ id, result: "skip", duration_ms: Date.now() - s0 });
        return { ...base, result: "skip", duration_ms: Date.now() - started, skip_reason, steps };
      }
      f = failure(e instanceof Error ? e.message : String(e));
      kind = e instanceof StepError ? "error" : e instanceof UnresolvedVariableError ? "fail" : "error";
    }
    const d = f ? detail(f, id) : undefined;
    steps.push({ id, result: f ? kind : "pass", duration_ms: Date.now() - s0, ...(d ? { failure: d } : {}) });
    if (f) {
      result = kind;
      first = d;
    }
  }
  if (result === "pass")
    for (const a of (t.assertions as Record<string, unknown>[]) ?? []) {
      const f = checkNamed(a, vars);
      if (f) {
        result = "fail";
        first = detail(f);
        break;
      }
    }
  return { ...base, result, duration_ms: Date.now() - started, ...(first ? { failure: first } : {}), steps };
}
