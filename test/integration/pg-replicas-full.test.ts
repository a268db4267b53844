// `make test-replicas`: two `serve` replicas on one PostgreSQL. First the compliance suite (both
// versions, both bindings) through a round-robin proxy over them: no failure that one process does
// not have. Then 500 concurrent sends round-robin, one replica killed (SIGKILL) mid-flight; the
// balancer then sends the rest to the survivor. Every task any client was told about must be found afterwards, on the survivor, in the
// state it was told or a later one (SUBMITTED < WORKING < a terminal state; an interrupted or
// terminal state stays). Long (tens of seconds): not part of `make test` (A2A_REPLICAS_FULL=1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSuite } from "../../src/compliance/suite.js";
import { consoleReport } from "../../src/compliance/report.js";
import { ALL_INTERFACES, failuresOf, interfacesOf } from "../support/compliance.js";
import { postgresBinaries, startPostgres, type Postgres } from "../support/postgres.js";
import { startRoundRobin } from "../support/round-robin.js";
import { serveChild, type ServeChild } from "../support/serve-child.js";

const FULL = process.env.A2A_REPLICAS_FULL === "1";
const SENDS = Number(process.env.A2A_REPLICAS_SENDS ?? 500);
const LEASE_MS = 2000;
const RANK: Record<string, number> = { TASK_STATE_SUBMITTED: 0, TASK_STATE_WORKING: 1 };
const rank = (s: string) => RANK[s] ?? 2;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let ids = 0;
async function rpc(url: string, method: string, params: Json): Promise<Json> {
  const res = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method, params }),
  });
  return (await res.json()) as Json;
}

describe.skipIf(!FULL || !postgresBinaries())("two replicas on one PostgreSQL behind round-robin", () => {
  let pg: Postgres;
  let a: ServeChild;
  let b: ServeChild;
  beforeAll(async () => {
    pg = await startPostgres();
    const url = pg.createDatabase("full");
    const args = ["--store", url, "--lease", String(LEASE_MS), "--push", "--allow-webhook", "127.0.0.1"];
    [a, b] = await Promise.all([serveChild(args), serveChild(args)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await pg?.stop();
  });

  it("the compliance suite passes through round-robin over both replicas as it does against one", { timeout: 240_000 }, async () => {
    const rr = await startRoundRobin([a.url, b.url]);
    try {
      // The round-robin proxy relays HTTP/1.1; the cards' GRPC interfaces name a replica's own port.
      const opts = {
        streamTimeoutMs: 10_000,
        webhook: { host: "127.0.0.1", port: 0 },
        bindings: ["json-rpc", "rest"] as ("json-rpc" | "rest")[],
      };
      const one = await runSuite({ target: a.url, ...opts });
      const two = await runSuite({ target: rr.url, ...opts });
      console.log(`one replica: ${JSON.stringify(one.summary)}; two behind round-robin: ${JSON.stringify(two.summary)}`);
      expect(interfacesOf(two).filter((i) => !i.endsWith(" grpc"))).toEqual(ALL_INTERFACES);
      const extra = failuresOf(two).filter((f) => !failuresOf(one).includes(f));
      expect(extra, consoleReport(two)).toEqual([]);
      expect(two.summary.passed).toBe(one.summary.passed);
    } finally {
      await rr.close();
    }
  });

  it("500 sends round-robin, one replica killed mid-flight: every task a client was told about is found in that state or later", async () => {
    const told = new Map<string, string>();
    let aDead = false;
    let next = 0;
    let answered = 0;
    let failedOver = 0;
    const t0 = performance.now();
    const worker = async () => {
      while (next < SENDS) {
        const i = next++;
        // Every third send returns at once from a slow task (still running when A dies).
        const params = {
          message: { messageId: `k-${i}`, role: "ROLE_USER", parts: [{ text: i % 3 === 0 ? "slow 1500" : `echo ${i}` }] },
          configuration: { returnImmediately: i % 3 === 0 },
        };
        let r: Json | undefined;
        for (const url of aDead || i % 2 ? [b.url] : [a.url, b.url]) {
          try {
            r = await rpc(url, "SendMessage", params);
            break;
          } catch {
            failedOver++; // the balancer's next choice: the survivor
          }
        }
        const task = r?.result?.task;
        if (task) told.set(task.id as string, task.status.state as string);
        if (++answered === Math.floor(SENDS / 3)) {
          aDead = true;
          await a.stop();
        }
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    const sendMs = performance.now() - t0;
    // The survivor fails A's orphans once A's lease is over; then every told task must be there.
    await new Promise((r) => setTimeout(r, LEASE_MS * 2));
    const wrong: string[] = [];
    for (const [id, state] of told) {
      const t = (await rpc(b.url, "GetTask", { id })).result;
      if (!t) wrong.push(`${id}: not found (told ${state})`);
      else if (rank(t.status.state) < rank(state) || (rank(state) === 2 && t.status.state !== state))
        wrong.push(`${id}: ${t.status.state}, told ${state}`);
    }
    const states: Record<string, number> = {};
    for (const id of told.keys()) {
      const s = (await rpc(b.url, "GetTask", { id })).result.status.state as string;
      states[s] = (states[s] ?? 0) + 1;
    }
    console.log(
      `${told.size} tasks told of ${SENDS} sends in ${sendMs.toFixed(0)} ms; ${failedOver} failed over; now ${JSON.stringify(states)}`,
    );
    expect(wrong).toEqual([]);
    expect(told.size).toBe(SENDS);
    expect(states.TASK_STATE_WORKING ?? 0).toBe(0);
  }, 120_000);
});
