// Bad input of every kind gets the spec-shaped error of its binding and version: never a 500, an
// HTML page, a hang or a crash.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import { startServer, type RunningServer } from "../support/servers.js";

let server: RunningServer;
let base: string;

beforeAll(async () => {
  server = await startServer("fastify", { agent: createFixtureAgent(), bodyLimit: 64 * 1024 });
  base = server.url;
});
afterAll(() => server.close());

type Json = Record<string, unknown>;

async function raw(path: string, init: RequestInit): Promise<{ status: number; type: string; body: Json }> {
  const res = await fetch(base + path, init);
  const type = res.headers.get("content-type") ?? "";
  const text = await res.text();
  expect(type, text).toMatch(/json/);
  return { status: res.status, type, body: JSON.parse(text) as Json };
}

const V1 = { "A2A-Version": "1.0" };

function rpc(body: string, headers: Record<string, string> = {}) {
  return raw("/", { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

describe.each([
  ["1.0", V1],
  ["0.3", {}],
] as const)("JSON-RPC %s", (version, headers) => {
  const method = version === "1.0" ? "SendMessage" : "message/send";
  const good = (id: unknown, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

  it("malformed JSON: -32700 with id null", async () => {
    const r = await rpc('{"jsonrpc": "2.0", "id": 4,', headers);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("not a request object, or a wrong envelope: -32600, echoing the id when readable", async () => {
    expect((await rpc("[]", headers)).body).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await rpc('"text"', headers)).body).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await rpc(JSON.stringify({ jsonrpc: "1.0", id: 7, method }), headers)).body).toMatchObject({ id: 7, error: { code: -32600 } });
    expect((await rpc(JSON.stringify({ jsonrpc: "2.0", id: 8 }), headers)).body).toMatchObject({ id: 8, error: { code: -32600 } });
    expect((await rpc(JSON.stringify({ jsonrpc: "2.0", id: 9, method, params: "x" }), headers)).body).toMatchObject({
      id: 9,
      error: { code: -32600 },
    });
  });

  it("unknown method: -32601, ids 0 and empty string echoed", async () => {
    expect((await rpc(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "Nope" }), headers)).body).toMatchObject({
      id: 0,
      error: { code: -32601 },
    });
    expect((await rpc(JSON.stringify({ jsonrpc: "2.0", id: "", method: "nope/nope" }), headers)).body).toMatchObject({
      id: "",
      error: { code: -32601 },
    });
  });

  it("invalid params and wrong types: -32602 with the id", async () => {
    expect((await rpc(good("a", {}), headers)).body).toMatchObject({ id: "a", error: { code: -32602 } });
    expect((await rpc(good("b", { message: { messageId: 5, role: "user", parts: "x" } }), headers)).body).toMatchObject({
      id: "b",
      error: { code: -32602 },
    });
  });

  // docs/policies.md "Content types": what the official conformance kit sends (a valid request as
  // text/plain) gets ContentTypeNotSupportedError, -32005 in both versions, with the request's id.
  it("a non-finite number (1e999) or nesting past 100 levels: -32602 with the path and the id (issue 28)", async () => {
    const message = { messageId: "m", role: version === "1.0" ? "ROLE_USER" : "user", parts: [] };
    const inf = `{"jsonrpc":"2.0","id":21,"method":"${method}","params":{"message":${JSON.stringify(message)},"metadata":{"x":1e999}}}`;
    const r = await rpc(inf, headers);
    expect(r.body).toMatchObject({ id: 21, error: { code: -32602 } });
    expect(JSON.stringify(r.body)).toContain("/metadata/x");
    const deep = `{"jsonrpc":"2.0","id":22,"method":"${method}","params":{"metadata":{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}}}`;
    const d = await rpc(deep, headers);
    expect(d.body).toMatchObject({ id: 22, error: { code: -32602 } });
    expect(JSON.stringify(d.body)).toContain("nested deeper than 100 levels");
  });

  it("a valid request sent as text/plain: HTTP 415, ContentTypeNotSupportedError (-32005), nothing executed", async () => {
    const params =
      version === "1.0"
        ? { message: { messageId: "ct-1", role: "ROLE_USER", parts: [{ text: "hello" }] } }
        : { message: { kind: "message", messageId: "ct-1", role: "user", parts: [{ kind: "text", text: "hello" }] } };
    const taskCount = async () =>
      ((await rpc(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ListTasks", params: {} }), V1)).body.result as { tasks?: unknown[] })
        .tasks?.length ?? 0;
    const before = await taskCount();
    for (const type of ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded"]) {
      const r = await raw("/", { method: "POST", headers: { "content-type": type, ...headers }, body: good(3, params) });
      expect(r.status, type).toBe(415);
      expect(r.body, type).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32005 } });
      expect((r.body.error as Json).message).toContain(`"${type}" is not supported`);
      if (version === "1.0")
        expect((r.body.error as Json).data).toEqual([expect.objectContaining({ reason: "CONTENT_TYPE_NOT_SUPPORTED" })]);
      expect(r.body).not.toHaveProperty("result");
    }
    expect(await taskCount()).toBe(before);
    // the same body as application/json is executed
    expect((await rpc(good(4, params), headers)).body).toMatchObject({ id: 4, result: expect.anything() });
    expect(await taskCount()).toBe(before + 1);
  });

  it("oversized body: 413 with a JSON-RPC error, id null", async () => {
    const r = await rpc(
      good(1, { message: { messageId: "m", role: "user", parts: [{ kind: "text", text: "x".repeat(100_000) }] } }),
      headers,
    );
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });
});

describe("JSON-RPC, other", () => {
  it("an unsupported A2A-Version: -32009 (VersionNotSupported)", async () => {
    const r = await rpc(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }), { "A2A-Version": "0.5" });
    expect(r.body).toMatchObject({ id: 1, error: { code: -32009 } });
  });

  it("application/a2a+json is accepted as well as application/json", async () => {
    const r = await raw("/", {
      method: "POST",
      headers: { "content-type": "application/a2a+json", ...V1 },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "missing" } }),
    });
    expect(r.body).toMatchObject({ id: 1, error: { code: -32001 } });
  });

  it("GET on the JSON-RPC endpoint is refused in JSON, not HTML", async () => {
    const r = await raw("/", { method: "GET", headers: V1 });
    expect(r.status).toBe(405);
    expect(r.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });
});

describe.each([
  ["1.0", "", V1, "application/a2a+json"],
  ["0.3", "/v1", {}, "application/json"],
] as const)("HTTP+JSON %s", (_version, root, headers, contentType) => {
  const post = (path: string, body: string, ct: string = contentType) =>
    raw(root + path, { method: "POST", headers: { "content-type": ct, ...headers }, body });

  function expectError(r: { status: number; body: Json }, status: number, grpc: string) {
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ error: { code: status, status: grpc } });
    expect(typeof (r.body.error as Json).message).toBe("string");
  }

  it("unknown route: 404 in the AIP-193 shape", async () => {
    expectError(await raw(`${root}/no/such/route`, { headers }), 404, "NOT_FOUND");
    expectError(await raw(`/completely/elsewhere.html`, { headers }), 404, "NOT_FOUND");
  });

  it("malformed JSON and invalid params: 400 INVALID_ARGUMENT", async () => {
    expectError(await post("/message:send", "{nope"), 400, "INVALID_ARGUMENT");
    expectError(await post("/message:send", JSON.stringify({ message: { role: 7 } })), 400, "INVALID_ARGUMENT");
  });

  it("a non-finite number (1e999) or nesting past 100 levels: 400 INVALID_ARGUMENT with the path (issue 28)", async () => {
    const inf = await post("/message:send", '{"message":{"messageId":"m","parts":[]},"metadata":{"x":-1e999}}');
    expectError(inf, 400, "INVALID_ARGUMENT");
    expect(JSON.stringify(inf.body)).toContain("/metadata/x");
    const deep = await post("/message:send", `{"metadata":{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`);
    expectError(deep, 400, "INVALID_ARGUMENT");
    expect(JSON.stringify(deep.body)).toContain("nested deeper than 100 levels");
  });

  it("wrong content type: 415, ContentTypeNotSupportedError", async () => {
    const r = await post("/message:send", "{}", "text/html");
    expectError(r, 415, "INVALID_ARGUMENT");
    expect(JSON.stringify(r.body)).toContain('\\"text/html\\" is not supported');
  });

  it("wrong verb on a known path: 405 with Allow", async () => {
    const res = await fetch(`${base}${root}/message:send`, { method: "DELETE", headers });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.headers.get("content-type")).toMatch(/json/);
  });

  it("oversized body: 413", async () => {
    expectError(await post("/message:send", JSON.stringify({ pad: "x".repeat(100_000) })), 413, "INVALID_ARGUMENT");
  });

  it("unknown task: 404 TASK_NOT_FOUND with ErrorInfo", async () => {
    const r = await raw(`${root}/tasks/missing`, { headers });
    expectError(r, 404, "NOT_FOUND");
    expect(((r.body.error as Json).details as Json[])[0]).toMatchObject({ reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" });
  });
});

describe("HTTP+JSON 1.0 query parameters", () => {
  it("bad ListTasks values: 400", async () => {
    for (const q of ["pageSize=abc", "pageSize=150", "status=NOT_A_STATE", "historyLength=-5", "pageToken=forged"]) {
      const r = await raw(`/tasks?${q}`, { headers: V1 });
      expect(r.status, q).toBe(400);
    }
  });
});

describe("after all that", () => {
  it("the server still answers normally", async () => {
    const r = await rpc(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "ok", role: "ROLE_USER", parts: [{ text: "echo fine" }] } },
      }),
      V1,
    );
    expect(r.body).toMatchObject({ result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
  });
});
