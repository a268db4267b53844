import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decodeReply, decodeStreamEvent, encodeCall, NotA2AReplyError, type TargetLike } from "../../src/transport/client.js";
import { readSse, SseDecoder, sseComment, sseFrame } from "../../src/transport/sse.js";
import { A2AError } from "../../src/versioning/errors.js";

const get = create(v1_0.GetTaskRequestSchema, { id: "t1" });
const t = (version: "1.0" | "0.3", binding: "JSONRPC" | "HTTP+JSON", tenant = ""): TargetLike => ({
  url: "https://agent.example/a2a/",
  version,
  binding,
  tenant,
});

describe("encodeCall", () => {
  it("sends A2A-Version: 1.0 on 1.0 requests and no version header on 0.3 ones", () => {
    expect(encodeCall(t("1.0", "JSONRPC"), "GetTask", get).headers["A2A-Version"]).toBe("1.0");
    expect(Object.keys(encodeCall(t("0.3", "JSONRPC"), "GetTask", get).headers).map((h) => h.toLowerCase())).not.toContain("a2a-version");
  });

  it("names the extensions header in the target's dialect", () => {
    expect(encodeCall(t("1.0", "HTTP+JSON"), "GetTask", get, { extensions: ["u1", "u2"] }).headers["A2A-Extensions"]).toBe("u1, u2");
    expect(encodeCall(t("0.3", "HTTP+JSON"), "GetTask", get, { extensions: ["u1"] }).headers["X-A2A-Extensions"]).toBe("u1");
  });

  it("echoes the interface tenant: in JSON-RPC params and in the REST path", () => {
    const rpc = encodeCall(t("1.0", "JSONRPC", "acme"), "GetTask", get, { rpcId: "r" });
    expect(JSON.parse(rpc.body!)).toEqual({ jsonrpc: "2.0", id: "r", method: "GetTask", params: { tenant: "acme", id: "t1" } });
    expect(encodeCall(t("1.0", "HTTP+JSON", "acme"), "GetTask", get).url).toBe("https://agent.example/a2a/acme/tasks/t1");
  });

  it("uses the 0.3 method names and paths", () => {
    expect(JSON.parse(encodeCall(t("0.3", "JSONRPC"), "GetTask", get).body!).method).toBe("tasks/get");
    expect(encodeCall(t("0.3", "HTTP+JSON"), "GetTask", get).url).toBe("https://agent.example/a2a/v1/tasks/t1");
  });

  it("subscribes with GET (O1) and asks for an event stream", () => {
    const w = encodeCall(t("1.0", "HTTP+JSON"), "SubscribeToTask", create(v1_0.SubscribeToTaskRequestSchema, { id: "t1" }));
    expect(w).toMatchObject({ method: "GET", url: "https://agent.example/a2a/tasks/t1:subscribe" });
    expect(w.headers.accept).toBe("text/event-stream");
  });

  it("refuses ListTasks toward a 0.3 interface with UnsupportedOperation (L6)", () => {
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const)
      expect(() => encodeCall(t("0.3", binding), "ListTasks", create(v1_0.ListTasksRequestSchema, {}))).toThrowError(
        expect.objectContaining({ type: "UnsupportedOperationError" }),
      );
  });

  it("percent-encodes path values", () => {
    expect(encodeCall(t("1.0", "HTTP+JSON"), "GetTask", create(v1_0.GetTaskRequestSchema, { id: "a/b c" })).url).toBe(
      "https://agent.example/a2a/tasks/a%2Fb%20c",
    );
  });
});

describe("decodeReply", () => {
  it("throws NotA2AReplyError for an HTML error page", () => {
    expect(() => decodeReply(t("1.0", "HTTP+JSON"), "GetTask", { status: 502, text: "<html>bad gateway</html>" })).toThrow(
      NotA2AReplyError,
    );
    expect(() => decodeReply(t("1.0", "JSONRPC"), "GetTask", { status: 200, text: "<html/>" })).toThrow(NotA2AReplyError);
  });

  it("rejects a reply whose JSON-RPC id is not the request's", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 2, result: { id: "t1", contextId: "c", status: { state: "TASK_STATE_WORKING" } } });
    expect(() => decodeReply(t("1.0", "JSONRPC"), "GetTask", { status: 200, text: body }, { rpcId: 1 })).toThrowError(/does not match/);
  });

  it("rejects an invalid result as InvalidAgentResponse", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { id: "t1", status: { state: "NOPE" } } });
    expect(() => decodeReply(t("1.0", "JSONRPC"), "GetTask", { status: 200, text: body })).toThrowError(
      expect.objectContaining({ type: "InvalidAgentResponseError" }),
    );
  });

  it("reads a 0.3 JSON-RPC error with non-array data (L28)", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32002, message: "no", data: "already done" } });
    let err: unknown;
    try {
      decodeReply(t("0.3", "JSONRPC"), "CancelTask", { status: 200, text: body });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(A2AError);
    expect(err).toMatchObject({ type: "TaskNotCancelableError", details: [{ value: "already done" }] });
  });

  it("reads a REST error body sent as event: error mid-stream", () => {
    const d = decodeStreamEvent(
      t("1.0", "HTTP+JSON"),
      "SubscribeToTask",
      JSON.stringify({
        error: {
          code: 404,
          status: "NOT_FOUND",
          message: "gone",
          details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
        },
      }),
      "error",
    );
    expect("error" in d && d.error.type).toBe("TaskNotFoundError");
  });

  it("reports a stream item that is not JSON as InvalidAgentResponse", () => {
    const d = decodeStreamEvent(t("1.0", "HTTP+JSON"), "SubscribeToTask", "{oops");
    expect("error" in d && d.error.type).toBe("InvalidAgentResponseError");
  });
});

describe("SSE framing", () => {
  it("frames compact single-line JSON and reads it back from arbitrary chunks", () => {
    const frames = sseFrame({ a: "line\nbreak" }) + sseComment() + sseFrame({ b: 2 });
    expect(frames.split("\n\n")[0]).toBe('data: {"a":"line\\nbreak"}');
    const d = new SseDecoder();
    const out = [...frames].flatMap((ch) => d.feed(ch)).map((e) => JSON.parse(e.data));
    expect(out).toEqual([{ a: "line\nbreak" }, { b: 2 }]);
  });

  it("reads events from a byte stream, including one not closed by a blank line", async () => {
    const bytes = new TextEncoder().encode('data: {"x":1}\n\nevent: error\ndata: {"y":2}');
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 5));
        c.enqueue(bytes.slice(5));
        c.close();
      },
    });
    const events = [];
    for await (const e of readSse(stream)) events.push(e);
    expect(events).toEqual([{ data: '{"x":1}' }, { event: "error", data: '{"y":2}' }]);
  });
});

describe("ids that need escaping survive both REST dialects", () => {
  it.each(["1.0", "0.3"] as const)("%s: an id with a slash, a space and a percent sign", async (version) => {
    const { decodeCall } = await import("../../src/transport/server.js");
    const id = "a/b c%d";
    const w = encodeCall(t(version, "HTTP+JSON"), "GetTask", create(v1_0.GetTaskRequestSchema, { id }));
    const call = decodeCall({ method: w.method, url: w.url, headers: w.headers }, { binding: "HTTP+JSON", basePath: "/a2a" });
    expect(call.kind === "call" && (call.request as v1_0.GetTaskRequest).id).toBe(id);
  });
});
