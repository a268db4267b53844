// What each (version, binding) must look like on the wire, written once for every projected
// scenario step (compliance/scenarios/, src/compliance/scenarios.ts): the headers a request
// carries, the envelope, status and content type of a successful answer (and that it is a valid
// message of the version's own schema), and how each A2A error is represented. A scenario says
// only what the 1.0 view must hold; these rules are checked on every projected step beside it.
// Each rule carries the sentences it rests on; they join the citations of the projected case.
import { ERRORS, ERROR_DOMAIN, ERROR_INFO_TYPE, grpcStatus0_3, type A2AErrorName } from "../versioning/errors.js";
import { OPERATIONS, type Operation } from "../versioning/codec.js";
import type { Citation, SpecVersion } from "./citations.js";
import type { CaseExpect, Level, Version } from "./cases.js";
import type { WireBinding } from "./projection.js";

/** One check of an error step: its expectation and, when it rests on another sentence, its own level. */
export interface ErrorCheck {
  /** Appended to the step's name when a rule splits an error step into several checks. */
  suffix?: string;
  expect: CaseExpect;
  level?: Level;
  spec?: Citation[];
}

export interface WireRule {
  /** Headers of every request (Content-Type only on requests with a body). */
  headers(withBody: boolean): Record<string, string>;
  /** A successful answer of `op` (JSON-RPC: with this id echoed). */
  success(op: Operation, rpcId: string | number): CaseExpect;
  /** An answer that refuses the request with some error, whichever (a step's `x-a2a-toolkit.refused`). */
  refused(rpcId: string | number): CaseExpect;
  /** The checks an answer carrying `error` (an ACTS §6.2 error type, isErrorName) must pass, in order; each is one exchange. */
  error(error: string, rpcId: string | number): ErrorCheck[];
  /**
   * A stream of `op` (send_streaming_message, subscribe_to_task): status, content type and each
   * event's envelope and schema; `ends` when the stream is read to its end (no stopAfter), which is
   * when 0.3's `final` flag can be judged.
   */
  stream(op: Operation, rpcId: string | number, ends: boolean): CaseExpect;
  /**
   * The checks of a request the server must refuse for its credentials (a scenario step's
   * `refused: authentication`, the §3.3.2 "Authentication Errors" category): refused at MUST, the
   * binding's status for authentication at SHOULD.
   */
  unauthenticated(rpcId: string | number): ErrorCheck[];
  /** The sentences the success and envelope rules rest on (added to every projected case). */
  spec: Citation[];
  /** The sentences the stream rules rest on (added to a case with a stream step). */
  streamSpec: Citation[];
  /** The sentences the error rules rest on (added to a case with an error step). */
  errorSpec: Citation[];
}

const JSON_CT = { "content-type": { $regex: "^application/json" } };
/** application/json, application/a2a+json, application/problem+json: any JSON media type. */
const JSON_MEDIA_TYPE = { $regex: "^application/([A-Za-z0-9.!#$&^_-]+\\+)?json\\s*($|;)" };
const OK_STATUS = { $range: [200, 299] };
const ABSENT = { $match: "absent" };

/** An A2A error the rules know (the names of src/versioning/errors.ts, ACTS §6.2's among them). */
export function isErrorName(name: string): name is A2AErrorName {
  return Object.prototype.hasOwnProperty.call(ERRORS, name);
}

const spec0 = (error: string) => ERRORS[error as A2AErrorName];

/**
 * The gRPC status name 1.0 gives an error. Where 1.0.0's mapping table differs from 1.0.1's
 * (UNIMPLEMENTED, not FAILED_PRECONDITION), an agent may follow either: both are `$variants`,
 * and the report names the one it follows.
 */
const UNIMPLEMENTED_IN_1_0_0 = new Set(["UnsupportedOperationError", "PushNotificationNotSupportedError", "VersionNotSupportedError"]);
function grpcStatus1_0(error: string): unknown {
  const status = spec0(error).grpc;
  return UNIMPLEMENTED_IN_1_0_0.has(error) ? { $variants: { "1.0.1": status, "1.0.0": "UNIMPLEMENTED" } } : status;
}

/**
 * The HTTP status 1.0 gives an error. Where 1.0.0's mapping table differs from 1.0.1's (1.0.0 §5.4:
 * 409 Conflict, 415 Unsupported Media Type, 502 Bad Gateway), either passes, as for gRPC; 0.3, which
 * has no table, is held to the same two at SHOULD.
 */
const HTTP_IN_1_0_0: Partial<Record<string, number>> = {
  TaskNotCancelableError: 409,
  ContentTypeNotSupportedError: 415,
  InvalidAgentResponseError: 502,
};
function httpStatus1_0(error: string): unknown {
  const status = spec0(error).http;
  const old = HTTP_IN_1_0_0[error];
  return old === undefined ? status : { $variants: { "1.0.1": status, "1.0.0": old } };
}

/** 0.3 gRPC: the de-facto status of an error, or 1.0.1's where they differ (both `$variants`, named in the report). */
function grpcStatus0_3Either(error: string): unknown {
  const usual = grpcStatus0_3(error as A2AErrorName);
  const now = spec0(error).grpc;
  return usual === now ? now : { $variants: { "0.3 practice": usual, "1.0.1": now } };
}

/**
 * The google.rpc.ErrorInfo an error carries (1.0.1 §10.6, §11.6: "For A2A-specific errors"), placed
 * by `at`; none for the JSON-RPC protocol errors (InvalidParamsError …), which have no reason.
 */
function errorInfo(error: string, at: (info: { reason: string; domain: string }) => Record<string, unknown>): Record<string, unknown> {
  const reason = spec0(error).reason;
  return reason === undefined ? {} : at({ reason, domain: ERROR_DOMAIN });
}

const cite = (version: SpecVersion, section: string, quote: string): Citation => ({ version, section, quote });

/** The operation whose HTTP+JSON answer may have no body at all (deletion). */
const EMPTY_REPLY: Operation = "DeleteTaskPushNotificationConfig";
const AUTH_STATUS_1_0 = [
  cite("1.0.1", "7.4", "**SHOULD** use appropriate binding-specific error codes for authentication challenges or rejections."),
  cite("1.0.1", "3.3.2", "Example error codes: HTTP `401 Unauthorized`, gRPC `UNAUTHENTICATED`, JSON-RPC custom error"),
];
const AUTH_STATUS_0_3 = [
  cite(
    "0.3.0",
    "4.4",
    "**SHOULD** use standard HTTP status codes like [`401 Unauthorized`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/401) or [`403 Forbidden`](https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/403) for authentication challenges or rejections.",
  ),
];
const HTTP_AUTH_STATUS = { $variants: { "401 Unauthorized": 401, "403 Forbidden": 403 } };
const GRPC_AUTH_STATUS = { $variants: { UNAUTHENTICATED: "UNAUTHENTICATED", PERMISSION_DENIED: "PERMISSION_DENIED" } };
/** An HTTP status that refuses: a client or server error, never a success. */
const ERROR_STATUS = { $range: [400, 599] };
/** A client-error status that is no authentication refusal (HTTP+JSON refusals of a request as such). */
export const CLIENT_ERROR_STATUS = { $range: [400, 499], $not: { $oneOf: [401, 403] } };
/** The AIP-193 error object, any code and status. */
export const AIP193_ERROR = { error: { code: { $match: "integer" }, status: { $match: "string" }, message: { $match: "string" } } };

/**
 * JSON-RPC: refused either at the HTTP level (an error status, and no JSON-RPC `result` in whatever
 * body comes) or with a JSON-RPC error (1.0.1 §3.3.2's "JSON-RPC custom error"), matched as one form
 * each, status and body together. The HTTP status at SHOULD.
 */
const jsonRpcRefusal = (statusSpec: Citation[]) => (id: string | number) => [
  {
    expect: {
      forms: {
        "HTTP error status": { status: ERROR_STATUS, body: { $optional: { result: ABSENT } } },
        "JSON-RPC error": {
          body: {
            jsonrpc: "2.0",
            id: { $oneOf: [id, null] },
            error: { code: { $match: "integer" }, message: { $match: "string" } },
            result: ABSENT,
          },
        },
      },
    },
  },
  { suffix: " (HTTP status)", expect: { status: HTTP_AUTH_STATUS }, level: "SHOULD" as Level, spec: statusSpec },
];

/** HTTP+JSON: an error status and no success body (a 200 carrying an error body is no refusal); the status at SHOULD. */
const restRefusal = (statusSpec: Citation[]) => () => [
  // No answer's payload: no task, no message object (1.0 `message`, 0.3 `msg`); an error's message string is fine.
  { expect: { status: ERROR_STATUS, body: { $optional: { task: ABSENT, msg: ABSENT, message: { $optional: { $match: "string" } } } } } },
  { suffix: " (HTTP status)", expect: { status: HTTP_AUTH_STATUS }, level: "SHOULD" as Level, spec: statusSpec },
];

/** gRPC: any status but OK; UNAUTHENTICATED (or PERMISSION_DENIED) at SHOULD. */
const grpcRefusal = (statusSpec: Citation[]) => () => [
  { expect: { grpc: { status: { $match: "nonEmptyString", $not: "OK" } } } },
  { suffix: " (status code)", expect: { grpc: { status: GRPC_AUTH_STATUS } }, level: "SHOULD" as Level, spec: statusSpec },
];

/** The generated validator a successful answer must pass, per dialect (`v1_0.*`, `v0_3.*` JSON-RPC, `v0_3.rest.*`). */
function validFor(version: Version, binding: WireBinding, op: Operation): unknown {
  // 1.0.1 §3.1.10 Outputs: "Confirmation of deletion (implementation-specific)"; 0.3 JSON-RPC: null.
  if (op === EMPTY_REPLY) return { $optional: { $match: "any" } };
  // 0.3 names the list singular; its JSON-RPC result is the bare array of configs.
  if (version === "0.3" && op === "ListTaskPushNotificationConfigs")
    return binding === "json-rpc"
      ? { $each: { $valid: "v0_3.TaskPushNotificationConfig" } }
      : { $valid: "v0_3.rest.ListTaskPushNotificationConfigResponse" };
  const type = OPERATIONS[op].response.name;
  if (version === "1.0") return { $valid: `v1_0.${type}` };
  if (binding !== "json-rpc") return { $valid: `v0_3.rest.${type}` };
  // 0.3 JSON-RPC: message/send answers a Task or a Message, told apart by `kind`.
  if (op === "SendMessage") return { $oneOf: [{ $valid: "v0_3.Task" }, { $valid: "v0_3.Message" }] };
  return { $valid: `v0_3.${type}` };
}

/** Refused, whichever error: a client-error status, or any gRPC status but OK. */
const REFUSED_HTTP: CaseExpect = { status: { $range: [400, 499] } };
const REFUSED_GRPC: CaseExpect = { grpc: { status: { $match: "nonEmptyString", $not: "OK" } } };

const SSE = { status: 200, headers: { "content-type": { $regex: "^text/event-stream" } } };

/**
 * 0.3 marks a stream's end with `final: true` on its last status update (0.3.0 §9.3): at most one
 * event carries it, and a stream read to its end that ends on a status update ends on that one.
 * `statusUpdate` tells a status update event; `final` is that event with the flag set.
 */
function final0_3(statusUpdate: unknown, final: unknown, ends: boolean): NonNullable<CaseExpect["stream"]> {
  return {
    counts: [{ where: final, max: 1 }],
    ...(ends
      ? {
          last: {
            $branch: [
              { name: "ends on a status update", if: statusUpdate, then: final },
              { name: "ends on another event", if: {}, then: {} },
            ],
          },
        }
      : {}),
  };
}
const FINAL_RPC_0_3 = (ends: boolean) =>
  final0_3({ result: { kind: "status-update" } }, { result: { kind: "status-update", final: true } }, ends);
const FINAL_PB_0_3 = (ends: boolean) => final0_3({ statusUpdate: { $match: "object" } }, { statusUpdate: { final: true } }, ends);

const FINAL_0_3 = [cite("0.3.0", "9.3", "Server closes the SSE connection after the final:true event")];

/** 1.0 JSON-RPC errors may carry `data`: a list of typed details (ErrorInfo …). */
const dataOf = (errorData: boolean) => (errorData ? { data: { $optional: { $each: { "@type": { $match: "nonEmptyString" } } } } } : {});

const jsonRpc = (version: Version, spec: Citation[], errorSpec: Citation[], errorData: boolean): WireRule => ({
  headers: () => ({ "Content-Type": "application/json", ...(version === "1.0" ? { "A2A-Version": "1.0" } : {}) }),
  success: (op, id) => ({
    status: OK_STATUS,
    headers: JSON_CT,
    body: { jsonrpc: "2.0", id, result: validFor(version, "json-rpc", op), error: ABSENT },
  }),
  refused: (id) => ({
    headers: JSON_CT,
    body: {
      jsonrpc: "2.0",
      id,
      error: { code: { $match: "integer" }, message: { $match: "string" }, ...dataOf(errorData) },
      result: ABSENT,
    },
  }),
  stream: (_op, id, ends) => ({
    ...SSE,
    stream:
      version === "1.0"
        ? { each: { jsonrpc: "2.0", id, result: { $valid: "v1_0.StreamResponse" }, error: ABSENT } }
        : {
            each: { $valid: "v0_3.SendStreamingMessageSuccessResponse", jsonrpc: "2.0", id },
            ...FINAL_RPC_0_3(ends),
          },
  }),
  streamSpec:
    version === "1.0"
      ? [cite("1.0.1", "9.4.2", "**Response:** HTTP 200 with `Content-Type: text/event-stream`")]
      : [
          cite(
            "0.3.0",
            "7",
            "The A2A Server's HTTP response body **MUST** be a `JSONRPCResponse` object (or, for streaming methods, an SSE stream where each event's data is a `JSONRPCResponse`).",
          ),
          ...FINAL_0_3,
        ],
  error: (error, id) => [
    {
      expect: {
        headers: JSON_CT,
        body: {
          jsonrpc: "2.0",
          id,
          error: {
            code: spec0(error).code,
            message: { $match: "string" },
            ...dataOf(errorData),
          },
          result: ABSENT,
        },
      },
    },
  ],
  unauthenticated: jsonRpcRefusal(version === "1.0" ? AUTH_STATUS_1_0 : AUTH_STATUS_0_3),
  spec,
  errorSpec,
});

/** 1.0's answers are the messages of its proto (checked as `$valid: v1_0.<Message>`). */
const PROTO_1_0 = cite(
  "1.0.1",
  "1.4",
  "In addition to the protocol requirements defined in this document, the file `spec/a2a.proto` is the single authoritative normative definition of all protocol data objects and request/response messages.",
);

const SPEC_1_0_ERRORS = [
  cite(
    "1.0.1",
    "3.3.2",
    "Servers **MUST** return appropriate errors and **SHOULD** provide actionable information to help clients resolve issues.",
  ),
  cite(
    "1.0.1",
    "5.4",
    "All A2A-specific errors defined in [Section 3.3.2](#332-error-handling) **MUST** be mapped to binding-specific error representations.",
  ),
];

const SPEC_0_3_DATA = [
  cite(
    "0.3.0",
    "11.1.5",
    "**A2A data objects**: **MUST** use the data structures defined in [Section 6](#6-protocol-data-objects) for all protocol entities.",
  ),
];

const CONTENT_TYPE_1_0 = cite("1.0.1", "11.1", "**Content-Type:** application/a2a+json **SHOULD** be used for requests and responses");
const REST_STATUS_0_3 = cite(
  "0.3.0",
  "3.2.3",
  "HTTP Status Codes: MUST use appropriate HTTP status codes (200, 400, 401, 403, 404, 500, etc.) that correspond to A2A error types.",
);

export const WIRE_RULES: Record<Version, Record<WireBinding, WireRule>> = {
  "1.0": {
    "json-rpc": jsonRpc("1.0", [PROTO_1_0], SPEC_1_0_ERRORS, true),
    rest: {
      headers: (withBody) => ({ "A2A-Version": "1.0", ...(withBody ? { "Content-Type": "application/json" } : {}) }),
      success: (op) =>
        op === EMPTY_REPLY
          ? { status: OK_STATUS }
          : { status: OK_STATUS, headers: { "content-type": { $regex: "^application/(a2a\\+)?json" } }, body: validFor("1.0", "rest", op) },
      refused: () => REFUSED_HTTP,
      stream: () => ({ ...SSE, stream: { each: { $valid: "v1_0.StreamResponse" } } }),
      streamSpec: [cite("1.0.1", "11.7", "Content-Type: text/event-stream")],
      error: (error) => [
        {
          expect: {
            status: httpStatus1_0(error),
            // The loader's restErrorShapes turns this into the two §11.6 shapes (AIP-193, google.rpc.Status).
            body: {
              error: {
                code: httpStatus1_0(error),
                status: grpcStatus1_0(error),
                message: { $match: "string" },
                ...errorInfo(error, (info) => ({ details: { $some: { "@type": ERROR_INFO_TYPE, ...info } } })),
              },
            },
          },
        },
        // 1.0.1 §11.1 gives the content type at SHOULD, and the 1.0.1 §6.4 example answers an error
        // with application/problem+json: any JSON media type (…+json included) meets it.
        { suffix: " (content type)", expect: { headers: { "content-type": JSON_MEDIA_TYPE } }, level: "SHOULD", spec: [CONTENT_TYPE_1_0] },
      ],
      unauthenticated: restRefusal(AUTH_STATUS_1_0),
      spec: [PROTO_1_0],
      errorSpec: [
        ...SPEC_1_0_ERRORS,
        cite("1.0.1", "11.6", "**Error Code**: Mapped to the HTTP status code and the `error.code` field"),
        cite(
          "1.0.1",
          "11.6",
          "implementations **MUST** include a `google.rpc.ErrorInfo` object in the `details` array for A2A-specific errors with:",
        ),
        cite("1.0.1", "11.6", '`domain`: Set to `"a2a-protocol.org"`'),
        cite(
          "1.0.0",
          "11.6",
          "For A2A-specific errors, implementations **MUST** include a `google.rpc.ErrorInfo` message in the `details` array with:",
        ),
      ],
    },
    grpc: {
      headers: () => ({ "a2a-version": "1.0" }),
      success: (op) => ({ body: validFor("1.0", "grpc", op) }),
      refused: () => REFUSED_GRPC,
      stream: () => ({ stream: { each: { $valid: "v1_0.StreamResponse" } } }),
      streamSpec: [],
      error: (error) => [
        {
          expect: {
            grpc: {
              status: grpcStatus1_0(error),
              message: { $match: "string" },
              ...errorInfo(error, (info) => ({ errorInfo: info })),
            },
          },
        },
      ],
      unauthenticated: grpcRefusal(AUTH_STATUS_1_0),
      spec: [PROTO_1_0],
      errorSpec: [
        ...SPEC_1_0_ERRORS,
        cite(
          "1.0.1",
          "10.6",
          "For A2A-specific errors, implementations **MUST** include a `google.rpc.ErrorInfo` message in the `status.details` array with:",
        ),
      ],
    },
  },
  "0.3": {
    "json-rpc": jsonRpc(
      "0.3",
      [
        ...SPEC_0_3_DATA,
        cite(
          "0.3.0",
          "7",
          "The A2A Server's HTTP response body **MUST** be a `JSONRPCResponse` object (or, for streaming methods, an SSE stream where each event's data is a `JSONRPCResponse`).",
        ),
      ],
      [cite("0.3.0", "11.1.5", "**Error handling**: **MUST** use the error codes defined in [Section 8](#8-error-handling).")],
      false,
    ),
    rest: {
      headers: (withBody): Record<string, string> => (withBody ? { "Content-Type": "application/json" } : {}),
      success: (op) =>
        op === EMPTY_REPLY ? { status: OK_STATUS } : { status: OK_STATUS, headers: JSON_CT, body: validFor("0.3", "rest", op) },
      refused: () => REFUSED_HTTP,
      stream: (_op, _id, ends) => ({
        ...SSE,
        stream: { each: { $valid: "v0_3.rest.StreamResponse" }, ...FINAL_PB_0_3(ends) },
      }),
      streamSpec: FINAL_0_3,
      // 0.3 has no status table: at MUST a client-error status that is no authentication refusal,
      // with a JSON body in a known error shape; the exact status at SHOULD.
      error: (error) => [
        {
          expect: {
            status: CLIENT_ERROR_STATUS,
            headers: JSON_CT,
            body: {
              $variants: {
                "AIP-193 error object": AIP193_ERROR,
                "top-level code and message": { code: { $match: "nonNull" }, message: { $match: "string" } },
                "message only": { message: { $match: "string" } },
              },
            },
          },
        },
        { suffix: " (exact status)", expect: { status: httpStatus1_0(error) }, level: "SHOULD", spec: [REST_STATUS_0_3] },
      ],
      unauthenticated: restRefusal(AUTH_STATUS_0_3),
      spec: [
        ...SPEC_0_3_DATA,
        cite(
          "0.3.0",
          "3.2.3",
          "**Request/Response Format**: **MUST** use JSON objects that are structurally equivalent to the core A2A data structures.",
        ),
      ],
      errorSpec: [
        REST_STATUS_0_3,
        cite("0.3.0", "3.2.3", "Error Format: MUST return error responses in a consistent JSON format that maps to A2A error types."),
      ],
    },
    grpc: {
      headers: () => ({}),
      success: (op) => ({ body: validFor("0.3", "grpc", op) }),
      refused: () => REFUSED_GRPC,
      stream: (_op, _id, ends) => ({
        stream: { each: { $valid: "v0_3.rest.StreamResponse" }, ...FINAL_PB_0_3(ends) },
      }),
      streamSpec: FINAL_0_3,
      // 0.3 asks only for "appropriate gRPC status codes": an error status at MUST; at SHOULD the
      // de-facto 0.3 code (a2a-wire.md §3.1, last column) or 1.0.1's, where the two differ.
      error: (error) => [
        { expect: { grpc: { status: { $match: "nonEmptyString", $not: "OK" } } } },
        {
          suffix: " (status code)",
          expect: { grpc: { status: grpcStatus0_3Either(error) } },
          level: "SHOULD",
          spec: [
            cite(
              "0.3.0",
              "3.2.2",
              "**Error Handling**: **MUST** map A2A error codes to appropriate gRPC status codes as defined in the proto annotations.",
            ),
            cite(
              "0.3.0",
              "3.4.1",
              "**Same Error Handling**: Map errors consistently across transports using the error codes defined in [Section 8](#8-error-handling).",
            ),
          ],
        },
      ],
      spec: [
        ...SPEC_0_3_DATA,
        cite(
          "0.3.0",
          "3.2.2",
          "**Method Coverage**: **MUST** provide all methods with functionally equivalent behavior to other supported transports.",
        ),
      ],
      unauthenticated: grpcRefusal([
        cite(
          "0.3.0",
          "3.4.1",
          "**Same Error Handling**: Map errors consistently across transports using the error codes defined in [Section 8](#8-error-handling).",
        ),
        ...AUTH_STATUS_0_3,
      ]),
      errorSpec: [],
    },
  },
};
