// Versioned schema migrations for the SQLite task store (sqlite-store.ts).
//
// The schema version of a database file is SQLite's `user_version` pragma: the number of migrations
// applied to it. Opening a file runs every migration above that number, in order, each in its own
// transaction together with the `user_version` bump and a row in `schema_migrations` (version, name,
// applied_at), so a crash mid-upgrade leaves the file at the last complete version and the next open
// resumes there. A later release therefore opens any older database; an older release refuses a file
// whose version is above the newest migration it knows (it cannot know what changed) instead of
// writing into it.
//
// Rules for adding a migration: append to TASK_STORE_MIGRATIONS with the next version number; never
// edit or reorder a migration that has shipped (existing files already ran it).
import type Database from "better-sqlite3";

export interface Migration {
  /** 1, 2, 3 …: the `user_version` the database has after this migration. */
  version: number;
  name: string;
  up(db: Database.Database): void;
}

export const TASK_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tasks and push notification configs",
    up(db) {
      db.exec(`
        CREATE TABLE tasks (
          id         TEXT PRIMARY KEY,
          owner      TEXT NOT NULL,
          context_id TEXT NOT NULL,
          state      INTEGER NOT NULL,
          status_ms  INTEGER NOT NULL,
          body       TEXT NOT NULL      -- the Task as A2A 1.0 ProtoJSON
        ) WITHOUT ROWID;
        -- ListTasks: the caller's tasks, newest status first (optionally within one context).
        CREATE INDEX tasks_by_owner ON tasks (owner, status_ms DESC, id DESC);
        CREATE INDEX tasks_by_owner_context ON tasks (owner, context_id, status_ms DESC, id DESC);
        -- recoverInterrupted: tasks left SUBMITTED or WORKING.
        CREATE INDEX tasks_by_state ON tasks (state);

        CREATE TABLE push_configs (
          owner      TEXT NOT NULL,
          task_id    TEXT NOT NULL,
          id         TEXT NOT NULL,
          version    TEXT NOT NULL,     -- wire version the config was registered with ("1.0" | "0.3")
          seq        INTEGER NOT NULL,  -- creation order, for List
          body       TEXT NOT NULL,     -- the TaskPushNotificationConfig as A2A 1.0 ProtoJSON
          PRIMARY KEY (owner, task_id, id)
        );
      `);
    },
  },
  {
    version: 2,
    name: "index for ListTasks filtered by state",
    up(db) {
      // Without it a state filter walks every task of the owner (34 ms a page for 90,000 tasks; 4 ms with it).
      db.exec("CREATE INDEX tasks_by_owner_state ON tasks (owner, state, status_ms DESC, id DESC)");
    },
  },
  {
    version: 3,
    name: "task sizes, artifacts in their own column, indexes that page and sweep by size",
    up(db) {
      // `artifacts` (NULL in rows written before: their body still holds them) lets a list without
      // artifacts skip reading them. `size` and `artifact_size` (the task's estimated size, task-size.ts;
      // rows written before get their JSON length until rewritten) are in every index, so ListTasks
      // sizes a page and retention totals the file without touching a body.
      db.exec(`
        ALTER TABLE tasks ADD COLUMN artifacts TEXT;  -- the task's artifacts as a ProtoJSON array
        ALTER TABLE tasks ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN artifact_size INTEGER NOT NULL DEFAULT 0;
        UPDATE tasks SET size = length(CAST(body AS BLOB)),
          artifact_size = coalesce(length(CAST(json_extract(body, '$.artifacts') AS BLOB)), 0);
        DROP INDEX tasks_by_owner;
        DROP INDEX tasks_by_owner_context;
        DROP INDEX tasks_by_owner_state;
        CREATE INDEX tasks_by_owner ON tasks (owner, status_ms DESC, id DESC, size, artifact_size);
        CREATE INDEX tasks_by_owner_context ON tasks (owner, context_id, status_ms DESC, id DESC, size, artifact_size);
        CREATE INDEX tasks_by_owner_state ON tasks (owner, state, status_ms DESC, id DESC, size, artifact_size);
        -- Retention: oldest status first, with states and sizes.
        CREATE INDEX tasks_by_age ON tasks (status_ms, state, size);
      `);
    },
  },
  {
    version: 4,
    name: "tasks appended in write order; recovery's index only holds running tasks",
    up(db) {
      // The table was keyed by the task id (WITHOUT ROWID): each new task, a random UUID, landed on a
      // random page of the whole table, rows and all, and `tasks_by_state` put every task into a
      // second index at a random place. Rows now follow write order (rowid), `id` is a unique index
      // (small entries), and recovery reads a partial index that only running tasks enter. The
      // literal states are SUBMITTED (1) and WORKING (2); the query must name them the same way.
      db.exec(`
        CREATE TABLE tasks_v4 (
          id            TEXT NOT NULL UNIQUE,
          owner         TEXT NOT NULL,
          context_id    TEXT NOT NULL,
          state         INTEGER NOT NULL,
          status_ms     INTEGER NOT NULL,
          size          INTEGER NOT NULL DEFAULT 0,
          artifact_size INTEGER NOT NULL DEFAULT 0,
          body          TEXT NOT NULL,  -- the Task as A2A 1.0 ProtoJSON, without artifacts (with them in rows older than version 3)
          artifacts     TEXT            -- the task's artifacts as a ProtoJSON array
        );
        INSERT INTO tasks_v4 (id, owner, context_id, state, status_ms, size, artifact_size, body, artifacts)
          SELECT id, owner, context_id, state, status_ms, size, artifact_size, body, artifacts FROM tasks ORDER BY status_ms, id;
        DROP TABLE tasks;
        ALTER TABLE tasks_v4 RENAME TO tasks;
        CREATE INDEX tasks_by_owner ON tasks (owner, status_ms DESC, id DESC, size, artifact_size);
        CREATE INDEX tasks_by_owner_context ON tasks (owner, context_id, status_ms DESC, id DESC, size, artifact_size);
        CREATE INDEX tasks_by_owner_state ON tasks (owner, state, status_ms DESC, id DESC, size, artifact_size);
        CREATE INDEX tasks_by_age ON tasks (status_ms, state, size);
        CREATE INDEX tasks_running ON tasks (state) WHERE state IN (1, 2);
      `);
    },
  },
];

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** The database's schema version (`user_version`). */
export function schemaVersion(db: Database.Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Brings `db` up to the newest of `migrations` (sorted by version, numbered 1..n without gaps).
 * Returns the versions applied by this call. Throws MigrationError when the file is newer than the
 * code, or the list is malformed.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[] = TASK_STORE_MIGRATIONS): number[] {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new MigrationError(`migration #${i} has version ${m.version}; expected ${i + 1}`);
  });
  const latest = migrations.length;
  const current = schemaVersion(db);
  if (current > latest)
    throw new MigrationError(
      `the database is at schema version ${current}, newer than this release knows (${latest}); ` +
        `open it with the release that wrote it or a later one`,
    );
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const record = db.prepare("INSERT OR REPLACE INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  const applied: number[] = [];
  for (const m of migrations.slice(current)) {
    db.transaction(() => {
      m.up(db);
      record.run(m.version, m.name, new Date().toISOString());
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
    applied.push(m.version);
  }
  return applied;
}
