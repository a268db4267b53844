// The push-config operations as a caller sees them: ownership, SSRF at registration, not-found,
// idempotent delete, paging, the per-task limit and the remembered wire version.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { MemoryPushConfigStore } from "../../src/push/config-store.js";
import { PushConfigService } from "../../src/push/service.js";
import { A2AError } from "../../src/versioning/errors.js";

const alice = { principal: "alice", version: "1.0" };
const bob = { principal: "bob", version: "1.0" };

function setup(maxConfigsPerTask?: number) {
  const configs = new MemoryPushConfigStore();
  const tasks = new Set(["alice/t1", "alice/t2", "bob/tb"]);
  const service = new PushConfigService({
    configs,
    taskExists: async (owner, id) => tasks.has(`${owner}/${id}`),
    ssrf: { lookup: async () => [{ address: "93.184.216.34", family: 4 }] },
    maxConfigsPerTask,
  });
  return { configs, service };
}

const cfg = (taskId: string, init: { id?: string; url?: string } = {}) =>
  create(v1_0.TaskPushNotificationConfigSchema, { taskId, url: "https://hooks.example.com/a2a", ...init });

async function a2aError(p: Promise<unknown>): Promise<A2AError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof A2AError) return e;
    throw e;
  }
  throw new Error("expected an A2AError");
}

describe("PushConfigService", () => {
  it("create → get → list → delete round trip (S-41, S-43)", async () => {
    const { service } = setup();
    const made = await service.create(cfg("t1"), alice);
    expect(made.id).not.toBe("");
    expect(made.taskId).toBe("t1");
    const got = await service.get(create(v1_0.GetTaskPushNotificationConfigRequestSchema, { taskId: "t1", id: made.id }), alice);
    expect(got.url).toBe("https://hooks.example.com/a2a");
    const listed = await service.list(create(v1_0.ListTaskPushNotificationConfigsRequestSchema, { taskId: "t1" }), alice);
    expect(listed.configs.map((c) => c.id)).toEqual([made.id]);
    expect(listed.nextPageToken).toBe("");
    const del = create(v1_0.DeleteTaskPushNotificationConfigRequestSchema, { taskId: "t1", id: made.id });
    await service.delete(del, alice);
    await service.delete(del, alice); // idempotent
    const gone = await a2aError(service.get(create(v1_0.GetTaskPushNotificationConfigRequestSchema, { taskId: "t1", id: made.id }), alice));
    expect(gone.type).toBe("TaskNotFoundError");
  });

  it("another principal's task answers TaskNotFound for every operation, as an unknown one does", async () => {
    const { service } = setup();
    await service.create(cfg("t1", { id: "c" }), alice);
    const errors = await Promise.all([
      a2aError(service.create(cfg("t1"), bob)),
      a2aError(service.get(create(v1_0.GetTaskPushNotificationConfigRequestSchema, { taskId: "t1", id: "c" }), bob)),
      a2aError(service.list(create(v1_0.ListTaskPushNotificationConfigsRequestSchema, { taskId: "t1" }), bob)),
      a2aError(service.delete(create(v1_0.DeleteTaskPushNotificationConfigRequestSchema, { taskId: "t1", id: "c" }), bob)),
      a2aError(service.create(cfg("nope"), alice)),
    ]);
    expect(errors.map((e) => e.type)).toEqual(Array(5).fill("TaskNotFoundError"));
    expect(errors[0].message).toBe(errors[4].message.replace("nope", "t1"));
  });

  it("refuses webhook URLs the SSRF guard refuses, with InvalidParams naming url", async () => {
    const { service } = setup();
    for (const url of ["http://127.0.0.1:9/", "http://10.0.0.1/", "http://169.254.169.254/", "ftp://h.example/"]) {
      const e = await a2aError(service.create(cfg("t1", { url }), alice));
      expect(e.type).toBe("InvalidParamsError");
      expect(e.message).toMatch(/^Invalid parameters: url: /);
    }
    expect((await a2aError(service.precheck(cfg("", { url: "http://[::1]/" })))).type).toBe("InvalidParamsError");
  });

  it("remembers the wire version of the registering request", async () => {
    const { configs, service } = setup();
    await service.create(cfg("t1", { id: "old" }), { principal: "alice", version: "0.3" });
    await service.registerFromSend("t2", cfg("", { id: "new" }), alice);
    expect((await configs.get("alice", "t1", "old"))?.version).toBe("0.3");
    expect((await configs.get("alice", "t2", "new"))?.version).toBe("1.0");
  });

  it("pages the list with an opaque token, and rejects tokens it did not issue", async () => {
    const { service } = setup();
    for (const id of ["a", "b", "c", "d", "e"]) await service.create(cfg("t1", { id }), alice);
    const seen: string[] = [];
    let pageToken = "";
    do {
      const page = await service.list(
        create(v1_0.ListTaskPushNotificationConfigsRequestSchema, { taskId: "t1", pageSize: 2, pageToken }),
        alice,
      );
      seen.push(...page.configs.map((c) => c.id));
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(seen).toEqual(["a", "b", "c", "d", "e"]);
    const bad = await a2aError(
      service.list(create(v1_0.ListTaskPushNotificationConfigsRequestSchema, { taskId: "t1", pageToken: "xyz" }), alice),
    );
    expect(bad.type).toBe("InvalidParamsError");
    const big = await a2aError(
      service.list(create(v1_0.ListTaskPushNotificationConfigsRequestSchema, { taskId: "t1", pageSize: 101 }), alice),
    );
    expect(big.type).toBe("InvalidParamsError");
  });

  it("limits configs per task, but replacing an existing id is always allowed", async () => {
    const { service } = setup(2);
    await service.create(cfg("t1", { id: "a" }), alice);
    await service.create(cfg("t1", { id: "b" }), alice);
    expect((await a2aError(service.create(cfg("t1", { id: "c" }), alice))).type).toBe("InvalidParamsError");
    const replaced = await service.create(cfg("t1", { id: "a", url: "https://other.example/" }), alice);
    expect(replaced.url).toBe("https://other.example/");
  });
});
