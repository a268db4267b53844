// A PostgreSQL client checked out of a pool for several statements, safely, and a transaction on it
// (the store's migrations, the replicas' stream-slot count).
import type pg from "pg";

/**
 * `fn` with a client of `pool` to itself (a transaction), released after. pg-pool listens for a
 * client's 'error' only while the client sits idle in the pool, and an 'error' nobody listens for
 * ends the process: a database that goes away while a client is checked out (a restart, a failover)
 * would stop the server. Here the error is heard (the statement in flight fails with it anyway) and
 * the broken client is dropped on release rather than handed out again.
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const heard = (e: Error) => (broken = e);
  client.on("error", heard);
  try {
    return await fn(client);
  } finally {
    client.off("error", heard);
    client.release(broken);
  }
}

/** `fn` inside BEGIN … COMMIT on `client`; ROLLBACK and the error again when it throws. */
export async function inTransaction<T>(client: pg.PoolClient, fn: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const out = await fn();
    await client.query("COMMIT");
    return out;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}
