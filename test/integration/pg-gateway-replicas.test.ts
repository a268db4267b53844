// Two `a2a-toolkit gateway` processes on one throwaway PostgreSQL act as one gateway (issue 20), in
// front of one backend (the fixture agent, in this process; A given the store by --store, B by its
// YAML config): a task followed by replica A is seen
// live through B (SubscribeToTask), CancelTask on B reaches the task A follows (and the backend's),
// a replica started later leaves a task B follows to B (it used to take it up as its own on start),
// and after kill -9 of A, B takes the expired lease over and follows the task again to its end
// instead of failing it. Skipped only without the PostgreSQL binaries (.ci/run installs them).
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { artifactText, createA2AClient, textMessage, type A2AClient } from "../../src/client/index.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { postgresBinaries, POSTGRES_MISSING, startPostgres, type Postgres } from "../support/postgres.js";
import { spawnCli, type CliChild } from "../support/serve-child.js";
import { serverGroup } from "../support/servers.js";

const LEASE_MS = 1000;
const dir = mkdtempSync(join(tmpdir(), "a2a-gw-replicas-"));

async function kill(cli: CliChild): Promise<void> {
  const c = cli.child;
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = once(c, "exit");
  c.kill("SIGKILL");
  await exited;
}

async function waitFor<T>(what: string, f: () => T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!postgresBinaries())(`two gateway replicas on one PostgreSQL${postgresBinaries() ? "" : ` (${POSTGRES_MISSING})`}`, () => {
  let pg: Postgres;
  const backends = serverGroup();
  let backendUrl: string;
  let a: CliChild;
  let b: CliChild;
  let onA: A2AClient;
  let onB: A2AClient;
  let config: string;

  beforeAll(async () => {
    const [started, backend] = await Promise.all([
      startPostgres(),
      backends.start("fastify", { agent: createFixtureAgent(), versions: ["1.0"] }),
    ]);
    pg = started;
    backendUrl = backend.url;
    // A takes the store from the command line, B from its YAML configuration file.
    const store = pg.createDatabase("gateways");
    config = join(dir, "gateway.yaml");
    writeFileSync(config, `store: ${store}\nleaseMs: ${LEASE_MS}\nbackends:\n  - { name: slow, url: "${backendUrl}" }\n`);
    a = spawnCli(["gateway", "--port", "0", "--backend", `slow=${backendUrl}`, "--store", store, "--lease", String(LEASE_MS)]);
    b = spawnCli(["gateway", "--port", "0", "--config", config]);
    [onA, onB] = await Promise.all([
      a.url.then((u) => createA2AClient(u, { version: "1.0" })),
      b.url.then((u) => createA2AClient(u, { version: "1.0" })),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a && kill(a), b && kill(b)]);
    await backends.close();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A returnImmediately send through `client`: the gateway's task, WORKING, with its remote task's id. */
  async function start(client: A2AClient, text: string): Promise<v1_0.Task> {
    const res = await client.sendMessage({ message: textMessage(text), configuration: { returnImmediately: true } });
    expect(res.payload.case).toBe("task");
    const task = res.payload.value as v1_0.Task;
    expect(task.status?.state).toBe(v1_0.TaskState.WORKING);
    expect(task.metadata?.a2a_task_id).toEqual(expect.any(String));
    return task;
  }

  it("CancelTask on B cancels the task A follows, here and on the backend", async () => {
    const task = await start(onA, "slow 30000");
    const canceled = await onB.cancelTask({ id: task.id });
    expect(canceled.status?.state).toBe(v1_0.TaskState.CANCELED);
    expect((await onA.getTask({ id: task.id })).status?.state).toBe(v1_0.TaskState.CANCELED);
    const backend = await createA2AClient(backendUrl, { version: "1.0" });
    expect((await backend.getTask({ id: task.metadata?.a2a_task_id as string })).status?.state).toBe(v1_0.TaskState.CANCELED);
  });

  it("a replica started later leaves the task another live replica follows to it", async () => {
    const task = await start(onB, "slow 30000");
    const c = spawnCli(["gateway", "--port", "0", "--config", config]);
    try {
      const onC = await createA2AClient(await c.url, { version: "1.0" });
      expect(c.stdout()).toMatch(/resumed 0 task\(s\) left running by a previous process/);
      expect((await onC.getTask({ id: task.id })).status?.state).toBe(v1_0.TaskState.WORKING);
      // C does not follow it: its cancel is forwarded to B, which holds the lease.
      expect((await onC.cancelTask({ id: task.id })).status?.state).toBe(v1_0.TaskState.CANCELED);
      expect((await onB.getTask({ id: task.id })).status?.state).toBe(v1_0.TaskState.CANCELED);
    } finally {
      await kill(c);
    }
  });

  it("kill -9 of A while it follows a task: B takes the lease over and follows the task to its end, seen through B", async () => {
    const task = await start(onA, "slow 2500");
    // A subscriber on B before the kill: the task's events, from A and then from B, to COMPLETED.
    const events: v1_0.StreamResponse[] = [];
    const subscribed = (async () => {
      for await (const e of onB.subscribeToTask({ id: task.id })) events.push(e);
    })();
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    await kill(a);
    await waitFor(
      "B taking the task over",
      () => (b.stdout().includes(`following task ${task.id} again`) ? true : undefined),
      LEASE_MS * 5,
    );
    const tookOver = performance.now() - t0;
    const done = await onB.waitForTask(task.id, { signal: AbortSignal.timeout(10_000) });
    expect(done.status?.state).toBe(v1_0.TaskState.COMPLETED);
    const [artifact] = done.artifacts;
    assert(artifact, "the task has its artifact");
    expect(artifactText(artifact)).toBe("done after 2500 ms");
    expect(done.metadata?.a2a_task_id).toBe(task.metadata?.a2a_task_id);
    await subscribed;
    expect(events[0]?.payload.case).toBe("task");
    const last = events.at(-1)?.payload;
    expect(last?.case === "statusUpdate" && last.value.status?.state).toBe(v1_0.TaskState.COMPLETED);
    expect(
      events.some(
        (e) =>
          e.payload.case === "artifactUpdate" &&
          e.payload.value.artifact &&
          artifactText(e.payload.value.artifact) === "done after 2500 ms",
      ),
    ).toBe(true);
    console.log(`kill -9 of gateway A → B following the task again after ${tookOver.toFixed(0)} ms (lease ${LEASE_MS} ms)`);
  }, 20_000);
});
