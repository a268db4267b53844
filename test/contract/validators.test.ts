// The generated validators against the wire: every worked example of a2a-wire.md §9 (the same
// request in the three dialects) and examples built for the shapes §9 does not show are accepted by
// the validator of their dialect; crafted invalid inputs are rejected with the JSON path of the
// offending value and the rule in words.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { create, type DescMessage } from "@bufbuild/protobuf";
import type { ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import * as v0_3 from "../../generated/v0_3/index.js";
import { decode, encode } from "../../src/runtime/protojson.js";
import { check, formatIssue, v0_3UnionTags, type CheckOptions } from "../../src/runtime/validation.js";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "wire-examples");

/** The three dialects (a2a-wire.md §0.2) and where their validators are. */
const DIALECTS = {
  "1.0": v1_0.validators as Record<string, ValidateFunction>,
  "0.3 JSON-RPC": v0_3.validators as Record<string, ValidateFunction>,
  "0.3 REST": v0_3.restValidators as Record<string, ValidateFunction>,
};
type Dialect = keyof typeof DIALECTS;

/** With the 0.3 JSON-RPC validators, union failures are explained by the member the tag names. */
const options = (dialect: Dialect): CheckOptions => (dialect === "0.3 JSON-RPC" ? { branches: DIALECTS[dialect] } : {});

function validator(dialect: Dialect, name: string): ValidateFunction {
  const v = DIALECTS[dialect][name];
  if (typeof v !== "function") throw new Error(`no ${dialect} validator ${name}`);
  return v;
}

function fixture(file: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES, file), "utf8"));
}

/** The value at a JSON Pointer (only object keys are needed here). */
function pick(value: unknown, pointer: string): unknown {
  return pointer === ""
    ? value
    : pointer
        .slice(1)
        .split("/")
        .reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], value);
}

interface Example {
  file: string;
  dialect: Dialect;
  /** Validator (message or definition) name. */
  as: string;
  /** Part of the file the validator applies to: a 1.0 JSON-RPC envelope has no validator of its own. */
  at?: string;
  /** 1.0 message schema to decode the same value with (the strict ProtoJSON codec must take it too). */
  decodeAs?: DescMessage;
}

/** a2a-wire.md §9, transcribed. */
const WORKED: Example[] = [
  {
    file: "v1_0/json-rpc-send-message-request.json",
    dialect: "1.0",
    as: "SendMessageRequest",
    at: "/params",
    decodeAs: v1_0.SendMessageRequestSchema,
  },
  { file: "v1_0/send-message-request.json", dialect: "1.0", as: "SendMessageRequest", decodeAs: v1_0.SendMessageRequestSchema },
  {
    file: "v1_0/json-rpc-send-message-response-task.json",
    dialect: "1.0",
    as: "SendMessageResponse",
    at: "/result",
    decodeAs: v1_0.SendMessageResponseSchema,
  },
  { file: "v1_0/send-message-response-task.json", dialect: "1.0", as: "SendMessageResponse", decodeAs: v1_0.SendMessageResponseSchema },
  {
    file: "v1_0/json-rpc-stream-event-final-status-update.json",
    dialect: "1.0",
    as: "StreamResponse",
    at: "/result",
    decodeAs: v1_0.StreamResponseSchema,
  },
  { file: "v1_0/stream-response-final-status-update.json", dialect: "1.0", as: "StreamResponse", decodeAs: v1_0.StreamResponseSchema },
  { file: "v1_0/agent-card.json", dialect: "1.0", as: "AgentCard", decodeAs: v1_0.AgentCardSchema },
  { file: "v0_3-json-rpc/send-message-request.json", dialect: "0.3 JSON-RPC", as: "SendMessageRequest" },
  { file: "v0_3-json-rpc/send-message-request.json", dialect: "0.3 JSON-RPC", as: "A2ARequest" },
  { file: "v0_3-json-rpc/send-message-response-task.json", dialect: "0.3 JSON-RPC", as: "SendMessageSuccessResponse" },
  { file: "v0_3-json-rpc/send-message-response-task.json", dialect: "0.3 JSON-RPC", as: "JSONRPCResponse" },
  { file: "v0_3-json-rpc/stream-event-final-status-update.json", dialect: "0.3 JSON-RPC", as: "SendStreamingMessageSuccessResponse" },
  { file: "v0_3-json-rpc/agent-card.json", dialect: "0.3 JSON-RPC", as: "AgentCard" },
  { file: "v0_3-rest/send-message-request.json", dialect: "0.3 REST", as: "SendMessageRequest" },
  { file: "v0_3-rest/send-message-response-task.json", dialect: "0.3 REST", as: "SendMessageResponse" },
  { file: "v0_3-rest/stream-response-final-status-update.json", dialect: "0.3 REST", as: "StreamResponse" },
];

/** Built for shapes §9 does not show. */
const BUILT: Example[] = [
  { file: "v1_0/task-full.json", dialect: "1.0", as: "Task", decodeAs: v1_0.TaskSchema },
  { file: "v1_0/agent-card-every-security-scheme.json", dialect: "1.0", as: "AgentCard", decodeAs: v1_0.AgentCardSchema },
  { file: "v1_0/agent-card-empty-skills.json", dialect: "1.0", as: "AgentCard", decodeAs: v1_0.AgentCardSchema },
  { file: "v1_0/stream-response-task.json", dialect: "1.0", as: "StreamResponse", decodeAs: v1_0.StreamResponseSchema },
  { file: "v1_0/stream-response-message.json", dialect: "1.0", as: "StreamResponse", decodeAs: v1_0.StreamResponseSchema },
  { file: "v1_0/stream-response-status-update-working.json", dialect: "1.0", as: "StreamResponse", decodeAs: v1_0.StreamResponseSchema },
  { file: "v1_0/stream-response-artifact-update.json", dialect: "1.0", as: "StreamResponse", decodeAs: v1_0.StreamResponseSchema },
  { file: "v1_0/list-tasks-response-empty-page.json", dialect: "1.0", as: "ListTasksResponse", decodeAs: v1_0.ListTasksResponseSchema },
  { file: "v0_3-json-rpc/task-full.json", dialect: "0.3 JSON-RPC", as: "Task" },
  { file: "v0_3-json-rpc/agent-card-every-security-scheme.json", dialect: "0.3 JSON-RPC", as: "AgentCard" },
  { file: "v0_3-json-rpc/stream-event-task.json", dialect: "0.3 JSON-RPC", as: "SendStreamingMessageSuccessResponse" },
  { file: "v0_3-json-rpc/stream-event-message.json", dialect: "0.3 JSON-RPC", as: "SendStreamingMessageSuccessResponse" },
  { file: "v0_3-json-rpc/stream-event-artifact-update.json", dialect: "0.3 JSON-RPC", as: "SendStreamingMessageSuccessResponse" },
  { file: "v0_3-rest/task-full.json", dialect: "0.3 REST", as: "Task" },
  { file: "v0_3-rest/agent-card-every-security-scheme.json", dialect: "0.3 REST", as: "AgentCard" },
  { file: "v0_3-rest/stream-response-task.json", dialect: "0.3 REST", as: "StreamResponse" },
  { file: "v0_3-rest/stream-response-message.json", dialect: "0.3 REST", as: "StreamResponse" },
  { file: "v0_3-rest/stream-response-artifact-update.json", dialect: "0.3 REST", as: "StreamResponse" },
];

const title = (e: Example) => `${e.dialect} ${e.as}${e.at ? ` ${e.at}` : ""} <- ${e.file}`;

describe("valid examples are accepted", () => {
  it.each(WORKED.map((e) => [title(e), e] as const))("worked example (a2a-wire.md §9): %s", (_, e) => {
    const issue = check(validator(e.dialect, e.as), pick(fixture(e.file), e.at ?? ""), options(e.dialect));
    expect(issue && formatIssue(issue)).toBeUndefined();
  });

  it.each(BUILT.map((e) => [title(e), e] as const))("built example: %s", (_, e) => {
    const issue = check(validator(e.dialect, e.as), pick(fixture(e.file), e.at ?? ""), options(e.dialect));
    expect(issue && formatIssue(issue)).toBeUndefined();
  });

  it("every fixture file is one of the examples above", () => {
    const onDisk = (readdirSync(FIXTURES, { recursive: true }) as string[])
      .filter((f) => f.endsWith(".json"))
      .map((f) => relative(FIXTURES, join(FIXTURES, f)).split("\\").join("/"))
      .sort();
    expect(onDisk).toEqual([...new Set([...WORKED, ...BUILT].map((e) => e.file))].sort());
  });

  it("accepted 1.0 examples also decode with the strict ProtoJSON codec", () => {
    for (const e of [...WORKED, ...BUILT].filter((x) => x.decodeAs)) {
      expect(() => decode(e.decodeAs!, pick(fixture(e.file), e.at ?? "")), e.file).not.toThrow();
    }
  });

  it("ProtoJSON integer forms: a number within int32 or a decimal string", () => {
    for (const pageSize of [0, 2147483647, -2147483648, "10", "-3"]) {
      expect(check(v1_0.validators.ListTasksRequest, { pageSize }), String(pageSize)).toBeUndefined();
    }
  });

  it("the empty ListTasks page is what the 1.0 codec emits for an empty response", () => {
    const emitted = encode(v1_0.ListTasksResponseSchema, create(v1_0.ListTasksResponseSchema, {}), { alwaysEmit: v1_0.alwaysEmit });
    expect(emitted).toEqual(fixture("v1_0/list-tasks-response-empty-page.json"));
  });

  it("1.0 JSON-RPC envelopes name the method whose request/response types validate their params/result", () => {
    const request = fixture("v1_0/json-rpc-send-message-request.json") as { jsonrpc: string; method: string };
    const method = v1_0.methods.find((m) => m.jsonRpcMethod === request.method);
    expect(request.jsonrpc).toBe("2.0");
    expect([method?.requestType, method?.responseType]).toEqual(["SendMessageRequest", "SendMessageResponse"]);
    const stream = v1_0.methods.find((m) => m.jsonRpcMethod === "SendStreamingMessage");
    expect(stream?.responseType).toBe("StreamResponse");
  });

  it("the card examples cover every security scheme kind and every OAuth flow of their dialect", () => {
    const card10 = fixture("v1_0/agent-card-every-security-scheme.json") as {
      securitySchemes: Record<string, Record<string, { flows?: object }>>;
    };
    const kinds10 = Object.values(card10.securitySchemes).map((s) => Object.keys(s)[0]);
    expect(new Set(kinds10)).toEqual(
      new Set([
        "apiKeySecurityScheme",
        "httpAuthSecurityScheme",
        "oauth2SecurityScheme",
        "openIdConnectSecurityScheme",
        "mtlsSecurityScheme",
      ]),
    );
    const flows10 = Object.values(card10.securitySchemes).flatMap((s) => Object.keys(s.oauth2SecurityScheme?.flows ?? {}));
    expect(new Set(flows10)).toEqual(new Set(["authorizationCode", "clientCredentials", "implicit", "password", "deviceCode"]));

    const card03 = fixture("v0_3-json-rpc/agent-card-every-security-scheme.json") as { securitySchemes: Record<string, { type: string }> };
    expect(new Set(Object.values(card03.securitySchemes).map((s) => s.type))).toEqual(new Set(Object.keys(v0_3UnionTags.type ?? {})));

    const card03pb = fixture("v0_3-rest/agent-card-every-security-scheme.json") as { securitySchemes: Record<string, object> };
    expect(new Set(Object.values(card03pb.securitySchemes).map((s) => Object.keys(s)[0]))).toEqual(new Set(kinds10));
  });
});

interface Invalid {
  name: string;
  dialect: Dialect;
  as: string;
  value: unknown;
  /** JSON Pointer the issue must point at. */
  path: string;
  /** Words the message must contain (the rule, and what it is about). */
  says: string[];
}

const MESSAGE_10 = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const TASK_10 = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
const TASK_03 = { kind: "task", id: "t1", contextId: "c1", status: { state: "working" } };
const MESSAGE_03 = { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] };
const rpc03 = (method: string, params: unknown) => ({ jsonrpc: "2.0", id: "r1", method, params });

const INVALID: Invalid[] = [
  // Missing REQUIRED fields: the path is where the field belongs, the message names it.
  {
    name: "1.0 message without messageId",
    dialect: "1.0",
    as: "SendMessageRequest",
    value: { message: { role: "ROLE_USER", parts: [{ text: "hi" }] } },
    path: "/message/messageId",
    says: ["required", '"messageId"', "missing"],
  },
  {
    name: "1.0 request without message",
    dialect: "1.0",
    as: "SendMessageRequest",
    value: { metadata: {} },
    path: "/message",
    says: ["required", '"message"'],
  },
  {
    name: "1.0 artifact update without artifactId",
    dialect: "1.0",
    as: "StreamResponse",
    value: { artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { parts: [{ text: "x" }] } } },
    path: "/artifactUpdate/artifact/artifactId",
    says: ["required", '"artifactId"'],
  },
  {
    name: "1.0 card without supportedInterfaces",
    dialect: "1.0",
    as: "AgentCard",
    value: { name: "A", description: "d", version: "1", capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [] },
    path: "/supportedInterfaces",
    says: ["required", '"supportedInterfaces"'],
  },
  {
    name: "0.3 JSON-RPC task without id",
    dialect: "0.3 JSON-RPC",
    as: "Task",
    value: { kind: "task", contextId: "c1", status: { state: "working" } },
    path: "/id",
    says: ["required", '"id"'],
  },
  {
    name: "0.3 REST request without message",
    dialect: "0.3 REST",
    as: "SendMessageRequest",
    value: { configuration: { blocking: true } },
    path: "/message",
    says: ["required", '"message"'],
  },
  // Oneofs: two members set, or none.
  {
    name: "1.0 part with text and url",
    dialect: "1.0",
    as: "Part",
    value: { text: "a", url: "b" },
    path: "/url",
    says: ["oneof", '"url"', '"text"', "only one"],
  },
  {
    name: "1.0 part with text and url, inside a request",
    dialect: "1.0",
    as: "SendMessageRequest",
    value: { message: { ...MESSAGE_10, parts: [{ text: "ok" }, { text: "a", url: "b" }] } },
    path: "/message/parts/1/url",
    says: ["oneof", '"url"'],
  },
  {
    name: "1.0 stream response with task and message",
    dialect: "1.0",
    as: "StreamResponse",
    value: { task: TASK_10, message: MESSAGE_10 },
    path: "/message",
    says: ["oneof", '"task"'],
  },
  {
    name: "0.3 REST part with text and file",
    dialect: "0.3 REST",
    as: "Part",
    value: { text: "a", file: { fileWithUri: "https://x.example/f" } },
    path: "/file",
    says: ["oneof", '"file"', '"text"'],
  },
  {
    name: "1.0 part with no content member",
    dialect: "1.0",
    as: "Message",
    value: { ...MESSAGE_10, parts: [{ mediaType: "text/plain" }] },
    path: "/parts/0",
    says: ["oneof", '"text"', '"raw"', '"url"', '"data"', "none is set"],
  },
  {
    name: "1.0 empty SendMessageResponse",
    dialect: "1.0",
    as: "SendMessageResponse",
    value: {},
    path: "",
    says: ["oneof", '"task"', '"message"'],
  },
  {
    name: "1.0 security scheme of no kind",
    dialect: "1.0",
    as: "SecurityScheme",
    value: { description: "?" },
    path: "",
    says: ["oneof", '"mtlsSecurityScheme"'],
  },
  {
    name: "1.0 0.3-shaped file part in a 1.0 message",
    dialect: "1.0",
    as: "Message",
    value: { ...MESSAGE_10, parts: [{ kind: "file", file: { uri: "https://x.example/f" } }] },
    path: "/parts/0",
    says: ["oneof", "none is set"],
  },
  // Enums.
  {
    name: "1.0 task state in 0.3 spelling",
    dialect: "1.0",
    as: "Task",
    value: { ...TASK_10, status: { state: "working" } },
    path: "/status/state",
    says: ["must be one of", '"TASK_STATE_WORKING"', '(got "working")'],
  },
  {
    name: "1.0 role in 0.3 spelling (errata E16)",
    dialect: "1.0",
    as: "SendMessageRequest",
    value: { message: { ...MESSAGE_10, role: "user" } },
    path: "/message/role",
    says: ["must be one of", '"ROLE_USER"', '(got "user")'],
  },
  {
    name: "0.3 JSON-RPC task state in 1.0 spelling",
    dialect: "0.3 JSON-RPC",
    as: "Task",
    value: { ...TASK_03, status: { state: "TASK_STATE_WORKING" } },
    path: "/status/state",
    says: ["must be one of", '"working"', '(got "TASK_STATE_WORKING")'],
  },
  {
    name: "0.3 REST canceled in 1.0 spelling (0.3 proto: CANCELLED)",
    dialect: "0.3 REST",
    as: "TaskStatus",
    value: { state: "TASK_STATE_CANCELED" },
    path: "/state",
    says: ["must be one of", '"TASK_STATE_CANCELLED"'],
  },
  // 0.3 kind discriminators.
  {
    name: "0.3 task with kind tasks",
    dialect: "0.3 JSON-RPC",
    as: "Task",
    value: { ...TASK_03, kind: "tasks" },
    path: "/kind",
    says: ['must be "task"', '(got "tasks")'],
  },
  {
    name: "0.3 send result with kind tasks",
    dialect: "0.3 JSON-RPC",
    as: "SendMessageSuccessResponse",
    value: { jsonrpc: "2.0", id: "r1", result: { ...TASK_03, kind: "tasks" } },
    path: "/result/kind",
    says: ['"tasks"', "not a kind", '"task"', '"message"'],
  },
  {
    name: "0.3 status update as a message/send result",
    dialect: "0.3 JSON-RPC",
    as: "SendMessageSuccessResponse",
    value: {
      jsonrpc: "2.0",
      id: "r1",
      result: { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "working" }, final: true },
    },
    path: "/result/kind",
    says: ['"status-update"', "not a kind", '"task"', '"message"'],
  },
  {
    name: "0.3 part without kind",
    dialect: "0.3 JSON-RPC",
    as: "Message",
    value: { ...MESSAGE_03, parts: [{ text: "hi" }] },
    path: "/parts/0/kind",
    says: ["required", '"kind"'],
  },
  {
    name: "0.3 part with an unknown kind",
    dialect: "0.3 JSON-RPC",
    as: "Message",
    value: { ...MESSAGE_03, parts: [{ kind: "txt", text: "hi" }] },
    path: "/parts/0/kind",
    says: ['"txt"', '"text"', '"file"', '"data"'],
  },
  // Timestamps.
  {
    name: "1.0 timestamp that is not a date",
    dialect: "1.0",
    as: "Task",
    value: { ...TASK_10, status: { state: "TASK_STATE_WORKING", timestamp: "not-a-date" } },
    path: "/status/timestamp",
    says: ["RFC 3339 timestamp", '"not-a-date"'],
  },
  {
    name: "1.0 timestamp with month 13",
    dialect: "1.0",
    as: "TaskStatus",
    value: { state: "TASK_STATE_WORKING", timestamp: "2025-13-02T16:59:35Z" },
    path: "/timestamp",
    says: ["RFC 3339"],
  },
  {
    name: "1.0 ListTasks filter timestamp without a zone",
    dialect: "1.0",
    as: "ListTasksRequest",
    value: { statusTimestampAfter: "2025-04-02T16:59:35" },
    path: "/statusTimestampAfter",
    says: ["RFC 3339"],
  },
  {
    name: "0.3 REST timestamp that is not a date",
    dialect: "0.3 REST",
    as: "TaskStatus",
    value: { state: "TASK_STATE_WORKING", timestamp: "not-a-date" },
    path: "/timestamp",
    says: ["RFC 3339"],
  },
  // REQUIRED repeated fields need an element.
  {
    name: "1.0 message with empty parts",
    dialect: "1.0",
    as: "SendMessageRequest",
    value: { message: { ...MESSAGE_10, parts: [] } },
    path: "/message/parts",
    says: ["at least 1", "got 0"],
  },
  {
    name: "1.0 artifact with empty parts",
    dialect: "1.0",
    as: "TaskArtifactUpdateEvent",
    value: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a1", parts: [] } },
    path: "/artifact/parts",
    says: ["at least 1"],
  },
  {
    name: "1.0 card with no interface",
    dialect: "1.0",
    as: "AgentCard",
    value: { ...(fixture("v1_0/agent-card-empty-skills.json") as object), supportedInterfaces: [] },
    path: "/supportedInterfaces",
    says: ["at least 1"],
  },
  // Wrong types.
  {
    name: "1.0 task id as a number",
    dialect: "1.0",
    as: "Task",
    value: { ...TASK_10, id: 5 },
    path: "/id",
    says: ["type string", "(got 5)"],
  },
  {
    name: "0.3 JSON-RPC task id as a number",
    dialect: "0.3 JSON-RPC",
    as: "Task",
    value: { ...TASK_03, id: 5 },
    path: "/id",
    says: ["type string", "(got 5)"],
  },
  { name: "0.3 REST task id as a number", dialect: "0.3 REST", as: "Task", value: { id: 5 }, path: "/id", says: ["type string"] },
  { name: "1.0 raw bytes that are not base64", dialect: "1.0", as: "Part", value: { raw: "not base64!" }, path: "/raw", says: ["base64"] },
  {
    name: "1.0 pageSize that is not an integer",
    dialect: "1.0",
    as: "ListTasksRequest",
    value: { pageSize: "ten" },
    path: "/pageSize",
    says: ["integer", '(got "ten")'],
  },
  {
    name: "1.0 historyLength beyond int32",
    dialect: "1.0",
    as: "GetTaskRequest",
    value: { id: "t1", historyLength: 2147483648 },
    path: "/historyLength",
    says: ["integer", "at most 2147483647", "(got 2147483648)"],
  },
  {
    name: "1.0 metadata as an array",
    dialect: "1.0",
    as: "Task",
    value: { ...TASK_10, metadata: [1] },
    path: "/metadata",
    says: ["type object", "(got an array)"],
  },
  {
    name: "0.3 JSON-RPC data part holding an array",
    dialect: "0.3 JSON-RPC",
    as: "Part",
    value: { kind: "data", data: [1] },
    path: "/data",
    says: ["type object"],
  },
  {
    name: "0.3 JSON-RPC request id as a boolean",
    dialect: "0.3 JSON-RPC",
    as: "A2ARequest",
    value: { ...rpc03("tasks/get", { id: "t1" }), id: true },
    path: "/id",
    says: ["type string or integer", "(got true)"],
  },
  // 0.3 unions: the issue comes from the member the tag names.
  {
    name: "0.3 tasks/get without params.id",
    dialect: "0.3 JSON-RPC",
    as: "A2ARequest",
    value: rpc03("tasks/get", {}),
    path: "/params/id",
    says: ["required", '"id"'],
  },
  {
    name: "0.3 message/send with a data part without data",
    dialect: "0.3 JSON-RPC",
    as: "A2ARequest",
    value: rpc03("message/send", { message: { ...MESSAGE_03, parts: [{ kind: "text", text: "ok" }, { kind: "data" }] } }),
    path: "/params/message/parts/1/data",
    says: ["required", '"data"'],
  },
  {
    name: "0.3 message/send with a file of neither bytes nor uri",
    dialect: "0.3 JSON-RPC",
    as: "A2ARequest",
    value: rpc03("message/send", { message: { ...MESSAGE_03, parts: [{ kind: "file", file: { mimeType: "image/png" } }] } }),
    path: "/params/message/parts/0/file",
    says: ['"bytes"', '"uri"'],
  },
  {
    name: "0.3 message/send with a text part whose text is a number",
    dialect: "0.3 JSON-RPC",
    as: "A2ARequest",
    value: rpc03("message/send", { message: { ...MESSAGE_03, parts: [{ kind: "text", text: 42 }] } }),
    path: "/params/message/parts/0/text",
    says: ["type string", "(got 42)"],
  },
  {
    name: "0.3 unknown JSON-RPC method",
    dialect: "0.3 JSON-RPC",
    as: "A2ARequest",
    value: rpc03("tasks/list", {}),
    path: "/method",
    says: ['"tasks/list"', "not a method", '"message/send"', '"tasks/get"', '"agent/getAuthenticatedExtendedCard"'],
  },
  {
    name: "0.3 JSON-RPC request without method",
    dialect: "0.3 JSON-RPC",
    as: "A2ARequest",
    value: { jsonrpc: "2.0", id: 1, params: {} },
    path: "/method",
    says: ["required", '"method"'],
  },
  {
    name: "0.3 apiKey scheme without in",
    dialect: "0.3 JSON-RPC",
    as: "SecurityScheme",
    value: { type: "apiKey", name: "X-Key" },
    path: "/in",
    says: ["required", '"in"'],
  },
  {
    name: "0.3 stream status update without final",
    dialect: "0.3 JSON-RPC",
    as: "SendStreamingMessageSuccessResponse",
    value: { jsonrpc: "2.0", id: "r1", result: { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "working" } } },
    path: "/result/final",
    says: ["required", '"final"'],
  },
];

describe("invalid inputs are rejected with the path and the rule", () => {
  it.each(INVALID.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const issue = check(validator(c.dialect, c.as), c.value, options(c.dialect));
    expect(issue, "accepted an invalid value").toBeDefined();
    expect(issue!.path, formatIssue(issue!)).toBe(c.path);
    for (const words of c.says) expect(issue!.message).toContain(words);
  });

  it("0.3 worked-example params are not a valid 1.0 request, and the reverse", () => {
    const params03 = pick(fixture("v0_3-json-rpc/send-message-request.json"), "/params");
    expect(check(v1_0.validators.SendMessageRequest, params03)?.path).toBe("/message/role");
    const params10 = pick(fixture("v1_0/json-rpc-send-message-request.json"), "/params");
    expect(check(v0_3.validators.MessageSendParams, params10, options("0.3 JSON-RPC"))?.path).toBe("/message/kind");
  });
});

describe("0.3 union tags used to explain errors", () => {
  it("every 0.3 JSON-RPC method maps to the request definition of the 0.3 method table", () => {
    const fromTable = Object.fromEntries(v0_3.methods.map((m) => [m.jsonRpcMethod, m.jsonRpc?.request]));
    expect(v0_3UnionTags.method).toEqual(fromTable);
  });

  it("every tag value names a definition that requires exactly that tag value", () => {
    for (const [tag, values] of Object.entries(v0_3UnionTags)) {
      for (const [value, name] of Object.entries(values)) {
        // ajv reports missing fields before a wrong tag: give the definition every field it needs.
        const wrongTag = check(validator("0.3 JSON-RPC", name), { ...minimal03[name], [tag]: `${value}-not` });
        expect(wrongTag, name).toEqual({ path: `/${tag}`, message: `must be ${JSON.stringify(value)} (got "${value}-not")` });
        expect(check(validator("0.3 JSON-RPC", name), { ...minimal03[name], [tag]: value }), name).toBeUndefined();
      }
    }
  });
});

/** A small valid value of each tagged 0.3 definition. */
const minimal03: Record<string, Record<string, unknown>> = {
  TextPart: { kind: "text", text: "" },
  FilePart: { kind: "file", file: { uri: "https://x.example/f" } },
  DataPart: { kind: "data", data: {} },
  Task: TASK_03,
  Message: MESSAGE_03,
  TaskStatusUpdateEvent: { kind: "status-update", taskId: "t", contextId: "c", status: { state: "working" }, final: false },
  TaskArtifactUpdateEvent: { kind: "artifact-update", taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [] } },
  APIKeySecurityScheme: { type: "apiKey", in: "header", name: "X-Key" },
  HTTPAuthSecurityScheme: { type: "http", scheme: "Bearer" },
  OAuth2SecurityScheme: { type: "oauth2", flows: {} },
  OpenIdConnectSecurityScheme: { type: "openIdConnect", openIdConnectUrl: "https://x.example/oidc" },
  MutualTLSSecurityScheme: { type: "mutualTLS" },
  SendMessageRequest: rpc03("message/send", { message: MESSAGE_03 }),
  SendStreamingMessageRequest: rpc03("message/stream", { message: MESSAGE_03 }),
  GetTaskRequest: rpc03("tasks/get", { id: "t" }),
  CancelTaskRequest: rpc03("tasks/cancel", { id: "t" }),
  TaskResubscriptionRequest: rpc03("tasks/resubscribe", { id: "t" }),
  SetTaskPushNotificationConfigRequest: rpc03("tasks/pushNotificationConfig/set", {
    taskId: "t",
    pushNotificationConfig: { url: "https://x.example/hook" },
  }),
  GetTaskPushNotificationConfigRequest: rpc03("tasks/pushNotificationConfig/get", { id: "t", pushNotificationConfigId: "c" }),
  ListTaskPushNotificationConfigRequest: rpc03("tasks/pushNotificationConfig/list", { id: "t" }),
  DeleteTaskPushNotificationConfigRequest: rpc03("tasks/pushNotificationConfig/delete", { id: "t", pushNotificationConfigId: "c" }),
  GetAuthenticatedExtendedCardRequest: { jsonrpc: "2.0", id: 1, method: "agent/getAuthenticatedExtendedCard" },
};
