// The suite's gRPC pieces without a socket: framing, google.rpc.Status / ErrorInfo in
// grpc-status-details-bin, the status a response is judged on, the default OK expectation, the
// loader's rpc checks, and each gRPC fault of the proxy's table on a sample.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { loadCases, parseCase, type CaseExpect } from "../../src/compliance/cases.js";
import {
  decodeErrorInfo,
  decodeStatus,
  encodeErrorInfo,
  encodeStatus,
  ERROR_INFO_TYPE,
  frame,
  grpcMethod,
  grpcOrigin,
  grpcPath,
  messageJson,
  methodOfPath,
  outcomeOf,
  receivedMessage,
  requestBytes,
  unframe,
} from "../../src/compliance/grpc.js";
import { GRPC_REWRITES, grpcAppliesTo, type GrpcExchange } from "../../src/compliance/grpc-rewrites.js";
import { Scope } from "../../src/compliance/match.js";
import { sendsMessage } from "../../src/compliance/pacing.js";
import { compareResponse } from "../../src/compliance/runner.js";
import { ListTasksResponseSchema, TaskSchema, TaskState } from "../../generated/v1_0/a2a_pb.js";
import { TaskSchema as Task03Schema } from "../../generated/v0_3/a2a_pb.js";

const notFound = () => {
  const info = encodeErrorInfo({ reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "t-1" } });
  return base64Encode(encodeStatus({ code: 5, message: "Task not found", details: [{ typeUrl: ERROR_INFO_TYPE, value: info }] }));
};

describe("gRPC framing and status details", () => {
  it("method paths come from the generated service descriptors of each version", () => {
    expect(grpcPath(grpcMethod("1.0", "SendMessage")!)).toBe("/lf.a2a.v1.A2AService/SendMessage");
    expect(grpcPath(grpcMethod("0.3", "TaskSubscription")!)).toBe("/a2a.v1.A2AService/TaskSubscription");
    expect(grpcMethod("0.3", "ListTasks")).toBeUndefined();
    expect(methodOfPath("/a2a.v1.A2AService/GetTask")).toMatchObject({ version: "0.3" });
    expect(methodOfPath("/x.Y/GetTask")).toBeUndefined();
    expect([grpcOrigin("127.0.0.1:50051"), grpcOrigin("https://h:443"), grpcOrigin("http://h:1")]).toEqual([
      "http://127.0.0.1:50051",
      "https://h",
      "http://h:1",
    ]);
  });

  it("splits length-prefixed messages, keeping a partial one for later", () => {
    const a = frame(Buffer.from("abc"));
    const b = frame(Buffer.from("de"), true);
    const got = unframe(Buffer.concat([a, b, b.subarray(0, 3)]));
    expect(got.messages.map((m) => [m.compressed, m.data.toString()])).toEqual([
      [false, "abc"],
      [true, "de"],
    ]);
    expect(got.rest.length).toBe(3);
  });

  it("google.rpc.Status with ErrorInfo round-trips through grpc-status-details-bin", () => {
    const st = decodeStatus(Buffer.from(notFound(), "base64"));
    expect(st).toMatchObject({ code: 5, message: "Task not found" });
    expect(decodeErrorInfo(st.details[0]?.value ?? new Uint8Array())).toEqual({
      reason: "TASK_NOT_FOUND",
      domain: "a2a-protocol.org",
      metadata: { taskId: "t-1" },
    });
  });

  it("the outcome names the status, decodes the details, and says what is wrong with them", () => {
    const ok = outcomeOf({ "grpc-status": "5", "grpc-message": "Task%20not%20found", "grpc-status-details-bin": notFound() }, true);
    expect(ok).toMatchObject({
      status: "NOT_FOUND",
      code: 5,
      message: "Task not found",
      trailersOnly: true,
      errorInfo: { reason: "TASK_NOT_FOUND" },
    });
    expect(outcomeOf({ "grpc-status": "13", "grpc-status-details-bin": notFound() }, false).detailsProblem).toMatch(
      /holds code 5, grpc-status says 13/,
    );
    expect(outcomeOf({ "grpc-status-details-bin": "////" }, false).detailsProblem).toMatch(/no google.rpc.Status/);
    expect(outcomeOf({}, false).status).toBeUndefined();
  });

  it("a case's ProtoJSON request is encoded with the method's schema; a wrong field is the case's error", () => {
    const m = grpcMethod("1.0", "GetTask")!;
    expect(requestBytes({ method: m, body: { id: "t-1" } }).length).toBeGreaterThan(0);
    expect(() => requestBytes({ method: m, body: { idd: "t-1" } })).toThrow(/idd/);
  });
});

describe("judging a gRPC response", () => {
  const res = (grpc: Record<string, string>, extra = {}) => ({ status: 200, headers: {}, grpc: outcomeOf(grpc, false), ...extra });

  it("a step without expect.grpc expects status OK; an error answer has no body to match", () => {
    expect(compareResponse({ body: { id: "t" } }, res({ "grpc-status": "0" }, { json: { id: "t" } }), new Scope(new Map()))).toEqual([]);
    const missing = compareResponse({ body: { id: "t" } }, res({}, { json: { id: "t" } }), new Scope(new Map()));
    expect(missing.map((d) => d.path)).toEqual(["/grpc/status"]);
    const failed = compareResponse({ body: { id: "t" } }, res({ "grpc-status": "5" }), new Scope(new Map()));
    expect(failed.map((d) => d.path)).toEqual(["/grpc/status"]);
    const expected = { grpc: { status: "NOT_FOUND", errorInfo: { reason: "TASK_NOT_FOUND" } }, body: { id: "t" } };
    expect(compareResponse(expected, res({ "grpc-status": "5", "grpc-status-details-bin": notFound() }), new Scope(new Map()))).toEqual([]);
  });

  it("the kept-or-refused context cases take their refusal branch on any non-OK status (1.0.1 §3.4.1)", () => {
    const cases = loadCases();
    for (const v of ["v1_0", "v0_3"]) {
      const c = cases.find((x) => x.id === `${v}/grpc/send-message/client-chosen-context-is-kept-or-refused`);
      const step = c!.steps[0] as { expect: CaseExpect };
      expect(compareResponse(step.expect, res({ "grpc-status": "3" }), new Scope(new Map())), v).toEqual([]);
      const kept = res({ "grpc-status": "0" }, { json: { task: { id: "t", contextId: "another" } } });
      expect(compareResponse(step.expect, kept, new Scope(new Map())).length, v).toBeGreaterThan(0);
    }
  });

  it("rpc requests count as messages sent by their method name", () => {
    expect(sendsMessage({ method: "POST", path: "/lf.a2a.v1.A2AService/SendStreamingMessage", rpc: "SendStreamingMessage" })).toBe(true);
    expect(sendsMessage({ method: "POST", path: "/lf.a2a.v1.A2AService/GetTask", rpc: "GetTask" })).toBe(false);
  });
});

describe("gRPC cases in the loader", () => {
  const grpcCase = (rpc: string, binding = "grpc") => ({
    title: "t",
    requirements: ["S-23"],
    level: "MUST",
    version: "1.0",
    binding,
    agent: "any",
    steps: [{ request: { rpc, body: {} }, expect: {} }],
  });

  it("fills in the method path; refuses an unknown method and rpc requests outside gRPC cases", () => {
    const ok = parseCase("v1_0/grpc/x/y", "f.json", grpcCase("GetTask"));
    expect(ok.problems).toEqual([]);
    expect(ok.case?.steps[0]).toMatchObject({ request: { method: "POST", path: "/lf.a2a.v1.A2AService/GetTask" } });
    expect(parseCase("v1_0/grpc/x/y", "f.json", grpcCase("TaskSubscription")).problems[0]).toMatch(/has no method "TaskSubscription"/);
    expect(parseCase("v1_0/json-rpc/x/y", "f.json", grpcCase("GetTask", "json-rpc")).problems[0]).toMatch(/only a gRPC case/);
  });
});

/** A GetTask answer as the agent sends it: a Task with an id, a state and a status timestamp. */
const TASK_SAMPLE = Buffer.from(
  toBinary(
    TaskSchema,
    create(TaskSchema, {
      id: "t-1",
      contextId: "c-1",
      status: { state: TaskState.WORKING, timestamp: { seconds: 1_767_000_000n, nanos: 0 } },
    }),
  ),
);

describe("the gRPC faults of the rewriting proxy", () => {
  const unary: GrpcExchange = { version: "1.0", method: "GetTask", streaming: false };
  const errorTrailers = { "grpc-status": "5", "grpc-message": "Task%20not%20found", "grpc-status-details-bin": notFound() };

  it("each fault changes its sample", () => {
    for (const r of GRPC_REWRITES) {
      const ex = r.applies.streaming ? { ...unary, streaming: true } : unary;
      expect(grpcAppliesTo(r, ex), r.name).toBe(true);
      const changes = [
        r.trailers && JSON.stringify(r.trailers(errorTrailers, ex)) !== JSON.stringify(errorTrailers),
        r.head && r.head({ "content-type": "application/grpc" }, ex)["content-type"] !== "application/grpc",
        r.message && !r.message(TASK_SAMPLE, ex, 0).equals(frame(TASK_SAMPLE)),
        r.holdOpen,
        r.trailersOnly,
      ];
      expect(changes.some(Boolean), r.name).toBe(true);
      expect(r.spec.length, r.name).toBeGreaterThan(0);
    }
  });

  it("the renamed reason is the type's name, the other details kept", () => {
    const r = GRPC_REWRITES.find((x) => x.name === "grpc-error-info-reason-renamed")!;
    const out = outcomeOf(r.trailers!(errorTrailers, unary), false);
    expect(out.errorInfo).toMatchObject({ reason: "TaskNotFoundError", domain: "a2a-protocol.org", metadata: { taskId: "t-1" } });
  });

  // gRPC answers are judged as the protobuf received: each fault on a message's content turns a
  // `$valid` check red, while the JSON spelling rules (Z timestamps, camelCase), which the
  // runner's own JSON always meets, are not judged on it.
  it("each fault on a message's content fails the received Task's $valid check", () => {
    const judge = (bytes: Buffer) => {
      const [m] = unframe(bytes).messages;
      const ev = receivedMessage(grpcMethod("1.0", "GetTask")!.output, m!);
      const res = {
        status: 200,
        headers: {},
        decoded: true,
        json: ev.json,
        text: ev.data,
        ...(ev.parseError ? { error: ev.parseError } : {}),
      };
      return compareResponse(
        { body: { $valid: "v1_0.Task" } },
        { ...res, grpc: outcomeOf({ "grpc-status": "0" }, false) },
        new Scope(new Map()),
      );
    };
    expect(judge(frame(TASK_SAMPLE))).toEqual([]);
    const messages: Record<string, RegExp> = {
      "grpc-task-id-unset": /REQUIRED field "id" is an empty string/,
      "grpc-task-state-out-of-enum": /must be of type string \(got 99\)/,
      "grpc-status-timestamp-out-of-range": /body not read: not a lf\.a2a\.v1\.Task: .*Timestamp/,
    };
    for (const [name, expected] of Object.entries(messages)) {
      const r = GRPC_REWRITES.find((x) => x.name === name)!;
      const diffs = judge(r.message!(TASK_SAMPLE, { version: "1.0", method: "GetTask", streaming: false }, 0));
      expect(diffs.map((d) => d.message).join("; "), name).toMatch(expected);
    }
  });

  // On the binary wire an unset scalar and one at its zero value are the same bytes: the runner
  // writes it only where a REQUIRED field (or the 0.3 JSON Schema) makes "" a value of its own.
  it("an empty non-REQUIRED scalar reads as absent; REQUIRED ones and lists are written at their zero value", () => {
    const json = (schema: DescMessage, m: Parameters<typeof toBinary>[1]) =>
      messageJson(schema, toBinary(schema, m)) as Record<string, unknown>;
    const task = json(TaskSchema, create(TaskSchema, { id: "t-1", status: { state: TaskState.WORKING } }));
    expect(task).toEqual({ id: "t-1", status: { state: "TASK_STATE_WORKING" }, artifacts: [], history: [] });
    expect(json(ListTasksResponseSchema, create(ListTasksResponseSchema, {}))).toEqual({
      tasks: [],
      nextPageToken: "",
      pageSize: 0,
      totalSize: 0,
    });
    // 0.3: the JSON Schema declares `contextId: string` on a Task, so "" stays what the agent sent.
    expect(json(Task03Schema, create(Task03Schema, { id: "t-1" }))).toMatchObject({ id: "t-1", contextId: "" });
  });

  it("the runner's JSON of a gRPC answer is not judged on JSON spelling; an agent's JSON is", () => {
    const task = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING", timestamp: "2026-01-01T00:00:00+02:00" } };
    const res = (decoded: boolean) => ({ status: 200, headers: {}, json: task, ...(decoded ? { decoded } : {}) });
    expect(compareResponse({ body: { $valid: "v1_0.Task" } }, res(false), new Scope(new Map()))[0]?.message).toMatch(/UTC with a "Z"/);
    expect(compareResponse({ body: { $valid: "v1_0.Task" } }, res(true), new Scope(new Map()))).toEqual([]);
  });

  it("a gRPC case drops camelCase checks and JSON-spelling citations at load", () => {
    const raw = {
      title: "t",
      requirements: ["S-23"],
      level: "MUST",
      version: "1.0",
      binding: "grpc",
      agent: "any",
      steps: [{ request: { rpc: "GetTask", body: {} }, expect: { body: { $match: "camelCaseKeys", id: { $match: "nonEmptyString" } } } }],
      spec: [
        {
          version: "1.0.1",
          section: "5.5",
          quote:
            "All JSON serializations of the A2A protocol data model **MUST** use **camelCase** naming for field names, not the snake_case convention used in Protocol Buffer definitions.",
        },
        { version: "1.0.1", section: "3.1.3", quote: "x" },
      ],
    };
    const c = parseCase("v1_0/grpc/x/y", "f.json", raw).case!;
    expect(c.steps[0]).toMatchObject({ expect: { body: { id: { $match: "nonEmptyString" } } } });
    expect(JSON.stringify(c.steps[0])).not.toContain("camelCaseKeys");
    expect(c.spec?.map((x) => x.section)).toEqual(["3.1.3"]);
  });
});
