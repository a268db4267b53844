// The TaskStore contract, run against MemoryTaskStore and SqliteTaskStore alike, then what only the
// SQLite store has: persistence across reopen, pragmas, schema migrations, recoverInterrupted.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, equals } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import Database from "better-sqlite3";
import { afterAll, afterEach, assert, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { migrate, MigrationError, schemaVersion, TASK_STORE_MIGRATIONS, type Migration } from "../../src/server/store/migrations.js";
import { DEFAULT_RECOVERY_MESSAGE, SqliteTaskStore } from "../../src/server/store/sqlite-store.js";
import { encode } from "../../src/runtime/protojson.js";
import { MemoryTaskStore, type ListCursor, type TaskQuery, type TaskStore } from "../../src/server/store/store.js";
import { PgTaskStore } from "../../src/server/store/pg-store.js";
import { deferred, freshDatabase, postgresBinaries, sharedPostgres, stopSharedPostgres } from "../support/postgres.js";

const S = v1_0.TaskState;
const dir = mkdtempSync(join(tmpdir(), "a2a-sqlite-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
const freshFile = () => join(dir, `store-${++fileNo}.db`);

function makeTask(id: string, ms: number, init: { contextId?: string; state?: v1_0.TaskState } = {}): v1_0.Task {
  return create(v1_0.TaskSchema, {
    id,
    contextId: init.contextId ?? "ctx-1",
    status: { state: init.state ?? S.COMPLETED, timestamp: timestampFromMs(ms) },
    history: [{ messageId: `m-${id}`, role: v1_0.Role.USER, taskId: id, parts: [{ content: { case: "text", value: `hi ${id}` } }] }],
  });
}

/** A task using every kind of content the store must carry unchanged. */
function richTask(): v1_0.Task {
  return create(v1_0.TaskSchema, {
    id: "rich",
    contextId: "ctx-rich",
    status: {
      state: S.INPUT_REQUIRED,
      timestamp: timestampFromMs(1_700_000_000_123),
      message: { messageId: "s1", role: v1_0.Role.AGENT, parts: [{ content: { case: "text", value: "¿más? 🚀" } }] },
    },
    artifacts: [
      {
        artifactId: "a1",
        name: "result",
        parts: [
          { content: { case: "text", value: "plain" }, mediaType: "text/plain" },
          { content: { case: "url", value: "https://example.com/f.pdf" }, filename: "f.pdf", mediaType: "application/pdf" },
          { content: { case: "raw", value: new Uint8Array([0, 1, 2, 254, 255]) } },
          {
            content: {
              case: "data",
              value: { kind: { case: "structValue", value: { fields: { a: { kind: { case: "stringValue", value: "b" } } } } } },
            },
          },
        ],
        metadata: { k: "v", n: 3, nested: { ok: true } },
      },
    ],
    history: [{ messageId: "u1", role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "start" } }], referenceTaskIds: ["t0"] }],
    metadata: { tenant: "acme", list: [1, "two", null] },
  });
}

const q = (owner: string, more: Partial<TaskQuery> = {}): TaskQuery => ({ owner, pageSize: 50, ...more });
const ids = (ts: v1_0.Task[]) => ts.map((t) => t.id);

const stores: [string, () => TaskStore][] = [
  ["MemoryTaskStore", () => new MemoryTaskStore()],
  ["SqliteTaskStore (file)", () => new SqliteTaskStore(freshFile())],
  ["SqliteTaskStore (:memory:)", () => new SqliteTaskStore(":memory:")],
  // PostgreSQL (a throwaway cluster) when its binaries are installed; .ci/run installs them.
  ...(postgresBinaries()
    ? [["PgTaskStore", (): TaskStore => deferred(freshDatabase().then((url) => PgTaskStore.open(url)))] as [string, () => TaskStore]]
    : []),
];
// The cluster starts before the tests (a few seconds on a loaded machine), not inside the first one.
beforeAll(async () => void (postgresBinaries() && (await sharedPostgres())), 60_000);
afterAll(stopSharedPostgres);

describe.each(stores)("TaskStore contract: %s", (_name, make) => {
  let store: TaskStore;
  afterEach(async () => store?.close?.());
  const open = () => (store = make());

  it("get returns what put stored, to its owner only", async () => {
    open();
    await store.put("alice", makeTask("t1", 1000));
    expect((await store.get("alice", "t1"))?.id).toBe("t1");
    expect(await store.get("bob", "t1")).toBeUndefined();
    expect(await store.get("alice", "nope")).toBeUndefined();
  });

  it("carries every field of a task unchanged (parts of each kind, metadata, artifacts, history)", async () => {
    open();
    const t = richTask();
    await store.put("alice", t);
    const back = await store.get("alice", "rich");
    expect(back && equals(v1_0.TaskSchema, back, t)).toBe(true);
  });

  it("put replaces, and later changes to the caller's task object do not reach the store", async () => {
    open();
    const t = makeTask("t1", 1000, { state: S.WORKING });
    await store.put("alice", t);
    t.status = create(v1_0.TaskStatusSchema, { state: S.COMPLETED, timestamp: timestampFromMs(2000) });
    t.history.push(create(v1_0.MessageSchema, { messageId: "later", role: v1_0.Role.AGENT }));
    expect((await store.get("alice", "t1"))?.status?.state).toBe(S.WORKING);
    expect((await store.get("alice", "t1"))?.history).toHaveLength(1);
    await store.put("alice", t);
    const back = await store.get("alice", "t1");
    expect(back?.status?.state).toBe(S.COMPLETED);
    expect(back?.history.map((m) => m.messageId)).toEqual(["m-t1", "later"]);
    expect((await store.list(q("alice"))).totalSize).toBe(1);
  });

  it("lists the owner's tasks newest status first, ties broken by id descending", async () => {
    open();
    await store.put("alice", makeTask("b", 2000));
    await store.put("alice", makeTask("a", 2000));
    await store.put("alice", makeTask("c", 2000));
    await store.put("alice", makeTask("old", 1000));
    await store.put("alice", makeTask("new", 3000));
    await store.put("bob", makeTask("bobs", 5000));
    const page = await store.list(q("alice"));
    expect(ids(page.tasks)).toEqual(["new", "c", "b", "a", "old"]);
    expect(page.totalSize).toBe(5);
    expect(page.next).toBeUndefined();
    expect(ids((await store.list(q("bob"))).tasks)).toEqual(["bobs"]);
    expect((await store.list(q("carol"))).tasks).toEqual([]);
  });

  it("a re-put moves the task by its new status time", async () => {
    open();
    await store.put("alice", makeTask("x", 1000));
    await store.put("alice", makeTask("y", 2000));
    await store.put("alice", makeTask("x", 3000));
    expect(ids((await store.list(q("alice"))).tasks)).toEqual(["x", "y"]);
  });

  it("filters by contextId, state and status time (inclusive), with totalSize counting matches", async () => {
    open();
    await store.put("alice", makeTask("t1", 1000, { contextId: "c1", state: S.WORKING }));
    await store.put("alice", makeTask("t2", 2000, { contextId: "c1", state: S.COMPLETED }));
    await store.put("alice", makeTask("t3", 3000, { contextId: "c2", state: S.WORKING }));
    await store.put("alice", makeTask("t4", 4000, { contextId: "c2", state: S.FAILED }));
    expect(ids((await store.list(q("alice", { contextId: "c1" }))).tasks)).toEqual(["t2", "t1"]);
    expect(ids((await store.list(q("alice", { state: S.WORKING }))).tasks)).toEqual(["t3", "t1"]);
    expect(ids((await store.list(q("alice", { state: S.UNSPECIFIED }))).tasks)).toEqual(["t4", "t3", "t2", "t1"]);
    expect(ids((await store.list(q("alice", { statusAfterMs: 2000 }))).tasks)).toEqual(["t4", "t3", "t2"]);
    const both = await store.list(q("alice", { contextId: "c2", state: S.WORKING, statusAfterMs: 0 }));
    expect(ids(both.tasks)).toEqual(["t3"]);
    expect(both.totalSize).toBe(1);
    expect((await store.list(q("alice", { contextId: "c1", pageSize: 1 }))).totalSize).toBe(2);
  });

  it("pages with an exclusive cursor: every task once, in order, next absent on the last page", async () => {
    open();
    for (let i = 0; i < 7; i++) await store.put("alice", makeTask(`t${i}`, 1000 * (i % 3)));
    const all = ids((await store.list(q("alice"))).tasks);
    const seen: string[] = [];
    let after: ListCursor | undefined;
    let pages = 0;
    do {
      const page = await store.list(q("alice", { pageSize: 2, after }));
      expect(page.totalSize).toBe(7);
      seen.push(...ids(page.tasks));
      after = page.next;
      if (after) expect(after.id).toBe(page.tasks.at(-1)?.id);
      pages++;
    } while (after);
    expect(pages).toBe(4);
    expect(seen).toEqual(all);
  });

  it("an exact last page has no next cursor", async () => {
    open();
    for (let i = 0; i < 4; i++) await store.put("alice", makeTask(`t${i}`, 1000 + i));
    const first = await store.list(q("alice", { pageSize: 2 }));
    const second = await store.list(q("alice", { pageSize: 2, after: first.next }));
    expect(ids(second.tasks)).toEqual(["t1", "t0"]);
    expect(second.next).toBeUndefined();
  });

  it("a cursor stays valid when newer tasks arrive between pages (no repeats, no skips)", async () => {
    open();
    for (let i = 0; i < 4; i++) await store.put("alice", makeTask(`t${i}`, 1000 + i));
    const first = await store.list(q("alice", { pageSize: 2 }));
    expect(ids(first.tasks)).toEqual(["t3", "t2"]);
    await store.put("alice", makeTask("newer", 9000));
    const second = await store.list(q("alice", { pageSize: 2, after: first.next }));
    expect(ids(second.tasks)).toEqual(["t1", "t0"]);
  });

  it("a cursor past the end gives an empty page", async () => {
    open();
    await store.put("alice", makeTask("t1", 1000));
    const page = await store.list(q("alice", { after: { timestampMs: 0, id: "" } }));
    expect(page.tasks).toEqual([]);
    expect(page.totalSize).toBe(1);
    expect(page.next).toBeUndefined();
  });
});

describe("SqliteTaskStore", () => {
  it("keeps tasks across close and reopen of the file", async () => {
    const file = freshFile();
    const a = new SqliteTaskStore(file);
    await a.put("alice", richTask());
    await a.close();
    const b = new SqliteTaskStore(file);
    const back = await b.get("alice", "rich");
    expect(back && equals(v1_0.TaskSchema, back, richTask())).toBe(true);
    await b.close();
  });

  it("a put resolves once committed: another connection to the file sees the task then, not before", async () => {
    const file = freshFile();
    const s = new SqliteTaskStore(file);
    const other = new Database(file, { readonly: true });
    const seen = () => other.prepare("SELECT count(*) AS n FROM tasks").pluck().get();
    const writes = [s.put("alice", makeTask("t1", 1000)), s.put("alice", makeTask("t2", 2000)), s.put("bob", makeTask("t3", 3000))];
    expect(seen()).toBe(0); // nothing committed inside put
    expect(await s.get("alice", "t1")).toBeDefined(); // the writer reads its own pending writes
    expect(await s.get("bob", "t1")).toBeUndefined();
    await Promise.all(writes);
    expect(seen()).toBe(3);
    other.close();
    await s.close();
  });

  it("puts of one task before the commit coalesce: one row write, the last state, every promise settled after it", async () => {
    const s = new SqliteTaskStore(":memory:");
    let writes = 0;
    s.db.function("count_write", () => ++writes);
    s.db.exec("CREATE TRIGGER counted AFTER INSERT ON tasks BEGIN SELECT count_write(); END");
    s.db.exec("CREATE TRIGGER counted_update AFTER UPDATE ON tasks BEGIN SELECT count_write(); END");
    const t = makeTask("t1", 1000, { state: S.SUBMITTED });
    const order: string[] = [];
    const put = (state: v1_0.TaskState) => {
      t.status = create(v1_0.TaskStatusSchema, { state, timestamp: timestampFromMs(1000 + state) });
      return s.put("alice", t).then(() => order.push(`${v1_0.TaskState[state]} ${writes}`));
    };
    await Promise.all([put(S.SUBMITTED), put(S.WORKING), put(S.COMPLETED)]);
    expect(order).toEqual(["SUBMITTED 1", "WORKING 1", "COMPLETED 1"]);
    expect((await s.get("alice", "t1"))?.status?.state).toBe(S.COMPLETED);
    await s.close();
  });

  it("a write the database refuses fails alone: the rest of its batch commits, later writes go on", async () => {
    const s = new SqliteTaskStore(":memory:");
    s.db.exec("CREATE TRIGGER no_bad BEFORE INSERT ON tasks WHEN NEW.id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END");
    const results = await Promise.allSettled([s.put("alice", makeTask("good", 1000)), s.put("alice", makeTask("bad", 1000))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect(await s.get("alice", "good")).toBeDefined();
    expect(await s.get("alice", "bad")).toBeUndefined();
    await s.put("alice", makeTask("later", 1000));
    expect(await s.get("alice", "later")).toBeDefined();
    await s.close();
    await expect(s.put("alice", makeTask("late", 1000))).rejects.toThrow(/closed/);
  });

  it("close commits what is pending", async () => {
    const file = freshFile();
    const s = new SqliteTaskStore(file);
    void s.put("alice", makeTask("t1", 1000));
    await s.close();
    const again = new SqliteTaskStore(file);
    expect(await again.get("alice", "t1")).toBeDefined();
    await again.close();
  });

  it("opens the file in WAL mode with synchronous NORMAL, or FULL when asked", async () => {
    const a = new SqliteTaskStore(freshFile());
    expect(a.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(a.db.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
    await a.close();
    const b = new SqliteTaskStore(freshFile(), { synchronous: "FULL" });
    expect(b.db.pragma("synchronous", { simple: true })).toBe(2); // FULL
    await b.close();
  });

  it("delete removes a task and its push configs, for its owner only", async () => {
    const s = new SqliteTaskStore(":memory:");
    await s.put("alice", makeTask("t1", 1000));
    await s.pushConfigs.create("alice", create(v1_0.TaskPushNotificationConfigSchema, { taskId: "t1", url: "https://h.example/" }), "1.0");
    expect(await s.delete("bob", "t1")).toBe(false);
    expect(await s.delete("alice", "t1")).toBe(true);
    expect(await s.get("alice", "t1")).toBeUndefined();
    expect(await s.pushConfigs.list("alice", "t1")).toEqual([]);
    await s.close();
  });

  describe("recoverInterrupted", () => {
    it("fails SUBMITTED and WORKING tasks with a generic status message and leaves the others alone", async () => {
      const file = freshFile();
      const a = new SqliteTaskStore(file);
      await a.put("alice", makeTask("sub", 1000, { state: S.SUBMITTED }));
      await a.put("bob", makeTask("work", 1000, { state: S.WORKING }));
      await a.put("alice", makeTask("ask", 1000, { state: S.INPUT_REQUIRED }));
      await a.put("alice", makeTask("auth", 1000, { state: S.AUTH_REQUIRED }));
      await a.put("alice", makeTask("done", 1000, { state: S.COMPLETED }));
      await a.close(); // the "process" dies here

      const b = new SqliteTaskStore(file);
      expect(b.recoverInterrupted().sort()).toEqual(["sub", "work"]);
      for (const [owner, id] of [
        ["alice", "sub"],
        ["bob", "work"],
      ] as const) {
        const t = (await b.get(owner, id))!;
        expect(t.status?.state).toBe(S.FAILED);
        const msg = t.status?.message;
        expect(msg?.role).toBe(v1_0.Role.AGENT);
        expect(msg?.taskId).toBe(id);
        expect(msg?.contextId).toBe("ctx-1");
        expect(msg?.parts[0]?.content).toEqual({ case: "text", value: DEFAULT_RECOVERY_MESSAGE });
        expect(t.history.map((m) => m.messageId)).toEqual([`m-${id}`, msg?.messageId]);
        expect(timestampMs(t.status!.timestamp!)).toBeGreaterThan(1000);
      }
      expect((await b.get("alice", "ask"))?.status?.state).toBe(S.INPUT_REQUIRED);
      expect((await b.get("alice", "auth"))?.status?.state).toBe(S.AUTH_REQUIRED);
      expect((await b.get("alice", "done"))?.status?.state).toBe(S.COMPLETED);
      expect(ids((await b.list(q("alice", { state: S.FAILED }))).tasks)).toEqual(["sub"]);
      expect(b.recoverInterrupted("again")).toEqual([]);
      await b.close();
    });

    it("uses the operator's message when given", async () => {
      const s = new SqliteTaskStore(":memory:");
      await s.put("alice", makeTask("w", 1000, { state: S.WORKING }));
      expect(s.recoverInterrupted("Restarted for maintenance.")).toEqual(["w"]);
      expect((await s.get("alice", "w"))?.status?.message?.parts[0]?.content.value).toBe("Restarted for maintenance.");
      await s.close();
    });
  });

  describe("listRunning", () => {
    it("lists SUBMITTED and WORKING tasks with their owners, unchanged, and leaves the file alone", async () => {
      const file = freshFile();
      const a = new SqliteTaskStore(file);
      const work = makeTask("work", 1000, { state: S.WORKING });
      work.metadata = { a2a_task_id: "remote-1", a2a_backend: "b" };
      await a.put("alice", makeTask("sub", 1000, { state: S.SUBMITTED }));
      await a.put("alice", makeTask("ask", 1000, { state: S.INPUT_REQUIRED }));
      await a.put("bob", makeTask("done", 1000, { state: S.COMPLETED }));
      void a.put("bob", work); // pending in the group commit: listRunning sees it
      const running = a.listRunning().sort((x, y) => x.task.id.localeCompare(y.task.id));
      expect(running.map((r) => [r.owner, r.task.id])).toEqual([
        ["alice", "sub"],
        ["bob", "work"],
      ]);
      const [, bobs] = running;
      assert(bobs);
      expect(equals(v1_0.TaskSchema, bobs.task, work)).toBe(true);
      await a.close(); // the "process" dies here

      const b = new SqliteTaskStore(file);
      expect(
        b
          .listRunning()
          .map((r) => r.task.id)
          .sort(),
      ).toEqual(["sub", "work"]);
      expect((await b.get("bob", "work"))?.status?.state).toBe(S.WORKING);
      expect(b.recoverInterrupted().sort()).toEqual(["sub", "work"]);
      expect(b.listRunning()).toEqual([]);
      await b.close();
    });
  });

  describe("schema migrations", () => {
    const ALL = TASK_STORE_MIGRATIONS;
    const N = ALL.length;
    // A later release's next migration: a column every existing row must get a value for.
    const next: Migration = {
      version: N + 1,
      name: "tasks.archived",
      up(db) {
        db.exec("ALTER TABLE tasks ADD COLUMN archived INTEGER NOT NULL DEFAULT 0");
        db.exec("CREATE INDEX tasks_archived ON tasks (archived)");
      },
    };
    const m2 = { ...next, version: 2 };

    it("a new file gets every migration, recorded in user_version and schema_migrations", async () => {
      const s = new SqliteTaskStore(freshFile());
      expect(schemaVersion(s.db)).toBe(N);
      const rows = s.db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all();
      expect(rows).toEqual(ALL.map((m) => ({ version: m.version, name: m.name })));
      await s.close();
    });

    it("a file of this release opens with a later migration added: upgraded in place, data kept", async () => {
      const file = freshFile();
      const old = new SqliteTaskStore(file);
      await old.put("alice", richTask());
      await old.pushConfigs.create(
        "alice",
        create(v1_0.TaskPushNotificationConfigSchema, { taskId: "rich", id: "p1", url: "https://h.example/" }),
        "0.3",
      );
      await old.close();

      const upgraded = new SqliteTaskStore(file, { migrations: [...ALL, next] });
      expect(schemaVersion(upgraded.db)).toBe(N + 1);
      expect(upgraded.db.prepare("SELECT archived FROM tasks WHERE id = 'rich'").get()).toEqual({ archived: 0 });
      const back = await upgraded.get("alice", "rich");
      expect(back && equals(v1_0.TaskSchema, back, richTask())).toBe(true);
      expect((await upgraded.pushConfigs.get("alice", "rich", "p1"))?.version).toBe("0.3");
      expect(upgraded.db.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all()).toEqual([
        ...ALL.map((m) => m.version),
        N + 1,
      ]);
      await upgraded.close();

      // Opening again applies nothing.
      const again = new Database(file);
      expect(migrate(again, [...ALL, next])).toEqual([]);
      again.close();
    });

    it("this release upgrades a file written at migration 1: rows keep their content, get sizes, list by state uses its index", async () => {
      // What the first release wrote: schema 1, the whole task (artifacts included) in `body`.
      const file = freshFile();
      const raw = new Database(file);
      migrate(raw, ALL.slice(0, 1));
      const insert = raw.prepare("INSERT INTO tasks (id, owner, context_id, state, status_ms, body) VALUES (?, ?, ?, ?, ?, ?)");
      const rich = richTask();
      const richBody = JSON.stringify(encode(v1_0.TaskSchema, rich, { alwaysEmit: v1_0.alwaysEmit }));
      insert.run("rich", "alice", rich.contextId, rich.status!.state, timestampMs(rich.status!.timestamp!), richBody);
      const w = makeTask("w", 1000, { state: S.WORKING });
      insert.run("w", "alice", "ctx-1", S.WORKING, 1000, JSON.stringify(encode(v1_0.TaskSchema, w, { alwaysEmit: v1_0.alwaysEmit })));
      raw.close();

      const current = new SqliteTaskStore(file);
      expect(schemaVersion(current.db)).toBe(N);
      const plan = current.db
        .prepare("EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE owner = ? AND state = ? ORDER BY status_ms DESC, id DESC LIMIT 51")
        .all("alice", S.WORKING) as { detail: string }[];
      expect(plan.map((p) => p.detail).join(" ")).toMatch(/tasks_by_owner_state/);
      expect(ids((await current.list(q("alice", { state: S.WORKING }))).tasks)).toEqual(["w"]);
      const back = await current.get("alice", "rich");
      expect(back && equals(v1_0.TaskSchema, back, rich)).toBe(true);
      const listed = (await current.list(q("alice", { withArtifacts: true }))).tasks.find((t) => t.id === "rich");
      expect(listed && equals(v1_0.TaskSchema, listed, rich)).toBe(true);
      const sizes = current.db.prepare("SELECT size, artifact_size FROM tasks WHERE id = 'rich'").get() as {
        size: number;
        artifact_size: number;
      };
      expect(sizes.size).toBe(Buffer.byteLength(richBody));
      expect(sizes.artifact_size).toBeGreaterThan(100);
      expect(sizes.artifact_size).toBeLessThan(sizes.size);
      await current.close();
    });

    it("a file the previous schema (version 3) wrote opens, migrates, and gives back its tasks and push configs", async () => {
      const file = freshFile();
      const raw = new Database(file);
      raw.exec(readFileSync(new URL("../fixtures/sqlite-store-v3.sql", import.meta.url), "utf8"));
      expect(schemaVersion(raw)).toBe(3);
      raw.close();

      const s = new SqliteTaskStore(file);
      expect(schemaVersion(s.db)).toBe(N);
      const done = await s.get("alice", "old-done");
      expect(done?.status?.state).toBe(S.COMPLETED);
      expect(done?.history.map((m) => m.messageId)).toEqual(["u1", "a1"]);
      expect(done?.artifacts[0]?.parts.map((p) => p.content.value)).toEqual(["written by the previous release", new Uint8Array([1, 2, 3])]);
      expect(done?.metadata).toEqual({ note: "v3" });
      expect(await s.get("bob", "old-done")).toBeUndefined();
      expect(ids((await s.list(q("alice", { contextId: "ctx-old" }))).tasks)).toEqual(["old-working", "old-done"]);
      expect(ids((await s.list(q("bob", { state: S.INPUT_REQUIRED }))).tasks)).toEqual(["old-ask"]);
      expect((await s.pushConfigs.get("alice", "old-working", "hook"))?.version).toBe("0.3");
      // Recovery reads the partial index; the old task table's WITHOUT ROWID layout is gone.
      const plan = s.db.prepare(`EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE state IN (${S.SUBMITTED}, ${S.WORKING})`).all() as {
        detail: string;
      }[];
      expect(plan.map((p) => p.detail).join(" ")).toMatch(/tasks_running/);
      expect(s.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'tasks'").pluck().get()).not.toMatch(/WITHOUT ROWID/);
      expect(s.listRunning().map((r) => r.task.id)).toEqual(["old-working"]);
      expect(s.recoverInterrupted()).toEqual(["old-working"]);
      await s.put("alice", makeTask("new", 5000));
      expect(ids((await s.list(q("alice"))).tasks)).toEqual(["old-working", "old-done", "new"]); // recovery stamped old-working now
      await s.close();
    });

    it("an older release refuses a newer file instead of writing into it", async () => {
      const file = freshFile();
      await new SqliteTaskStore(file, { migrations: [...ALL, next] }).close();
      expect(() => new SqliteTaskStore(file)).toThrow(MigrationError);
      expect(() => new SqliteTaskStore(file)).toThrow(new RegExp(`schema version ${N + 1}.*\\(${N}\\)`));
    });

    it("a failing migration rolls back whole and leaves the file at the previous version", async () => {
      const file = freshFile();
      await new SqliteTaskStore(file).close();
      const broken: Migration = {
        version: N + 1,
        name: "broken",
        up(db) {
          db.exec("ALTER TABLE tasks ADD COLUMN half_done INTEGER");
          db.exec("THIS IS NOT SQL");
        },
      };
      expect(() => new SqliteTaskStore(file, { migrations: [...ALL, broken] })).toThrow();
      const db = new Database(file);
      expect(schemaVersion(db)).toBe(N);
      const cols = db.prepare("SELECT name FROM pragma_table_info('tasks')").pluck().all();
      expect(cols).not.toContain("half_done");
      db.close();
      const fixed = new SqliteTaskStore(file, { migrations: [...ALL, next] });
      expect(schemaVersion(fixed.db)).toBe(N + 1);
      await fixed.close();
    });

    it("rejects a migration list with gaps", () => {
      const db = new Database(":memory:");
      expect(() => migrate(db, [...TASK_STORE_MIGRATIONS.slice(0, 1), { ...m2, version: 3 }])).toThrow(MigrationError);
      db.close();
    });
  });
});
