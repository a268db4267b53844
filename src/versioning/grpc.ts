// The gRPC seam of the versioning layer: which service is which version, and each version's gRPC
// messages ⇄ 1.0 protobuf-es messages, stream events and errors (google.rpc.Status details).
//
//   GRPC_SERVICES[version]              the generated service descriptor (1.0: lf.a2a.v1.A2AService,
//                                       0.3: a2a.v1.A2AService; the service name tells the version)
//   grpcMethods(version)                operation ⇄ rpc and full method path (generated method tables)
//   decodeGrpcRequest / encodeGrpcResponse / encodeGrpcEvent   server side
//   encodeGrpcRequest / decodeGrpcResponse / decodeGrpcEvent   client side
//   grpcStatusOf(version, err) / errorFromGrpcStatus(version, code, message, details)
//
// 1.0 messages are the handler's own: nothing to translate. A 0.3 message is the D03-PB dialect
// (the same 0.3 a2a.proto the HTTP+JSON binding transcodes), so it goes to its ProtoJSON and
// through the 0.3 HTTP+JSON codec (rest0_3.ts): one translation of 0.3 ⇄ 1.0, its losses reported
// the same way. Binary and ProtoJSON carry the same values (proto3, no unknown fields kept), so the
// detour loses nothing of its own.
import { fromJson, toJson, type DescMessage, type DescService, type JsonValue, type Message } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { jsonLimitIssue } from "../runtime/json-limits.js";
import type { MethodInfo } from "../runtime/methods.js";
import { checkRequest1_0, codecFor, OPERATIONS, type Operation, type RequestOf, type ResponseOf } from "./codec.js";
import {
  A2AError,
  BAD_REQUEST_TYPE,
  ERROR_DOMAIN,
  ERROR_INFO_TYPE,
  ERRORS,
  grpcStatus0_3,
  errorByReason,
  GRPC_CODES,
  invalidParams,
  type A2AErrorName,
} from "./errors.js";
import type { Translated } from "./loss.js";
import { normalizeVersion, versionNotSupported, type ProtocolVersion } from "./negotiate.js";
import { ends0_3Stream, FinalFlagger, type FlaggedEvent } from "./stream.js";

export const GRPC_SERVICES: Record<ProtocolVersion, DescService> = { "1.0": v1_0.A2AService, "0.3": v0_3.pb.A2AService };

/** The metadata key of the version service parameter (1.0 §10.2: lowercase). */
export const GRPC_VERSION_KEY = "a2a-version";

/** The methods of a version's service, by 1.0 operation (0.3 has no ListTasks). */
export function grpcMethods(version: ProtocolVersion): readonly MethodInfo[] {
  return version === "1.0" ? v1_0.methods : v0_3.methods;
}

export function grpcMethodOf(version: ProtocolVersion, op: Operation): MethodInfo | undefined {
  return grpcMethods(version).find((m) => m.operation === op);
}

/**
 * What the `a2a-version` metadata key may say on `version`'s service (docs/policies.md): the
 * service decides the version; absent or empty agrees with it, and so does the same Major.Minor;
 * any other value is VersionNotSupportedError (the messages of this service are not that version's).
 */
export function checkGrpcVersion(version: ProtocolVersion, asked: string | null | undefined): void {
  const raw = (asked ?? "").split(",")[0]?.trim() ?? "";
  if (raw === "" || normalizeVersion(raw) === version) return;
  const e = versionNotSupported(normalizeVersion(raw), [version]);
  const other = version === "1.0" ? "a2a.v1.A2AService" : "lf.a2a.v1.A2AService";
  throw new A2AError(e.type, `${e.message} (${GRPC_SERVICES[version].typeName}; use ${other})`, e.metadata);
}

// ---- messages ------------------------------------------------------------------------------------

const schema03 = (name: string): DescMessage => {
  const s = (v0_3.pb as unknown as Record<string, DescMessage | undefined>)[`${name}Schema`];
  if (!s) throw new Error(`no 0.3 message ${name}`);
  return s;
};

function method03(op: Operation): MethodInfo {
  const m = grpcMethodOf("0.3", op);
  if (!m) throw new A2AError("UnsupportedOperationError", `${op} is not part of A2A 0.3 (loss L6)`, { operation: op, loss: "L6" });
  return m;
}

function responseSchema03(op: Operation): DescMessage {
  const t = method03(op).responseType;
  return t === "google.protobuf.Empty" ? v1_0_empty() : schema03(t);
}

// The 0.3 proto's Empty is google.protobuf.Empty, the same descriptor 1.0's codec uses.
const v1_0_empty = () => OPERATIONS.DeleteTaskPushNotificationConfig.response as DescMessage;

const toProtoJson = (schema: DescMessage, m: Message): JsonValue => toJson(schema, m as never);

/**
 * A request message as ProtoJSON, judged as the JSON bindings judge theirs: a value ProtoJSON
 * cannot hold (NaN or ±Infinity in a google.protobuf.Value, a Timestamp outside years 1–9999) and
 * nesting past MAX_JSON_DEPTH are InvalidParams, not an internal error.
 */
function requestJson(schema: DescMessage, m: Message): JsonValue {
  let json: JsonValue;
  try {
    json = toProtoJson(schema, m);
  } catch (e) {
    throw invalidParams("", `cannot be represented in ProtoJSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const issue = jsonLimitIssue(json);
  if (issue) throw invalidParams(issue.path, issue.message);
  return json;
}

/** Server: a request message of `version`'s service → the 1.0 request. */
export function decodeGrpcRequest<O extends Operation>(version: ProtocolVersion, op: O, msg: Message): Translated<RequestOf<O>> {
  // A 1.0 request is judged as its ProtoJSON would be (a REQUIRED field left at its default, such
  // as an empty messageId, is absent in proto3): the same validation, the same InvalidParams.
  if (version === "1.0") {
    const schema = OPERATIONS[op].request;
    checkRequest1_0(schema, requestJson(schema, msg));
    return { value: msg as RequestOf<O>, losses: [] };
  }
  const json = requestJson(schema03(method03(op).requestType), msg);
  return codecFor("0.3", "HTTP+JSON").decodeRequest(op, json);
}

/** Server: the 1.0 response → the response message of `version`'s service. */
export function encodeGrpcResponse<O extends Operation>(version: ProtocolVersion, op: O, response: ResponseOf<O>): Translated<Message> {
  if (version === "1.0") return { value: response, losses: [] };
  const wire = codecFor("0.3", "HTTP+JSON").encodeResponse(op, response);
  return { value: fromJson(responseSchema03(op), wire.value), losses: wire.losses };
}

/**
 * Server: a 1.0 stream → messages of `version`'s service. 0.3 gets `final` from the 1.0 states
 * (stream.ts) and ends after the final item, as on the other 0.3 bindings.
 */
export function grpcEventEncoder(version: ProtocolVersion): {
  push(event: v1_0.StreamResponse): { messages: Message[]; close: boolean };
  end(): Message[];
} {
  if (version === "1.0") return { push: (e) => ({ messages: [e], close: false }), end: () => [] };
  const flagger = new FinalFlagger();
  const codec = codecFor("0.3", "HTTP+JSON");
  const encode = (items: FlaggedEvent[]) =>
    items.map((i) => fromJson(v0_3.pb.StreamResponseSchema, codec.encodeEvent(i.event, i.final).value));
  let closed = false;
  return {
    push(e) {
      if (closed) return { messages: [], close: true };
      const messages = encode(flagger.push(e));
      closed = flagger.closed;
      return { messages, close: closed };
    },
    end() {
      if (closed) return [];
      closed = true;
      return encode(flagger.end());
    },
  };
}

/** Client: the 1.0 request → the request message of `version`'s service. */
export function encodeGrpcRequest<O extends Operation>(version: ProtocolVersion, op: O, request: RequestOf<O>): Translated<Message> {
  if (version === "1.0") return { value: request, losses: [] };
  const wire = codecFor("0.3", "HTTP+JSON").encodeRequest(op, request);
  return { value: fromJson(schema03(method03(op).requestType), wire.value), losses: wire.losses };
}

/** Client: a response message of `version`'s service → the 1.0 response. */
export function decodeGrpcResponse<O extends Operation>(version: ProtocolVersion, op: O, msg: Message): Translated<ResponseOf<O>> {
  if (version === "1.0") return { value: msg as ResponseOf<O>, losses: [] };
  return codecFor("0.3", "HTTP+JSON").decodeResponse(op, toProtoJson(responseSchema03(op), msg));
}

/** Client: one stream message → the 1.0 event; `final`: a 0.3 stream ends after it. */
export function decodeGrpcEvent(version: ProtocolVersion, msg: Message): Translated<v1_0.StreamResponse> & { final: boolean } {
  if (version === "1.0") return { value: msg as v1_0.StreamResponse, losses: [], final: false };
  const d = codecFor("0.3", "HTTP+JSON").decodeEvent(toProtoJson(v0_3.pb.StreamResponseSchema, msg));
  return { ...d, final: ends0_3Stream(d.value, d.final) };
}

// ---- errors --------------------------------------------------------------------------------------

/** One `google.rpc.Status` detail: the Any's type name (without the type.googleapis.com/ prefix) and bytes. */
export interface GrpcDetail {
  type: string;
  value: Uint8Array;
}

export interface GrpcStatusOf {
  code: number;
  message: string;
  details: GrpcDetail[];
}

/**
 * An A2AError as a gRPC status. 1.0: the 1.0.1 code (§5.4) and `google.rpc.ErrorInfo` (reason,
 * domain "a2a-protocol.org", metadata; §10.6) plus a BadRequest detail when the error has one. 0.3
 * gets the same details (the official SDK's 0.3 service sends ErrorInfo too; where 0.3 codes
 * collide, the reason tells the errors apart) with the 0.3 code.
 */
export function grpcStatusOf(version: ProtocolVersion, err: A2AError): GrpcStatusOf {
  const name = err.retryAfterSeconds !== undefined ? "UNAVAILABLE" : version === "0.3" ? grpcStatus0_3(err.type) : err.spec.grpc;
  const details: GrpcDetail[] = [];
  if (err.spec.reason)
    details.push({
      type: ERROR_INFO_TYPE.replace("type.googleapis.com/", ""),
      value: encodeErrorInfo(err.spec.reason, ERROR_DOMAIN, Object.fromEntries(Object.entries(err.metadata).map(([k, v]) => [k, clip(v)]))),
    });
  for (const d of err.details) {
    if (d["@type"] !== BAD_REQUEST_TYPE) continue;
    const violations = (d.fieldViolations ?? []) as { field?: string; description?: string }[];
    const clipped = violations.map((v) => ({ field: clip(v.field ?? ""), description: clip(v.description ?? "") }));
    details.push({ type: BAD_REQUEST_TYPE.replace("type.googleapis.com/", ""), value: encodeBadRequest(clipped) });
  }
  return { code: GRPC_CODES[name], message: clip(err.message), details };
}

/**
 * The status travels in HTTP/2 trailers, which peers cap (16 KB is common): a string echoing
 * the request (a 64 KB task id in "Task … not found") would make the trailers too large and the
 * stream be reset. Each string is cut to TRAILER_STRING_MAX characters.
 */
const TRAILER_STRING_MAX = 1024;
const clip = (s: string) => (s.length > TRAILER_STRING_MAX ? `${s.slice(0, TRAILER_STRING_MAX)}… (cut)` : s);

/** Without an ErrorInfo reason: the error a bare status code most likely is (1.0.0, 1.0.1 and 0.3 codes). */
const BY_CODE: Partial<Record<number, A2AErrorName>> = {
  [GRPC_CODES.INVALID_ARGUMENT]: "InvalidParamsError",
  [GRPC_CODES.NOT_FOUND]: "TaskNotFoundError",
  [GRPC_CODES.UNIMPLEMENTED]: "UnsupportedOperationError",
  [GRPC_CODES.FAILED_PRECONDITION]: "UnsupportedOperationError",
};

/**
 * A gRPC error status back into an A2AError: ErrorInfo.reason (domain a2a-protocol.org) decides,
 * whatever the code (so 1.0.0's UNIMPLEMENTED and 1.0.1's FAILED_PRECONDITION read alike);
 * without one, the code. Undefined for codes that are no A2A error (UNAUTHENTICATED, UNAVAILABLE,
 * DEADLINE_EXCEEDED, CANCELLED …): the caller reports those as transport failures.
 */
export function errorFromGrpcStatus(code: number, message: string, details: readonly GrpcDetail[]): A2AError | undefined {
  let info: { reason: string; domain: string; metadata: Record<string, string> } | undefined;
  const rest: Record<string, unknown>[] = [];
  for (const d of details) {
    const type = d.type.replace(/^type\.googleapis\.com\//, "");
    try {
      if (type === "google.rpc.ErrorInfo") info ??= decodeErrorInfo(d.value);
      else if (type === "google.rpc.BadRequest") rest.push({ "@type": BAD_REQUEST_TYPE, fieldViolations: decodeBadRequest(d.value) });
    } catch {
      // A detail that does not decode is ignored; the code still says what happened.
    }
  }
  const byReason = info && info.domain === ERROR_DOMAIN ? errorByReason(info.reason) : undefined;
  const name =
    (byReason?.name as A2AErrorName | undefined) ?? BY_CODE[code] ?? (code === GRPC_CODES.INTERNAL ? "InternalError" : undefined);
  if (!name) return undefined;
  return new A2AError(name, message || ERRORS[name].message, info?.metadata ?? {}, rest);
}

// google.rpc.ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }
// google.rpc.BadRequest { repeated FieldViolation field_violations = 1; }
// FieldViolation { string field = 1; string description = 2; }  (googleapis error_details.proto)

export function encodeErrorInfo(reason: string, domain: string, metadata: Record<string, string>): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, 2).string(reason).tag(2, 2).string(domain);
  for (const [k, v] of Object.entries(metadata)) w.tag(3, 2).fork().tag(1, 2).string(k).tag(2, 2).string(v).join();
  return w.finish();
}

export function decodeErrorInfo(bytes: Uint8Array): { reason: string; domain: string; metadata: Record<string, string> } {
  const r = new BinaryReader(bytes);
  const out = { reason: "", domain: "", metadata: {} as Record<string, string> };
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WireType.LengthDelimited) out.reason = r.string();
    else if (field === 2 && wire === WireType.LengthDelimited) out.domain = r.string();
    else if (field === 3 && wire === WireType.LengthDelimited) {
      const [k, v] = pair(r.bytes());
      out.metadata[k] = v;
    } else r.skip(wire);
  }
  return out;
}

function encodeBadRequest(violations: readonly { field?: string; description?: string }[]): Uint8Array {
  const w = new BinaryWriter();
  for (const v of violations)
    w.tag(1, 2)
      .fork()
      .tag(1, 2)
      .string(v.field ?? "")
      .tag(2, 2)
      .string(v.description ?? "")
      .join();
  return w.finish();
}

function decodeBadRequest(bytes: Uint8Array): { field: string; description: string }[] {
  const r = new BinaryReader(bytes);
  const out: { field: string; description: string }[] = [];
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WireType.LengthDelimited) {
      const [f, d] = pair(r.bytes());
      out.push({ field: f, description: d });
    } else r.skip(wire);
  }
  return out;
}

/** Fields 1 and 2 (strings) of a small message: a map entry or a FieldViolation. */
function pair(bytes: Uint8Array): [string, string] {
  const r = new BinaryReader(bytes);
  let a = "";
  let b = "";
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WireType.LengthDelimited) a = r.string();
    else if (field === 2 && wire === WireType.LengthDelimited) b = r.string();
    else r.skip(wire);
  }
  return [a, b];
}
