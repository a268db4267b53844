// Method tables from the proto service definitions and their google.api.http annotations,
// plus the 0.3 JSON-RPC method names read from the 0.3 JSON Schema.
import { getOption, type DescService, type FileRegistry } from "@bufbuild/protobuf";
import type { HttpBinding, HttpVerb, MethodInfo } from "../src/runtime/methods.js";

export type { HttpBinding, HttpVerb, MethodInfo };

/** google.api.HttpRule as it comes out of getOption on a registry-built descriptor. */
interface HttpRule {
  pattern: { case: string | undefined; value?: unknown };
  body: string;
  additionalBindings: HttpRule[];
}

const segmentRegex = (pattern: string) =>
  pattern
    .split("/")
    .map((seg) => (seg === "**" ? ".+" : seg === "*" ? "[^/]+" : escapeRegex(seg)))
    .join("/");

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** "/v1/{name=tasks/*}:cancel" -> ["name"], "^/v1/(?<name>tasks/[^/]+):cancel$" */
export function compileTemplate(template: string): { pathParams: string[]; pattern: string } {
  const pathParams: string[] = [];
  let out = "";
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf("{");
    if (open < 0) {
      out += escapeRegex(rest);
      break;
    }
    out += escapeRegex(rest.slice(0, open));
    const close = rest.indexOf("}", open);
    if (close < 0) throw new Error(`unbalanced path template ${template}`);
    const [name = "", pattern = "*"] = rest.slice(open + 1, close).split("=");
    pathParams.push(name);
    out += `(?<${name}>${segmentRegex(pattern)})`;
    rest = rest.slice(close + 1);
  }
  return { pathParams, pattern: `^${out}$` };
}

function bindings(rule: HttpRule): HttpBinding[] {
  const own: HttpBinding[] = [];
  const { case: verb, value } = rule.pattern;
  if (verb && verb !== "custom" && typeof value === "string") {
    own.push({ verb: verb.toUpperCase() as HttpVerb, template: value, body: rule.body, ...compileTemplate(value) });
  }
  return [...own, ...rule.additionalBindings.flatMap(bindings)];
}

export function serviceOf(registry: FileRegistry, protoPackage: string): DescService {
  const svc = registry.getService(`${protoPackage}.A2AService`);
  if (!svc) throw new Error(`no service ${protoPackage}.A2AService in the compiled proto`);
  return svc;
}

export function protoMethods(registry: FileRegistry, protoPackage: string): Omit<MethodInfo, "operation" | "jsonRpcMethod">[] {
  const httpExt = registry.getExtension("google.api.http");
  if (!httpExt) throw new Error("google.api.http extension not found: is google/api/annotations.proto imported?");
  const rel = (typeName: string) => (typeName.startsWith(protoPackage + ".") ? typeName.slice(protoPackage.length + 1) : typeName);
  return serviceOf(registry, protoPackage).methods.map((m) => {
    const http: unknown = getOption(m, httpExt);
    return {
      rpc: m.name,
      grpcPath: `/${m.parent.typeName}/${m.name}`,
      streaming: m.methodKind === "server_streaming",
      requestType: rel(m.input.typeName),
      responseType: rel(m.output.typeName),
      http: bindings(http as HttpRule),
    };
  });
}

/** 1.0: JSON-RPC method name = rpc name = operation (spec 1.0 §9.1). */
export function methodsV1_0(registry: FileRegistry): MethodInfo[] {
  return protoMethods(registry, "lf.a2a.v1").map((m) => ({ operation: m.rpc, jsonRpcMethod: m.rpc, ...m }));
}

/**
 * How the 0.3 sources name each operation. The 0.3 JSON Schema and the 0.3 proto are not linked
 * upstream (a2a-wire.md §1.3–1.4), so this small table is the join; every name in it is checked
 * against both schemas at generation time.
 */
export const V0_3_OPERATIONS: readonly { rpc: string; jsonRpcMethod: string; operation: string; result: string }[] = [
  { rpc: "SendMessage", jsonRpcMethod: "message/send", operation: "SendMessage", result: "SendMessageSuccessResponse" },
  {
    rpc: "SendStreamingMessage",
    jsonRpcMethod: "message/stream",
    operation: "SendStreamingMessage",
    result: "SendStreamingMessageSuccessResponse",
  },
  { rpc: "GetTask", jsonRpcMethod: "tasks/get", operation: "GetTask", result: "GetTaskSuccessResponse" },
  { rpc: "CancelTask", jsonRpcMethod: "tasks/cancel", operation: "CancelTask", result: "CancelTaskSuccessResponse" },
  {
    rpc: "TaskSubscription",
    jsonRpcMethod: "tasks/resubscribe",
    operation: "SubscribeToTask",
    result: "SendStreamingMessageSuccessResponse",
  },
  {
    rpc: "CreateTaskPushNotificationConfig",
    jsonRpcMethod: "tasks/pushNotificationConfig/set",
    operation: "CreateTaskPushNotificationConfig",
    result: "SetTaskPushNotificationConfigSuccessResponse",
  },
  {
    rpc: "GetTaskPushNotificationConfig",
    jsonRpcMethod: "tasks/pushNotificationConfig/get",
    operation: "GetTaskPushNotificationConfig",
    result: "GetTaskPushNotificationConfigSuccessResponse",
  },
  {
    rpc: "ListTaskPushNotificationConfig",
    jsonRpcMethod: "tasks/pushNotificationConfig/list",
    operation: "ListTaskPushNotificationConfigs",
    result: "ListTaskPushNotificationConfigSuccessResponse",
  },
  {
    rpc: "DeleteTaskPushNotificationConfig",
    jsonRpcMethod: "tasks/pushNotificationConfig/delete",
    operation: "DeleteTaskPushNotificationConfig",
    result: "DeleteTaskPushNotificationConfigSuccessResponse",
  },
  {
    rpc: "GetAgentCard",
    jsonRpcMethod: "agent/getAuthenticatedExtendedCard",
    operation: "GetExtendedAgentCard",
    result: "GetAuthenticatedExtendedCardSuccessResponse",
  },
];

type JsonSchemaDefs = Record<string, { properties?: Record<string, { const?: unknown; $ref?: string }> }>;

export function methodsV0_3(registry: FileRegistry, jsonSchema: { definitions: JsonSchemaDefs }): MethodInfo[] {
  const defs = jsonSchema.definitions;
  const requestDefs = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
    const method = def.properties?.method?.const;
    if (typeof method === "string") requestDefs.set(method, name);
  }
  const proto = new Map(protoMethods(registry, "a2a.v1").map((m) => [m.rpc, m]));
  const out: MethodInfo[] = [];
  for (const op of V0_3_OPERATIONS) {
    const m = proto.get(op.rpc);
    if (!m) throw new Error(`0.3 proto has no rpc ${op.rpc}`);
    const request = requestDefs.get(op.jsonRpcMethod);
    if (!request) throw new Error(`0.3 JSON Schema has no request with method "${op.jsonRpcMethod}"`);
    if (!defs[op.result]) throw new Error(`0.3 JSON Schema has no definition ${op.result}`);
    const paramsRef = defs[request]?.properties?.params?.$ref;
    out.push({
      operation: op.operation,
      jsonRpcMethod: op.jsonRpcMethod,
      ...m,
      jsonRpc: { request, params: paramsRef ? paramsRef.replace("#/definitions/", "") : null, result: op.result },
    });
    proto.delete(op.rpc);
  }
  if (proto.size > 0) throw new Error(`0.3 rpcs without a JSON-RPC mapping: ${[...proto.keys()].join(", ")}`);
  const unmapped = [...requestDefs.keys()].filter((k) => !V0_3_OPERATIONS.some((o) => o.jsonRpcMethod === k));
  if (unmapped.length > 0) throw new Error(`0.3 JSON-RPC methods without a proto rpc: ${unmapped.join(", ")}`);
  return out;
}
