// Nothing a client is told is uncommitted: with a SqliteTaskStore whose COMMITs the test holds back,
// a real server (127.0.0.1, port 0) writes no blocking reply, no returnImmediately reply, no first
// stream event, no status update and no GetTask answer until the COMMIT of the put that records it; once the test lets
// the commit run, the answer comes, and another connection to the file already sees what it says.
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { SqliteTaskStore } from "../../src/server/store/sqlite-store.js";

/** A store whose commits wait until release(). */
class HeldStore extends SqliteTaskStore {
  private held: (() => void)[] = [];
  private wake: (() => void) | undefined;

  protected override deferCommit(commit: () => void): void {
    this.held.push(commit);
    this.wake?.();
  }

  /** Resolves once a commit is waiting. */
  async waiting(): Promise<void> {
    while (!this.held.length) await new Promise<void>((r) => (this.wake = r));
  }

  /** Runs the waiting commits. */
  release(): void {
    for (const c of this.held.splice(0)) c();
  }
}

const dir = mkdtempSync(join(tmpdir(), "a2a-commit-order-"));
const file = join(dir, "a2a-data.db");
let store: HeldStore;
let app: FastifyInstance;
let port: number;
let other: Database.Database;
// The gateway, in front of a fixture backend (in memory), on its own held store.
const gwFile = join(dir, "gateway.db");
let gwStore: HeldStore;
let backend: FastifyInstance;
let gateway: FastifyInstance;
let gwPort: number;
let gwOther: Database.Database;

const portOf = (a: FastifyInstance) => (a.server.address() as { port: number }).port;

beforeAll(async () => {
  store = new HeldStore(file);
  app = await buildServer({ agent: createFixtureAgent(), store, pushConfigs: store.pushConfigs });
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = portOf(app);
  other = new Database(file, { readonly: true });
  backend = await buildServer({ agent: createFixtureAgent() });
  await backend.listen({ port: 0, host: "127.0.0.1" });
  gwStore = new HeldStore(gwFile);
  gateway = await buildGateway({
    gateway: { backends: [{ name: "fixture", url: `http://127.0.0.1:${portOf(backend)}` }] },
    store: gwStore,
  });
  await gateway.listen({ port: 0, host: "127.0.0.1" });
  gwPort = portOf(gateway);
  gwOther = new Database(gwFile, { readonly: true });
});

afterAll(async () => {
  store.release();
  gwStore.release();
  other.close();
  gwOther.close();
  await app.close();
  await gateway.close();
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const STATES = ["UNSPECIFIED", "SUBMITTED", "WORKING", "COMPLETED"];
/** The task's state as committed in the file, read by another connection. */
const committed = (id: string, db = other) => {
  const row = db.prepare("SELECT state FROM tasks WHERE id = ?").get(id) as { state: number } | undefined;
  return row ? `TASK_STATE_${STATES[row.state]}` : undefined;
};

/** POSTs and collects the body as it arrives. */
function post(path: string, body: unknown, to = port) {
  const got = { text: "", ended: false };
  const done = new Promise<void>((ok, fail) => {
    const req = request(
      { host: "127.0.0.1", port: to, path, method: "POST", headers: { "content-type": "application/json", "A2A-Version": "1.0" } },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (d: string) => (got.text += d));
        res.on("end", () => {
          got.ended = true;
          ok();
        });
      },
    );
    req.on("error", fail);
    req.end(JSON.stringify(body));
  });
  return { got, done };
}

/** A few event-loop turns and a little time: long enough for a reply the server had ready to arrive. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 30));
};

const message = (text: string, returnImmediately?: boolean) => ({
  message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] },
  ...(returnImmediately ? { configuration: { returnImmediately } } : {}),
});

describe("no answer before the COMMIT of what it reports", () => {
  it("blocking SendMessage: the reply waits for the commit of COMPLETED (WORKING and COMPLETED share it)", async () => {
    const { got, done } = post("/message:send", message("echo held"));
    await store.waiting();
    await settle();
    expect(got.text).toBe("");
    store.release();
    await done;
    const task = (JSON.parse(got.text) as { task: { id: string; status: { state: string } } }).task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(committed(task.id)).toBe("TASK_STATE_COMPLETED");
  });

  it("returnImmediately: the reply waits for the commit of the task it shows", async () => {
    const { got, done } = post("/message:send", message("slow 200", true));
    await store.waiting();
    await settle();
    expect(got.text).toBe("");
    store.release();
    await done;
    const task = (JSON.parse(got.text) as { task: { id: string; status: { state: string } } }).task;
    expect(task.status.state).toBe("TASK_STATE_WORKING");
    expect(committed(task.id)).toBe("TASK_STATE_WORKING");
    await store.waiting(); // the slow task's COMPLETED, held: GetTask of the live task waits for it too
    const get = post("/", { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: task.id } });
    await settle();
    expect(get.got.text).toBe("");
    store.release();
    await get.done;
    expect((JSON.parse(get.got.text) as { result: { status: { state: string } } }).result.status.state).toBe("TASK_STATE_COMPLETED");
    expect(committed(task.id)).toBe("TASK_STATE_COMPLETED");
  });

  it("SendStreamingMessage: no event before the first commit, no status update before its own", async () => {
    const { got, done } = post("/message:stream", message("slow 200"));
    await store.waiting();
    await settle();
    expect(got.text).not.toContain("data:");
    store.release(); // WORKING committed: the Task and the WORKING update may come
    await store.waiting(); // 200 ms later: COMPLETED (with the artifact), held
    await settle();
    const events = () =>
      got.text
        .split("\n\n")
        .filter((f) => f.startsWith("data:"))
        .map((f) => JSON.parse(f.slice(5)) as { task?: { id: string }; statusUpdate?: { status: { state: string } } });
    const before = events();
    const id = before[0]?.task?.id;
    expect(id).toBeDefined();
    expect(before.map((e) => e.statusUpdate?.status.state).filter(Boolean)).toEqual(["TASK_STATE_WORKING"]);
    expect(committed(id!)).toBe("TASK_STATE_WORKING");
    store.release();
    await done;
    expect(events().at(-1)?.statusUpdate?.status.state).toBe("TASK_STATE_COMPLETED");
    expect(committed(id!)).toBe("TASK_STATE_COMPLETED");
  });

  it("the gateway: a returnImmediately reply and a blocking reply wait for the commit of what they show", async () => {
    const immediate = post("/message:send", message("slow 300", true), gwPort);
    await gwStore.waiting();
    await settle();
    expect(immediate.got.text).toBe("");
    gwStore.release();
    await immediate.done;
    const task = (JSON.parse(immediate.got.text) as { task: { id: string; status: { state: string } } }).task;
    expect(task.status.state).toBe("TASK_STATE_WORKING");
    expect(committed(task.id, gwOther)).toBe("TASK_STATE_WORKING");
    await gwStore.waiting(); // the remote task's COMPLETED, 300 ms later
    gwStore.release();

    const blocking = post("/message:send", message("echo through"), gwPort);
    await gwStore.waiting();
    await settle();
    expect(blocking.got.text).toBe("");
    gwStore.release();
    await blocking.done;
    const done = (JSON.parse(blocking.got.text) as { task: { id: string; status: { state: string } } }).task;
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(committed(done.id, gwOther)).toBe("TASK_STATE_COMPLETED");
  });
});
