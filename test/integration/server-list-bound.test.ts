// Issue 18, finding 2: one ListTasks request must not freeze the server. Before the byte-bounded
// pages, GET /tasks?pageSize=100&includeArtifacts=true over 100 large tasks in the SQLite store read,
// decoded and answered all of them at once (299 MB, 37 s; two at once stopped the server answering
// anything for over a minute). Now a page ends once its tasks reach maxListBytes (default 4 MiB;
// "The service may return fewer than this value", a2a.proto ListTasksRequest.page_size) and
// nextPageToken continues.
//
// Default run: 100 tasks of ~120 KB put straight into the store, the default limit. `make
// test-limits` (A2A_LIMITS_FULL=1) builds them over HTTP with `stream 100000`, as the issue did.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { DEFAULT_LIMITS } from "../../src/server/engine/runtime.js";
import { SqliteTaskStore } from "../../src/server/store/sqlite-store.js";
import { flood } from "../support/serve-child.js";
import { startServer, type RunningServer } from "../support/servers.js";

const FULL = process.env.A2A_LIMITS_FULL === "1";
const TASKS = 100;
const dir = mkdtempSync(join(tmpdir(), "a2a-list-bound-"));
let server: RunningServer;
let store: SqliteTaskStore;
let base: string;
let biggest = 0;

beforeAll(async () => {
  store = new SqliteTaskStore(join(dir, "a2a-data.db"));
  server = await startServer("fastify", { agent: createFixtureAgent(), store, pushConfigs: store.pushConfigs });
  base = server.url;
  if (FULL) await flood(base, TASKS, () => "stream 100000", 4);
  else
    for (let i = 0; i < TASKS; i++)
      await store.put(
        "anonymous",
        create(v1_0.TaskSchema, {
          id: `big-${i}`,
          contextId: "ctx",
          status: { state: v1_0.TaskState.COMPLETED, timestamp: timestampFromMs(1_700_000_000_000 + i) },
          artifacts: [{ artifactId: "a", parts: [{ content: { case: "text", value: `${i} `.padEnd(120_000, "x") } }] }],
        }),
      );
  biggest = (store.db.prepare("SELECT max(size) AS m FROM tasks").get() as { m: number }).m;
}, 600_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const H = { "A2A-Version": "1.0" };
async function listPage(token = ""): Promise<{ bytes: number; ms: number; ids: string[]; next: string }> {
  const t = Date.now();
  const res = await fetch(`${base}/tasks?pageSize=100&includeArtifacts=true${token ? `&pageToken=${token}` : ""}`, { headers: H });
  const text = await res.text();
  expect(res.status).toBe(200);
  const body = JSON.parse(text) as { tasks: { id: string; artifacts: unknown[] }[]; nextPageToken: string; totalSize: number };
  expect(body.totalSize).toBe(TASKS);
  expect(body.tasks.every((t) => t.artifacts.length === 1)).toBe(true);
  return { bytes: Buffer.byteLength(text), ms: Date.now() - t, ids: body.tasks.map((t) => t.id), next: body.nextPageToken };
}

describe("a large ListTasks is answered by bytes, page by page", () => {
  it("each page stays under maxListBytes plus one task; the pages hold every task once", async () => {
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await listPage(token);
      expect(page.bytes).toBeLessThanOrEqual(DEFAULT_LIMITS.maxListBytes + biggest + 1024);
      expect(page.ids.length).toBeGreaterThan(0);
      expect(page.ids.length).toBeLessThan(TASKS);
      if (FULL) console.log(`page ${pages + 1}: ${page.ids.length} tasks, ${page.bytes} bytes, ${page.ms} ms`);
      seen.push(...page.ids);
      token = page.next;
      pages++;
    } while (token && pages < TASKS);
    expect(new Set(seen).size).toBe(TASKS);
    expect(seen).toHaveLength(TASKS);
  });

  it("two large lists at once leave another client served", async () => {
    let answered = 0;
    let worst = 0;
    let listing = true;
    const other = (async () => {
      while (listing) {
        const t = Date.now();
        const r = await fetch(`${base}/.well-known/agent-card.json`, { headers: H });
        await r.arrayBuffer();
        if (r.status === 200) answered++;
        worst = Math.max(worst, Date.now() - t);
        await sleep(20);
      }
    })();
    const t = Date.now();
    const pages = await Promise.all([listPage(), listPage()]);
    const elapsed = Date.now() - t;
    listing = false;
    await other;
    for (const p of pages) expect(p.bytes).toBeLessThanOrEqual(DEFAULT_LIMITS.maxListBytes + biggest + 1024);
    expect(answered).toBeGreaterThan(0);
    if (FULL) console.log(`two lists at once: ${elapsed} ms; the other client's slowest answer ${worst} ms`);
  });
});
