// compileTemplate: google.api.http path templates -> anchored regular expressions with named groups.
import { describe, expect, it } from "vitest";
import { compileTemplate } from "../../codegen/methods.js";

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
