// The seam, end to end: what the client encodes the server decodes to the same 1.0 request, and
// what the server encodes the client decodes to the same 1.0 response — for every operation, in
// both versions and both bindings (ListTasks has no 0.3 form, L6).
import { create, equals, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { assert, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decodeReply, decodeStreamEvent, encodeCall, type TargetLike } from "../../src/transport/client.js";
import { decodeCall, encodeError, encodeResult, openStream, type DecodedCall } from "../../src/transport/server.js";
import { SseDecoder } from "../../src/transport/sse.js";
import { OPERATION_NAMES, OPERATIONS, type Binding, type Operation } from "../../src/versioning/codec.js";
import { A2AError } from "../../src/versioning/errors.js";
import type { ProtocolVersion } from "../../src/versioning/negotiate.js";

const S = v1_0.TaskState;
const ts = { seconds: 1767225600n, nanos: 123_000_000 };
const message: MessageInitShape<typeof v1_0.MessageSchema> = {
  messageId: "m-1",
  contextId: "ctx-1",
  taskId: "task-1",
  role: v1_0.Role.USER,
  parts: [{ content: { case: "text", value: "hello" } }],
};
const task: MessageInitShape<typeof v1_0.TaskSchema> = {
  id: "task-1",
  contextId: "ctx-1",
  status: { state: S.WORKING, timestamp: ts },
  artifacts: [{ artifactId: "a-1", name: "out", parts: [{ content: { case: "text", value: "result" } }] }],
  history: [message],
};
const pushConfig = (tenant: string): MessageInitShape<typeof v1_0.TaskPushNotificationConfigSchema> => ({
  tenant,
  taskId: "task-1",
  id: "cfg-1",
  url: "https://client.example/hook",
  token: "tok",
});
const card: MessageInitShape<typeof v1_0.AgentCardSchema> = {
  name: "Echo",
  description: "echoes",
  version: "1.2.3",
  supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "0.3" }],
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "says it back", tags: ["echo"] }],
};

/** A representative 1.0 request per operation; 0.3 has no tenant (L1). */
function sampleRequest(op: Operation, tenant: string, pb0_3: boolean): unknown {
  switch (op) {
    case "SendMessage":
    case "SendStreamingMessage":
      return { tenant, message, configuration: { acceptedOutputModes: ["text/plain"], historyLength: 3 }, metadata: { k: "v" } };
    case "GetTask":
      return { tenant, id: "task-1", historyLength: 2 };
    case "ListTasks":
      return { tenant, contextId: "ctx-1", status: S.WORKING, pageSize: 10, includeArtifacts: true };
    case "CancelTask":
      // The v0.3.0 proto CancelTaskRequest has no metadata (a2a-wire.md §1.4): asserted separately.
      return pb0_3 ? { tenant, id: "task-1" } : { tenant, id: "task-1", metadata: { why: "user" } };
    case "SubscribeToTask":
      return { tenant, id: "task-1" };
    case "CreateTaskPushNotificationConfig":
      return pushConfig(tenant);
    case "GetTaskPushNotificationConfig":
    case "DeleteTaskPushNotificationConfig":
      return { tenant, taskId: "task-1", id: "cfg-1" };
    case "ListTaskPushNotificationConfigs":
      return { tenant, taskId: "task-1" };
    case "GetExtendedAgentCard":
      return { tenant };
  }
}

function sampleResponse(op: Operation): unknown {
  switch (op) {
    case "SendMessage":
      return { payload: { case: "task", value: task } };
    case "SendStreamingMessage":
    case "SubscribeToTask":
      return { payload: { case: "task", value: task } };
    case "GetTask":
    case "CancelTask":
      return task;
    case "ListTasks":
      return { tasks: [task], nextPageToken: "", pageSize: 10, totalSize: 1 };
    case "CreateTaskPushNotificationConfig":
    case "GetTaskPushNotificationConfig":
      return pushConfig("");
    case "ListTaskPushNotificationConfigs":
      return { configs: [pushConfig("")], nextPageToken: "" };
    case "DeleteTaskPushNotificationConfig":
      return {};
    case "GetExtendedAgentCard":
      return card;
  }
}

const make = <D extends DescMessage>(schema: D, init: unknown) => create(schema, init as MessageInitShape<D>);

function serverSide(req: { method: string; url: string; headers: Record<string, string>; body?: string }, binding: Binding) {
  return decodeCall({ method: req.method, url: req.url, headers: req.headers, body: req.body }, { binding, basePath: "/a2a" });
}

const cases: [ProtocolVersion, Binding, Operation][] = [];
for (const version of ["1.0", "0.3"] as const)
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const)
    for (const op of OPERATION_NAMES) if (!(version === "0.3" && op === "ListTasks")) cases.push([version, binding, op]);

describe.each(cases)("%s %s %s", (version, binding, op) => {
  const target: TargetLike = { url: "https://agent.example/a2a", binding, version, tenant: version === "1.0" ? "acme" : "" };
  const spec = OPERATIONS[op];
  const request = make(spec.request, sampleRequest(op, target.tenant ?? "", version === "0.3" && binding === "HTTP+JSON"));

  const decodeOnServer = (): DecodedCall => {
    const wire = encodeCall(target, op, request as never, { extensions: ["https://ext.example/e1"] });
    const call = serverSide(wire, binding);
    if (call.kind !== "call") throw new Error(`server refused: ${call.body}`);
    return call;
  };

  it("the server decodes what the client encodes to the same 1.0 request", () => {
    const call = decodeOnServer();
    expect(call).toMatchObject({ version, binding, operation: op, streaming: spec.streaming, extensions: ["https://ext.example/e1"] });
    expect(call.tenant).toBe(target.tenant);
    expect(equals(spec.request, call.request as never, request as never)).toBe(true);
  });

  if (!spec.streaming)
    it("the client decodes what the server encodes to the same 1.0 response", () => {
      const call = decodeOnServer();
      const response = make(spec.response, sampleResponse(op));
      const reply = encodeResult(call, response as never);
      expect(reply.status).toBe(200);
      const back = decodeReply(target, op, { status: reply.status, text: reply.body }, { rpcId: call.rpcId });
      expect(equals(spec.response as DescMessage, back as never, response as never)).toBe(true);
    });
  else
    it("the client decodes each stream event the server frames to the same 1.0 event", () => {
      const call = decodeOnServer();
      const stream = openStream(call);
      const events = [
        make(v1_0.StreamResponseSchema, { payload: { case: "task", value: { ...task, status: { state: S.SUBMITTED, timestamp: ts } } } }),
        make(v1_0.StreamResponseSchema, {
          payload: {
            case: "artifactUpdate",
            value: { taskId: "task-1", contextId: "ctx-1", artifact: task.artifacts![0], append: true, lastChunk: true },
          },
        }),
        make(v1_0.StreamResponseSchema, {
          payload: { case: "statusUpdate", value: { taskId: "task-1", contextId: "ctx-1", status: { state: S.COMPLETED, timestamp: ts } } },
        }),
      ];
      let text = "";
      for (const e of events) text += stream.event(e).frames;
      text += stream.end();
      const sse = new SseDecoder().feed(text);
      expect(sse).toHaveLength(events.length);
      sse.forEach((frame, i) => {
        const d = decodeStreamEvent(target, op, frame.data);
        if ("error" in d) throw d.error;
        const sent = events[i];
        assert(sent);
        expect(equals(v1_0.StreamResponseSchema, d.event, sent)).toBe(true);
        expect(d.end ?? false).toBe(version === "0.3" && i === events.length - 1);
      });
    });

  it("the client reads the server's error as the same A2A error", () => {
    const call = decodeOnServer();
    const err = new A2AError("TaskNotFoundError", "no task-1 here", { taskId: "task-1" });
    const reply = encodeError(call, err);
    let caught: unknown;
    try {
      decodeReply(target, op, { status: reply.status, text: reply.body }, { rpcId: call.rpcId });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(A2AError);
    expect(caught).toMatchObject({ type: "TaskNotFoundError", message: "no task-1 here", metadata: { taskId: "task-1" } });
  });
});

describe("losses travel with the call", () => {
  it("reports what a 0.3 REST downgrade drops (CancelTask metadata) on the client side", () => {
    const target: TargetLike = { url: "https://agent.example/a2a", binding: "HTTP+JSON", version: "0.3" };
    const wire = encodeCall(target, "CancelTask", make(v1_0.CancelTaskRequestSchema, { id: "t", metadata: { a: 1 } }) as never);
    expect(wire.losses.length).toBeGreaterThan(0);
  });

  it("reports what a 0.3 JSON-RPC upgrade drops (tasks/get metadata, L17) on the server side", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "t", metadata: { a: 1 } } });
    const call = decodeCall({ method: "POST", url: "/", headers: {}, body }, { binding: "JSONRPC" });
    expect(call.kind === "call" && call.losses.map((l) => l.id)).toEqual(["L17"]);
  });
});
