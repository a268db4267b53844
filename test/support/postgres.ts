// A throwaway PostgreSQL cluster for tests: initdb + pg_ctl (Debian's `postgresql` package, run as
// the `postgres` user when the tests run as root) in a temporary directory, listening on 127.0.0.1
// only on a free port, fsync off (synchronous_commit off unless durableCommits). startPostgres() resolves with a connection URL; stop() shuts the
// cluster down and removes the directory. When the binaries are absent, `postgresBinaries()` is
// undefined and tests skip with POSTGRES_MISSING (`.ci/run` installs the package, so CI never skips).
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export const POSTGRES_MISSING =
  "PostgreSQL binaries not found (/usr/lib/postgresql/*/bin/initdb): apt-get install -y postgresql to run these tests";

/** The bin directory of the newest installed PostgreSQL, or undefined. */
export function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  const [newest] = versions;
  return newest === undefined ? undefined : join(root, newest, "bin");
}

export interface Postgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** A URL of a fresh, empty database of this cluster. */
  createDatabase(name: string): string;
  stop(): Promise<void>;
  /**
   * Stops the server (immediate shutdown, as a crash would) and keeps its data, for resume().
   * Asynchronous, like resume(): a test that is also the database's client's client keeps serving
   * its calls meanwhile (a blocked event loop reads nothing, and a server may close its idle
   * connections under the calls it had queued).
   */
  halt(): Promise<void>;
  /** Starts the halted server again on the same port. */
  resume(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

/**
 * `durableCommits`: a COMMIT returns only once its WAL is written (synchronous_commit on). Without it
 * an acknowledged commit can still sit in WAL buffers, and halt()'s immediate shutdown loses it, as a
 * database with synchronous_commit off would; a test that counts what clients were told needs it.
 */
export async function startPostgres(opts: { durableCommits?: boolean } = {}): Promise<Postgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "a2a-pg-"));
  const data = join(dir, "data");
  let uid = -1;
  let gid = -1;
  if (asRoot) {
    uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  // As root, run the binaries as `postgres` (initdb and postgres refuse to run as root).
  const command = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]] : [join(bin, cmd), args];
  const run = (cmd: string, args: string[]) => execFileSync(...command(cmd, args), { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const runAsync = async (cmd: string, args: string[]) => {
    await promisify(execFile)(...command(cmd, args), { cwd: dir });
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const commit = opts.durableCommits ? "on" : "off";
  const settings = `-c listen_addresses=127.0.0.1 -c port=${port} -c fsync=off -c synchronous_commit=${commit} -c full_page_writes=off -k ${dir}`;
  const start = ["-D", data, "-l", join(dir, "log"), "-o", settings, "-w", "-t", "30", "start"];
  const immediateStop = ["-D", data, "-m", "immediate", "-w", "stop"];
  run("pg_ctl", start);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    createDatabase(name: string) {
      run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-qc", `CREATE DATABASE "${name}"`]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async halt() {
      await runAsync("pg_ctl", immediateStop);
    },
    async resume() {
      await runAsync("pg_ctl", start);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run("pg_ctl", immediateStop);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

// ---------------------------------------------------------------- stores for the contract suites

let shared: Promise<Postgres> | undefined;
let dbNo = 0;

/**
 * One cluster per test file, started on first use and stopped when the file's tests are done
 * (call from afterAll). Undefined when the binaries are absent (the callers leave PostgreSQL out).
 */
export function sharedPostgres(): Promise<Postgres> {
  return (shared ??= startPostgres());
}

export async function stopSharedPostgres(): Promise<void> {
  const p = shared;
  shared = undefined;
  if (p) await (await p).stop();
}

/** A fresh database on the shared cluster. */
export async function freshDatabase(): Promise<string> {
  return (await sharedPostgres()).createDatabase(`t${process.pid}_${++dbNo}`);
}

/**
 * An object of type T whose methods wait for `target` first: lets a synchronous store maker of a
 * contract suite hand out a store that needs `await PgTaskStore.open()`.
 */
export function deferred<T extends object>(target: Promise<T>): T {
  target.catch(() => undefined); // reported by the first call
  return new Proxy({} as T, {
    get(_t, name) {
      if (name === "then") return undefined;
      return async (...args: unknown[]) => {
        const t = await target;
        const v = (t as Record<string | symbol, unknown>)[name];
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).apply(t, args) : v;
      };
    },
  });
}
