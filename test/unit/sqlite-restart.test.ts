// The reference server on the SQLite store across a restart: finished tasks are still there, and a
// task that was running when the old process went away is FAILED (with a generic message) after
// recoverInterrupted instead of WORKING for ever. In-process (fastify inject), two "processes"
// being two stores and two servers on one file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { buildServer } from "../../src/server/index.js";
import { createFixtureAgent } from "../../src/server/fixture/fixture-agent.js";
import { DEFAULT_RECOVERY_MESSAGE, SqliteTaskStore } from "../../src/server/store/sqlite-store.js";
import { injectRpc } from "../support/rpc.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-sqlite-restart-"));
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
const rpc = async (app: FastifyInstance, method: string, params: unknown) => (await injectRpc(app, method, params)).body;
const message = (text: string) => ({ messageId: `m${++n}`, role: "ROLE_USER", parts: [{ text }] });

describe("restart on the SQLite store", () => {
  it("keeps finished tasks and fails the ones the old process was running", async () => {
    const file = join(dir, "tasks.db");
    const storeA = new SqliteTaskStore(file);
    const serverA = await buildServer({ agent: createFixtureAgent(), store: storeA });
    cleanup.push(() => serverA.close());

    const done = (await rpc(serverA, "SendMessage", { message: message("echo kept") })).result.task;
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    const running = (await rpc(serverA, "SendMessage", { message: message("slow 600000"), configuration: { returnImmediately: true } }))
      .result.task;
    expect((await storeA.get("anonymous", running.id))?.status?.state).toBe(v1_0.TaskState.WORKING);

    // "Process B" starts on the same file while A's task is still marked WORKING there.
    const storeB = new SqliteTaskStore(file);
    expect(storeB.recoverInterrupted()).toEqual([running.id]);
    const serverB = await buildServer({ agent: createFixtureAgent(), store: storeB });
    cleanup.push(() => serverB.close());

    const kept = (await rpc(serverB, "GetTask", { id: done.id })).result;
    expect(kept.status.state).toBe("TASK_STATE_COMPLETED");
    expect(kept.artifacts[0].parts[0].text).toBe("kept");
    const failed = (await rpc(serverB, "GetTask", { id: running.id })).result;
    expect(failed.status.state).toBe("TASK_STATE_FAILED");
    expect(failed.status.message.parts[0].text).toBe(DEFAULT_RECOVERY_MESSAGE);
    const listed = (await rpc(serverB, "ListTasks", { status: "TASK_STATE_FAILED" })).result;
    expect(listed.tasks.map((t: { id: string }) => t.id)).toEqual([running.id]);
    // A failed task is terminal: it cannot be continued or canceled.
    expect((await rpc(serverB, "CancelTask", { id: running.id })).error.code).toBe(-32002);
  });
});
