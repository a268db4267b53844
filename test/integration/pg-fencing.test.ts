// Fencing (issue 20): a `serve` replica paused (SIGSTOP) longer than its lease has its task failed by
// the other replica; resumed (SIGCONT), its turn goes on and tries to record WORKING, artifacts and
// COMPLETED, but its writes commit only while the lease row names it (pg-store.ts): the FAILED that
// B recorded stays, read through either replica. Skipped only without the PostgreSQL binaries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postRpc } from "../support/rpc.js";
import { postgresBinaries, POSTGRES_MISSING, startPostgres, type Postgres } from "../support/postgres.js";
import { serveChild, type ServeChild } from "../support/serve-child.js";

const LEASE_MS = 1000;
const JSON_1_0 = { "content-type": "application/json", "A2A-Version": "1.0" };

type Task = { id: string; status: { state: string; message?: { parts: { text: string }[] } }; artifacts?: unknown[] };
const getTask = async (url: string, id: string) => (await postRpc<{ result: Task }>(`${url}/`, "GetTask", { id }, JSON_1_0)).body.result;

describe.skipIf(!postgresBinaries())(`a replica paused past its lease${postgresBinaries() ? "" : ` (${POSTGRES_MISSING})`}`, () => {
  let pg: Postgres;
  let a: ServeChild;
  let b: ServeChild;

  beforeAll(async () => {
    pg = await startPostgres();
    const args = ["--store", pg.createDatabase("fencing"), "--lease", String(LEASE_MS), "--agent", "test/support/paced-agent.ts"];
    [a, b] = await Promise.all([serveChild(args), serveChild(args)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await pg?.stop();
  });

  it("cannot overwrite the FAILED the other replica recorded once its lease expired", async () => {
    const message = { messageId: "fence-1", role: "ROLE_USER", parts: [{ text: "paced 4 300" }] };
    const sent = await postRpc<{ result: { task: Task } }>(
      `${a.url}/`,
      "SendMessage",
      { message, configuration: { returnImmediately: true } },
      JSON_1_0,
    );
    const id = sent.body.result.task.id;
    a.child.kill("SIGSTOP"); // mid-turn: three of its four steps still to come
    const end = Date.now() + LEASE_MS * 6;
    let failed: Task | undefined;
    while (!failed && Date.now() < end) {
      const t = await getTask(b.url, id);
      if (t.status.state === "TASK_STATE_FAILED") failed = t;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(failed?.status.message?.parts[0]?.text).toMatch(/server stopped while this task was running/);
    a.child.kill("SIGCONT");
    // A's turn goes on: its steps (300 ms apart) and its COMPLETED, each write refused.
    await new Promise((r) => setTimeout(r, 1500));
    for (const url of [b.url, a.url]) {
      const t = await getTask(url, id);
      expect(t.status.state).toBe("TASK_STATE_FAILED");
      expect(t.status.message?.parts[0]?.text).toBe(failed?.status.message?.parts[0]?.text);
    }
    expect(a.stderr()).toMatch(/not recorded: another replica holds the lease of task\(s\) /);
  }, 20_000);
});
