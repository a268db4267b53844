// The one codec seam: wire values of (version, binding) ⇄ A2A 1.0 protobuf-es messages.
//
// API
//   OPERATIONS                          per 1.0 operation: request/response schema, streaming flag
//   Operation, RequestOf<O>, ResponseOf<O>
//   codecFor(version, binding) → Codec  (cached; version "1.0" | "0.3", binding "JSONRPC" | "HTTP+JSON")
//
//   Codec, server side
//     decodeRequest(op, wire, opts?)    wire request → Translated<1.0 request message>
//                                       (JSON-RPC: the `params`; HTTP+JSON: the request message JSON of
//                                       the dialect, path/query/body already merged by src/transport/rest.ts;
//                                       opts.blockingDefault: what an absent/false 0.3 REST `blocking` means, L22)
//     encodeResponse(op, msg)           1.0 response → Translated<wire JSON> (JSON-RPC `result` / REST body)
//     encodeResponseText(op, msg)       the same as JSON text (1.0: written in one pass, no JSON tree)
//     encodeEvent(event, final)         1.0 StreamResponse → wire item (`final` is used by 0.3 only;
//                                       src/versioning/stream.ts decides it)
//     encodeError(err)                  A2AError → JSON-RPC `error` member / REST {status, body}
//   Codec, client side (the mirror image)
//     encodeRequest(op, msg)            1.0 request → Translated<wire JSON>
//     decodeResponse(op, wire, {sent}?) wire → Translated<1.0 response>; a malformed reply throws InvalidAgentResponse;
//                                       `sent` = the request's losses (L10: trims the returned history to none)
//     decodeEvent(wire)                 wire item → Translated<StreamResponse> & {final}; 0.3: `final` = the
//                                       stream ends after this item (final:true, a Message, a terminal Task)
//     decodeError(wire, status?)        JSON-RPC `error` member or REST body → A2AError
//
//   Tables and helpers
//     resolveJsonRpcMethod(name)        → {version, operation, jsonRpcMethod, streaming} for 1.0 and 0.3 names
//     jsonRpcMethodOf(version, op)      the method name of `op` in `version` (undefined: ListTasks in 0.3)
//     restRoutes(version)               compiled REST routes incl. tolerated extras (subscribe POST, 0.3 create paths)
//     restRequestSchema(version, op)    the message a REST request of `op` transcodes into (1.0 or P03)
//     restClientBindings(version, op)   the bindings a client uses
//     decode1_0 / encode1_0             validated 1.0 ProtoJSON decode / encode with the A2A overrides
//     listTasksUnsupported()            the L6 error (ErrorInfo metadata loss = "L6")
//
// Every decode validates first with the generated validators (path-precise InvalidParams on the
// server side); every 0.3 value goes through the translators (rpc0_3.ts, rest0_3.ts), so
// nothing outside src/versioning imports generated/v0_3. The exceptions are shortcuts held equal
// to that path by contract tests: the common 0.3 requests read in one pass (read0_3.ts: only what
// the translators would accept without a loss, the rest falls through to them) and the common 0.3
// responses written in one pass (write0_3.ts).
import type { DescMessage, JsonObject, JsonValue, MessageShape } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { ValidateFunction } from "ajv";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { HttpBinding } from "../runtime/methods.js";
import { bindingFor, compileRoutes, type RestRoute } from "../runtime/routes.js";
import { decode, decodeValidated, encode, ProtoJsonError } from "../runtime/protojson.js";
import { writeJsonText } from "../runtime/json-writer.js";
import { check, formatIssue } from "../runtime/validation.js";
import {
  A2AError,
  fromAnyRestError,
  fromJsonRpcError,
  fromJsonRpcError0_3,
  invalidParams,
  toJsonRpcError,
  toJsonRpcError0_3,
  toRestError,
  toRestError0_3,
} from "./errors.js";
import type { Loss, Translated } from "./loss.js";
import type { ProtocolVersion } from "./negotiate.js";
import { restText0_3, rpcText0_3 } from "./write0_3.js";
import { restRead0_3, rpcRead0_3 } from "./read0_3.js";
import * as rest0_3 from "./rest0_3.js";
import * as rpc0_3 from "./rpc0_3.js";
import type { Dialect0_3, RestWire0_3, RpcWire0_3, Wire0_3 } from "./dialect.js";
import { ends0_3Stream } from "./stream.js";
import { STRICT_VALIDATION_FROM_ENV, type TranslateOptions } from "./translate/common.js";

export type Binding = "JSONRPC" | "HTTP+JSON";
export const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON"];

/** Request and response message types of the 11 operations (1.0 names). */
export const OPERATIONS = {
  SendMessage: { request: v1_0.SendMessageRequestSchema, response: v1_0.SendMessageResponseSchema, streaming: false },
  SendStreamingMessage: { request: v1_0.SendMessageRequestSchema, response: v1_0.StreamResponseSchema, streaming: true },
  GetTask: { request: v1_0.GetTaskRequestSchema, response: v1_0.TaskSchema, streaming: false },
  ListTasks: { request: v1_0.ListTasksRequestSchema, response: v1_0.ListTasksResponseSchema, streaming: false },
  CancelTask: { request: v1_0.CancelTaskRequestSchema, response: v1_0.TaskSchema, streaming: false },
  SubscribeToTask: { request: v1_0.SubscribeToTaskRequestSchema, response: v1_0.StreamResponseSchema, streaming: true },
  CreateTaskPushNotificationConfig: {
    request: v1_0.TaskPushNotificationConfigSchema,
    response: v1_0.TaskPushNotificationConfigSchema,
    streaming: false,
  },
  GetTaskPushNotificationConfig: {
    request: v1_0.GetTaskPushNotificationConfigRequestSchema,
    response: v1_0.TaskPushNotificationConfigSchema,
    streaming: false,
  },
  ListTaskPushNotificationConfigs: {
    request: v1_0.ListTaskPushNotificationConfigsRequestSchema,
    response: v1_0.ListTaskPushNotificationConfigsResponseSchema,
    streaming: false,
  },
  DeleteTaskPushNotificationConfig: {
    request: v1_0.DeleteTaskPushNotificationConfigRequestSchema,
    response: EmptySchema,
    streaming: false,
  },
  GetExtendedAgentCard: { request: v1_0.GetExtendedAgentCardRequestSchema, response: v1_0.AgentCardSchema, streaming: false },
} as const satisfies Record<string, { request: DescMessage; response: DescMessage; streaming: boolean }>;

export type Operation = keyof typeof OPERATIONS;
export type RequestOf<O extends Operation> = MessageShape<(typeof OPERATIONS)[O]["request"]>;
export type ResponseOf<O extends Operation> = MessageShape<(typeof OPERATIONS)[O]["response"]>;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as Operation[];

export function isOperation(s: string): s is Operation {
  return Object.prototype.hasOwnProperty.call(OPERATIONS, s);
}

export interface DecodeRequestOptions {
  /**
   * 0.3 HTTP+JSON only: D03-PB cannot tell `blocking: false` from absent (L22). Default false:
   * such a SendMessage returns immediately (the v0.3.0 proto comment); true makes it blocking.
   */
  blockingDefault?: boolean;
}

export interface DecodeResponseOptions {
  /**
   * The losses of the request this reply answers (what encodeRequest reported). A 0.3 REST request
   * that could not carry 1.0 `historyLength: 0` (L10) asked for the whole history; the reply's task
   * history is then trimmed to none, as the 1.0 caller asked.
   */
  sent?: readonly Loss[];
}

/** REST error reply of a codec: status and body (AIP-193; for 0.3 with `code` and `message` beside it). */
export interface RestErrorReply {
  status: number;
  body: unknown;
}

export interface Codec {
  readonly version: ProtocolVersion;
  readonly binding: Binding;
  decodeRequest<O extends Operation>(op: O, wire: unknown, opts?: DecodeRequestOptions): Translated<RequestOf<O>>;
  encodeResponse<O extends Operation>(op: O, response: ResponseOf<O>): Translated<JsonValue>;
  /** `JSON.stringify` of encodeResponse's value (1.0: written as text in one pass). */
  encodeResponseText<O extends Operation>(op: O, response: ResponseOf<O>): Translated<string>;
  encodeEvent(event: v1_0.StreamResponse, final?: boolean): Translated<JsonValue>;
  /** JSON-RPC: the `error` member; HTTP+JSON: {status, body}. */
  encodeError(err: A2AError): { code: number; message: string; data?: unknown } | RestErrorReply;
  encodeRequest<O extends Operation>(op: O, request: RequestOf<O>): Translated<JsonValue>;
  decodeResponse<O extends Operation>(op: O, wire: unknown, opts?: DecodeResponseOptions): Translated<ResponseOf<O>>;
  decodeEvent(wire: unknown): Translated<v1_0.StreamResponse> & { final: boolean };
  decodeError(wire: unknown, status?: number): A2AError;
}

// ---------------------------------------------------------------------------------------------
// 1.0 helpers

const validators1_0 = v1_0.validators as unknown as Record<string, ValidateFunction | undefined>;

function validatorFor(schema: DescMessage): ValidateFunction | undefined {
  return validators1_0[schema.name];
}

/**
 * InvalidParams unless `json`, the ProtoJSON of a 1.0 request message decoded elsewhere (gRPC's
 * binary), passes the request's validator: the same check decode1_0 makes, without decoding again.
 */
export function checkRequest1_0(schema: DescMessage, json: unknown): void {
  const validate = validatorFor(schema);
  const issue = validate ? check(validate, json) : undefined;
  if (issue) throw invalidParams(issue.path, issue.message);
}

/**
 * Validates and decodes 1.0 JSON; `role` decides the error: bad input vs bad agent response.
 * `validated`: the validator `json` already passed (a 0.3 translator's output check), not run again.
 */
export function decode1_0<D extends DescMessage>(
  schema: D,
  json: unknown,
  role: "request" | "response",
  validated?: ValidateFunction,
): MessageShape<D> {
  const validate = validatorFor(schema);
  const issue = validate && validate !== validated ? check(validate, json) : undefined;
  if (issue) {
    // The validators describe what a sender emits; a ProtoJSON reader must also accept enum
    // numbers, proto field names and null for unset fields (a2a-wire.md §6.1). Such input is
    // judged in its canonical form; anything else keeps the validator's precise message.
    const canonical = canonicalForm(schema, json);
    const canonicalIssue = canonical && validate ? check(validate, encode(schema, canonical)) : undefined;
    if (canonical && !canonicalIssue) return canonical;
    const reported = canonicalIssue ?? issue;
    if (role === "request") throw invalidParams(reported.path, reported.message);
    throw new A2AError("InvalidAgentResponseError", `Invalid agent response: ${formatIssue(reported)}`);
  }
  try {
    return validate ? decodeValidated(schema, json as JsonValue) : decode(schema, json);
  } catch (e) {
    const message = e instanceof ProtoJsonError ? e.message : String(e);
    if (role === "request") throw invalidParams("", message);
    throw new A2AError("InvalidAgentResponseError", `Invalid agent response: ${message}`);
  }
}

function canonicalForm<D extends DescMessage>(schema: D, json: unknown): MessageShape<D> | undefined {
  try {
    return decode(schema, json);
  } catch {
    return undefined;
  }
}

export function encode1_0<D extends DescMessage>(schema: D, message: MessageShape<D>): JsonValue {
  return encode(schema, message, { alwaysEmit: v1_0.alwaysEmit });
}

function asObject(wire: unknown, what: string): JsonObject {
  if (wire === undefined || wire === null) return {};
  if (typeof wire !== "object" || Array.isArray(wire)) throw invalidParams("", `${what} must be a JSON object`);
  return wire as JsonObject;
}

const none: Loss[] = [];

// ---------------------------------------------------------------------------------------------
// Codecs

class Codec1_0 implements Codec {
  readonly version = "1.0" as const;
  constructor(readonly binding: Binding) {}

  decodeRequest<O extends Operation>(op: O, wire: unknown): Translated<RequestOf<O>> {
    const json = asObject(wire, this.binding === "JSONRPC" ? "params" : "the request");
    return { value: decode1_0(OPERATIONS[op].request, json, "request") as RequestOf<O>, losses: none };
  }
  encodeResponse<O extends Operation>(op: O, response: ResponseOf<O>): Translated<JsonValue> {
    return { value: encode1_0(OPERATIONS[op].response as DescMessage, response), losses: none };
  }
  encodeResponseText<O extends Operation>(op: O, response: ResponseOf<O>): Translated<string> {
    return { value: writeJsonText(OPERATIONS[op].response, response, v1_0.alwaysEmit), losses: none };
  }
  encodeEvent(event: v1_0.StreamResponse): Translated<JsonValue> {
    return { value: encode1_0(v1_0.StreamResponseSchema, event), losses: none };
  }
  encodeError(err: A2AError) {
    return this.binding === "JSONRPC" ? toJsonRpcError(err) : toRestError(err);
  }
  encodeRequest<O extends Operation>(op: O, request: RequestOf<O>): Translated<JsonValue> {
    return { value: encode1_0(OPERATIONS[op].request as DescMessage, request), losses: none };
  }
  decodeResponse<O extends Operation>(op: O, wire: unknown): Translated<ResponseOf<O>> {
    return { value: decode1_0(OPERATIONS[op].response, wire ?? {}, "response") as ResponseOf<O>, losses: none };
  }
  decodeEvent(wire: unknown): Translated<v1_0.StreamResponse> & { final: boolean } {
    return { value: decode1_0(v1_0.StreamResponseSchema, wire, "response"), losses: none, final: false };
  }
  decodeError(wire: unknown, status?: number): A2AError {
    if (this.binding === "JSONRPC") return fromJsonRpcError(wire as { code: number; message?: string; data?: unknown });
    return fromAnyRestError(status ?? 500, wire, "1.0");
  }
}

/** The 0.3 responses written as text in one pass, by operation (write0_3.ts). */
type OnePass = Partial<Record<Operation, (response: Record<string, unknown>) => string | undefined>>;
const onePass = (w: typeof rpcText0_3): OnePass => ({ SendMessage: w.sendResponse, GetTask: w.task, CancelTask: w.task });
const ONE_PASS: Record<Binding, OnePass> = { JSONRPC: onePass(rpcText0_3), "HTTP+JSON": onePass(restText0_3) };

/** The 0.3 requests read in one pass, by operation (read0_3.ts). */
type OneRead = Partial<Record<Operation, (wire: unknown) => RequestOf<Operation> | undefined>>;
const oneRead = (r: typeof rpcRead0_3): OneRead => ({
  SendMessage: r.send,
  SendStreamingMessage: r.send,
  GetTask: r.getTask,
  CancelTask: r.cancelTask,
});
const ONE_READ: Record<Binding, OneRead> = { JSONRPC: oneRead(rpcRead0_3), "HTTP+JSON": oneRead(restRead0_3) };

class Codec0_3 implements Codec {
  readonly version = "0.3" as const;
  /** How downgrades of what encode1_0 wrote are translated: unvalidated unless strict. */
  private readonly own: TranslateOptions;
  private readonly oneText: OnePass | undefined;
  private readonly oneRead: OneRead | undefined;
  constructor(
    readonly binding: Binding,
    strict: boolean,
  ) {
    this.own = { validate: strict };
    // Strict validation checks the tree path's output, so it keeps that path.
    this.oneText = strict ? undefined : ONE_PASS[binding];
    this.oneRead = strict ? undefined : ONE_READ[binding];
  }

  private get t() {
    return translator0_3(this.binding);
  }

  decodeRequest<O extends Operation>(op: O, wire: unknown, opts: DecodeRequestOptions = {}): Translated<RequestOf<O>> {
    if (op === "ListTasks") throw listTasksUnsupported();
    // The common shapes in one pass (read0_3.ts); undefined: the tree path below, which validates
    // the 0.3 input, reports the losses and raises the errors.
    const read = this.oneRead?.[op]?.(wire);
    if (read !== undefined) return { value: read as RequestOf<O>, losses: none };
    const up = this.t.upgradeRequest(op, wire, opts);
    const value = decode1_0(OPERATIONS[op].request, up.value, "request", validatorOf(up));
    return { value: value as RequestOf<O>, losses: up.losses };
  }
  // Downgrades of what encode1_0 wrote skip validation: validating the toolkit's own output finds only
  // toolkit bugs (translate/common.ts; the tests validate it, codecFor's strictValidation turns it back on).
  encodeResponse<O extends Operation>(op: O, response: ResponseOf<O>): Translated<JsonValue> {
    const json = encode1_0(OPERATIONS[op].response as DescMessage, response);
    return this.t.downgradeResponse(op, json, this.own);
  }
  encodeResponseText<O extends Operation>(op: O, response: ResponseOf<O>): Translated<string> {
    // The common shapes in one pass (write0_3.ts); undefined: the tree path below.
    const text = this.oneText?.[op]?.(response);
    if (text !== undefined) return { value: text, losses: none };
    const { value, losses } = this.encodeResponse(op, response);
    return { value: JSON.stringify(value), losses };
  }
  encodeEvent(event: v1_0.StreamResponse, final = false): Translated<JsonValue> {
    const json = encode1_0(v1_0.StreamResponseSchema, event);
    return this.t.downgradeEvent(json, final, this.own);
  }
  encodeError(err: A2AError) {
    return this.binding === "JSONRPC" ? toJsonRpcError0_3(err) : toRestError0_3(err);
  }
  encodeRequest<O extends Operation>(op: O, request: RequestOf<O>): Translated<JsonValue> {
    if (op === "ListTasks") throw listTasksUnsupported();
    const json = encode1_0(OPERATIONS[op].request as DescMessage, request);
    return this.t.downgradeRequest(op, json, this.own);
  }
  decodeResponse<O extends Operation>(op: O, wire: unknown, opts: DecodeResponseOptions = {}): Translated<ResponseOf<O>> {
    const up = asAgentResponse(() => this.t.upgradeResponse(op, wire));
    const value = decode1_0(OPERATIONS[op].response, up.value, "response", validatorOf(up));
    if (opts.sent?.some((l) => l.id === "L10")) trimHistory(value);
    return { value: value as ResponseOf<O>, losses: up.losses };
  }
  decodeEvent(wire: unknown): Translated<v1_0.StreamResponse> & { final: boolean } {
    const up = asAgentResponse(() => this.t.upgradeEvent(wire));
    const value = decode1_0(v1_0.StreamResponseSchema, up.value, "response", validatorOf(up));
    return { value, losses: up.losses, final: ends0_3Stream(value, up.final) };
  }
  decodeError(wire: unknown, status?: number): A2AError {
    if (this.binding === "JSONRPC") return fromJsonRpcError0_3(wire as { code: number; message?: string; data?: unknown });
    return fromAnyRestError(status ?? 500, wire, "0.3");
  }
}

/** L10: the 1.0 caller asked for no history (`historyLength: 0`); the 0.3 REST peer sent all of it. */
function trimHistory(response: unknown): void {
  const r = response as { $typeName?: string; history?: unknown[]; payload?: { case?: string; value?: { history?: unknown[] } } };
  if (r.$typeName === v1_0.TaskSchema.typeName) r.history = [];
  else if (r.payload?.case === "task" && r.payload.value) r.payload.value.history = [];
}

/** A translator's InvalidParams on a reply means the agent answered something invalid. */
function asAgentResponse<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof A2AError && e.type === "InvalidParamsError")
      throw new A2AError("InvalidAgentResponseError", `Invalid agent response: ${e.message}`, e.metadata, e.details);
    throw e;
  }
}

/** L6: ListTasks has no 0.3 form. */
export function listTasksUnsupported(): A2AError {
  return new A2AError("UnsupportedOperationError", "ListTasks is not part of A2A 0.3 (loss L6); use A2A-Version: 1.0", {
    operation: "ListTasks",
    loss: "L6",
  });
}

const cache = new Map<string, Codec>();

export interface CodecOptions {
  /**
   * Validate every translation's input and output, also of the 1.0 JSON the toolkit encoded itself
   * (a debugging aid; default: A2A_STRICT_VALIDATION=1 in the environment).
   */
  strictValidation?: boolean;
}

export function codecFor(version: ProtocolVersion, binding: Binding, opts: CodecOptions = {}): Codec {
  const strict = opts.strictValidation ?? STRICT_VALIDATION_FROM_ENV;
  const key = `${version} ${binding}${strict ? " strict" : ""}`;
  let c = cache.get(key);
  if (!c) {
    if (version === "1.0") c = new Codec1_0(binding);
    else if (version === "0.3") c = new Codec0_3(binding, strict);
    else throw new Error(`no codec for version ${String(version)}`);
    cache.set(key, c);
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// Method names and REST routes of both versions (from the generated method tables).

export interface MethodRef {
  version: ProtocolVersion;
  operation: Operation;
  jsonRpcMethod: string;
  streaming: boolean;
}

const METHODS: readonly MethodRef[] = [
  ...v1_0.methods.map((m) => ({
    version: "1.0" as const,
    operation: m.operation as Operation,
    jsonRpcMethod: m.jsonRpcMethod,
    streaming: m.streaming,
  })),
  ...v0_3.methods.map((m) => ({
    version: "0.3" as const,
    operation: m.operation as Operation,
    jsonRpcMethod: m.jsonRpcMethod,
    streaming: m.streaming,
  })),
];

/** The operation and version a JSON-RPC method name belongs to (`SendMessage` → 1.0, `message/send` → 0.3). */
export function resolveJsonRpcMethod(method: string): MethodRef | undefined {
  return METHODS.find((m) => m.jsonRpcMethod === (JSONRPC_ALIASES_0_3[method] ?? method));
}

/** Misspellings in the 0.3 prose that some clients copied (E20), accepted on input only. */
const JSONRPC_ALIASES_0_3: Record<string, string> = {
  "agent/authenticatedExtendedCard": "agent/getAuthenticatedExtendedCard",
};

/** The JSON-RPC method name of `op` in `version`; undefined when the version has no such method (ListTasks in 0.3). */
export function jsonRpcMethodOf(version: ProtocolVersion, op: Operation): string | undefined {
  return METHODS.find((m) => m.version === version && m.operation === op)?.jsonRpcMethod;
}

/** Documented in 0.3 prose (S03 §7) but absent from its schemas (O4/E19): answered with UnsupportedOperation (L6). */
export const JSONRPC_0_3_LIST_TASKS = "tasks/list";

// Tolerated extra routes (docs/policies.md): O1 subscribe by POST as well as GET (both versions);
// O5/E18 0.3 create-push-config at the fixed path `/v1/tasks/{id}/pushNotificationConfigs` as well
// as the v0.3.0 typo `/v1/task/{id}/pushNotificationConfigs` the generated table carries.
const EXTRA_1_0: Record<string, HttpBinding[]> = {
  SubscribeToTask: [bindingFor("POST", "/tasks/{id=*}:subscribe", "*"), bindingFor("POST", "/{tenant}/tasks/{id=*}:subscribe", "*")],
};
const CREATE_0_3_FIXED = bindingFor("POST", "/v1/{parent=tasks/*}/pushNotificationConfigs", "config");
const EXTRA_0_3: Record<string, HttpBinding[]> = {
  SubscribeToTask: [bindingFor("POST", "/v1/{name=tasks/*}:subscribe", "*")],
  CreateTaskPushNotificationConfig: [CREATE_0_3_FIXED],
};
/** 0.3 has no ListTasks; S03 documents `GET /v1/tasks` anyway (O4): routed so it can answer UnsupportedOperation (L6). */
const LIST_TASKS_0_3: HttpBinding = bindingFor("GET", "/v1/tasks", "");

const ROUTES: Record<ProtocolVersion, RestRoute[]> = {
  "1.0": compileRoutes(v1_0.methods, EXTRA_1_0),
  "0.3": compileRoutes([...v0_3.methods, { ...v1_0.methods.find((m) => m.operation === "ListTasks")!, http: [LIST_TASKS_0_3] }], EXTRA_0_3),
};

/** The server's REST route table of `version`, most specific first, tolerances included. */
export function restRoutes(version: ProtocolVersion): readonly RestRoute[] {
  return ROUTES[version];
}

const pbSchemas = v0_3.pb as unknown as Record<string, DescMessage | undefined>;

/** The message a REST request of `op` is transcoded into: 1.0 request message, or the P03 request message. */
export function restRequestSchema(version: ProtocolVersion, op: Operation): DescMessage {
  if (version === "1.0") return OPERATIONS[op].request;
  const m = v0_3.methods.find((x) => x.operation === op);
  const schema = m ? pbSchemas[`${m.requestType}Schema`] : undefined;
  if (!schema) return OPERATIONS[op].request;
  return schema;
}

/** The bindings a client uses for `op` (GET for subscribe, the fixed 0.3 create-push-config path). */
export function restClientBindings(version: ProtocolVersion, op: Operation): readonly HttpBinding[] {
  if (version === "0.3" && op === "CreateTaskPushNotificationConfig") return [CREATE_0_3_FIXED];
  const table = version === "1.0" ? v1_0.methods : v0_3.methods;
  return table.find((m) => m.operation === op)?.http ?? [];
}

// ---------------------------------------------------------------------------------------------
// 0.3 translation, per binding: D03-RPC for JSON-RPC, D03-PB for HTTP+JSON. Adapts the
// translators' upgradeX/downgradeX functions to operations.

export interface Translator0_3 {
  upgradeRequest(op: Operation, wire: unknown, opts?: DecodeRequestOptions): Translated<JsonValue>;
  downgradeRequest(op: Operation, json: JsonValue, opts?: TranslateOptions): Translated<JsonValue>;
  upgradeResponse(op: Operation, wire: unknown): Translated<JsonValue>;
  downgradeResponse(op: Operation, json: JsonValue, opts?: TranslateOptions): Translated<JsonValue>;
  upgradeEvent(wire: unknown): Translated<JsonValue> & { final: boolean };
  downgradeEvent(json: JsonValue, final: boolean, opts?: TranslateOptions): Translated<JsonValue>;
}

/**
 * One operation's translators with the wire types erased: method syntax (bivariant parameters) lets
 * every typed translator of a dialect stand here as it is; the types were checked at the join below.
 */
interface Pair {
  up(wire: never, ...opts: never[]): Translated<unknown>;
  down(json: never, ...opts: never[]): Translated<unknown>;
}
const identity: Pair = { up: () => ({ value: {}, losses: [] }), down: () => ({ value: {}, losses: [] }) };

/** Per operation: request and response translators of one 0.3 dialect. */
type Table = Record<Operation, { request: Pair; response: Pair } | undefined>;

function tableOf<W extends Wire0_3>(t: Dialect0_3<W>): Table {
  const send = { request: { up: t.upgradeSendMessageRequest, down: t.downgradeSendMessageRequest } };
  const stream = { up: t.upgradeStreamResponse, down: t.downgradeStreamResponse };
  const task = { up: t.upgradeTask, down: t.downgradeTask };
  return {
    SendMessage: { ...send, response: { up: t.upgradeSendMessageResponse, down: t.downgradeSendMessageResponse } },
    SendStreamingMessage: { ...send, response: stream },
    GetTask: { request: { up: t.upgradeGetTaskRequest, down: t.downgradeGetTaskRequest }, response: task },
    ListTasks: undefined,
    CancelTask: { request: { up: t.upgradeCancelTaskRequest, down: t.downgradeCancelTaskRequest }, response: task },
    SubscribeToTask: { request: { up: t.upgradeSubscribeToTaskRequest, down: t.downgradeSubscribeToTaskRequest }, response: stream },
    CreateTaskPushNotificationConfig: {
      request: { up: t.upgradeCreatePushConfigParams, down: t.downgradeCreatePushConfigParams },
      response: { up: t.upgradeCreatePushConfigResult, down: t.downgradeCreatePushConfigResult },
    },
    GetTaskPushNotificationConfig: {
      request: { up: t.upgradeGetPushConfigParams, down: t.downgradeGetPushConfigParams },
      response: { up: t.upgradeGetPushConfigResult, down: t.downgradeGetPushConfigResult },
    },
    ListTaskPushNotificationConfigs: {
      request: { up: t.upgradeListPushConfigParams, down: t.downgradeListPushConfigParams },
      response: { up: t.upgradeListPushConfigResult, down: t.downgradeListPushConfigResult },
    },
    DeleteTaskPushNotificationConfig: {
      request: { up: t.upgradeDeletePushConfigParams, down: t.downgradeDeletePushConfigParams },
      response: { up: t.upgradeDeletePushConfigResult, down: t.downgradeDeletePushConfigResult },
    },
    // 0.3 JSON-RPC sends no params; D03-PB GetAgentCardRequest and 1.0 GetExtendedAgentCardRequest are both empty.
    GetExtendedAgentCard: { request: identity, response: { up: t.upgradeAgentCard, down: t.downgradeAgentCard } },
  };
}

// The join: each module must satisfy the contract for its wire types, or this does not compile.
const RPC: Dialect0_3<RpcWire0_3> = rpc0_3;
const REST: Dialect0_3<RestWire0_3> = rest0_3;

/** The `final` flag of a 0.3 stream item of either dialect. */
function finalOf(wire: unknown, isRpc: boolean): boolean {
  if (!wire || typeof wire !== "object") return false;
  const o = wire as Record<string, unknown>;
  if (isRpc) return o.kind === "status-update" && o.final === true;
  const su = o.statusUpdate as Record<string, unknown> | undefined;
  return !!su && typeof su === "object" && su.final === true;
}

/** 0.3 REST tolerances on the request message before translation (docs/policies.md, O5/E18/E21). */
function restFixups0_3(op: Operation, wire: unknown): unknown {
  if (op !== "CreateTaskPushNotificationConfig" || !wire || typeof wire !== "object") return wire;
  const o = { ...(wire as Record<string, unknown>) };
  // The v0.3.0 typo route binds parent to "task/{id}/pushNotificationConfigs".
  if (typeof o.parent === "string") {
    const m = /^tasks?\/([^/]+)(?:\/pushNotificationConfigs)?$/.exec(o.parent);
    if (m) o.parent = `tasks/${m[1]}`;
  }
  // Body wrapped as {config: …} (S03 §7.5) instead of the bare config (P03 body: "config").
  const cfg = o.config as Record<string, unknown> | undefined;
  if (cfg && typeof cfg === "object" && !Array.isArray(cfg) && cfg.config && typeof cfg.config === "object") {
    const { config, ...rest } = cfg;
    Object.assign(o, rest, { config });
  }
  // config_id is REQUIRED in P03 but clients of the typo route rarely send it: fall back to the
  // config's own id, else "" (the server then assigns one).
  if (o.configId === undefined) {
    const inner = (o.config as { pushNotificationConfig?: { id?: unknown } } | undefined)?.pushNotificationConfig;
    o.configId = typeof inner?.id === "string" ? inner.id : "";
  }
  return o;
}

function makeTranslator(binding: Binding): Translator0_3 {
  const isRpc = binding === "JSONRPC";
  const table = isRpc ? tableOf(RPC) : tableOf(REST);
  const entry = (op: Operation) => {
    const e = table[op];
    if (!e) throw listTasksUnsupported();
    return e;
  };
  // The wire side is whatever the caller decoded; the erased Pair takes it as it comes.
  const call = (f: (...a: never[]) => Translated<unknown>, ...args: unknown[]) =>
    (f as (...a: unknown[]) => Translated<JsonValue>)(...args);
  return {
    upgradeRequest: (op, wire, opts = {}) => {
      const input = isRpc ? (wire ?? {}) : restFixups0_3(op, wire);
      const isSend = op === "SendMessage" || op === "SendStreamingMessage";
      if (!isRpc && isSend) return call(entry(op).request.up, input, { blockingDefault: opts.blockingDefault ?? false });
      return call(entry(op).request.up, input);
    },
    downgradeRequest: (op, json, opts) => call(entry(op).request.down, json, opts),
    upgradeResponse: (op, wire) => call(entry(op).response.up, wire),
    downgradeResponse: (op, json, opts) => call(entry(op).response.down, json, opts),
    upgradeEvent: (wire) => ({ ...call(entry("SendStreamingMessage").response.up, wire), final: finalOf(wire, isRpc) }),
    downgradeEvent: (json, final, opts) => call(entry("SendStreamingMessage").response.down, json, { ...opts, final }),
  };
}

/** The validator a translation already checked its output with, if the output is still that value. */
function validatorOf(up: Translated<unknown>): ValidateFunction | undefined {
  return up.validated && up.validated.value === up.value ? up.validated.validator : undefined;
}

const translators = new Map<Binding, Translator0_3>();

function translator0_3(binding: Binding): Translator0_3 {
  let t = translators.get(binding);
  if (!t) translators.set(binding, (t = makeTranslator(binding)));
  return t;
}
