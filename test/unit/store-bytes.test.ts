// Byte limits of the task stores (issue 18): the memory store evicts by estimated bytes, ListTasks
// pages end early when their tasks are large (both stores), and the SQLite store's retention keeps
// the file within its count, byte and age limits without deleting running tasks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { SqliteTaskStore } from "../../src/server/store/sqlite-store.js";
import { MemoryTaskStore, type ListCursor, type TaskStore } from "../../src/server/store/store.js";
import { OBJECT_BYTES, taskBytes } from "../../src/server/store/task-size.js";
import { PgTaskStore } from "../../src/server/store/pg-store.js";
import { deferred, freshDatabase, postgresBinaries, sharedPostgres, stopSharedPostgres } from "../support/postgres.js";

const S = v1_0.TaskState;
const dir = mkdtempSync(join(tmpdir(), "a2a-store-bytes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
const freshFile = () => join(dir, `store-${++fileNo}.db`);

/** A task with `artifactChars` characters of artifact text and a short history. */
function task(id: string, ms: number, artifactChars: number, state: v1_0.TaskState = S.COMPLETED): v1_0.Task {
  return create(v1_0.TaskSchema, {
    id,
    contextId: "ctx",
    status: { state, timestamp: timestampFromMs(ms) },
    history: [{ messageId: `m-${id}`, role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "hi" } }] }],
    artifacts: artifactChars ? [{ artifactId: `a-${id}`, parts: [{ content: { case: "text", value: "x".repeat(artifactChars) } }] }] : [],
  });
}

describe("task size estimate", () => {
  it("counts content and a fixed cost per part, so many tiny parts are not free", () => {
    const one = task("t", 1, 0);
    const many = task("t", 1, 0);
    many.artifacts.push(
      create(v1_0.ArtifactSchema, {
        artifactId: "a",
        parts: Array.from({ length: 1000 }, () => ({ content: { case: "text" as const, value: "c" } })),
      }),
    );
    expect(taskBytes(many) - taskBytes(one)).toBeGreaterThanOrEqual(1000 * (OBJECT_BYTES + 1));
    expect(taskBytes(task("t", 1, 100_000)) - taskBytes(one)).toBeGreaterThanOrEqual(100_000);
  });
});

describe("MemoryTaskStore byte budget", () => {
  it("evicts the least recently written tasks once their bytes pass maxBytes; the newest is always kept", async () => {
    const store = new MemoryTaskStore({ maxBytes: 50_000 });
    for (let i = 0; i < 20; i++) await store.put("o", task(`t${i}`, i, 10_000));
    expect(store.bytes).toBeLessThanOrEqual(50_000);
    expect(store.size).toBe(4);
    expect(await store.get("o", "t0")).toBeUndefined();
    expect(await store.get("o", "t19")).toBeDefined();
    // Rewriting an old task makes it the newest; its earlier size is not counted twice.
    await store.put("o", task("t16", 100, 10_000));
    await store.put("o", task("t20", 101, 10_000));
    expect(await store.get("o", "t16")).toBeDefined();
    expect(await store.get("o", "t17")).toBeUndefined();
    expect(store.size).toBe(4);
    // One task over the whole budget stays (alone).
    await store.put("o", task("huge", 102, 200_000));
    expect([store.size, (await store.get("o", "huge"))?.id]).toEqual([1, "huge"]);
  });

  it("keeps the count limit as before", async () => {
    const store = new MemoryTaskStore({ maxTasks: 3 });
    for (let i = 0; i < 5; i++) await store.put("o", task(`t${i}`, i, 10));
    expect(store.size).toBe(3);
  });
});

const stores: [string, () => TaskStore][] = [
  ["MemoryTaskStore", () => new MemoryTaskStore()],
  ["SqliteTaskStore", () => new SqliteTaskStore(freshFile())],
  ...(postgresBinaries()
    ? [["PgTaskStore", (): TaskStore => deferred(freshDatabase().then((url) => PgTaskStore.open(url)))] as [string, () => TaskStore]]
    : []),
];
// The cluster starts before the tests (a few seconds on a loaded machine), not inside the first one.
beforeAll(async () => void (postgresBinaries() && (await sharedPostgres())), 60_000);
afterAll(stopSharedPostgres);

describe.each(stores)("ListTasks pages by bytes: %s", (_name, make) => {
  let store: TaskStore;
  afterEach(async () => store?.close?.());

  it("a page ends early when its tasks are large; the cursor continues; every task comes exactly once", async () => {
    store = make();
    for (let i = 0; i < 30; i++) await store.put("o", task(`t${String(i).padStart(2, "0")}`, 1000 + i, 40_000));
    const seen: string[] = [];
    let after: ListCursor | undefined;
    let pages = 0;
    do {
      const page = await store.list({ owner: "o", pageSize: 100, after, maxBytes: 100_000, withArtifacts: true });
      expect(page.tasks.length).toBeGreaterThanOrEqual(1);
      expect(page.tasks.length).toBeLessThanOrEqual(3);
      expect(page.totalSize).toBe(30);
      seen.push(...page.tasks.map((t) => t.id));
      after = page.next;
      pages++;
    } while (after && pages < 50);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => `t${String(29 - i).padStart(2, "0")}`));
  });

  it("without artifacts their bytes do not count: the whole page fits", async () => {
    store = make();
    for (let i = 0; i < 30; i++) await store.put("o", task(`t${i}`, 1000 + i, 40_000));
    const page = await store.list({ owner: "o", pageSize: 100, maxBytes: 100_000 });
    expect(page.tasks).toHaveLength(30);
    expect(page.next).toBeUndefined();
  });

  it("a task larger than maxBytes still comes, alone on its page", async () => {
    store = make();
    await store.put("o", task("big", 2, 300_000));
    await store.put("o", task("small", 1, 10));
    const first = await store.list({ owner: "o", pageSize: 10, maxBytes: 100_000, withArtifacts: true });
    expect(first.tasks.map((t) => t.id)).toEqual(["big"]);
    const second = await store.list({ owner: "o", pageSize: 10, maxBytes: 100_000, withArtifacts: true, after: first.next });
    expect(second.tasks.map((t) => t.id)).toEqual(["small"]);
    expect(second.next).toBeUndefined();
  });
});

describe("SqliteTaskStore retention", () => {
  const count = (s: SqliteTaskStore) => (s.db.prepare("SELECT count(*) AS n FROM tasks").get() as { n: number }).n;
  let store: SqliteTaskStore;
  afterEach(async () => store?.close());

  it("beyond maxTasks the oldest tasks go, with their push configs; running tasks stay", async () => {
    store = new SqliteTaskStore(freshFile(), { retention: { maxTasks: 5 } });
    await store.put("o", task("running", 1, 0, S.WORKING));
    await store.put("o", task("asked", 2, 0, S.INPUT_REQUIRED));
    for (let i = 0; i < 8; i++) {
      await store.put("o", task(`t${i}`, 10 + i, 0));
      if (i === 0)
        await store.pushConfigs.create(
          "o",
          create(v1_0.TaskPushNotificationConfigSchema, { taskId: "t0", id: "p", url: "https://h.example/" }),
          "1.0",
        );
    }
    store.retention.sweep(); // whatever the sweeps the writes scheduled left
    expect(count(store)).toBe(5);
    expect(await store.get("o", "running")).toBeDefined();
    expect(await store.get("o", "asked")).toBeUndefined();
    expect(await store.get("o", "t3")).toBeUndefined();
    expect(await store.get("o", "t4")).toBeDefined();
    expect(await store.pushConfigs.list("o", "t0")).toEqual([]);
  });

  it("beyond maxBytes the oldest tasks go until the rest fit", async () => {
    store = new SqliteTaskStore(freshFile(), { retention: { maxBytes: 100_000 } });
    for (let i = 0; i < 10; i++) await store.put("o", task(`t${i}`, 10 + i, 30_000));
    store.retention.sweep();
    const bytes = (store.db.prepare("SELECT total(size) AS b FROM tasks").get() as { b: number }).b;
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(count(store)).toBe(3);
    expect(await store.get("o", "t9")).toBeDefined();
  });

  it("tasks whose status is older than maxAgeMs go", async () => {
    store = new SqliteTaskStore(freshFile(), { retention: { maxAgeMs: 60_000 } });
    const now = Date.now();
    await store.put("o", task("old", now - 120_000, 0));
    await store.put("o", task("new", now - 1_000, 0));
    expect(store.retention.sweep(now)).toBe(1);
    expect(await store.get("o", "old")).toBeUndefined();
    expect(await store.get("o", "new")).toBeDefined();
  });

  it("a sweep deletes a little per turn, and no more than the limit asks when a caller deletes meanwhile", async () => {
    store = new SqliteTaskStore(freshFile(), { retention: { maxTasks: 100 } });
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.put("o", task(`t${String(i).padStart(3, "0")}`, i, 0))));
    expect(count(store)).toBe(300); // one commit; the sweep it scheduled has not run
    await new Promise((r) => setImmediate(r));
    expect(count(store)).toBe(250); // one turn of the sweep: 50 rows, so no request waits long behind it
    expect(await store.delete("o", "t299")).toBe(true);
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    expect(count(store)).toBe(100);
    expect(await store.get("o", "t298")).toBeDefined();
    expect(await store.get("o", "t199")).toBeDefined();
    expect(await store.get("o", "t198")).toBeUndefined();
  });

  it("the totals a sweep compares follow every write: a task that shrinks or grows, a caller's delete, a reopened file", async () => {
    const file = freshFile();
    const open = () => new SqliteTaskStore(file, { retention: { maxBytes: 100_000 } });
    store = open();
    for (let i = 0; i < 4; i++) await store.put("o", task(`t${i}`, 10 + i, 10_000));
    await store.put("o", task("t1", 20, 1_000)); // shrinks
    expect(await store.delete("o", "t2")).toBe(true);
    expect(store.retention.sweep()).toBe(0); // about 21,000 bytes: within the limit
    await store.close();
    store = open(); // counted afresh from the file
    await store.put("o", task("t3", 30, 90_000)); // grows: the three pass the limit by less than t0
    // Counting t1 at its old size or t2 at all would make this 2 (t0 and t1).
    expect(store.retention.sweep()).toBe(1);
    expect((await store.list({ owner: "o", pageSize: 10 })).tasks.map((t) => t.id)).toEqual(["t3", "t1"]);
  });

  it("writes schedule the sweep themselves, off the put call", async () => {
    store = new SqliteTaskStore(freshFile(), { retention: { maxTasks: 200 } });
    for (let i = 0; i < 450; i++) await store.put("o", task(`t${i}`, i, 0));
    expect(count(store)).toBeGreaterThan(200); // nothing deleted inside put
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(count(store)).toBeLessThanOrEqual(202);
    expect(await store.get("o", "t449")).toBeDefined();
  });
});
