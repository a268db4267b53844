// The replica-pause probe (issue 28, failure 4; `make test-replicas-pause`): two `serve` replicas on
// a throwaway PostgreSQL with --lease 3000; in each of RUNS runs, 200 mixed sends (blocking echo,
// blocking paced turns, returnImmediately paced turns) spread over both, and one replica SIGSTOPped
// for twice the lease mid-run. Afterwards every state a client was told must be in the database in
// that state or later, and every id a client was told must exist. Prints the counts. Runs only
// with A2A_REPLICAS_PAUSE=1 and the PostgreSQL binaries.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { postRpc } from "../support/rpc.js";
import { postgresBinaries, POSTGRES_MISSING, startPostgres, type Postgres } from "../support/postgres.js";
import { serveChild, type ServeChild } from "../support/serve-child.js";

const LEASE_MS = 3000;
const RUNS = Number(process.env.A2A_PAUSE_RUNS ?? 10);
const SENDS = 200;
const JSON_1_0 = { "content-type": "application/json", "A2A-Version": "1.0" };
const S = v1_0.TaskState;
const TERMINAL = new Set<number>([S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED]);
const rank = (s: number) => (s === Number(S.SUBMITTED) ? 0 : s === Number(S.WORKING) ? 1 : TERMINAL.has(s) ? 3 : 2);
const stateOf = (name: string) => S[name.replace(/^TASK_STATE_/, "") as keyof typeof S] as number;

type Reply = { result?: { task?: { id: string; status: { state: string } } }; error?: { code: number; data?: unknown } };
let n = 0;
async function send(url: string, text: string, returnImmediately: boolean): Promise<Reply> {
  const message = { messageId: `p-${++n}`, role: "ROLE_USER", parts: [{ text }] };
  const params = returnImmediately ? { message, configuration: { returnImmediately: true } } : { message };
  // A connection reset (the paused replica's sockets) tells the client nothing: counted apart.
  return postRpc<Reply>(`${url}/`, "SendMessage", params, JSON_1_0).then(
    (r) => r.body,
    () => ({ error: { code: 0, data: { reset: true } } }),
  );
}

const enabled = process.env.A2A_REPLICAS_PAUSE === "1" && !!postgresBinaries();
describe.skipIf(!enabled)(`replicas paused past their lease${postgresBinaries() ? "" : ` (${POSTGRES_MISSING})`}`, () => {
  let db: Postgres;
  let url: string;
  let a: ServeChild;
  let b: ServeChild;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await startPostgres();
    url = db.createDatabase("pause");
    const args = ["--store", url, "--lease", String(LEASE_MS), "--agent", "test/support/paced-agent.ts"];
    [a, b] = await Promise.all([serveChild(args), serveChild(args)]);
    pool = new pg.Pool({ connectionString: url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.stop();
  });

  it("tells clients only what the database holds", async () => {
    const totals = { told: 0, violations: 0, ids: 0, missing: 0, retryable: 0, resets: 0, otherErrors: 0 };
    for (let run = 0; run < RUNS; run++) {
      const told: { id: string; state: number }[] = [];
      const paused = run % 2 ? b : a;
      let next = 0;
      const worker = async () => {
        while (next < SENDS) {
          const i = next++;
          const target = i % 2 ? b.url : a.url;
          const kind = i % 3;
          const r =
            kind === 0 ? await send(target, `echo ${i}`, false) : await send(target, `paced 3 ${kind === 1 ? 150 : 300}`, kind === 2);
          if (r.result?.task) told.push({ id: r.result.task.id, state: stateOf(r.result.task.status.state) });
          else if ((r.error?.data as { retryable?: boolean } | undefined)?.retryable) totals.retryable++;
          else if ((r.error?.data as { reset?: boolean } | undefined)?.reset) totals.resets++;
          else totals.otherErrors++;
        }
      };
      const sending = Promise.all(Array.from({ length: 8 }, worker));
      await new Promise((r) => setTimeout(r, 400));
      paused.child.kill("SIGSTOP");
      await new Promise((r) => setTimeout(r, LEASE_MS * 2));
      paused.child.kill("SIGCONT");
      await sending;
      await new Promise((r) => setTimeout(r, 1500)); // turns left running settle
      const rows = await pool.query<{ id: string; state: number }>("SELECT id, state FROM a2a_tasks WHERE id = ANY($1::text[])", [
        told.map((t) => t.id),
      ]);
      const inDb = new Map(rows.rows.map((r) => [r.id, Number(r.state)]));
      for (const t of told) {
        totals.told++;
        const s = inDb.get(t.id);
        if (s === undefined) {
          totals.missing++;
          continue;
        }
        if (TERMINAL.has(t.state) ? s !== t.state : rank(s) < rank(t.state)) totals.violations++;
      }
      totals.ids += new Set(told.map((t) => t.id)).size;
      console.log(`run ${run + 1}: ${JSON.stringify(totals)}`);
    }
    console.log(`replica pause probe (${RUNS} runs x ${SENDS} sends): ${JSON.stringify(totals)}`);
    expect({ violations: totals.violations, missing: totals.missing }).toEqual({ violations: 0, missing: 0 });
  }, 600_000);
});
