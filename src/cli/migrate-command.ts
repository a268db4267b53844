// `a2a-toolkit migrate --store <store>`: brings a store's schema up to this release's newest
// version and says what it did (the server does the same on start; this runs it ahead of a
// rolling deploy, or checks that a database is usable).
import type { Command } from "commander";

export async function runMigrate(store: string, out: (line: string) => void): Promise<void> {
  const { isPostgresUrl, redactUrl } = await import("../server/store/pg-store.js");
  if (isPostgresUrl(store)) {
    const pg = (await import("pg")).default;
    const { migratePg, pgSchemaVersion, PG_MIGRATIONS } = await import("../server/store/pg-migrations.js");
    const pool = new pg.Pool({ connectionString: store, max: 1 });
    pool.on("error", () => undefined);
    try {
      const applied = await migratePg(pool);
      const version = await pgSchemaVersion(pool);
      out(
        applied.length
          ? `${redactUrl(store)}: applied migration(s) ${applied.join(", ")}; schema version ${version}`
          : `${redactUrl(store)}: schema version ${version} is current (${PG_MIGRATIONS.length} migrations known)`,
      );
    } catch (e) {
      throw new Error(`PostgreSQL store ${redactUrl(store)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    } finally {
      await pool.end();
    }
    return;
  }
  if (store.startsWith("sqlite:") && store.length > "sqlite:".length) {
    const { SqliteTaskStore } = await import("../server/store/sqlite-store.js");
    const { schemaVersion } = await import("../server/store/migrations.js");
    const s = new SqliteTaskStore(store.slice("sqlite:".length));
    out(`${store}: schema version ${schemaVersion(s.db)}`);
    await s.close();
    return;
  }
  throw new Error(`--store ${store}: use postgres://user@host:port/db or sqlite:<file>`);
}

export function registerMigrateCommand(program: Command, setCode: (code: number) => void): void {
  program
    .command("migrate")
    .description("bring a task store's schema up to date (serve and gateway also do it on start)")
    .requiredOption("--store <store>", "postgres://user@host:port/db or sqlite:<file>")
    .action(async (opts: { store: string }) => {
      try {
        await runMigrate(opts.store, (l) => process.stdout.write(`${l}\n`));
      } catch (e) {
        process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
        setCode(1);
      }
    });
}
