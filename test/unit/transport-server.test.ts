import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decodeCall, encodeError, encodeResult, openStream, type DecodedCall, type HttpReply } from "../../src/transport/server.js";
import { A2AError } from "../../src/versioning/errors.js";

const V1 = { "A2A-Version": "1.0", "content-type": "application/json" };
const send = (
  id: unknown,
  method = "SendMessage",
  params: unknown = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } },
) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

function rpc(body: unknown, headers: Record<string, string> = V1, versions?: ("1.0" | "0.3")[]) {
  return decodeCall({ method: "POST", url: "/", headers, body }, { binding: "JSONRPC", versions });
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test inspects arbitrary JSON
function asReply(r: DecodedCall | HttpReply): { status: number; json: Record<string, any>; headers: Record<string, string> } {
  expect(r.kind).toBe("reply");
  const reply = r as HttpReply;
  return { status: reply.status, json: JSON.parse(reply.body), headers: reply.headers };
}
function asCall(r: DecodedCall | HttpReply): DecodedCall {
  if (r.kind !== "call") throw new Error(`expected a call, got ${r.body}`);
  return r;
}

describe("JSON-RPC envelopes", () => {
  it("decodes a 1.0 call into a 1.0 message and keeps the id", () => {
    const call = asCall(rpc(send("r1")));
    expect(call).toMatchObject({ version: "1.0", binding: "JSONRPC", operation: "SendMessage", rpcId: "r1", streaming: false });
    expect((call.request as v1_0.SendMessageRequest).message?.parts[0]?.content).toEqual({ case: "text", value: "hi" });
  });

  it.each([0, "", -7, "x"])("echoes the id %j exactly, in results and errors", (id) => {
    const call = asCall(rpc(send(id)));
    expect(call.rpcId).toBe(id);
    const bad = asReply(rpc(send(id, "NoSuchMethod")));
    expect(bad.json.id).toBe(id);
  });

  it("answers unparseable JSON with -32700 and id null", () => {
    const r = asReply(rpc('{"jsonrpc":"2.0",'));
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it.each([
    ["not an object", "[1,2]"],
    ["jsonrpc missing", JSON.stringify({ id: 1, method: "SendMessage" })],
    ["method not a string", JSON.stringify({ jsonrpc: "2.0", id: 1, method: 5 })],
    ["params a string", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: "x" })],
    ["id an object", JSON.stringify({ jsonrpc: "2.0", id: {}, method: "GetTask" })],
    ["no id (notification)", JSON.stringify({ jsonrpc: "2.0", method: "GetTask" })],
  ])("answers a bad envelope (%s) with -32600", (_why, body) => {
    expect(asReply(rpc(body)).json.error.code).toBe(-32600);
  });

  it("keeps a readable id on an invalid envelope, null otherwise", () => {
    expect(asReply(rpc(JSON.stringify({ jsonrpc: "1.0", id: 9, method: "GetTask" }))).json.id).toBe(9);
    expect(asReply(rpc(JSON.stringify({ jsonrpc: "2.0", id: {}, method: "GetTask" }))).json.id).toBe(null);
  });

  it("answers an unknown method with -32601", () => {
    expect(asReply(rpc(send(1, "tasks/explode"))).json.error.code).toBe(-32601);
  });

  it("answers invalid params with -32602 and the path of the offending value", () => {
    const r = asReply(rpc(send(1, "SendMessage", { message: { messageId: "m", role: "ROLE_USER", parts: [] } })));
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.message).toContain("/message/parts");
    expect(r.json.error.data[0].fieldViolations[0].field).toBe("/message/parts");
  });

  it("answers a ProtoJSON type error with -32602", () => {
    const r = asReply(rpc(send(1, "GetTask", { id: "t", historyLength: "many" })));
    expect(r.json.error.code).toBe(-32602);
  });

  it("refuses a non-JSON content type with ContentTypeNotSupportedError and HTTP 415", () => {
    const r = asReply(rpc(send(3), { "A2A-Version": "1.0", "content-type": "text/plain" }));
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ id: 3, error: { code: -32005 } });
  });

  it("accepts application/a2a+json with parameters", () => {
    expect(rpc(send(3), { "A2A-Version": "1.0", "content-type": "application/a2a+json; charset=utf-8" }).kind).toBe("call");
  });
});

describe("negotiation on JSON-RPC", () => {
  it("answers an unsupported version with -32009 listing the supported versions in ErrorInfo", () => {
    const r = asReply(rpc(send(1), { "A2A-Version": "2.1" }));
    expect(r.json.error.code).toBe(-32009);
    expect(r.json.error.data[0]).toMatchObject({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "VERSION_NOT_SUPPORTED",
      domain: "a2a-protocol.org",
      metadata: { supportedVersions: "1.0,0.3" },
    });
  });

  it("refuses a header-less request on a 1.0-only server with VersionNotSupported", () => {
    expect(asReply(rpc(send(1), {}, ["1.0"])).json.error.code).toBe(-32009);
  });

  it("accepts the version as a query parameter", () => {
    const r = decodeCall({ method: "POST", url: "/?A2A-Version=1.0", headers: {}, body: send(1) }, { binding: "JSONRPC" });
    expect(asCall(r).version).toBe("1.0");
  });

  it("answers a 1.0 method without a version header with -32601 that says how to fix it", () => {
    const r = asReply(rpc(send(1), {}));
    expect(r.json.error.code).toBe(-32601);
    expect(r.json.error.message).toContain("A2A-Version: 1.0");
  });

  it("answers a 0.3 method under A2A-Version: 1.0 with -32601", () => {
    const r = asReply(rpc(send(1, "message/send"), V1));
    expect(r.json.error.code).toBe(-32601);
    expect(r.json.error.message).toContain("0.3");
  });

  it("answers ListTasks in a 0.3 request with UnsupportedOperation (L6)", () => {
    expect(asReply(rpc(send(1, "ListTasks", {}), {})).json.error.code).toBe(-32004);
    expect(asReply(rpc(send(1, "tasks/list", {}), {})).json.error.code).toBe(-32004);
  });

  it("exposes the requested extensions of the request's dialect", () => {
    const call = asCall(rpc(send(1), { ...V1, "A2A-Extensions": "https://x/ext1,https://x/ext2", "X-A2A-Extensions": "https://old" }));
    expect(call.extensions).toEqual(["https://x/ext1", "https://x/ext2"]);
  });
});

describe("REST request mapping (1.0)", () => {
  const rest = (method: string, url: string, body?: unknown, headers: Record<string, string> = V1, basePath?: string) =>
    decodeCall({ method, url, headers, body: body === undefined ? undefined : JSON.stringify(body) }, { binding: "HTTP+JSON", basePath });

  it("maps path, query and body into the 1.0 request", () => {
    const call = asCall(rest("GET", "/tasks/t-1?historyLength=4"));
    expect(call.operation).toBe("GetTask");
    expect(call.request).toMatchObject({ id: "t-1", historyLength: 4 });
  });

  it("reads the tenant from the /{tenant}/ form", () => {
    const call = asCall(rest("POST", "/acme/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } }));
    expect(call).toMatchObject({ operation: "SendMessage", tenant: "acme" });
  });

  it("strips the interface base path", () => {
    expect(asCall(rest("GET", "/a2a/rest/tasks/t9", undefined, V1, "/a2a/rest")).request).toMatchObject({ id: "t9" });
    expect(asReply(rest("GET", "/elsewhere/tasks/t9", undefined, V1, "/a2a/rest")).status).toBe(404);
  });

  it("converts typed query parameters (enum, int, bool, timestamp)", () => {
    const call = asCall(
      rest("GET", "/tasks?status=TASK_STATE_WORKING&pageSize=5&includeArtifacts=true&statusTimestampAfter=2025-01-01T00:00:00Z"),
    );
    expect(call.request).toMatchObject({ status: v1_0.TaskState.WORKING, pageSize: 5, includeArtifacts: true });
  });

  it("accepts SubscribeToTask by GET and by POST (O1)", () => {
    expect(asCall(rest("GET", "/tasks/t1:subscribe")).operation).toBe("SubscribeToTask");
    expect(asCall(rest("POST", "/tasks/t1:subscribe", {})).operation).toBe("SubscribeToTask");
  });

  it("prefers the action route over the plain id route", () => {
    expect(asCall(rest("POST", "/tasks/t1:cancel", {})).operation).toBe("CancelTask");
  });

  it("answers an unknown route with 404 and an AIP-193 body", () => {
    const r = asReply(rest("GET", "/nothing/here/at/all"));
    expect(r.status).toBe(404);
    expect(r.json.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  it("answers a wrong verb with 405 and Allow", () => {
    const r = asReply(rest("DELETE", "/tasks/t1"));
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe("GET");
  });

  it("answers invalid JSON in the body with 400 INVALID_ARGUMENT", () => {
    const r = asReply(decodeCall({ method: "POST", url: "/message:send", headers: V1, body: "{nope" }, { binding: "HTTP+JSON" }));
    expect(r.status).toBe(400);
    expect(r.json.error.status).toBe("INVALID_ARGUMENT");
  });

  it("answers a wrong content type with 415", () => {
    const r = asReply(rest("POST", "/message:send", {}, { "A2A-Version": "1.0", "content-type": "text/xml" }));
    expect(r.status).toBe(415);
    expect(r.json.error.code).toBe(415);
  });

  it("answers invalid params with 400, the field path and a BadRequest detail", () => {
    const r = asReply(rest("POST", "/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [] } }));
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain("/message/parts");
    expect(r.json.error.details[0]["@type"]).toBe("type.googleapis.com/google.rpc.BadRequest");
  });

  it("answers an unsupported version with 400, AIP-193 body and ErrorInfo", () => {
    const r = asReply(rest("GET", "/tasks/t1", undefined, { "A2A-Version": "9.9" }));
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 400, status: "FAILED_PRECONDITION" });
    expect(r.json.error.details[0]).toMatchObject({ reason: "VERSION_NOT_SUPPORTED", metadata: { supportedVersions: "1.0,0.3" } });
  });

  it("answers a 1.0 route without a version header with a 404 that names the fix", () => {
    const r = asReply(rest("POST", "/message:send", { message: {} }, {}));
    expect(r.status).toBe(404);
    expect(r.json.error.message).toContain("A2A-Version: 1.0");
  });

  it("settles /v1/... by the negotiated version: 1.0 reads tenant v1, 0.3 reads the 0.3 route", () => {
    const asTenant = asCall(rest("GET", "/v1/tasks/abc", undefined, V1));
    expect(asTenant).toMatchObject({ version: "1.0", operation: "GetTask", tenant: "v1" });
    const legacy = rest("GET", "/v1/tasks/abc", undefined, {});
    // The 0.3 route table answers it (a decoded call once 0.3 translation is present, never a tenant).
    if (legacy.kind === "call") expect(legacy).toMatchObject({ version: "0.3", operation: "GetTask", tenant: "" });
    else expect(JSON.parse(legacy.body).error.message).not.toContain("No A2A");
  });
});

describe("replies", () => {
  const task = create(v1_0.TaskSchema, { id: "t1", contextId: "c1", status: { state: v1_0.TaskState.WORKING } });

  it("encodes a JSON-RPC result with the request id", () => {
    const call = asCall(rpc(send(0)));
    const r = encodeResult(call, create(v1_0.SendMessageResponseSchema, { payload: { case: "task", value: task } }), { extensions: ["u"] });
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: "2.0",
      id: 0,
      result: { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } },
    });
    expect(r.headers["A2A-Extensions"]).toBe("u");
  });

  it("answers REST as application/json unless the request names application/a2a+json", () => {
    const plain = asCall(decodeCall({ method: "GET", url: "/tasks/t1", headers: { "A2A-Version": "1.0" } }, { binding: "HTTP+JSON" }));
    expect(encodeResult(plain, task).headers["content-type"]).toBe("application/json");
    expect(encodeError(plain, new A2AError("TaskNotFoundError")).headers["content-type"]).toBe("application/json");
    const accept = { "A2A-Version": "1.0", accept: "application/a2a+json" };
    const named = asCall(decodeCall({ method: "GET", url: "/tasks/t1", headers: accept }, { binding: "HTTP+JSON" }));
    expect(encodeResult(named, task).headers["content-type"]).toBe("application/a2a+json");
  });

  it("encodes a REST result as the bare message", () => {
    const call = asCall(decodeCall({ method: "GET", url: "/tasks/t1", headers: V1 }, { binding: "HTTP+JSON" }));
    const r = encodeResult(call, task);
    expect(JSON.parse(r.body)).toEqual({ id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } });
  });

  it("encodes errors in each binding from the one table", () => {
    const err = new A2AError("TaskNotFoundError", undefined, { taskId: "t1" });
    const j = JSON.parse(encodeError({ version: "1.0", binding: "JSONRPC", rpcId: "a" }, err).body);
    expect(j).toMatchObject({ id: "a", error: { code: -32001, data: [{ reason: "TASK_NOT_FOUND", metadata: { taskId: "t1" } }] } });
    const r = encodeError({ version: "1.0", binding: "HTTP+JSON" }, err);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body).error).toMatchObject({ code: 404, status: "NOT_FOUND", details: [{ reason: "TASK_NOT_FOUND" }] });
  });

  it("frames 1.0 JSON-RPC stream items as responses carrying the request id, REST items bare", () => {
    const ev = create(v1_0.StreamResponseSchema, { payload: { case: "task", value: task } });
    const s = openStream(asCall(rpc(send("s1", "SendStreamingMessage"))));
    expect(s.headers["content-type"]).toBe("text/event-stream");
    const { frames } = s.event(ev);
    expect(frames).toBe(
      `data: ${JSON.stringify({ jsonrpc: "2.0", id: "s1", result: { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } } })}\n\n`,
    );
    const restCall = asCall(decodeCall({ method: "GET", url: "/tasks/t1:subscribe", headers: V1 }, { binding: "HTTP+JSON" }));
    expect(openStream(restCall).event(ev).frames).toBe(
      `data: {"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}\n\n`,
    );
  });

  it("sends a mid-stream error as one frame, after which nothing more is sent", () => {
    const s = openStream(asCall(rpc(send(5, "SendStreamingMessage"))));
    const f = s.error(new A2AError("InternalError"));
    expect(JSON.parse(f.slice("data: ".length))).toMatchObject({ id: 5, error: { code: -32603 } });
    expect(s.closed).toBe(true);
    expect(s.event(create(v1_0.StreamResponseSchema, {})).frames).toBe("");
  });
});

describe("0.3 on the wire", () => {
  const rest0_3 = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    decodeCall({ method, url, headers, body: body === undefined ? undefined : JSON.stringify(body) }, { binding: "HTTP+JSON" });

  it("processes a header-less message/send as 0.3 (V-01)", () => {
    const body = send(1, "message/send", {
      message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "x" }] },
    });
    expect(asCall(rpc(body, {}))).toMatchObject({ version: "0.3", operation: "SendMessage", tenant: "" });
  });

  it("reads X-A2A-Extensions on 0.3 requests and ignores A2A-Extensions (V-11)", () => {
    const body = send(1, "tasks/get", { id: "t" });
    const call = asCall(rpc(body, { "X-A2A-Extensions": "https://old/ext", "A2A-Extensions": "https://new/ext" }));
    expect(call.extensions).toEqual(["https://old/ext"]);
    const reply = encodeResult(call, create(v1_0.TaskSchema, { id: "t", contextId: "c", status: { state: v1_0.TaskState.WORKING } }), {
      extensions: call.extensions,
    });
    expect(reply.headers).toMatchObject({ "X-A2A-Extensions": "https://old/ext" });
    expect(reply.headers["A2A-Extensions"]).toBeUndefined();
  });

  it("answers invalid 0.3 params with -32602 and the path", () => {
    const r = asReply(rpc(send(1, "message/send", { message: { kind: "message", messageId: "m", role: "robot", parts: [] } }), {}));
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.message).toMatch(/\/message\//);
  });

  it("maps the 0.3 REST routes to the same operations", () => {
    expect(asCall(rest0_3("GET", "/v1/tasks/t1?historyLength=2")).request).toMatchObject({ id: "t1", historyLength: 2 });
    expect(asCall(rest0_3("POST", "/v1/tasks/t1:cancel", {})).operation).toBe("CancelTask");
    expect(asCall(rest0_3("GET", "/v1/card")).operation).toBe("GetExtendedAgentCard");
    expect(asCall(rest0_3("DELETE", "/v1/tasks/t1/pushNotificationConfigs/c1")).request).toMatchObject({ taskId: "t1", id: "c1" });
  });

  it("accepts 0.3 subscribe by GET and by POST (O1)", () => {
    expect(asCall(rest0_3("GET", "/v1/tasks/t1:subscribe")).operation).toBe("SubscribeToTask");
    expect(asCall(rest0_3("POST", "/v1/tasks/t1:subscribe", {})).operation).toBe("SubscribeToTask");
  });

  it.each([
    ["fixed path, bare body", "/v1/tasks/t1/pushNotificationConfigs", { pushNotificationConfig: { id: "c1", url: "https://h/x" } }],
    ["typo path (E18), bare body", "/v1/task/t1/pushNotificationConfigs", { pushNotificationConfig: { id: "c1", url: "https://h/x" } }],
    [
      "fixed path, wrapped body (E21)",
      "/v1/tasks/t1/pushNotificationConfigs",
      { configId: "c1", config: { pushNotificationConfig: { url: "https://h/x" } } },
    ],
  ])("accepts 0.3 create-push-config: %s (O5)", (_why, url, body) => {
    const call = asCall(rest0_3("POST", url, body));
    expect(call.operation).toBe("CreateTaskPushNotificationConfig");
    expect(call.request).toMatchObject({ taskId: "t1", id: "c1", url: "https://h/x" });
  });

  it("answers GET /v1/tasks (documented, never defined in 0.3) with UnsupportedOperation (L6)", () => {
    const r = asReply(rest0_3("GET", "/v1/tasks"));
    expect(r.status).toBe(400);
    expect(r.json.error.details[0].reason).toBe("UNSUPPORTED_OPERATION");
  });

  it("a 0.3 route under A2A-Version: 1.0 is read as a 1.0 tenant route, or refused when it has no 1.0 reading", () => {
    expect(
      asCall(rest0_3("POST", "/v1/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } }, V1)),
    ).toMatchObject({
      version: "1.0",
      tenant: "v1",
    });
    const card = asReply(rest0_3("GET", "/v1/card", undefined, V1));
    expect(card.status).toBe(404);
    expect(card.json.error.message).toContain("0.3");
  });

  it("settles the /v1 collision by version: header-less /v1/tasks/abc is 0.3 GetTask, never tenant v1", () => {
    expect(asCall(rest0_3("GET", "/v1/tasks/abc"))).toMatchObject({
      version: "0.3",
      operation: "GetTask",
      tenant: "",
      request: { id: "abc" },
    });
  });

  it("serves 0.3 REST replies as application/json in the D03-PB dialect", () => {
    const call = asCall(rest0_3("GET", "/v1/tasks/t1"));
    const r = encodeResult(call, create(v1_0.TaskSchema, { id: "t1", contextId: "c1", status: { state: v1_0.TaskState.CANCELED } }));
    expect(r.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(r.body).status.state).toBe("TASK_STATE_CANCELLED");
  });

  it("answers the 0.3 JSON-RPC result in the 0.3 shape (bare Task with kind)", () => {
    const call = asCall(rpc(send("x", "tasks/get", { id: "t1" }), {}));
    const r = encodeResult(call, create(v1_0.TaskSchema, { id: "t1", contextId: "c1", status: { state: v1_0.TaskState.INPUT_REQUIRED } }));
    expect(JSON.parse(r.body)).toEqual({
      jsonrpc: "2.0",
      id: "x",
      result: { kind: "task", id: "t1", contextId: "c1", status: { state: "input-required" } },
    });
  });
});

describe("0.3 REST blocking default (L22)", () => {
  const body = JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", content: [{ text: "x" }] } });
  const decode = (blockingDefault0_3?: boolean) =>
    asCall(decodeCall({ method: "POST", url: "/v1/message:send", headers: {}, body }, { binding: "HTTP+JSON", blockingDefault0_3 }));

  it("reads an absent blocking as return-immediately by default, and as blocking when configured", () => {
    expect((decode().request as v1_0.SendMessageRequest).configuration?.returnImmediately).toBe(true);
    expect((decode(true).request as v1_0.SendMessageRequest).configuration?.returnImmediately ?? false).toBe(false);
    expect(decode().losses.map((l) => l.id)).toContain("L22");
  });
});

describe("0.3 method-name tolerance (E20)", () => {
  it("accepts agent/authenticatedExtendedCard as agent/getAuthenticatedExtendedCard", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agent/authenticatedExtendedCard" });
    expect(asCall(rpc(body, {}))).toMatchObject({ version: "0.3", operation: "GetExtendedAgentCard" });
  });
});
