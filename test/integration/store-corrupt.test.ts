// A damaged SQLite file is refused at start with a message naming the file and saying what to do
// (issue 18, item 5): random bytes in the middle of the file (caught by PRAGMA quick_check), a
// garbage file and a half-truncated one, for the task store (and the push configs in the same
// file), `serve` and `gateway`. A store error while serving is logged at error level without --log.
// A single damaged row (issue 28) harms only its task: serve starts, lists skip it, its error names it.
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import * as v1_0 from "../../generated/v1_0/index.js";
import { create } from "@bufbuild/protobuf";
import { PgTaskStore } from "../../src/server/store/pg-store.js";
import { SqliteTaskStore, StoreFileError } from "../../src/server/store/sqlite-store.js";
import type { TaskStore } from "../../src/server/store/store.js";
import { freshDatabase, postgresBinaries, stopSharedPostgres } from "../support/postgres.js";
import { startServe } from "../../src/cli/serve.js";
import { startGateway } from "../../src/cli/gateway-command.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-corrupt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A store file holding `count` completed tasks of a few KB each, closed (WAL checkpointed). */
async function filledFile(count: number): Promise<string> {
  const file = join(dir, `tasks-${++n}.db`);
  const store = new SqliteTaskStore(file);
  for (let i = 0; i < count; i++)
    await store.put(
      "anonymous",
      create(v1_0.TaskSchema, {
        id: `task-${i}`,
        contextId: "c",
        status: { state: v1_0.TaskState.COMPLETED },
        artifacts: [{ artifactId: "a", parts: [{ content: { case: "text", value: `result ${i} `.repeat(200) } }] }],
      }),
    );
  await store.close();
  return file;
}

/** Overwrites `length` bytes at the middle page boundary of `file` with bytes from a fixed seed. */
function scribble(file: string, length = 4096): void {
  const size = statSync(file).size;
  const at = Math.floor(size / 2 / 4096) * 4096;
  const bytes = Buffer.from(fc.sample(fc.integer({ min: 0, max: 255 }), { seed: 18, numRuns: length }));
  const fd = openSync(file, "r+");
  writeSync(fd, bytes, 0, bytes.length, at);
  closeSync(fd);
}

const quiet = () => {};

describe("a damaged store file is refused at start, naming the file", () => {
  it("random bytes in the middle: quick_check refuses it; serve and gateway do not start", async () => {
    const file = await filledFile(300);
    scribble(file);
    let err: unknown;
    try {
      new SqliteTaskStore(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreFileError);
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toMatch(/damaged/);
    expect((err as Error).message).toMatch(/backup|move it away/);
    for (const start of [
      () => startServe({ port: 0, host: "127.0.0.1", agent: "fixture", store: `sqlite:${file}`, versions: ["1.0"] }, quiet),
      () =>
        startGateway({ port: 0, host: "127.0.0.1", backend: ["a=http://127.0.0.1:9"], store: `sqlite:${file}`, versions: ["1.0"] }, quiet),
    ])
      await expect(start()).rejects.toThrow(file);
  });

  it("a garbage file and a half-truncated file name the file too", async () => {
    const garbage = join(dir, "garbage.db");
    writeFileSync(garbage, randomBytes(8192));
    const truncated = await filledFile(100);
    truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
    for (const file of [garbage, truncated]) {
      expect(() => new SqliteTaskStore(file)).toThrow(StoreFileError);
      expect(() => new SqliteTaskStore(file)).toThrow(file);
    }
  });

  it("an intact file opens, and its tasks are there", async () => {
    const file = await filledFile(20);
    const store = new SqliteTaskStore(file);
    expect((await store.get("anonymous", "task-7"))?.status?.state).toBe(v1_0.TaskState.COMPLETED);
    await store.close();
  });
});

describe("store errors while serving", () => {
  it("are logged at error level by default (without --log)", async () => {
    const file = await filledFile(3);
    const store = new SqliteTaskStore(file);
    store.db.prepare("UPDATE tasks SET body = '{not json' WHERE id = 'task-1'").run();
    await store.close();
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const server = await startServe({ port: 0, host: "127.0.0.1", agent: "fixture", store: `sqlite:${file}`, versions: ["1.0"] }, quiet);
    try {
      const res = await fetch(`${server.url}/tasks/task-1`, { headers: { "A2A-Version": "1.0" } });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: { code: 500 } });
      const ok = await fetch(`${server.url}/tasks/task-2`, { headers: { "A2A-Version": "1.0" } });
      expect(ok.status).toBe(200);
    } finally {
      spy.mockRestore();
      await server.close();
    }
    const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(logged.some((l) => l.level === 50)).toBe(true);
  });
});

/** Stores holding tasks ok-1, ok-2 and `bad` of owner anonymous, `bad`'s JSON then damaged in place: the `--store` value and what the log names. */
const damagedStores: [string, (state: v1_0.TaskState) => Promise<{ store: string; place: string }>][] = [
  [
    "SQLite",
    async (state) => {
      const file = join(dir, `damaged-${++n}.db`);
      const store = new SqliteTaskStore(file);
      await putThree(store, state);
      store.db.prepare("UPDATE tasks SET body = substr(body, 1, 20) WHERE id = 'bad'").run();
      await store.close();
      return { store: `sqlite:${file}`, place: file };
    },
  ],
];
if (postgresBinaries())
  damagedStores.push([
    "PostgreSQL",
    async (state) => {
      const url = await freshDatabase();
      const store = await PgTaskStore.open(url);
      await putThree(store, state);
      await store.pool.query("UPDATE a2a_tasks SET body = substr(body, 1, 20) WHERE id = 'bad'");
      await store.close();
      return { store: url, place: "a2a_tasks" };
    },
  ]);
afterAll(stopSharedPostgres);

async function putThree(store: TaskStore, state: v1_0.TaskState): Promise<void> {
  for (const [id, s] of [
    ["ok-1", v1_0.TaskState.COMPLETED],
    ["ok-2", v1_0.TaskState.WORKING],
    ["bad", state],
  ] as const)
    await store.put("anonymous", create(v1_0.TaskSchema, { id, contextId: "c", status: { state: s } }));
}

describe.each(damagedStores)("a damaged row harms only its task (issue 28, item 5): %s", (_name, damaged) => {
  for (const [name, state] of [
    ["running", v1_0.TaskState.WORKING],
    ["terminal", v1_0.TaskState.COMPLETED],
    ["input-required", v1_0.TaskState.INPUT_REQUIRED],
  ] as const)
    it(`${name}: serve starts, ListTasks answers the others, the damaged task's error names it, the log names the place and row`, async () => {
      const { store, place } = await damaged(state);
      const lines: string[] = [];
      const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      });
      const server = await startServe({ port: 0, host: "127.0.0.1", agent: "fixture", store, versions: ["1.0"] }, quiet);
      try {
        const headers = { "A2A-Version": "1.0", "Content-Type": "application/json" };
        const list = await fetch(`${server.url}/tasks`, { headers });
        expect(list.status).toBe(200);
        const ids = ((await list.json()) as { tasks: { id: string }[] }).tasks.map((t) => t.id).sort();
        expect(ids).toEqual(["ok-1", "ok-2"]);
        const bad = await fetch(`${server.url}/tasks/bad`, { headers });
        expect(bad.status).toBe(500);
        expect(JSON.stringify(await bad.json())).toContain("Task bad is damaged");
        const rpc = await fetch(`${server.url}/`, {
          method: "POST",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "bad" } }),
        });
        const body = (await rpc.json()) as { id: number; error: { code: number; message: string } };
        expect(body).toMatchObject({ id: 7, error: { code: -32603 } });
        expect(body.error.message).toContain("bad");
        const ok = await fetch(`${server.url}/tasks/ok-1`, { headers });
        expect(ok.status).toBe(200);
      } finally {
        spy.mockRestore();
        await server.close();
      }
      const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.msg.includes("damaged task row"));
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.every((l) => l.level === 50 && l.msg.includes(place) && l.msg.includes('row id "bad"'))).toBe(true);
    });
});
