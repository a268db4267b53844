// `a2a-toolkit serve` with its default store (SQLite) killed with SIGKILL in the middle of a burst
// of concurrent sends, then restarted on the same file: every task a client was told about must be
// there in the state it was told or a later one — COMPLETED with its artifact, or (if it was
// running) FAILED with the generic recovery message — with its history intact.
//
// Two bursts: blocking and returnImmediately SendMessage mixed (a third of each: blocking echo,
// returnImmediately echo, returnImmediately slow), and SendStreamingMessage streams (what a
// client was told is every event it read). `make test` runs small bursts once; `make
// test-durability` runs 500 sends and 300 streams, six times each (A2A_CRASH_SENDS,
// A2A_CRASH_STREAMS, A2A_CRASH_RUNS).
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_RECOVERY_MESSAGE } from "../../src/server/store/sqlite-store.js";
import { spawnCli, type CliChild } from "../support/serve-child.js";

const SENDS = Number(process.env.A2A_CRASH_SENDS ?? 150);
const STREAMS = Number(process.env.A2A_CRASH_STREAMS ?? 60);
const RUNS = Number(process.env.A2A_CRASH_RUNS ?? 1);
const dir = mkdtempSync(join(tmpdir(), "a2a-crash-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function serve(file: string): CliChild {
  const cli = spawnCli(["serve", "--port", "0", "--store", `sqlite:${file}`]);
  children.push(cli.child);
  return cli;
}

interface Part {
  text?: string;
}
interface Msg {
  messageId: string;
  role: string;
  parts: Part[];
}
interface Task {
  id: string;
  status: { state: string; message?: Msg };
  history?: Msg[];
  artifacts?: { parts: Part[] }[];
}

// Fewer sockets than the server's per-address limit (256): the clients queue, as real ones do.
const agent = new Agent({ keepAlive: true, maxSockets: 128 });

/** POSTs JSON; `onChunk` gets the body as it arrives (for SSE). Rejects when the connection dies. */
function post(url: string, path: string, body: unknown, onChunk?: (s: string) => void): Promise<string> {
  const u = new URL(path, url);
  return new Promise((ok, fail) => {
    const req = request(u, { method: "POST", agent, headers: { "content-type": "application/json", "A2A-Version": "1.0" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
        onChunk?.(d);
      });
      res.on("end", () => (res.complete ? ok(text) : fail(new Error("response cut off"))));
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end(JSON.stringify(body));
  });
}

const ORDER = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"];

/** The task after the restart is in the state `told` or a later one, and consistent. */
function checkLater(task: Task, i: number, text: string, told: string, want: string): "completed" | "failed" {
  const history = task.history ?? [];
  expect(history[0], `history of ${task.id}`).toMatchObject({ messageId: `crash-${i}`, role: "ROLE_USER", parts: [{ text }] });
  if (task.status.state === "TASK_STATE_COMPLETED") {
    expect(task.artifacts?.[0]?.parts.map((p) => p.text).join("")).toBe(want);
    return "completed";
  }
  // Told COMPLETED, the client must find it COMPLETED; told SUBMITTED or WORKING, recovery may fail it.
  expect(told, `${task.id} was reported ${told}, found ${task.status.state}`).not.toBe("TASK_STATE_COMPLETED");
  expect(ORDER).toContain(told);
  expect(task.status.state).toBe("TASK_STATE_FAILED");
  expect(task.status.message?.parts[0]?.text).toBe(DEFAULT_RECOVERY_MESSAGE);
  expect(history[history.length - 1]?.parts[0]?.text).toBe(DEFAULT_RECOVERY_MESSAGE);
  return "failed";
}

interface Told {
  i: number;
  text: string;
  want: string;
  state: string;
}

/** Restarts on `file` and checks every task in `told`; returns the counts. */
async function restartAndCheck(file: string, told: Map<string, Told>) {
  const second = serve(file);
  const url = await second.url;
  const recovered = Number(/failed (\d+) task\(s\) left running/.exec(second.stdout())?.[1] ?? 0);
  const states = { completed: 0, failed: 0 };
  const ids = [...told.keys()];
  for (let k = 0; k < ids.length; k += 25)
    await Promise.all(
      ids.slice(k, k + 25).map(async (id) => {
        const t = told.get(id)!;
        const res = await fetch(`${url}/tasks/${id}`, { headers: { "A2A-Version": "1.0" } });
        expect(res.status, `GetTask ${id} (told ${t.state})`).toBe(200);
        const task = (await res.json()) as Task;
        expect(task.id).toBe(id);
        states[checkLater(task, t.i, t.text, t.state, t.want)]++;
      }),
    );
  expect(recovered).toBeGreaterThanOrEqual(states.failed);
  second.child.kill("SIGTERM");
  await once(second.child, "exit");
  return { ...states, recovered };
}

/** Starts a server, runs `burst` (which calls kill() when it has heard enough), waits for the exit. */
async function crash(file: string, burst: (url: string, kill: () => void, killed: () => boolean) => Promise<unknown>) {
  const first = serve(file);
  const url = await first.url;
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    first.child.kill("SIGKILL");
  };
  const exited = once(first.child, "exit");
  await burst(url, kill, () => killed);
  kill(); // if everything answered before the threshold was noticed
  await exited;
}

describe("kill -9 in the middle of a burst (default SQLite store)", () => {
  it.each(Array.from({ length: RUNS }, (_, r) => r + 1))(
    `run %i: ${SENDS} concurrent sends, blocking and returnImmediately mixed: every task a client was told about is there, as told or later`,
    { timeout: 180_000 },
    async (run) => {
      const file = join(dir, `sends-${run}.db`);
      const told = new Map<string, Told>();
      const killAfter = Math.floor(SENDS / 3);
      await crash(file, (url, kill, killed) =>
        Promise.all(
          Array.from({ length: SENDS }, async (_, i) => {
            const kind = i % 3; // 0 blocking echo, 1 returnImmediately echo, 2 returnImmediately slow
            const text = kind === 2 ? "slow 2000" : `echo crash-${i}`;
            try {
              const body = JSON.parse(
                await post(url, "/message:send", {
                  message: { messageId: `crash-${i}`, role: "ROLE_USER", parts: [{ text }] },
                  configuration: { returnImmediately: kind !== 0 },
                }),
              ) as { task?: Task };
              if (!body.task) throw new Error(`no task in ${JSON.stringify(body)}`);
              if (kind === 0) expect(body.task.status.state).toBe("TASK_STATE_COMPLETED");
              told.set(body.task.id, { i, text, want: kind === 2 ? "done after 2000 ms" : `crash-${i}`, state: body.task.status.state });
              if (told.size >= killAfter) kill();
            } catch (e) {
              if (!killed()) throw e; // after the kill requests in flight fail; before it, nothing may
            }
          }),
        ),
      );
      expect(told.size).toBeGreaterThanOrEqual(killAfter);
      const r = await restartAndCheck(file, told);
      expect(r.completed + r.failed).toBe(told.size);
      expect(r.failed).toBeGreaterThan(0); // the slow tasks were running at the kill
      console.log(
        `sends run ${run}: told ${told.size} of ${SENDS}; after restart ${r.completed} completed, ${r.failed} failed; recovery failed ${r.recovered}`,
      );
    },
  );

  it.each(Array.from({ length: RUNS }, (_, r) => r + 1))(
    `run %i: a burst of ${STREAMS} streams: every task a stream showed is there, in the last state it showed or later`,
    { timeout: 180_000 },
    async (run) => {
      const file = join(dir, `streams-${run}.db`);
      const told = new Map<string, Told>();
      let started = 0;
      const killAfter = Math.floor(STREAMS / 2);
      await crash(file, (url, kill, killed) =>
        Promise.all(
          Array.from({ length: STREAMS }, async (_, i) => {
            const kind = i % 3; // 0 echo, 1 stream of chunks, 2 slow
            const text = kind === 0 ? `echo crash-${i}` : kind === 1 ? "stream 20" : "slow 2000";
            const want =
              kind === 0
                ? `crash-${i}`
                : kind === 1
                  ? Array.from({ length: 20 }, (_, k) => `chunk ${k + 1}/20`).join("")
                  : "done after 2000 ms";
            let buf = "";
            let id: string | undefined;
            const onChunk = (d: string) => {
              buf += d;
              let end: number;
              while ((end = buf.indexOf("\n\n")) >= 0) {
                const frame = buf.slice(0, end);
                buf = buf.slice(end + 2);
                const data = frame.split("\n").find((l) => l.startsWith("data:"));
                if (!data) continue;
                const ev = JSON.parse(data.slice(5)) as { task?: Task; statusUpdate?: { taskId: string; status: { state: string } } };
                if (ev.task) {
                  id = ev.task.id;
                  told.set(id, { i, text, want, state: ev.task.status.state });
                  if (++started >= killAfter) kill();
                } else if (ev.statusUpdate && id) told.get(id)!.state = ev.statusUpdate.status.state;
              }
            };
            try {
              await post(url, "/message:stream", { message: { messageId: `crash-${i}`, role: "ROLE_USER", parts: [{ text }] } }, onChunk);
            } catch (e) {
              if (!killed()) throw e;
            }
          }),
        ),
      );
      expect(told.size).toBeGreaterThanOrEqual(killAfter);
      const r = await restartAndCheck(file, told);
      expect(r.completed + r.failed).toBe(told.size);
      console.log(`streams run ${run}: told ${told.size} of ${STREAMS}; after restart ${r.completed} completed, ${r.failed} failed`);
    },
  );
});
