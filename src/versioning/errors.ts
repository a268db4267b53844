// One table for every A2A and JSON-RPC error: JSON-RPC code, HTTP status, gRPC status and
// google.rpc.ErrorInfo reason (A2A 1.0.1 §5.4; a2a-wire.md §3). Every binding encodes errors
// from here, in both versions.
import type { Loss } from "./loss.js";

export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
export const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";
/** A 0.3 `error.data` that is not an array travels in 1.0 as one google.protobuf.Value detail (a2a-wire.md §3.5, L28). */
export const VALUE_TYPE = "type.googleapis.com/google.protobuf.Value";
export const ERROR_DOMAIN = "a2a-protocol.org";

/** google.rpc.Code names and numbers (a2a-wire.md §3.4). */
export const GRPC_CODES = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatus = keyof typeof GRPC_CODES;

export interface ErrorSpec {
  /** 1.0 name (the key of ERRORS). */
  name: string;
  /** 0.3 JSON-RPC name where it differs or exists (undefined: 1.0 only). */
  name0_3?: string;
  code: number;
  http: number;
  grpc: GrpcStatus;
  /** ErrorInfo.reason (UPPER_SNAKE_CASE, no "Error" suffix); undefined for plain JSON-RPC errors. */
  reason?: string;
  /** Default message (1.0 §9.5 standard message; 0.3 T03 default where 1.0 has none). */
  message: string;
  /** 0.3 default message where it differs (T03). */
  message0_3?: string;
}

const spec = (s: ErrorSpec) => s;

export const ERRORS = {
  JSONParseError: spec({
    name: "JSONParseError",
    name0_3: "JSONParseError",
    code: -32700,
    http: 400,
    grpc: "INVALID_ARGUMENT",
    message: "Invalid JSON payload",
  }),
  InvalidRequestError: spec({
    name: "InvalidRequestError",
    name0_3: "InvalidRequestError",
    code: -32600,
    http: 400,
    grpc: "INVALID_ARGUMENT",
    message: "Request payload validation error",
  }),
  MethodNotFoundError: spec({
    name: "MethodNotFoundError",
    name0_3: "MethodNotFoundError",
    code: -32601,
    http: 404,
    grpc: "NOT_FOUND",
    message: "Method not found",
  }),
  InvalidParamsError: spec({
    name: "InvalidParamsError",
    name0_3: "InvalidParamsError",
    code: -32602,
    http: 400,
    grpc: "INVALID_ARGUMENT",
    message: "Invalid parameters",
  }),
  InternalError: spec({
    name: "InternalError",
    name0_3: "InternalError",
    code: -32603,
    http: 500,
    grpc: "INTERNAL",
    message: "Internal error",
  }),
  TaskNotFoundError: spec({
    name: "TaskNotFoundError",
    name0_3: "TaskNotFoundError",
    code: -32001,
    http: 404,
    grpc: "NOT_FOUND",
    reason: "TASK_NOT_FOUND",
    message: "Task not found",
  }),
  TaskNotCancelableError: spec({
    name: "TaskNotCancelableError",
    name0_3: "TaskNotCancelableError",
    code: -32002,
    http: 400,
    grpc: "FAILED_PRECONDITION",
    reason: "TASK_NOT_CANCELABLE",
    message: "Task cannot be canceled",
  }),
  PushNotificationNotSupportedError: spec({
    name: "PushNotificationNotSupportedError",
    name0_3: "PushNotificationNotSupportedError",
    code: -32003,
    http: 400,
    grpc: "FAILED_PRECONDITION",
    reason: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    message: "Push Notification is not supported",
  }),
  UnsupportedOperationError: spec({
    name: "UnsupportedOperationError",
    name0_3: "UnsupportedOperationError",
    code: -32004,
    http: 400,
    grpc: "FAILED_PRECONDITION",
    reason: "UNSUPPORTED_OPERATION",
    message: "This operation is not supported",
  }),
  ContentTypeNotSupportedError: spec({
    name: "ContentTypeNotSupportedError",
    name0_3: "ContentTypeNotSupportedError",
    code: -32005,
    http: 400,
    grpc: "INVALID_ARGUMENT",
    reason: "CONTENT_TYPE_NOT_SUPPORTED",
    message: "Incompatible content types",
  }),
  InvalidAgentResponseError: spec({
    name: "InvalidAgentResponseError",
    name0_3: "InvalidAgentResponseError",
    code: -32006,
    http: 500,
    grpc: "INTERNAL",
    reason: "INVALID_AGENT_RESPONSE",
    message: "Invalid agent response",
  }),
  ExtendedAgentCardNotConfiguredError: spec({
    name: "ExtendedAgentCardNotConfiguredError",
    name0_3: "AuthenticatedExtendedCardNotConfiguredError",
    code: -32007,
    http: 400,
    grpc: "FAILED_PRECONDITION",
    reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    message: "Extended agent card is not configured",
    message0_3: "Authenticated Extended Card is not configured",
  }),
  ExtensionSupportRequiredError: spec({
    name: "ExtensionSupportRequiredError",
    code: -32008,
    http: 400,
    grpc: "FAILED_PRECONDITION",
    reason: "EXTENSION_SUPPORT_REQUIRED",
    message: "Extension support required",
  }),
  VersionNotSupportedError: spec({
    name: "VersionNotSupportedError",
    code: -32009,
    http: 400,
    grpc: "FAILED_PRECONDITION",
    reason: "VERSION_NOT_SUPPORTED",
    message: "Protocol version not supported",
  }),
} as const satisfies Record<string, ErrorSpec>;

export type A2AErrorName = keyof typeof ERRORS;

export function errorByCode(code: number): ErrorSpec | undefined {
  return Object.values(ERRORS).find((e) => e.code === code);
}

export function errorByReason(reason: string): ErrorSpec | undefined {
  return Object.values(ERRORS).find((e) => "reason" in e && e.reason === reason);
}

/**
 * An A2A protocol error, independent of binding and version. `metadata` goes into
 * ErrorInfo.metadata (string values); `details` are extra `@type` objects (e.g. BadRequest).
 */
export class A2AError extends Error {
  readonly spec: ErrorSpec;
  constructor(
    readonly type: A2AErrorName,
    message?: string,
    readonly metadata: Record<string, string> = {},
    readonly details: Record<string, unknown>[] = [],
  ) {
    super(message ?? ERRORS[type].message);
    this.name = type;
    this.spec = ERRORS[type];
  }

  get code(): number {
    return this.spec.code;
  }

  /**
   * Seconds after which a retry may succeed: set on an error that is not the request's fault and
   * passes (a replica past its lease, an unreachable store). HTTP 503 + Retry-After, gRPC
   * UNAVAILABLE, JSON-RPC `data: {"retryable": true, ...}` (docs/policies.md).
   */
  retryAfterSeconds?: number;
}

/**
 * A thrown value that says a retry may succeed: an Error with `retryable: true` (pg-store.ts marks
 * a PostgreSQL outage so, and a replica's LeaseLostError carries it).
 */
export function isRetryableCause(e: unknown): e is Error & { retryable: true } {
  return e instanceof Error && (e as { retryable?: unknown }).retryable === true;
}

/** `e` marked retryable after `seconds` (A2AError.retryAfterSeconds). */
export function retryable(e: A2AError, seconds = 1): A2AError {
  e.retryAfterSeconds = seconds;
  return e;
}

/** Shorthand for the InvalidParams error of a failed validation, with a BadRequest detail. */
export function invalidParams(field: string, description: string): A2AError {
  return new A2AError("InvalidParamsError", `Invalid parameters: ${field || "/"}: ${description}`, {}, [
    { "@type": BAD_REQUEST_TYPE, fieldViolations: [{ field, description }] },
  ]);
}

function errorInfo(e: A2AError): Record<string, unknown>[] {
  if (!e.spec.reason) return [];
  return [
    {
      "@type": ERROR_INFO_TYPE,
      reason: e.spec.reason,
      domain: ERROR_DOMAIN,
      ...(Object.keys(e.metadata).length ? { metadata: e.metadata } : {}),
    },
  ];
}

/** JSON-RPC `error` member. 1.0: `data` is an array of `@type` objects; 0.3: the same array is a legal `any`. */
export function toJsonRpcError(e: A2AError): { code: number; message: string; data?: unknown } {
  const data = [...errorInfo(e), ...e.details];
  if (e.retryAfterSeconds !== undefined)
    return { code: e.code, message: e.message, data: { retryable: true, retryAfterSeconds: e.retryAfterSeconds, details: data } };
  return { code: e.code, message: e.message, ...(data.length ? { data } : {}) };
}

/** HTTP+JSON error body (AIP-193, 1.0 §11.6) and its status code. */
export function toRestError(e: A2AError): {
  status: number;
  body: { error: { code: number; status: GrpcStatus; message: string; details: Record<string, unknown>[] } };
} {
  const [status, grpc] = e.retryAfterSeconds === undefined ? [e.spec.http, e.spec.grpc] : [503, "UNAVAILABLE" as GrpcStatus];
  return {
    status,
    body: { error: { code: status, status: grpc, message: e.message, details: [...errorInfo(e), ...e.details] } },
  };
}

/** Reads a JSON-RPC error object (either version) back into an A2AError. */
export function fromJsonRpcError(err: { code: number; message?: string; data?: unknown }): A2AError {
  const info = Array.isArray(err.data) ? (err.data as Record<string, unknown>[]).find((d) => d?.["@type"] === ERROR_INFO_TYPE) : undefined;
  const byReason = typeof info?.reason === "string" ? errorByReason(info.reason) : undefined;
  const s = byReason ?? errorByCode(err.code) ?? ERRORS.InternalError;
  const details = Array.isArray(err.data) ? (err.data as Record<string, unknown>[]).filter((d) => d?.["@type"] !== ERROR_INFO_TYPE) : [];
  const metadata = (info?.metadata ?? {}) as Record<string, string>;
  return new A2AError(s.name as A2AErrorName, err.message ?? s.message, metadata, details);
}

/** Reads an HTTP+JSON error response back into an A2AError: ErrorInfo.reason first, then the status. */
export function fromRestError(status: number, body: unknown): A2AError {
  const error = (body as { error?: { message?: string; details?: Record<string, unknown>[] } } | undefined)?.error;
  const details = Array.isArray(error?.details) ? error.details : [];
  const info = details.find((d) => d?.["@type"] === ERROR_INFO_TYPE);
  const byReason = typeof info?.reason === "string" ? errorByReason(info.reason) : undefined;
  const byStatus =
    status === 404
      ? ERRORS.TaskNotFoundError
      : status >= 500
        ? ERRORS.InternalError
        : status === 400
          ? ERRORS.InvalidParamsError
          : undefined;
  const s = byReason ?? byStatus ?? ERRORS.InternalError;
  const message = error?.message ?? (body as { message?: string } | undefined)?.message ?? s.message;
  return new A2AError(
    s.name as A2AErrorName,
    message,
    (info?.metadata ?? {}) as Record<string, string>,
    details.filter((d) => d !== info),
  );
}

// ---------------------------------------------------------------------------------------------
// Version-specific forms (a2a-wire.md §3.3, §3.5; loss rows L12 and L28).
//
// 0.3 JSON-RPC `error.data` is "any value". Outgoing to a 0.3 peer, the 1.0 array (ErrorInfo
// first) is kept: it is a legal 0.3 value. The one exception is a value that came from 0.3 in the
// first place (a single google.protobuf.Value detail): it is unwrapped back to the raw value.
// Incoming from a 0.3 peer, a non-array `data` is wrapped in such a Value detail. -32008 and -32009
// have no 0.3 definition and are sent to 0.3 peers anyway (0.3 lets servers define -32000..-32099).

/** JSON-RPC `error` member for a 0.3 peer. */
export function toJsonRpcError0_3(e: A2AError): { code: number; message: string; data?: unknown } {
  const message = e.message === e.spec.message && e.spec.message0_3 ? e.spec.message0_3 : e.message;
  const wrapped = e.details.filter((d) => d?.["@type"] === VALUE_TYPE);
  const [only] = wrapped;
  if (only && wrapped.length === 1 && e.details.length === 1) return { code: e.code, message, data: only.value };
  const out = toJsonRpcError(e);
  return { ...out, message };
}

/**
 * L12: what a 0.3 JSON-RPC peer cannot read in this error. -32008 and -32009 have no 0.3 definition;
 * they are sent anyway and reported here so the caller knows the peer may treat them as generic.
 */
export function errorLosses0_3(e: A2AError): Loss[] {
  if (e.code !== ERRORS.ExtensionSupportRequiredError.code && e.code !== ERRORS.VersionNotSupportedError.code) return [];
  return [
    {
      id: "L12",
      direction: "to-0.3",
      path: "/code",
      detail: `error code ${e.code} (${e.type}) has no 0.3 definition; sent as a server-defined code`,
    },
  ];
}

/**
 * HTTP+JSON error body for a 0.3 peer. 0.3 leaves its shape open (S03 §3.2.3); the body carries
 * what every known 0.3 reader looks for: the JSON-RPC `code` and `message` at the top level (the
 * official SDK's 0.3 REST client and server), the message with the HTTP status of the error table
 * (a2a-python 0.3), and the AIP-193 `error` member of 1.0 §11.6 beside them (our 1.0 readers).
 */
export function toRestError0_3(e: A2AError): { status: number; body: { code: number; message: string; error: unknown } } {
  const { status, body } = toRestError(e);
  return { status, body: { code: e.code, message: toJsonRpcError0_3(e).message, error: body.error } };
}

/** Reads a 0.3 JSON-RPC error: non-array `data` is kept as a google.protobuf.Value detail. */
export function fromJsonRpcError0_3(err: { code: number; message?: string; data?: unknown }): A2AError {
  if (err.data === undefined || Array.isArray(err.data)) return fromJsonRpcError(err);
  const e = fromJsonRpcError({ code: err.code, message: err.message });
  e.details.push({ "@type": VALUE_TYPE, value: err.data });
  return e;
}

/** 0.3 de-facto REST statuses (a2a-python 0.3; not normative) for bodies that carry no ErrorInfo. */
const STATUS_0_3: Record<number, A2AErrorName> = {
  404: "TaskNotFoundError",
  409: "TaskNotCancelableError",
  415: "ContentTypeNotSupportedError",
  422: "InvalidParamsError",
  501: "UnsupportedOperationError",
  502: "InvalidAgentResponseError",
};

/** RFC 9457 problem types used by the A2A 1.0 §6.4/§6.5 examples (E7: tolerated on input). */
const PROBLEM_TYPES: Record<string, A2AErrorName> = {
  "version-not-supported": "VersionNotSupportedError",
  "task-not-found": "TaskNotFoundError",
  "task-not-cancelable": "TaskNotCancelableError",
  "unsupported-operation": "UnsupportedOperationError",
  "push-notification-not-supported": "PushNotificationNotSupportedError",
  "content-type-not-supported": "ContentTypeNotSupportedError",
  "extension-support-required": "ExtensionSupportRequiredError",
  "invalid-parameters": "InvalidParamsError",
};

/** The A2A error named by a top-level JSON-RPC `code` of a REST error body (the official SDK's 0.3 REST shape). */
function topLevelCode(o: Record<string, unknown>): A2AErrorName | undefined {
  return typeof o.code === "number" ? (errorByCode(o.code)?.name as A2AErrorName | undefined) : undefined;
}

/**
 * Reads any HTTP+JSON error body: the AIP-193 `{error: Status}` of 1.0 §11.6 (ErrorInfo reason
 * first, then a top-level JSON-RPC `code`, then the status), the RFC 9457 problem bodies of the
 * 1.0 §6.4 examples, the 0.3 `{code, message}` bodies of the official SDK (`code` is the JSON-RPC
 * code), and the de-facto 0.3 `{message}` bodies (status per the 0.3 column of a2a-wire.md §3.1).
 */
export function fromAnyRestError(status: number, body: unknown, version: "1.0" | "0.3" = "1.0"): A2AError {
  const o = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
  const byCode = topLevelCode(o);
  if (o.error && typeof o.error === "object") {
    const e = fromRestError(status, body);
    const hasInfo = ((o.error as { details?: unknown[] }).details ?? []).some?.(
      (d) => (d as Record<string, unknown>)?.["@type"] === ERROR_INFO_TYPE,
    );
    if (!hasInfo && byCode) return new A2AError(byCode, e.message, e.metadata, e.details);
    if (!hasInfo && version === "0.3" && STATUS_0_3[status]) return new A2AError(STATUS_0_3[status], e.message, e.metadata, e.details);
    // A 1.0 server MUST send ErrorInfo with every A2A error (§11.6), so a 404 without one is not
    // TaskNotFound but a route the server does not have.
    if (!hasInfo && version === "1.0" && status === 404) return new A2AError("MethodNotFoundError", e.message, e.metadata, e.details);
    return e;
  }
  if (typeof o.type === "string") {
    const slug = o.type.slice(o.type.lastIndexOf("/") + 1);
    const name = PROBLEM_TYPES[slug];
    const message = typeof o.detail === "string" ? o.detail : typeof o.title === "string" ? o.title : undefined;
    const metadata: Record<string, string> = Array.isArray(o.supportedVersions) ? { supportedVersions: o.supportedVersions.join(",") } : {};
    if (name) return new A2AError(name, message, metadata);
  }
  const message = typeof o.message === "string" ? o.message : typeof o.detail === "string" ? o.detail : undefined;
  if (byCode) return fromJsonRpcError0_3({ code: o.code as number, message, data: o.data });
  if (version === "0.3" && STATUS_0_3[status]) return new A2AError(STATUS_0_3[status], message);
  const fallback = fromRestError(status, {});
  return new A2AError(fallback.type, message ?? fallback.message);
}

/**
 * gRPC status codes of 0.3 (0.3 §3.2.2 asks for "appropriate gRPC status codes" without a table):
 * the de-facto mapping of a2a-wire.md §3.1 / §3.2, last column. Errors 0.3 does not define keep 1.0.1's.
 */
const GRPC_0_3: Partial<Record<A2AErrorName, GrpcStatus>> = {
  MethodNotFoundError: "UNIMPLEMENTED",
  TaskNotCancelableError: "UNIMPLEMENTED",
  PushNotificationNotSupportedError: "UNIMPLEMENTED",
  UnsupportedOperationError: "UNIMPLEMENTED",
  ContentTypeNotSupportedError: "UNIMPLEMENTED",
  ExtendedAgentCardNotConfiguredError: "UNKNOWN",
};

/** The de-facto 0.3 gRPC status of an error (GRPC_0_3), or 1.0.1's where 0.3 practice has none of its own. */
export function grpcStatus0_3(error: A2AErrorName): GrpcStatus {
  return GRPC_0_3[error] ?? ERRORS[error].grpc;
}
