// One error table, proved complete against a2a-wire.md §3.1 / §3.2 (1.0.1 columns), and every
// binding encoding from it, in both versions.
import { describe, expect, it } from "vitest";
import {
  A2AError,
  ERROR_DOMAIN,
  ERROR_INFO_TYPE,
  ERRORS,
  fromAnyRestError,
  fromJsonRpcError,
  fromJsonRpcError0_3,
  GRPC_CODES,
  toJsonRpcError,
  toJsonRpcError0_3,
  toRestError,
  toRestError0_3,
  VALUE_TYPE,
  type A2AErrorName,
} from "../../src/versioning/errors.js";
import { decodeCall } from "../../src/transport/server.js";

// name, JSON-RPC code, HTTP (1.0.1), gRPC (1.0.1), ErrorInfo reason, 0.3 name
const EXPECTED: [A2AErrorName, number, number, keyof typeof GRPC_CODES, string | undefined, string | undefined][] = [
  ["TaskNotFoundError", -32001, 404, "NOT_FOUND", "TASK_NOT_FOUND", "TaskNotFoundError"],
  ["TaskNotCancelableError", -32002, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE", "TaskNotCancelableError"],
  [
    "PushNotificationNotSupportedError",
    -32003,
    400,
    "FAILED_PRECONDITION",
    "PUSH_NOTIFICATION_NOT_SUPPORTED",
    "PushNotificationNotSupportedError",
  ],
  ["UnsupportedOperationError", -32004, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", "UnsupportedOperationError"],
  ["ContentTypeNotSupportedError", -32005, 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED", "ContentTypeNotSupportedError"],
  ["InvalidAgentResponseError", -32006, 500, "INTERNAL", "INVALID_AGENT_RESPONSE", "InvalidAgentResponseError"],
  [
    "ExtendedAgentCardNotConfiguredError",
    -32007,
    400,
    "FAILED_PRECONDITION",
    "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    "AuthenticatedExtendedCardNotConfiguredError",
  ],
  ["ExtensionSupportRequiredError", -32008, 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED", undefined],
  ["VersionNotSupportedError", -32009, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED", undefined],
  ["JSONParseError", -32700, 400, "INVALID_ARGUMENT", undefined, "JSONParseError"],
  ["InvalidRequestError", -32600, 400, "INVALID_ARGUMENT", undefined, "InvalidRequestError"],
  ["MethodNotFoundError", -32601, 404, "NOT_FOUND", undefined, "MethodNotFoundError"],
  ["InvalidParamsError", -32602, 400, "INVALID_ARGUMENT", undefined, "InvalidParamsError"],
  ["InternalError", -32603, 500, "INTERNAL", undefined, "InternalError"],
];

describe("the error table", () => {
  it("has exactly the A2A errors of §3.1 and the JSON-RPC errors of §3.2", () => {
    expect(Object.keys(ERRORS).sort()).toEqual(EXPECTED.map((e) => e[0]).sort());
  });

  it.each(EXPECTED)("%s: code %i, HTTP %i, gRPC %s, reason %s", (name, code, http, grpc, reason, name0_3) => {
    const spec = ERRORS[name];
    expect(spec).toMatchObject({ name, code, http, grpc });
    expect((spec as { reason?: string }).reason).toBe(reason);
    expect(spec.name0_3).toBe(name0_3);
  });

  it("uses the google.rpc.Code numbers of §3.4", () => {
    expect(GRPC_CODES).toMatchObject({ INVALID_ARGUMENT: 3, NOT_FOUND: 5, FAILED_PRECONDITION: 9, UNIMPLEMENTED: 12, INTERNAL: 13 });
  });

  it("has unique codes and reasons", () => {
    const codes = Object.values(ERRORS).map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe.each(EXPECTED)("%s encodes from the table in every binding", (name, code, http, grpc, reason) => {
  const err = new A2AError(name, undefined, reason ? { taskId: "t1" } : {});

  it("JSON-RPC 1.0: code, message and data[] of @type objects with ErrorInfo", () => {
    const j = toJsonRpcError(err);
    expect(j.code).toBe(code);
    expect(j.message).toBe(ERRORS[name].message);
    if (reason) expect(j.data).toEqual([{ "@type": ERROR_INFO_TYPE, reason, domain: ERROR_DOMAIN, metadata: { taskId: "t1" } }]);
    else expect(j.data).toBeUndefined();
    expect(fromJsonRpcError(j)).toMatchObject({ type: name, metadata: err.metadata });
  });

  it("REST: HTTP status and AIP-193 body with ErrorInfo", () => {
    const r = toRestError(err);
    expect(r.status).toBe(http);
    expect(r.body.error).toMatchObject({ code: http, status: grpc, message: ERRORS[name].message });
    if (reason) expect(r.body.error.details[0]).toMatchObject({ "@type": ERROR_INFO_TYPE, reason, domain: ERROR_DOMAIN });
    // ErrorInfo settles the statuses several errors share (400 FAILED_PRECONDITION covers five).
    if (reason) expect(fromAnyRestError(r.status, r.body).type).toBe(name);
  });

  it("JSON-RPC 0.3: same code, sent even where 0.3 defines none (L12)", () => {
    const j = toJsonRpcError0_3(err);
    expect(j.code).toBe(code);
    expect(fromJsonRpcError0_3(j).type).toBe(name);
  });
});

describe("0.3 forms (§3.5, L28)", () => {
  it("uses the 0.3 default message for -32007", () => {
    expect(toJsonRpcError0_3(new A2AError("ExtendedAgentCardNotConfiguredError")).message).toBe(
      "Authenticated Extended Card is not configured",
    );
  });

  it("wraps a non-array 0.3 data value in a google.protobuf.Value detail and unwraps it back", () => {
    const e = fromJsonRpcError0_3({ code: -32001, message: "nope", data: { hint: "expired" } });
    expect(e.type).toBe("TaskNotFoundError");
    expect(e.details).toEqual([{ "@type": VALUE_TYPE, value: { hint: "expired" } }]);
    expect(toJsonRpcError(e).data).toContainEqual({ "@type": VALUE_TYPE, value: { hint: "expired" } });
    expect(toJsonRpcError0_3(e)).toEqual({ code: -32001, message: "nope", data: { hint: "expired" } });
  });

  it("keeps the 1.0 data array for a 0.3 peer (a legal 0.3 value)", () => {
    const j = toJsonRpcError0_3(new A2AError("TaskNotFoundError"));
    expect(Array.isArray(j.data)).toBe(true);
  });

  it("a 0.3 request that names an unsupported version gets -32009 in its own envelope", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "q", method: "tasks/get", params: { id: "t" } });
    const r = decodeCall({ method: "POST", url: "/", headers: { "A2A-Version": "0.9" }, body }, { binding: "JSONRPC" });
    expect(r.kind).toBe("reply");
    if (r.kind === "reply") expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: "2.0", id: "q", error: { code: -32009 } });
  });
});

describe("reading REST error bodies of any origin", () => {
  it("reads the RFC 9457 problem body of the 1.0 §6.4 example (E7)", () => {
    const e = fromAnyRestError(400, {
      type: "https://a2a-protocol.org/errors/version-not-supported",
      title: "Protocol Version Not Supported",
      status: 400,
      detail: "The requested A2A protocol version 0.5 is not supported by this agent",
      supportedVersions: ["0.3"],
    });
    expect(e).toMatchObject({ type: "VersionNotSupportedError", metadata: { supportedVersions: "0.3" } });
  });

  it("reads de-facto 0.3 {message} bodies by status", () => {
    expect(fromAnyRestError(409, { message: "done already" }, "0.3")).toMatchObject({
      type: "TaskNotCancelableError",
      message: "done already",
    });
    expect(fromAnyRestError(501, { message: "no" }, "0.3").type).toBe("UnsupportedOperationError");
  });

  it("reads the official SDK's 0.3 {code, message} body by its JSON-RPC code, whatever the status", () => {
    expect(fromAnyRestError(404, { code: -32001, message: "Task not found: t1" }, "0.3")).toMatchObject({
      type: "TaskNotFoundError",
      message: "Task not found: t1",
    });
    expect(fromAnyRestError(400, { code: -32002, message: "no" }, "0.3").type).toBe("TaskNotCancelableError");
    expect(fromAnyRestError(500, { code: -32004, message: "no" }, "0.3").type).toBe("UnsupportedOperationError");
  });

  it("sends 0.3 REST errors in a body all three readers understand (issue 14)", () => {
    for (const name of ["TaskNotFoundError", "TaskNotCancelableError", "ContentTypeNotSupportedError", "InvalidParamsError"] as const) {
      const err = new A2AError(name, "why");
      const { status, body } = toRestError0_3(err);
      expect(status).toBe(ERRORS[name].http);
      expect(body).toMatchObject({ code: ERRORS[name].code, message: "why", error: toRestError(err).body.error });
      // the official SDK's 0.3 REST reader needs exactly this: a numeric code and a string message
      expect(typeof body.code === "number" && typeof body.message === "string").toBe(true);
      expect(fromAnyRestError(status, { code: body.code, message: body.message }, "0.3").type).toBe(name);
      expect(fromAnyRestError(status, body, "0.3").type).toBe(name);
      expect(fromAnyRestError(status, body, "1.0").type).toBe(name);
    }
    expect(toRestError0_3(new A2AError("TaskNotCancelableError")).body.message).toBe(
      toJsonRpcError0_3(new A2AError("TaskNotCancelableError")).message,
    );
  });

  it("reads the status alone when there is no ErrorInfo", () => {
    expect(fromAnyRestError(500, { error: { code: 500, status: "INTERNAL", message: "x" } }).type).toBe("InternalError");
    expect(fromAnyRestError(400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "x" } }).type).toBe("InvalidParamsError");
  });

  it("reads a 1.0 404 without ErrorInfo as an unknown route, a 0.3 one as TaskNotFound", () => {
    const body = { error: { code: 404, status: "NOT_FOUND", message: "x" } };
    expect(fromAnyRestError(404, body, "1.0").type).toBe("MethodNotFoundError");
    expect(fromAnyRestError(404, body, "0.3").type).toBe("TaskNotFoundError");
    expect(fromAnyRestError(404, toRestError(new A2AError("TaskNotFoundError")).body, "1.0").type).toBe("TaskNotFoundError");
  });
});
