// The PushConfigStore contract, run against the memory and the SQLite implementation.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { MemoryPushConfigStore, type PushConfigStore } from "../../src/push/config-store.js";
import { SqliteTaskStore } from "../../src/server/store/sqlite-store.js";
import { PgTaskStore } from "../../src/server/store/pg-store.js";
import { deferred, freshDatabase, postgresBinaries, sharedPostgres, stopSharedPostgres } from "../support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-push-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cfg = (init: MessageInitShape<typeof v1_0.TaskPushNotificationConfigSchema>) =>
  create(v1_0.TaskPushNotificationConfigSchema, { url: "https://hooks.example.com/a2a", ...init });

const sqliteStores: SqliteTaskStore[] = [];
afterAll(async () => {
  for (const s of sqliteStores) await s.close();
});
const makers: [string, () => PushConfigStore][] = [
  ["memory", () => new MemoryPushConfigStore()],
  [
    "sqlite",
    () => {
      const s = new SqliteTaskStore(":memory:");
      sqliteStores.push(s);
      return s.pushConfigs;
    },
  ],
  ...(postgresBinaries()
    ? [
        [
          "postgres",
          () => {
            const s = freshDatabase().then((url) => PgTaskStore.open(url));
            pgStores.push(s);
            return deferred(s.then((x) => x.pushConfigs));
          },
        ] as [string, () => PushConfigStore],
      ]
    : []),
];
const pgStores: Promise<PgTaskStore>[] = [];
beforeAll(async () => void (postgresBinaries() && (await sharedPostgres())), 60_000);
afterAll(async () => {
  for (const s of pgStores) await (await s).close();
  await stopSharedPostgres();
});

describe.each(makers)("PushConfigStore contract: %s", (_n, make) => {
  it("create assigns an id when there is none and keeps the one given", async () => {
    const s = make();
    const a = await s.create("alice", cfg({ taskId: "t1" }), "1.0");
    expect(a.config.id).toMatch(/^[0-9a-f-]{36}$/);
    const b = await s.create("alice", cfg({ taskId: "t1", id: "mine" }), "1.0");
    expect(b.config.id).toBe("mine");
    expect((await s.list("alice", "t1")).map((c) => c.config.id)).toEqual([a.config.id, "mine"]);
  });

  it("keeps every field and the wire version it was registered with", async () => {
    const s = make();
    await s.create(
      "alice",
      cfg({ taskId: "t1", id: "c1", token: "tok", authentication: { scheme: "Bearer", credentials: "secret" } }),
      "0.3",
    );
    const got = await s.get("alice", "t1", "c1");
    expect(got?.version).toBe("0.3");
    expect(got?.owner).toBe("alice");
    expect(got?.config.url).toBe("https://hooks.example.com/a2a");
    expect(got?.config.token).toBe("tok");
    expect(got?.config.authentication).toMatchObject({ scheme: "Bearer", credentials: "secret" });
  });

  it("another owner or another task sees nothing", async () => {
    const s = make();
    await s.create("alice", cfg({ taskId: "t1", id: "c1" }), "1.0");
    expect(await s.get("bob", "t1", "c1")).toBeUndefined();
    expect(await s.get("alice", "t2", "c1")).toBeUndefined();
    expect(await s.list("bob", "t1")).toEqual([]);
    expect(await s.delete("bob", "t1", "c1")).toBe(false);
    expect(await s.get("alice", "t1", "c1")).toBeDefined();
  });

  it("creating an existing id replaces it in place (URL and version) and keeps the list order", async () => {
    const s = make();
    await s.create("alice", cfg({ taskId: "t1", id: "a" }), "1.0");
    await s.create("alice", cfg({ taskId: "t1", id: "b" }), "1.0");
    await s.create("alice", cfg({ taskId: "t1", id: "a", url: "https://other.example/" }), "0.3");
    const list = await s.list("alice", "t1");
    expect(list.map((c) => [c.config.id, c.config.url, c.version])).toEqual([
      ["a", "https://other.example/", "0.3"],
      ["b", "https://hooks.example.com/a2a", "1.0"],
    ]);
  });

  it("delete is idempotent and deleteForTask clears one task only", async () => {
    const s = make();
    await s.create("alice", cfg({ taskId: "t1", id: "a" }), "1.0");
    await s.create("alice", cfg({ taskId: "t1", id: "b" }), "1.0");
    await s.create("alice", cfg({ taskId: "t2", id: "a" }), "1.0");
    expect(await s.delete("alice", "t1", "a")).toBe(true);
    expect(await s.delete("alice", "t1", "a")).toBe(false);
    expect(await s.get("alice", "t1", "a")).toBeUndefined();
    expect(await s.deleteForTask("alice", "t1")).toBe(1);
    expect(await s.list("alice", "t1")).toEqual([]);
    expect((await s.list("alice", "t2")).map((c) => c.config.id)).toEqual(["a"]);
  });

  it("refuses a config without taskId, and stores a snapshot", async () => {
    const s = make();
    await expect(s.create("alice", cfg({}), "1.0")).rejects.toThrow(/taskId/);
    const c = cfg({ taskId: "t1", id: "a" });
    await s.create("alice", c, "1.0");
    c.url = "https://changed.example/";
    expect((await s.get("alice", "t1", "a"))?.config.url).toBe("https://hooks.example.com/a2a");
  });
});

it("SQLite push configs survive a reopen", async () => {
  const file = join(dir, "p.db");
  const a = new SqliteTaskStore(file);
  await a.pushConfigs.create("alice", cfg({ taskId: "t1", id: "a", token: "tok" }), "0.3");
  await a.close();
  const b = new SqliteTaskStore(file);
  const got = await b.pushConfigs.get("alice", "t1", "a");
  expect([got?.version, got?.config.token]).toEqual(["0.3", "tok"]);
  await b.close();
});
