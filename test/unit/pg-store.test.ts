// What only the PostgreSQL store has (the TaskStore and PushConfigStore contracts run against it in
// sqlite-store.test.ts, store-bytes.test.ts and push-config-store.test.ts): commit before
// acknowledge with group commit, versioned migrations shared by replicas (and `migrate`), retention.
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { migratePg, PG_MIGRATIONS, pgSchemaVersion } from "../../src/server/store/pg-migrations.js";
import { PgTaskStore } from "../../src/server/store/pg-store.js";
import { runMigrate } from "../../src/cli/migrate-command.js";
import { freshDatabase, postgresBinaries, POSTGRES_MISSING, sharedPostgres, stopSharedPostgres } from "../support/postgres.js";

const S = v1_0.TaskState;
// The cluster starts before the tests (a few seconds on a loaded machine), not inside the first one.
beforeAll(async () => void (postgresBinaries() && (await sharedPostgres())), 60_000);
afterAll(stopSharedPostgres);

const task = (id: string, ms: number, state: v1_0.TaskState = S.COMPLETED, text = "x") =>
  create(v1_0.TaskSchema, {
    id,
    contextId: "ctx",
    status: { state, timestamp: timestampFromMs(ms) },
    history: [{ messageId: `m-${id}`, role: v1_0.Role.USER, parts: [{ content: { case: "text", value: text } }] }],
  });

describe.skipIf(!postgresBinaries())(`PgTaskStore${postgresBinaries() ? "" : ` (${POSTGRES_MISSING})`}`, { timeout: 30_000 }, () => {
  it("a put resolves after its COMMIT: another connection sees the task then; concurrent puts share commits, one task's writes coalesce", async () => {
    const url = await freshDatabase();
    const store = await PgTaskStore.open(url);
    const other = new pg.Client(url);
    await other.connect();
    let statements = 0;
    const query = store.pool.query.bind(store.pool);
    store.pool.query = ((...args: Parameters<typeof query>) => {
      if (String(args[0]).includes("INSERT INTO a2a_tasks")) statements++;
      return query(...args);
    }) as typeof query;
    try {
      const puts = Array.from({ length: 20 }, (_, i) => store.put("alice", task(`t${i}`, 1000 + i)));
      // The last of several writes of one task in a batch wins.
      puts.push(store.put("alice", task("t0", 5000, S.FAILED)));
      // Reads see pending writes at once.
      expect((await store.get("alice", "t0"))?.status?.state).toBe(S.FAILED);
      await Promise.all(puts);
      const seen = await other.query("SELECT id, state FROM a2a_tasks ORDER BY id");
      expect(seen.rows).toHaveLength(20);
      expect(seen.rows.find((r) => r.id === "t0")?.state).toBe(S.FAILED);
      expect(statements).toBeLessThan(21); // 21 puts, far fewer transactions
      // A write the database refuses fails its batch only; later writes go on.
      const bad = store.put("alice", task("bad\u0000id", 1));
      await expect(bad).rejects.toThrow();
      await store.put("alice", task("after", 2));
      expect((await other.query("SELECT count(*)::int AS n FROM a2a_tasks WHERE id = 'after'")).rows[0].n).toBe(1);
    } finally {
      await other.end();
      await store.close();
    }
  });

  it("migrations: recorded in a2a_schema_migrations; replicas opening at once migrate once; a newer database is refused", async () => {
    const url = await freshDatabase();
    const [s1, s2, s3] = await Promise.all([PgTaskStore.open(url), PgTaskStore.open(url), PgTaskStore.open(url)]);
    const rows = (await s1.pool.query("SELECT version, name FROM a2a_schema_migrations ORDER BY version")).rows;
    expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(await pgSchemaVersion(s1.pool)).toBe(PG_MIGRATIONS.length);
    // A later release's migration is applied in place, data kept.
    await s1.put("o", task("kept", 1));
    const later = [
      ...PG_MIGRATIONS,
      { version: PG_MIGRATIONS.length + 1, name: "later", sql: "ALTER TABLE a2a_tasks ADD COLUMN extra text" },
    ];
    expect(await migratePg(s1.pool, later)).toEqual([PG_MIGRATIONS.length + 1]);
    expect((await s1.get("o", "kept"))?.id).toBe("kept");
    await Promise.all([s1.close(), s2.close(), s3.close()]);
    // This release refuses the database the later one wrote.
    await expect(PgTaskStore.open(url)).rejects.toThrow(/newer than this release knows/);
  });

  it("`a2a-toolkit migrate --store postgres://…` applies what is missing, then says the schema is current; a bad URL is a clear error", async () => {
    const url = await freshDatabase();
    const lines: string[] = [];
    await runMigrate(url, (l) => lines.push(l));
    await runMigrate(url, (l) => lines.push(l));
    expect(lines).toEqual([
      `${url}: applied migration(s) ${PG_MIGRATIONS.map((m) => m.version).join(", ")}; schema version ${PG_MIGRATIONS.length}`,
      `${url}: schema version ${PG_MIGRATIONS.length} is current (${PG_MIGRATIONS.length} migrations known)`,
    ]);
    await expect(runMigrate("postgres://u:secret@127.0.0.1:1/none", () => undefined)).rejects.toThrow(
      /^PostgreSQL store postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/none: .*ECONNREFUSED/,
    );
  });

  it("retention: beyond maxTasks the oldest finished tasks go with their push configs; running tasks stay", async () => {
    const store = await PgTaskStore.open(await freshDatabase(), { retention: { maxTasks: 3 } });
    try {
      // The config first: writes schedule sweeps of their own, which may run before the loop ends.
      await store.pushConfigs.create(
        "o",
        create(v1_0.TaskPushNotificationConfigSchema, { taskId: "done-2", url: "https://h.example/x" }),
        "1.0",
      );
      await store.put("o", task("running-old", 1, S.WORKING));
      for (let i = 2; i <= 6; i++) await store.put("o", task(`done-${i}`, i));
      await store.sweep();
      const left = (await store.list({ owner: "o", pageSize: 50 })).tasks.map((t) => t.id);
      expect(left).toEqual(["done-6", "done-5", "running-old"]);
      expect(await store.pushConfigs.list("o", "done-2")).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
