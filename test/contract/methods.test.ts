// The generated method tables must say what the operation tables of the wire reference say
// (a2a-wire.md §1.1 for 1.0, §1.3/§1.4 for 0.3). The expected tables below are transcribed from
// the reference by hand, not derived from the proto, so a generator slip shows up as a diff here.
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0Pb from "../../generated/v1_0/a2a_pb.js";
import * as v0_3Pb from "../../generated/v0_3/a2a_pb.js";
import type { HttpVerb, MethodInfo } from "../../src/runtime/methods.js";

type Route = [verb: HttpVerb, template: string, body: string];

interface Expected {
  jsonRpcMethod: string;
  rpc: string;
  streaming: boolean;
  requestType: string;
  responseType: string;
  /** Every REST binding: the annotation, then (1.0) its `/{tenant}` additional binding. */
  http: Route[];
  jsonRpc?: { request: string; params: string | null; result: string };
}

/** 1.0, a2a-wire.md §1.1: every REST rule has an additional binding prefixed by `/{tenant}`. */
function v1(verb: HttpVerb, template: string, body: "*" | ""): Route[] {
  return [
    [verb, template, body],
    [verb, `/{tenant}${template}`, body],
  ];
}

const EXPECTED_V1_0: Record<string, Expected> = {
  SendMessage: {
    jsonRpcMethod: "SendMessage",
    rpc: "SendMessage",
    streaming: false,
    requestType: "SendMessageRequest",
    responseType: "SendMessageResponse",
    http: v1("POST", "/message:send", "*"),
  },
  SendStreamingMessage: {
    jsonRpcMethod: "SendStreamingMessage",
    rpc: "SendStreamingMessage",
    streaming: true,
    requestType: "SendMessageRequest",
    responseType: "StreamResponse",
    http: v1("POST", "/message:stream", "*"),
  },
  GetTask: {
    jsonRpcMethod: "GetTask",
    rpc: "GetTask",
    streaming: false,
    requestType: "GetTaskRequest",
    responseType: "Task",
    http: v1("GET", "/tasks/{id=*}", ""),
  },
  ListTasks: {
    jsonRpcMethod: "ListTasks",
    rpc: "ListTasks",
    streaming: false,
    requestType: "ListTasksRequest",
    responseType: "ListTasksResponse",
    http: v1("GET", "/tasks", ""),
  },
  CancelTask: {
    jsonRpcMethod: "CancelTask",
    rpc: "CancelTask",
    streaming: false,
    requestType: "CancelTaskRequest",
    responseType: "Task",
    http: v1("POST", "/tasks/{id=*}:cancel", "*"),
  },
  SubscribeToTask: {
    jsonRpcMethod: "SubscribeToTask",
    rpc: "SubscribeToTask",
    streaming: true,
    requestType: "SubscribeToTaskRequest",
    responseType: "StreamResponse",
    // The proto says GET; the prose says POST (a2a-wire.md §1.5 O1). The table follows the proto.
    http: v1("GET", "/tasks/{id=*}:subscribe", ""),
  },
  CreateTaskPushNotificationConfig: {
    jsonRpcMethod: "CreateTaskPushNotificationConfig",
    rpc: "CreateTaskPushNotificationConfig",
    streaming: false,
    requestType: "TaskPushNotificationConfig",
    responseType: "TaskPushNotificationConfig",
    http: v1("POST", "/tasks/{task_id=*}/pushNotificationConfigs", "*"),
  },
  GetTaskPushNotificationConfig: {
    jsonRpcMethod: "GetTaskPushNotificationConfig",
    rpc: "GetTaskPushNotificationConfig",
    streaming: false,
    requestType: "GetTaskPushNotificationConfigRequest",
    responseType: "TaskPushNotificationConfig",
    http: v1("GET", "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}", ""),
  },
  ListTaskPushNotificationConfigs: {
    jsonRpcMethod: "ListTaskPushNotificationConfigs",
    rpc: "ListTaskPushNotificationConfigs",
    streaming: false,
    requestType: "ListTaskPushNotificationConfigsRequest",
    responseType: "ListTaskPushNotificationConfigsResponse",
    http: v1("GET", "/tasks/{task_id=*}/pushNotificationConfigs", ""),
  },
  DeleteTaskPushNotificationConfig: {
    jsonRpcMethod: "DeleteTaskPushNotificationConfig",
    rpc: "DeleteTaskPushNotificationConfig",
    streaming: false,
    requestType: "DeleteTaskPushNotificationConfigRequest",
    responseType: "google.protobuf.Empty",
    http: v1("DELETE", "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}", ""),
  },
  GetExtendedAgentCard: {
    jsonRpcMethod: "GetExtendedAgentCard",
    rpc: "GetExtendedAgentCard",
    streaming: false,
    requestType: "GetExtendedAgentCardRequest",
    responseType: "AgentCard",
    http: v1("GET", "/extendedAgentCard", ""),
  },
};

/**
 * 0.3, a2a-wire.md §1.3 (JSON-RPC names and params, gRPC rpc and messages, REST annotations of the
 * v0.3.0 proto) keyed by the 1.0 operation of §1.4. `jsonRpc` names the a2a.json definitions of the
 * JSON-RPC request, its params and its success response. 0.3 has no ListTasks (§1.5 O4).
 */
const EXPECTED_V0_3: Record<string, Expected> = {
  SendMessage: {
    jsonRpcMethod: "message/send",
    rpc: "SendMessage",
    streaming: false,
    requestType: "SendMessageRequest",
    responseType: "SendMessageResponse",
    http: [["POST", "/v1/message:send", "*"]],
    jsonRpc: { request: "SendMessageRequest", params: "MessageSendParams", result: "SendMessageSuccessResponse" },
  },
  SendStreamingMessage: {
    jsonRpcMethod: "message/stream",
    rpc: "SendStreamingMessage",
    streaming: true,
    requestType: "SendMessageRequest",
    responseType: "StreamResponse",
    http: [["POST", "/v1/message:stream", "*"]],
    jsonRpc: { request: "SendStreamingMessageRequest", params: "MessageSendParams", result: "SendStreamingMessageSuccessResponse" },
  },
  GetTask: {
    jsonRpcMethod: "tasks/get",
    rpc: "GetTask",
    streaming: false,
    requestType: "GetTaskRequest",
    responseType: "Task",
    http: [["GET", "/v1/{name=tasks/*}", ""]],
    jsonRpc: { request: "GetTaskRequest", params: "TaskQueryParams", result: "GetTaskSuccessResponse" },
  },
  CancelTask: {
    jsonRpcMethod: "tasks/cancel",
    rpc: "CancelTask",
    streaming: false,
    requestType: "CancelTaskRequest",
    responseType: "Task",
    http: [["POST", "/v1/{name=tasks/*}:cancel", "*"]],
    jsonRpc: { request: "CancelTaskRequest", params: "TaskIdParams", result: "CancelTaskSuccessResponse" },
  },
  SubscribeToTask: {
    jsonRpcMethod: "tasks/resubscribe",
    rpc: "TaskSubscription",
    streaming: true,
    requestType: "TaskSubscriptionRequest",
    responseType: "StreamResponse",
    http: [["GET", "/v1/{name=tasks/*}:subscribe", ""]],
    jsonRpc: { request: "TaskResubscriptionRequest", params: "TaskIdParams", result: "SendStreamingMessageSuccessResponse" },
  },
  CreateTaskPushNotificationConfig: {
    jsonRpcMethod: "tasks/pushNotificationConfig/set",
    rpc: "CreateTaskPushNotificationConfig",
    streaming: false,
    requestType: "CreateTaskPushNotificationConfigRequest",
    responseType: "TaskPushNotificationConfig",
    // v0.3.0 annotates `task/*` (singular, a typo fixed after the release: §1.5 O5, errata E18)
    // and `body: "config"`. The table records the annotation; tolerating `tasks/` is routing policy.
    http: [["POST", "/v1/{parent=task/*/pushNotificationConfigs}", "config"]],
    jsonRpc: {
      request: "SetTaskPushNotificationConfigRequest",
      params: "TaskPushNotificationConfig",
      result: "SetTaskPushNotificationConfigSuccessResponse",
    },
  },
  GetTaskPushNotificationConfig: {
    jsonRpcMethod: "tasks/pushNotificationConfig/get",
    rpc: "GetTaskPushNotificationConfig",
    streaming: false,
    requestType: "GetTaskPushNotificationConfigRequest",
    responseType: "TaskPushNotificationConfig",
    http: [["GET", "/v1/{name=tasks/*/pushNotificationConfigs/*}", ""]],
    // §1.3: params are GetTaskPushNotificationConfigParams or the deprecated TaskIdParams (a2a.json
    // declares an anyOf of the two). The generator records no name for an anyOf: see the known gap below.
    jsonRpc: {
      request: "GetTaskPushNotificationConfigRequest",
      params: null,
      result: "GetTaskPushNotificationConfigSuccessResponse",
    },
  },
  ListTaskPushNotificationConfigs: {
    jsonRpcMethod: "tasks/pushNotificationConfig/list",
    rpc: "ListTaskPushNotificationConfig",
    streaming: false,
    requestType: "ListTaskPushNotificationConfigRequest",
    responseType: "ListTaskPushNotificationConfigResponse",
    http: [["GET", "/v1/{parent=tasks/*}/pushNotificationConfigs", ""]],
    jsonRpc: {
      request: "ListTaskPushNotificationConfigRequest",
      params: "ListTaskPushNotificationConfigParams",
      result: "ListTaskPushNotificationConfigSuccessResponse",
    },
  },
  DeleteTaskPushNotificationConfig: {
    jsonRpcMethod: "tasks/pushNotificationConfig/delete",
    rpc: "DeleteTaskPushNotificationConfig",
    streaming: false,
    requestType: "DeleteTaskPushNotificationConfigRequest",
    responseType: "google.protobuf.Empty",
    http: [["DELETE", "/v1/{name=tasks/*/pushNotificationConfigs/*}", ""]],
    jsonRpc: {
      request: "DeleteTaskPushNotificationConfigRequest",
      params: "DeleteTaskPushNotificationConfigParams",
      result: "DeleteTaskPushNotificationConfigSuccessResponse",
    },
  },
  GetExtendedAgentCard: {
    jsonRpcMethod: "agent/getAuthenticatedExtendedCard",
    rpc: "GetAgentCard",
    streaming: false,
    requestType: "GetAgentCardRequest",
    responseType: "AgentCard",
    http: [["GET", "/v1/card", ""]],
    jsonRpc: {
      request: "GetAuthenticatedExtendedCardRequest",
      params: null, // the method takes no params
      result: "GetAuthenticatedExtendedCardSuccessResponse",
    },
  },
};

/** What the test compares: everything but the derived fields (pathParams and pattern are tested below). */
function comparable(m: MethodInfo): Expected {
  const out: Expected = {
    jsonRpcMethod: m.jsonRpcMethod,
    rpc: m.rpc,
    streaming: m.streaming,
    requestType: m.requestType,
    responseType: m.responseType,
    http: m.http.map((h) => [h.verb, h.template, h.body]),
  };
  if (m.jsonRpc) out.jsonRpc = m.jsonRpc;
  return out;
}

function byOperation(methods: readonly MethodInfo[]): Record<string, Expected> {
  return Object.fromEntries(methods.map((m) => [m.operation, comparable(m)]));
}

function route(methods: readonly MethodInfo[], operation: string, template: string) {
  const binding = methods.find((m) => m.operation === operation)?.http.find((h) => h.template === template);
  if (!binding) throw new Error(`no ${operation} route ${template}`);
  return binding;
}

/** Path parameters of `path` under a binding, or undefined when the path is not this route. */
function match(methods: readonly MethodInfo[], operation: string, template: string, path: string) {
  const m = new RegExp(route(methods, operation, template).pattern).exec(path);
  return m ? { ...m.groups } : undefined;
}

describe("1.0 method table (a2a-wire.md §1.1)", () => {
  it("has the 11 operations of the reference, each once", () => {
    const ops = v1_0.methods.map((m) => m.operation);
    expect(new Set(ops).size).toBe(ops.length);
    expect([...ops].sort()).toEqual(Object.keys(EXPECTED_V1_0).sort());
    expect(ops).toHaveLength(11);
  });

  it("names, rpcs, streaming flags, message types and REST routes equal the reference table", () => {
    expect(byOperation(v1_0.methods)).toEqual(EXPECTED_V1_0);
  });

  it("the operation name is the JSON-RPC method and the rpc (1.0 §9.1: PascalCase, like gRPC)", () => {
    for (const m of v1_0.methods) expect([m.jsonRpcMethod, m.rpc]).toEqual([m.operation, m.operation]);
  });

  it("path parameters are the template variables in order", () => {
    for (const m of v1_0.methods) {
      for (const h of m.http) {
        const vars = [...h.template.matchAll(/\{([a-z_]+)/g)].map((v) => v[1]);
        expect(h.pathParams, `${m.operation} ${h.template}`).toEqual(vars);
      }
    }
  });

  it("route patterns extract the path parameters of real paths", () => {
    const M = v1_0.methods;
    expect(match(M, "CancelTask", "/tasks/{id=*}:cancel", "/tasks/abc:cancel")).toEqual({ id: "abc" });
    expect(match(M, "GetTask", "/{tenant}/tasks/{id=*}", "/acme/tasks/abc")).toEqual({ tenant: "acme", id: "abc" });
    expect(match(M, "GetTask", "/tasks/{id=*}", "/tasks/abc")).toEqual({ id: "abc" });
    expect(match(M, "SubscribeToTask", "/{tenant}/tasks/{id=*}:subscribe", "/acme/tasks/t-1:subscribe")).toEqual({
      tenant: "acme",
      id: "t-1",
    });
    expect(
      match(
        M,
        "GetTaskPushNotificationConfig",
        "/{tenant}/tasks/{task_id=*}/pushNotificationConfigs/{id=*}",
        "/acme/tasks/t1/pushNotificationConfigs/c1",
      ),
    ).toEqual({ tenant: "acme", task_id: "t1", id: "c1" });
    expect(match(M, "SendMessage", "/{tenant}/message:send", "/acme/message:send")).toEqual({ tenant: "acme" });
    expect(match(M, "ListTasks", "/tasks", "/tasks")).toEqual({});
  });

  it("route patterns do not match other paths", () => {
    const M = v1_0.methods;
    expect(match(M, "CancelTask", "/tasks/{id=*}:cancel", "/tasks/abc")).toBeUndefined();
    expect(match(M, "CancelTask", "/tasks/{id=*}:cancel", "/tasks/a/b:cancel")).toBeUndefined();
    expect(match(M, "CancelTask", "/tasks/{id=*}:cancel", "/tasks/:cancel")).toBeUndefined();
    expect(match(M, "GetTask", "/tasks/{id=*}", "/tasks/abc:cancel/x")).toBeUndefined();
    expect(match(M, "GetTask", "/tasks/{id=*}", "/tasks/abc/")).toBeUndefined();
    expect(match(M, "GetTask", "/tasks/{id=*}", "/v1/tasks/abc")).toBeUndefined();
    expect(match(M, "GetTask", "/{tenant}/tasks/{id=*}", "/tasks/abc")).toBeUndefined();
    expect(match(M, "GetTask", "/{tenant}/tasks/{id=*}", "/a/b/tasks/abc")).toBeUndefined();
    expect(match(M, "SendMessage", "/message:send", "/message:stream")).toBeUndefined();
    expect(match(M, "SendMessage", "/message:send", "/prefix/message:send")).toBeUndefined();
    expect(match(M, "ListTasks", "/tasks", "/tasks/abc")).toBeUndefined();
  });
});

describe("0.3 method table (a2a-wire.md §1.3, §1.4)", () => {
  it("has the 10 JSON-RPC methods of the reference, each mapped to a distinct 1.0 operation", () => {
    const ops = v0_3.methods.map((m) => m.operation);
    expect(new Set(ops).size).toBe(ops.length);
    expect([...ops].sort()).toEqual(Object.keys(EXPECTED_V0_3).sort());
    expect(ops).toHaveLength(10);
    expect(ops).not.toContain("ListTasks");
  });

  it("names, rpcs, streaming flags, message types, REST routes and JSON-RPC definitions equal the reference", () => {
    expect(byOperation(v0_3.methods)).toEqual(EXPECTED_V0_3);
  });

  // Known gap, owned by codegen/methods.ts: a2a.json gives tasks/pushNotificationConfig/get an anyOf
  // of params (GetTaskPushNotificationConfigParams | TaskIdParams) and the generator records `null`,
  // which reads as "no params". GetTaskPushNotificationConfigParams accepts every TaskIdParams value,
  // so it is the name to record. When the generator is fixed this test passes and must lose `.fails`.
  it.fails("records a params definition for tasks/pushNotificationConfig/get", () => {
    const get = v0_3.methods.find((m) => m.jsonRpcMethod === "tasks/pushNotificationConfig/get");
    expect(get?.jsonRpc?.params).toBe("GetTaskPushNotificationConfigParams");
  });

  it("every JSON-RPC definition it names has a generated validator", () => {
    const validators = v0_3.validators as Record<string, unknown>;
    for (const m of v0_3.methods) {
      for (const name of [m.jsonRpc?.request, m.jsonRpc?.params, m.jsonRpc?.result]) {
        if (name) expect(typeof validators[name], `${m.jsonRpcMethod}: ${name}`).toBe("function");
      }
    }
  });

  it("every request and response message it names has a generated REST validator or is Empty", () => {
    const rest = v0_3.restValidators as Record<string, unknown>;
    for (const m of v0_3.methods) {
      for (const name of [m.requestType, m.responseType]) {
        if (name !== "google.protobuf.Empty") expect(typeof rest[name], `${m.rpc}: ${name}`).toBe("function");
      }
    }
  });

  it("route patterns capture the resource name of real paths", () => {
    const M = v0_3.methods;
    expect(match(M, "GetTask", "/v1/{name=tasks/*}", "/v1/tasks/abc")).toEqual({ name: "tasks/abc" });
    expect(match(M, "CancelTask", "/v1/{name=tasks/*}:cancel", "/v1/tasks/abc:cancel")).toEqual({ name: "tasks/abc" });
    expect(match(M, "SubscribeToTask", "/v1/{name=tasks/*}:subscribe", "/v1/tasks/abc:subscribe")).toEqual({ name: "tasks/abc" });
    expect(
      match(M, "GetTaskPushNotificationConfig", "/v1/{name=tasks/*/pushNotificationConfigs/*}", "/v1/tasks/t1/pushNotificationConfigs/c1"),
    ).toEqual({ name: "tasks/t1/pushNotificationConfigs/c1" });
    expect(
      match(M, "ListTaskPushNotificationConfigs", "/v1/{parent=tasks/*}/pushNotificationConfigs", "/v1/tasks/t1/pushNotificationConfigs"),
    ).toEqual({
      parent: "tasks/t1",
    });
    expect(match(M, "SendMessage", "/v1/message:send", "/v1/message:send")).toEqual({});
  });

  it("route patterns do not match other paths", () => {
    const M = v0_3.methods;
    expect(match(M, "GetTask", "/v1/{name=tasks/*}", "/tasks/abc")).toBeUndefined();
    expect(match(M, "GetTask", "/v1/{name=tasks/*}", "/v1/tasks/abc/def")).toBeUndefined();
    expect(match(M, "GetTask", "/v1/{name=tasks/*}", "/v1/tasks/")).toBeUndefined();
    expect(match(M, "GetTask", "/v1/{name=tasks/*}", "/v1/messages/abc")).toBeUndefined();
    expect(match(M, "CancelTask", "/v1/{name=tasks/*}:cancel", "/v1/tasks/abc")).toBeUndefined();
    expect(
      match(M, "GetTaskPushNotificationConfig", "/v1/{name=tasks/*/pushNotificationConfigs/*}", "/v1/tasks/t1/pushNotificationConfigs"),
    ).toBeUndefined();
    expect(match(M, "SendMessage", "/v1/message:send", "/message:send")).toBeUndefined();
  });
});

// gRPC paths: "/<package>.<Service>/<rpc>" (the gRPC over HTTP/2 `:path`). The service names are
// transcribed from the protos by hand (1.0: package lf.a2a.v1; 0.3: package a2a.v1, 0.3 §3.2.2);
// each path must also name a method of the generated service descriptor with the table's streaming kind.
describe.each([
  ["1.0", v1_0.methods, v1_0Pb.A2AService, "lf.a2a.v1.A2AService"],
  ["0.3", v0_3.methods, v0_3Pb.A2AService, "a2a.v1.A2AService"],
] as const)("%s gRPC method paths", (_v, methods, service, serviceName) => {
  it("every operation has /<service>/<rpc>", () => {
    for (const m of methods) expect(m.grpcPath, m.operation).toBe(`/${serviceName}/${m.rpc}`);
  });

  it("every path is a method of the generated service descriptor, streaming alike", () => {
    expect(service.typeName).toBe(serviceName);
    const byPath = new Map(service.methods.map((d) => [`/${service.typeName}/${d.name}`, d]));
    expect([...byPath.keys()].sort()).toEqual(methods.map((m) => m.grpcPath).sort());
    for (const m of methods) {
      const d = byPath.get(m.grpcPath);
      expect(d?.methodKind, m.grpcPath).toBe(m.streaming ? "server_streaming" : "unary");
      expect(d?.input.typeName.endsWith(`.${m.requestType}`) || d?.input.typeName === m.requestType, m.grpcPath).toBe(true);
    }
  });
});
