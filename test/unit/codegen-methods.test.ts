// compileTemplate: google.api.http path templates -> anchored regular expressions with named groups.
// The 0.3 JSON-RPC <-> proto join and the errata E10 list fail loudly when the spec moves under them.
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FileRegistry } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkEmptyAllowed } from "../../codegen/main.js";
import { compileTemplate, methodsV0_3 } from "../../codegen/methods.js";
import { compileProto } from "../../codegen/proto.js";
import { defaultSpecDir } from "../../codegen/spec.js";

const match = (template: string, path: string) => {
  const m = new RegExp(compileTemplate(template).pattern).exec(path);
  return m ? { ...m.groups } : null;
};

describe("compileTemplate", () => {
  it("a bare variable matches one segment and is named", () => {
    expect(compileTemplate("/tasks/{id}").pathParams).toEqual(["id"]);
    expect(match("/tasks/{id}", "/tasks/abc")).toEqual({ id: "abc" });
    expect(match("/tasks/{id}", "/tasks/a/b")).toBeNull();
    expect(match("/tasks/{id}", "/tasks/")).toBeNull();
  });

  it("{id=*} is the same as {id}", () => {
    expect(match("/tasks/{id=*}", "/tasks/abc")).toEqual({ id: "abc" });
    expect(match("/tasks/{id=*}", "/tasks/a/b")).toBeNull();
  });

  it("a resource-name variable {name=tasks/*} captures the literal prefix with the segment", () => {
    const t = compileTemplate("/v1/{name=tasks/*}");
    expect(t.pathParams).toEqual(["name"]);
    expect(match("/v1/{name=tasks/*}", "/v1/tasks/abc")).toEqual({ name: "tasks/abc" });
    expect(match("/v1/{name=tasks/*}", "/v1/task/abc")).toBeNull();
    expect(match("/v1/{name=tasks/*}", "/v1/tasks/abc/more")).toBeNull();
  });

  it("a verb suffix (:cancel) is literal and required", () => {
    expect(match("/v1/{name=tasks/*}:cancel", "/v1/tasks/abc:cancel")).toEqual({ name: "tasks/abc" });
    expect(match("/v1/{name=tasks/*}:cancel", "/v1/tasks/abc")).toBeNull();
    expect(match("/v1/{name=tasks/*}:cancel", "/v1/tasks/abc:subscribe")).toBeNull();
    expect(match("/message:send", "/message:send")).toEqual({});
    expect(match("/message:send", "/message:stream")).toBeNull();
  });

  it("several variables keep their order, including a tenant prefix", () => {
    const template = "/{tenant}/tasks/{task_id=*}/pushNotificationConfigs/{id=*}";
    expect(compileTemplate(template).pathParams).toEqual(["tenant", "task_id", "id"]);
    expect(match(template, "/acme/tasks/t1/pushNotificationConfigs/c1")).toEqual({ tenant: "acme", task_id: "t1", id: "c1" });
  });

  it("a multi-segment resource pattern and ** (any rest)", () => {
    expect(match("/v1/{name=tasks/*/pushNotificationConfigs/*}", "/v1/tasks/t/pushNotificationConfigs/c")).toEqual({
      name: "tasks/t/pushNotificationConfigs/c",
    });
    expect(match("/files/{path=**}", "/files/a/b/c")).toEqual({ path: "a/b/c" });
  });

  it("regular-expression characters in literals are escaped", () => {
    expect(match("/a.b/{x}", "/a.b/1")).toEqual({ x: "1" });
    expect(match("/a.b/{x}", "/aXb/1")).toBeNull();
  });

  it("an unbalanced template is an error, not a silent wrong pattern", () => {
    expect(() => compileTemplate("/tasks/{id")).toThrow(/unbalanced path template/);
  });
});

describe("the 0.3 JSON-RPC <-> proto join", () => {
  let dir: string;
  let registry03: FileRegistry;
  const json03 = () =>
    JSON.parse(readFileSync(join(defaultSpecDir(), "v0.3", "a2a.json"), "utf8")) as {
      definitions: Record<string, { properties?: Record<string, { const?: unknown }> }>;
    };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "a2a-join-"));
    registry03 = compileProto(defaultSpecDir(), "v0.3").registry;
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("joins every upstream method: JSON-RPC name, proto rpc, 1.0 operation and the JSON-RPC definitions", () => {
    const methods = methodsV0_3(registry03, json03());
    expect(methods).toHaveLength(10);
    const resubscribe = methods.find((m) => m.jsonRpcMethod === "tasks/resubscribe")!;
    expect(resubscribe).toMatchObject({ rpc: "TaskSubscription", operation: "SubscribeToTask", streaming: true });
    expect(resubscribe.jsonRpc).toEqual({
      request: "TaskResubscriptionRequest",
      params: "TaskIdParams",
      result: "SendStreamingMessageSuccessResponse",
    });
    expect(methods.find((m) => m.rpc === "GetAgentCard")!.jsonRpc?.params).toBeNull();
  });

  it("a JSON-RPC method that disappears upstream stops generation", () => {
    const json = json03();
    delete json.definitions.TaskResubscriptionRequest;
    expect(() => methodsV0_3(registry03, json as never)).toThrow('0.3 JSON Schema has no request with method "tasks/resubscribe"');
  });

  it("a new JSON-RPC method without a proto rpc stops generation", () => {
    const json = json03();
    json.definitions.ListTasksRequest = { properties: { method: { const: "tasks/list" } } };
    expect(() => methodsV0_3(registry03, json as never)).toThrow("0.3 JSON-RPC methods without a proto rpc: tasks/list");
  });

  it("a renamed proto rpc stops generation", () => {
    cpSync(defaultSpecDir(), join(dir, "spec"), { recursive: true });
    const proto = join(dir, "spec", "v0.3", "a2a.proto");
    const text = readFileSync(proto, "utf8");
    expect(text).toContain("rpc TaskSubscription(");
    chmodSync(proto, 0o644); // the shared spec files are read-only
    writeFileSync(proto, text.replace("rpc TaskSubscription(", "rpc SubscribeToTask("));
    const renamed = compileProto(join(dir, "spec"), "v0.3").registry;
    expect(() => methodsV0_3(renamed, json03() as never)).toThrow("0.3 proto has no rpc TaskSubscription");
  }, 120_000);
});

describe("errata E10 may-be-empty list", () => {
  it("accepts REQUIRED lists and rejects names that are not (renamed, not repeated, not REQUIRED)", () => {
    const registry10 = compileProto(defaultSpecDir(), "v1.0").registry;
    expect(() => checkEmptyAllowed(registry10, new Set(["lf.a2a.v1.ListTasksResponse.tasks", "lf.a2a.v1.AgentSkill.tags"]))).not.toThrow();
    expect(() => checkEmptyAllowed(registry10, new Set(["lf.a2a.v1.AgentSkill.labels"]))).toThrow(
      /lf\.a2a\.v1\.AgentSkill\.labels .*errata E10/,
    );
    expect(() => checkEmptyAllowed(registry10, new Set(["lf.a2a.v1.Task.id"]))).toThrow(/errata E10/);
    expect(() => checkEmptyAllowed(registry10, new Set(["lf.a2a.v1.Task.history"]))).toThrow(/errata E10/);
  }, 120_000);
});
