// src/versioning/grpc.ts: the service per version, the a2a-version rule, 0.3 messages through the
// D03-PB translators, and google.rpc.Status details both ways (docs/policies.md, "gRPC").
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import * as v0_3 from "../../generated/v0_3/index.js";
import { A2AError, GRPC_CODES } from "../../src/versioning/errors.js";
import {
  checkGrpcVersion,
  decodeErrorInfo,
  decodeGrpcRequest,
  encodeErrorInfo,
  encodeGrpcRequest,
  errorFromGrpcStatus,
  grpcEventEncoder,
  grpcStatusOf,
  GRPC_SERVICES,
} from "../../src/versioning/grpc.js";

describe("services and a2a-version", () => {
  it("the service name tells the version", () => {
    expect(GRPC_SERVICES["1.0"].typeName).toBe("lf.a2a.v1.A2AService");
    expect(GRPC_SERVICES["0.3"].typeName).toBe("a2a.v1.A2AService");
  });

  it("absent, empty or the service's own Major.Minor pass; another version is VersionNotSupportedError", () => {
    for (const ok of [undefined, null, "", "1.0", "1.0.1"]) expect(() => checkGrpcVersion("1.0", ok)).not.toThrow();
    for (const ok of [undefined, "", "0.3", "0.3.0"]) expect(() => checkGrpcVersion("0.3", ok)).not.toThrow();
    expect(() => checkGrpcVersion("1.0", "0.3")).toThrow(expect.objectContaining({ type: "VersionNotSupportedError" }));
    expect(() => checkGrpcVersion("0.3", "1.0")).toThrow(/lf\.a2a\.v1\.A2AService/);
    expect(() => checkGrpcVersion("1.0", "2.0")).toThrow(expect.objectContaining({ type: "VersionNotSupportedError" }));
  });
});

describe("0.3 messages go through the 0.3 HTTP+JSON translators", () => {
  it("GetTask: 1.0 id ⇄ 0.3 resource name, historyLength kept", () => {
    const req = create(v1_0.GetTaskRequestSchema, { id: "t-1", historyLength: 2 });
    const wire = encodeGrpcRequest("0.3", "GetTask", req).value as v0_3.pb.GetTaskRequest;
    expect(wire.$typeName).toBe("a2a.v1.GetTaskRequest");
    expect(wire).toMatchObject({ name: "tasks/t-1", historyLength: 2 });
    expect(decodeGrpcRequest("0.3", "GetTask", wire).value).toMatchObject({ id: "t-1", historyLength: 2 });
  });

  it("ListTasks has no 0.3 rpc: UnsupportedOperationError (L6)", () => {
    expect(() => encodeGrpcRequest("0.3", "ListTasks", create(v1_0.ListTasksRequestSchema))).toThrow(
      expect.objectContaining({ type: "UnsupportedOperationError" }),
    );
  });

  it("a 0.3 stream ends after the terminal event, marked final", () => {
    const enc = grpcEventEncoder("0.3");
    const status = (state: v1_0.TaskState) =>
      create(v1_0.StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: "t", contextId: "c", status: { state } } } });
    expect(enc.push(status(v1_0.TaskState.WORKING))).toMatchObject({ close: false });
    const last = enc.push(status(v1_0.TaskState.COMPLETED));
    expect(last.close).toBe(true);
    expect((last.messages[0] as v0_3.pb.StreamResponse).payload).toMatchObject({ case: "statusUpdate", value: { final: true } });
    expect(enc.push(status(v1_0.TaskState.WORKING)).messages).toEqual([]);
  });
});

describe("statuses", () => {
  // 1.0.1 §5.4: TaskNotFoundError NOT_FOUND, TaskNotCancelableError FAILED_PRECONDITION,
  // UnsupportedOperationError FAILED_PRECONDITION, ContentTypeNotSupportedError INVALID_ARGUMENT.
  it("1.0: the 1.0.1 codes, ErrorInfo (reason, domain a2a-protocol.org, metadata)", () => {
    const s = grpcStatusOf("1.0", new A2AError("TaskNotFoundError", "Task t-9 not found", { taskId: "t-9" }));
    expect(s.code).toBe(GRPC_CODES.NOT_FOUND);
    expect(s.details.map((d) => d.type)).toEqual(["google.rpc.ErrorInfo"]);
    expect(decodeErrorInfo(s.details[0]!.value)).toEqual({
      reason: "TASK_NOT_FOUND",
      domain: "a2a-protocol.org",
      metadata: { taskId: "t-9" },
    });
    expect(grpcStatusOf("1.0", new A2AError("TaskNotCancelableError")).code).toBe(GRPC_CODES.FAILED_PRECONDITION);
    expect(grpcStatusOf("1.0", new A2AError("UnsupportedOperationError")).code).toBe(GRPC_CODES.FAILED_PRECONDITION);
    expect(grpcStatusOf("1.0", new A2AError("ContentTypeNotSupportedError")).code).toBe(GRPC_CODES.INVALID_ARGUMENT);
  });

  it("0.3: the de-facto codes (a2a-wire.md §3.1, last column)", () => {
    expect(grpcStatusOf("0.3", new A2AError("TaskNotFoundError")).code).toBe(GRPC_CODES.NOT_FOUND);
    expect(grpcStatusOf("0.3", new A2AError("TaskNotCancelableError")).code).toBe(GRPC_CODES.UNIMPLEMENTED);
    expect(grpcStatusOf("0.3", new A2AError("ExtendedAgentCardNotConfiguredError")).code).toBe(GRPC_CODES.UNKNOWN);
    expect(grpcStatusOf("0.3", new A2AError("InvalidAgentResponseError")).code).toBe(GRPC_CODES.INTERNAL);
  });

  it("reading: the reason decides whatever the code (1.0.0 UNIMPLEMENTED, 1.0.1 FAILED_PRECONDITION alike)", () => {
    const info = [{ type: "google.rpc.ErrorInfo", value: encodeErrorInfo("PUSH_NOTIFICATION_NOT_SUPPORTED", "a2a-protocol.org", {}) }];
    expect(errorFromGrpcStatus(GRPC_CODES.UNIMPLEMENTED, "no push", info)?.type).toBe("PushNotificationNotSupportedError");
    expect(errorFromGrpcStatus(GRPC_CODES.FAILED_PRECONDITION, "no push", info)?.type).toBe("PushNotificationNotSupportedError");
    const foreign = [{ type: "google.rpc.ErrorInfo", value: encodeErrorInfo("TASK_NOT_FOUND", "example.com", {}) }];
    expect(errorFromGrpcStatus(GRPC_CODES.INTERNAL, "boom", foreign)?.type).toBe("InternalError");
  });

  it("reading without ErrorInfo: by code; codes below A2A are no A2A error", () => {
    expect(errorFromGrpcStatus(GRPC_CODES.NOT_FOUND, "gone", [])?.type).toBe("TaskNotFoundError");
    expect(errorFromGrpcStatus(GRPC_CODES.INVALID_ARGUMENT, "bad", [])?.type).toBe("InvalidParamsError");
    for (const code of [GRPC_CODES.UNAUTHENTICATED, GRPC_CODES.UNAVAILABLE, GRPC_CODES.DEADLINE_EXCEEDED, GRPC_CODES.CANCELLED])
      expect(errorFromGrpcStatus(code, "x", [])).toBeUndefined();
  });

  it("InvalidParams carries its BadRequest field violations both ways", () => {
    const err = new A2AError("InvalidParamsError", "bad", {}, [
      { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.parts", description: "required" }] },
    ]);
    const s = grpcStatusOf("1.0", err);
    const back = errorFromGrpcStatus(s.code, s.message, s.details);
    expect(back?.details).toEqual([
      { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.parts", description: "required" }] },
    ]);
  });
});
