// Versioned schema migrations for the PostgreSQL task store (pg-store.ts), the counterpart of
// migrations.ts for SQLite.
//
// The schema version is the highest `version` in `a2a_schema_migrations` (version, name,
// applied_at). migratePg() takes a transaction-scoped advisory lock first, so replicas starting at
// the same moment upgrade the database once, one after the other; each migration runs in its own
// transaction with its row, so a crash mid-upgrade leaves the last complete version. A database
// whose version is above the newest migration this release knows is refused (MigrationError), as
// for SQLite. Rules: append with the next version number; never edit a migration that has shipped.
import type pg from "pg";
import { MigrationError } from "./migrations.js";
import { inTransaction, withClient } from "./pg-client.js";

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** Same key for every replica: serialises concurrent migrations (pg_advisory_xact_lock). */
const LOCK_KEY = 0xa2a0020;

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: "tasks, push notification configs, task events and turn leases",
    sql: `
      CREATE TABLE a2a_tasks (
        id            text COLLATE "C" PRIMARY KEY,
        owner         text NOT NULL,
        context_id    text NOT NULL,
        state         integer NOT NULL,
        status_ms     bigint NOT NULL,
        body          text NOT NULL,     -- the Task as A2A 1.0 ProtoJSON, without artifacts
        artifacts     text NOT NULL,     -- its artifacts as a ProtoJSON array
        size          bigint NOT NULL,   -- estimated size (task-size.ts)
        artifact_size bigint NOT NULL
      );
      -- ListTasks: the caller's tasks, newest status first (optionally within one context or state).
      CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, status_ms DESC, id DESC) INCLUDE (size, artifact_size);
      CREATE INDEX a2a_tasks_by_owner_context ON a2a_tasks (owner, context_id, status_ms DESC, id DESC) INCLUDE (size, artifact_size);
      CREATE INDEX a2a_tasks_by_owner_state ON a2a_tasks (owner, state, status_ms DESC, id DESC) INCLUDE (size, artifact_size);
      -- Retention (oldest first) and listRunning.
      CREATE INDEX a2a_tasks_by_age ON a2a_tasks (status_ms, id) INCLUDE (state, size);
      CREATE INDEX a2a_tasks_by_state ON a2a_tasks (state);

      CREATE TABLE a2a_push_configs (
        owner    text NOT NULL,
        task_id  text NOT NULL,
        id       text NOT NULL,
        version  text NOT NULL,          -- wire version the config was registered with ("1.0" | "0.3")
        seq      bigserial NOT NULL,     -- creation order, for List
        body     text NOT NULL,          -- the TaskPushNotificationConfig as A2A 1.0 ProtoJSON
        PRIMARY KEY (owner, task_id, id)
      );

      -- Every event of a running turn (cluster.ts): replicas follow a task from here; NOTIFY carries ids only.
      CREATE TABLE a2a_task_events (
        id         bigserial PRIMARY KEY,
        task_id    text NOT NULL,
        kind       text NOT NULL,        -- "task" (the turn's first event: the Task), "status", "artifact"
        body       text NOT NULL,        -- the StreamResponse as A2A 1.0 ProtoJSON
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX a2a_task_events_by_task ON a2a_task_events (task_id, id);
      CREATE INDEX a2a_task_events_by_age ON a2a_task_events (created_at);

      -- One row per running turn: the replica running it, until when (renewed while it runs).
      CREATE TABLE a2a_turn_leases (
        task_id    text PRIMARY KEY,
        owner      text NOT NULL,
        replica    text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX a2a_turn_leases_by_expiry ON a2a_turn_leases (expires_at);
    `,
  },
  {
    version: 2,
    name: "live replicas and their open streams per caller",
    sql: `
      -- Each replica's heartbeat (renewed with its leases): the streams of a replica past it do not count.
      CREATE TABLE a2a_replicas (
        replica    text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
      -- Open SSE streams per caller and replica (maxStreamsPerPrincipal counts across replicas).
      CREATE TABLE a2a_stream_slots (
        who     text NOT NULL,
        replica text NOT NULL,
        n       integer NOT NULL,
        PRIMARY KEY (who, replica)
      );
    `,
  },
];

/** The database's schema version (0: none yet). */
export async function pgSchemaVersion(db: pg.Pool | pg.PoolClient): Promise<number> {
  const exists = await db.query<{ t: string | null }>("SELECT to_regclass('a2a_schema_migrations') AS t");
  if (!exists.rows[0]?.t) return 0;
  const r = await db.query<{ v: number | null }>("SELECT max(version) AS v FROM a2a_schema_migrations");
  return Number(r.rows[0]?.v ?? 0);
}

/** Brings the database up to the newest of `migrations`; returns the versions this call applied. */
export async function migratePg(pool: pg.Pool, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new MigrationError(`migration #${i} has version ${m.version}; expected ${i + 1}`);
  });
  const applied: number[] = [];
  return withClient(pool, async (client) => {
    for (;;) {
      // One migration per transaction, under the lock; undefined once the schema is current.
      const next = await inTransaction(client, async () => {
        await client.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
        await client.query(`CREATE TABLE IF NOT EXISTS a2a_schema_migrations (
          version    integer PRIMARY KEY,
          name       text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
        const current = await pgSchemaVersion(client);
        if (current > migrations.length)
          throw new MigrationError(
            `the database is at schema version ${current}, newer than this release knows (${migrations.length}); ` +
              `use the release that wrote it or a later one`,
          );
        const m = migrations[current];
        if (!m) return undefined;
        await client.query(m.sql);
        await client.query("INSERT INTO a2a_schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
        return m;
      });
      if (!next) return applied;
      applied.push(next.version);
    }
  });
}
