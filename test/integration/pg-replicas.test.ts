// Two `serve` processes on one throwaway PostgreSQL act as one agent (issue 20): a subscriber on
// replica B gets, in order, every event of a task running on A; CancelTask on B reaches the agent on
// A; a follow-up to a turn running on A is refused on B as on a busy task; kill -9 of A mid-turn →
// B ends the task FAILED once A's lease (2 s here) has expired; after the database restarts, the
// replicas serve on and a cancel still crosses them. Skipped only without the PostgreSQL
// binaries (.ci/run installs them).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSse } from "../../src/transport/sse.js";
import { postgresBinaries, POSTGRES_MISSING, startPostgres, type Postgres } from "../support/postgres.js";
import { serveChild, type ServeChild } from "../support/serve-child.js";

const LEASE_MS = 2000;
const AGENT = "test/support/paced-agent.ts";
const MAX_STREAMS = 4;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let ids = 0;
async function rpc(url: string, method: string, params: Json, version = "1.0"): Promise<Json> {
  const res = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": version },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method, params }),
  });
  return (await res.json()) as Json;
}

/** The results of every event of a JSON-RPC stream, to its end. */
async function streamOf(url: string, method: string, params: Json, version = "1.0"): Promise<Json[]> {
  const res = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": version, accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method, params }),
  });
  const out: Json[] = [];
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return [{ notAStream: await res.json() }];
  for await (const e of readSse(res.body!)) {
    const frame = JSON.parse(e.data) as Json;
    out.push(frame.result ?? { error: frame.error });
  }
  return out;
}

const message = (text: string, more: Json = {}) => ({ messageId: `m-${++ids}`, role: "ROLE_USER", parts: [{ text }], ...more });

async function startTask(url: string, text: string): Promise<string> {
  const r = await rpc(url, "SendMessage", { message: message(text), configuration: { returnImmediately: true } });
  expect(r.result?.task?.id, JSON.stringify(r)).toBeTruthy();
  return r.result.task.id as string;
}

async function waitFor<T>(what: string, f: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!postgresBinaries())(`two serve replicas on one PostgreSQL${postgresBinaries() ? "" : ` (${POSTGRES_MISSING})`}`, () => {
  let pg: Postgres;
  let a: ServeChild;
  let b: ServeChild;

  beforeAll(async () => {
    // Durable commits: the restart test below stops the database immediately, which would lose
    // commits still in WAL buffers (the schema included) with synchronous_commit off.
    pg = await startPostgres({ durableCommits: true });
    const url = pg.createDatabase("replicas");
    const args = ["--store", url, "--lease", String(LEASE_MS), "--agent", AGENT, "--max-streams", String(MAX_STREAMS)];
    [a, b] = await Promise.all([serveChild(args), serveChild(args)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await pg?.stop();
  });

  it("a returnImmediately send to A, subscriptions on B (1.0 SubscribeToTask, 0.3 tasks/resubscribe): every event in order, then the terminal status", async () => {
    const id = await startTask(a.url, "paced 6 300");
    const [v1, v03, onA] = await Promise.all([
      streamOf(b.url, "SubscribeToTask", { id }),
      streamOf(b.url, "tasks/resubscribe", { id }, "0.3"),
      // Joining mid-turn, on the running replica and on the other one at once.
      new Promise((r) => setTimeout(r, 700)).then(() =>
        Promise.all([streamOf(a.url, "SubscribeToTask", { id }), streamOf(b.url, "SubscribeToTask", { id })]),
      ),
    ]);
    const parts = (stream: Json[]) => [
      ...(stream[0]!.task.artifacts ?? []).flatMap((x: Json) => x.parts.map((p: Json) => p.text)),
      ...stream.slice(1).flatMap((e) => (e.artifactUpdate ? e.artifactUpdate.artifact.parts.map((p: Json) => p.text) : [])),
    ];
    const all = Array.from({ length: 6 }, (_, i) => `part ${i + 1}/6`);
    // 1.0: the current Task first (what came before folded in), then every later step and part in
    // the order the agent made them, COMPLETED last.
    for (const s of [v1, ...onA]) {
      expect(s[0]!.task.id).toBe(id);
      expect(parts(s)).toEqual(all);
      expect(s.at(-1)!.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
      const steps = s.slice(1).flatMap((e) => (e.statusUpdate?.status.message ? [e.statusUpdate.status.message.parts[0].text] : []));
      expect(steps).toEqual(Array.from({ length: 6 }, (_, i) => `step ${i + 1}/6`).slice(6 - steps.length));
    }
    expect(onA[0].length).toBeLessThan(v1.length); // they did join mid-turn
    // Subscribers that joined at once on A and on B get the same events from where each joined (B's
    // view may lag A's by the notification's latency, so one of them can have joined an event later).
    const [shorter, longer] = [...onA].sort((x, y) => x.length - y.length).map((s) => s.slice(1).map((e) => JSON.stringify(e)));
    expect(longer!.slice(longer!.length - shorter!.length)).toEqual(shorter);
    // 0.3: the same events in 0.3 shapes, `final` on the last only.
    expect(v03[0]!.kind).toBe("task");
    expect([
      ...(v03[0]!.artifacts ?? []).flatMap((x: Json) => x.parts.map((p: Json) => p.text)),
      ...v03.filter((e) => e.kind === "artifact-update").map((e) => e.artifact.parts[0].text),
    ]).toEqual(all);
    expect(v03.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    expect(v03.slice(0, -1).some((e) => e.final === true)).toBe(false);
    // Both replicas read the finished task, artifacts whole.
    for (const url of [a.url, b.url]) {
      const t = (await rpc(url, "GetTask", { id })).result;
      expect(t.status.state).toBe("TASK_STATE_COMPLETED");
      expect(t.artifacts[0].parts.map((p: Json) => p.text).join(",")).toBe(
        Array.from({ length: 6 }, (_, i) => `part ${i + 1}/6`).join(","),
      );
    }
    // A finished task: 1.0 subscription refused on either replica as in one process.
    expect((await rpc(b.url, "SubscribeToTask", { id })).error?.code).toBe(-32004);
  });

  it("CancelTask on B cancels a slow task running on A: A's agent sees its signal fire, both replicas answer CANCELED", async () => {
    const id = await startTask(a.url, "slow 30000");
    const t0 = performance.now();
    const r = await rpc(b.url, "CancelTask", { id });
    const ms = performance.now() - t0;
    expect(r.result?.status?.state, JSON.stringify(r)).toBe("TASK_STATE_CANCELED");
    await waitFor("the abort on A", async () => (a.stderr().includes(`aborted ${id}`) ? true : undefined), 5000);
    expect((await rpc(a.url, "GetTask", { id })).result.status.state).toBe("TASK_STATE_CANCELED");
    // Canceling again, on either replica, is refused as for any terminal task.
    expect((await rpc(b.url, "CancelTask", { id })).error?.code).toBe(-32002);
    expect((await rpc(a.url, "CancelTask", { id })).error?.code).toBe(-32002);
    console.log(`cancel forwarded B → A answered in ${ms.toFixed(0)} ms`);
  });

  it("a follow-up on B to a turn running on A is refused as on a busy task; after the turn it continues on B", async () => {
    const r0 = await rpc(a.url, "SendMessage", { message: message("ask") });
    const id = r0.result.task.id as string;
    expect(r0.result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const busy = await startTask(a.url, "slow 30000");
    const refused = await rpc(b.url, "SendMessage", { message: message("more", { taskId: busy }) });
    expect(refused.error?.code).toBe(-32004);
    expect(refused.error?.message).toMatch(/still being processed/);
    await rpc(a.url, "CancelTask", { id: busy });
    // The interrupted task's next turn runs on B, with A's history.
    const done = await rpc(b.url, "SendMessage", { message: message("answer", { taskId: id }) });
    expect(done.result?.task?.status?.state, JSON.stringify(done)).toBe("TASK_STATE_COMPLETED");
    expect(done.result.task.history.length).toBeGreaterThanOrEqual(3);
  });

  it("the stream limit per caller counts the streams open on both replicas", async () => {
    const id = await startTask(a.url, "slow 30000");
    const open = (url: string) => {
      const ac = new AbortController();
      const res = fetch(`${url}/`, {
        method: "POST",
        signal: ac.signal,
        headers: { "content-type": "application/json", "A2A-Version": "1.0", accept: "text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method: "SubscribeToTask", params: { id } }),
      });
      return { ac, status: res.then((r) => r.status) };
    };
    const held = [];
    for (const url of [a.url, b.url, a.url, b.url]) {
      const s = open(url);
      expect(await s.status).toBe(200);
      held.push(s);
    }
    for (const url of [a.url, b.url]) {
      const refused = open(url);
      expect(await refused.status).toBe(429);
    }
    held[0]!.ac.abort(); // one stream on A closes: B takes a new one
    await waitFor(
      "a free slot on B",
      async () => {
        const s = open(b.url);
        if ((await s.status) === 200) return s;
        return undefined;
      },
      5000,
    ).then((s) => held.push(s));
    for (const s of held) s.ac.abort();
    await rpc(a.url, "CancelTask", { id });
  });

  it("after PostgreSQL is stopped and started again, CancelTask on B still reaches a task running on A", async () => {
    // Down longer than a LISTEN reconnect attempt (500 ms): each replica's first retry fails, and the
    // cancel below reaches A only if A kept retrying until the database was back.
    await pg.halt();
    await new Promise((r) => setTimeout(r, 1_500));
    await pg.resume();
    const id = await waitFor("a send accepted again", () => startTask(a.url, "slow 30000").catch(() => undefined), 10_000);
    const r = await waitFor(
      "the cancel forwarded to A",
      async () => {
        const c = await rpc(b.url, "CancelTask", { id });
        return c.result?.status?.state === "TASK_STATE_CANCELED" ? c : undefined;
      },
      10_000,
    );
    expect(r.result.status.state).toBe("TASK_STATE_CANCELED");
    await waitFor("the abort on A", async () => (a.stderr().includes(`aborted ${id}`) ? true : undefined), 5000);
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
  });

  it("kill -9 of A mid-turn: B ends the task FAILED once A's lease expires, and B's subscriber gets that status", async () => {
    const id = await startTask(a.url, "slow 30000");
    const sub = streamOf(b.url, "SubscribeToTask", { id });
    await new Promise((r) => setTimeout(r, 200));
    const t0 = performance.now();
    await a.stop(); // SIGKILL
    const failed = await waitFor(
      "FAILED on B",
      async () => {
        const t = (await rpc(b.url, "GetTask", { id })).result;
        return t?.status?.state === "TASK_STATE_FAILED" ? t : undefined;
      },
      LEASE_MS * 5,
    );
    const ms = performance.now() - t0;
    expect(failed.status.message.parts[0].text).toMatch(/server stopped while this task was running/);
    const events = await sub;
    expect(events.at(-1)?.statusUpdate?.status?.state).toBe("TASK_STATE_FAILED");
    console.log(`kill -9 of A → FAILED on B after ${ms.toFixed(0)} ms (lease ${LEASE_MS} ms)`);
  });
});
