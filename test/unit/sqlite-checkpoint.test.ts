// The SQLite store's WAL checkpoints (src/server/store/sqlite-checkpoint.ts): the WAL stays bounded
// under steady writes, no write is lost to them, and their timer keeps no process alive.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { create } from "@bufbuild/protobuf";
import { afterAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import Database from "better-sqlite3";
import { SqliteTaskStore } from "../../src/server/store/sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-sqlite-checkpoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const task = (id: string) =>
  create(v1_0.TaskSchema, {
    id,
    contextId: `c-${id}`,
    status: { state: v1_0.TaskState.COMPLETED },
    history: [{ messageId: `m-${id}`, role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "x".repeat(1000) } }] }],
  });

const walSize = (file: string) => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

describe("WAL checkpoints of the SQLite store", () => {
  it("keep the WAL bounded under steady writes and lose no write", async () => {
    const file = join(dir, "steady.db");
    const store = new SqliteTaskStore(file, { checkpoint: { walBytes: 1024 * 1024, pollMs: 10 } });
    const TURNS = 200;
    const PER_TURN = 100; // about 20 MiB of WAL without checkpoints
    let largest = 0;
    for (let t = 0; t < TURNS; t++) {
      await Promise.all(Array.from({ length: PER_TURN }, (_, i) => store.put("alice", task(`t${t}-${i}`))));
      largest = Math.max(largest, walSize(file));
      if (t % 20 === 19) await new Promise((r) => setTimeout(r, 15)); // let a poll find the WAL
    }
    const stats = { ...store.checkpoints.stats };
    await store.close();
    expect(stats.checkpoints).toBeGreaterThan(0);
    expect(stats.failures).toBe(0);
    expect(largest).toBeLessThan(8 * 1024 * 1024);

    const again = new SqliteTaskStore(file);
    const page = await again.list({ owner: "alice", pageSize: 1 });
    expect(page.totalSize).toBe(TURNS * PER_TURN);
    expect((await again.get("alice", `t${TURNS - 1}-${PER_TURN - 1}`))?.history[0]?.parts.length).toBe(1);
    await again.close();
  });

  it("do not wait for another process's reader, and catch up once it is done", async () => {
    const file = join(dir, "reader.db");
    const walBytes = 256 * 1024;
    // pollMs: an hour, so only the test's own run() calls checkpoint.
    const store = new SqliteTaskStore(file, { checkpoint: { walBytes, pollMs: 3_600_000 } });
    await store.put("alice", task("first"));
    const reader = new Database(file, { readonly: true });
    const count = reader.prepare("SELECT count(*) FROM tasks").pluck();
    reader.exec("BEGIN");
    expect(count.get()).toBe(1); // a read transaction holding the WAL as it is now
    for (let t = 0; t < 20; t++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.put("alice", task(`r${t}-${i}`))));
      store.checkpoints.run();
    }
    // The reader still sees its snapshot; the WAL keeps every frame it may read, so it grew past walBytes.
    expect(count.get()).toBe(1);
    expect(walSize(file)).toBeGreaterThan(walBytes);
    reader.exec("COMMIT");
    reader.close();
    store.checkpoints.run(); // copies everything now
    await store.put("alice", task("after")); // starts the WAL over, and the commit cuts the file back
    expect(walSize(file)).toBeLessThanOrEqual(walBytes);
    expect(store.checkpoints.stats.failures).toBe(0);
    expect((await store.list({ owner: "alice", pageSize: 1 })).totalSize).toBe(402);
    await store.close();
  });

  it("a store left open keeps no process alive", async () => {
    const script = `
      import { create } from "@bufbuild/protobuf";
      import * as v1_0 from "./generated/v1_0/index.ts";
      import { SqliteTaskStore } from "./src/server/store/sqlite-store.ts";
      const store = new SqliteTaskStore(${JSON.stringify(join(dir, "open.db"))}, { checkpoint: { pollMs: 5 } });
      const task = (id) => create(v1_0.TaskSchema, { id, contextId: "c", status: { state: v1_0.TaskState.COMPLETED } });
      while (store.checkpoints.stats.checkpoints === 0) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => store.put("a", task(crypto.randomUUID()))));
        await new Promise((r) => setTimeout(r, 10));
      }
      process.stdout.write("checkpointed\\n");
    `;
    // Without unref'd timers and worker the child would never exit, and execFile's timeout kills it.
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: process.cwd(),
      timeout: 30_000,
    });
    expect(stdout).toBe("checkpointed\n");
  });
});
