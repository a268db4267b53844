// Several replicas of the reference server on one PostgreSQL database acting as one agent
// (issue 20). PgCoordinator is the TurnCoordinator (coordinator.ts) TaskRuntime is given with a
// PgTaskStore; without one the runtime is the single-process runtime, unchanged.
//
// - Ownership: a turn runs on the replica holding its lease, a row of a2a_turn_leases (task, owner,
//   replica, expiry). claim() inserts it (ON CONFLICT DO NOTHING: a turn already running elsewhere
//   refuses the follow-up as the single-process runtime refuses one on a busy task, after waiting
//   up to CLAIM_WAIT_MS for a release: a caller that saw the turn's last event may send its
//   follow-up before the last write commits); the holder renews every lease it holds every
//   leaseMs / 3 and deletes it after the turn's last write (NOTIFY a2a_lease_released).
// - Events: every event of a turn is a row of a2a_task_events (id order = event order, one writer
//   per task: the lease holder); the turn's first row is the Task as the turn began. Rows are
//   inserted in batches (one statement: the insert and `pg_notify('a2a_events', task id)` commit
//   together; NOTIFY carries ids only, far below PostgreSQL's 8,000-byte payload limit). A
//   subscriber on another replica gets the current Task (that Task with the turn's events so far
//   folded in, as the running runtime's copy), then each new event as its notification arrives:
//   the stream a subscriber on the running replica gets, in order. A task between turns (INPUT_REQUIRED …) starts with the stored Task and waits for the
//   next turn, as in one process. When a turn ends, the rows of earlier turns are deleted.
// - Cancel: CancelTask for a task whose lease another live replica holds is sent there
//   (`pg_notify('a2a_cancel', …)`: the request's ids and call context); that replica cancels as one
//   process does (status CANCELED recorded, AbortSignal fired, handleCancel) and answers on
//   a2a_cancel_done; the asking replica then answers with the stored task, or with the error the
//   other one gave (TaskNotCancelable …).
// - Failure: every leaseMs / 4 each replica deletes the leases that expired (DELETE … RETURNING:
//   one replica gets each) and fails their tasks if still SUBMITTED or WORKING, with the status
//   message serve uses after a crash, publishing that status so subscribers end.
// - Push notifications: sent by the replica running the turn only (the events it emits); the
//   runtime looks a task's webhooks up in the shared store for every event.
import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import pg from "pg";
import * as v1_0 from "../../../generated/v1_0/index.js";
import { decode, encode } from "../../runtime/protojson.js";
import { A2AError, type A2AErrorName } from "../../versioning/errors.js";
import { isTerminal } from "../../versioning/stream.js";
import { Channel } from "../engine/channel.js";
import { CommitBarrier } from "../store/commit-barrier.js";
import type { LocalTurns, StreamSlots, TurnCoordinator } from "../engine/coordinator.js";
import { inTransaction, withClient } from "../store/pg-client.js";
import { PgTaskStore, redactUrl } from "../store/pg-store.js";
import { DEFAULT_RECOVERY_MESSAGE } from "../store/sqlite-store.js";
import type { CallContext } from "../engine/tasks.js";
import { taskEvent } from "../engine/tasks.js";
import { endsStream } from "../../versioning/stream.js";

export interface PgCoordinatorOptions {
  /** A turn's lease, in ms (default 10,000): a replica silent this long is taken for dead. */
  leaseMs?: number;
  /** This replica's id (default a random UUID). */
  replica?: string;
  /** How long a forwarded cancel waits for the replica running the task (default 5,000 ms). */
  cancelTimeoutMs?: number;
  /** Events one remote subscriber may fall behind before it is disconnected (default 100,000). */
  maxBufferedEvents?: number;
  onError?: (e: unknown, what: string) => void;
  /**
   * The gateway's replicas: a turn whose lease expired is taken over (the lease moves to this
   * replica in one UPDATE) and handed to this function, which resumes following it (and releases
   * the lease when it ends the task instead); resolving false without releasing leaves the lease
   * expired, for a later round. Without it the task is failed, as serve does after a crash.
   */
  takeOver?: (owner: string, task: v1_0.Task) => Promise<boolean>;
}

interface Follow {
  channel: Channel<v1_0.StreamResponse>;
  /** The task as the turn's events so far make it (its first event, the Task, folded with the rest). */
  current: v1_0.Task | undefined;
  /** The last event read. */
  last: v1_0.StreamResponse | undefined;
  lastId: string;
  sync: Promise<void>;
  again: boolean;
}

interface CancelAsk {
  replica: string;
  from: string;
  requestId: string;
  taskId: string;
  call: CallContext;
}

/** How long a claim waits for a turn ending elsewhere to give its lease up. */
const CLAIM_WAIT_MS = 1000;

const encodeEvent = (e: v1_0.StreamResponse) => JSON.stringify(encode(v1_0.StreamResponseSchema, e, { alwaysEmit: v1_0.alwaysEmit }));
const decodeEvent = (body: string) => decode(v1_0.StreamResponseSchema, JSON.parse(body));

export class PgCoordinator implements TurnCoordinator {
  readonly replica: string;
  readonly leaseMs: number;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private local: LocalTurns | undefined;
  private readonly held = new Set<string>();
  private readonly releases = new Map<string, Set<(released: boolean) => void>>();
  private queue: { taskId: string; kind: string; body: string }[] = [];
  private flushing: Promise<void> | undefined;
  private readonly barrier = new CommitBarrier();
  private readonly follows = new Map<string, Follow>();
  private readonly cancels = new Map<string, (answer: { error?: { type: A2AErrorName; message: string } }) => void>();
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;
  private readonly onError: (e: unknown, what: string) => void;

  private constructor(
    readonly store: PgTaskStore,
    private readonly url: string,
    private readonly opts: PgCoordinatorOptions,
  ) {
    this.pool = store.pool;
    this.replica = opts.replica ?? randomUUID();
    this.leaseMs = Math.max(100, Math.floor(opts.leaseMs ?? 10_000));
    this.onError = opts.onError ?? ((e, what) => console.error(`cluster: ${what}`, e));
  }

  /** Starts listening (a connection of its own) and the lease timers. */
  static async start(store: PgTaskStore, url: string, opts: PgCoordinatorOptions = {}): Promise<PgCoordinator> {
    const c = new PgCoordinator(store, url, opts);
    store.fence = { replica: c.replica, holds: (id) => c.holds(id) };
    await c.heartbeat();
    await c.listen();
    const every = (ms: number, f: () => Promise<unknown>, what: string) => {
      const t = setInterval(() => void f().catch((e) => c.onError(e, what)), ms);
      t.unref();
      c.timers.push(t);
    };
    every(Math.max(30, c.leaseMs / 3), () => c.renew(), "renewing leases");
    every(Math.max(25, c.leaseMs / 4), () => c.recoverExpired(), "recovering expired turns");
    return c;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (n) => this.notified(n.channel, n.payload ?? ""));
    client.on("error", (e) => {
      client.end().catch(() => undefined);
      if (this.listener !== client) return; // failed while connecting: listen() rejects instead
      this.onError(e, "the LISTEN connection failed; reconnecting");
      this.listener = undefined;
      this.relisten();
    });
    try {
      await client.connect();
      await client.query("LISTEN a2a_events; LISTEN a2a_cancel; LISTEN a2a_cancel_done; LISTEN a2a_lease_released");
    } catch (e) {
      client.end().catch(() => undefined);
      throw e;
    }
    this.listener = client;
    // Notifications missed while disconnected: catch every followed task up.
    for (const [id, f] of this.follows) this.syncFollow(id, f);
  }

  /** Connects LISTEN again in 500 ms, and again after each failure (a database still down), until the cluster closes. */
  private relisten(): void {
    if (this.closed) return;
    const retry = () =>
      void this.listen().catch((e) => {
        this.onError(e, "reconnecting the LISTEN connection");
        this.relisten();
      });
    setTimeout(retry, 500).unref();
  }

  attach(local: LocalTurns): void {
    this.local = local;
  }

  // ---------------------------------------------------------------- leases

  /** True while this replica holds the task's lease (its writes of the task are fenced on it: pg-store.ts). */
  holds(taskId: string): boolean {
    return this.held.has(taskId);
  }

  async claim(owner: string, taskId: string, waitMs = CLAIM_WAIT_MS): Promise<boolean> {
    if (this.held.has(taskId)) return true; // taken over (takeOver) and now resumed here
    const insert = () =>
      this.pool.query(
        `INSERT INTO a2a_turn_leases (task_id, owner, replica, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
         ON CONFLICT (task_id) DO NOTHING`,
        [taskId, owner, this.replica, this.leaseMs],
      );
    // A turn that just ended elsewhere (its caller saw the final event) still holds the lease until
    // its last write commits: wait for the release a little before calling the task busy.
    if (!(await insert()).rowCount && !(waitMs > 0 && (await this.releasedWithin(taskId, waitMs)) && (await insert()).rowCount))
      return false;
    this.held.add(taskId);
    return true;
  }

  /** True once the task's lease is released (a2a_lease_released), false after `ms`. */
  private async releasedWithin(taskId: string, ms: number): Promise<boolean> {
    const released = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      const waiters = this.releases.get(taskId) ?? new Set();
      const done = (v: boolean) => {
        clearTimeout(timer);
        waiters.delete(done);
        if (!waiters.size) this.releases.delete(taskId);
        resolve(v);
      };
      waiters.add(done);
      this.releases.set(taskId, waiters);
    });
    // Released before the waiter was in place?
    const still = await this.pool.query("SELECT 1 FROM a2a_turn_leases WHERE task_id = $1", [taskId]);
    if (!still.rowCount) this.releases.get(taskId)?.forEach((f) => f(true));
    return released;
  }

  release(taskId: string): void {
    if (!this.held.delete(taskId)) return;
    // After this turn's events: the rows of earlier turns go, then the lease.
    const done = this.flushed().then(() =>
      this.pool.query(
        `WITH e AS (DELETE FROM a2a_task_events WHERE task_id = $1
                    AND id < (SELECT max(id) FROM a2a_task_events WHERE task_id = $1 AND kind = 'task'))
         , d AS (DELETE FROM a2a_turn_leases WHERE task_id = $1 AND replica = $2 RETURNING task_id)
         SELECT pg_notify('a2a_lease_released', task_id) FROM d`,
        [taskId, this.replica],
      ),
    );
    done.catch((e) => this.onError(e, "releasing a lease"));
  }

  /** This replica is alive until now + leaseMs (its open streams count until then). */
  private async heartbeat(): Promise<void> {
    await this.pool.query(
      `INSERT INTO a2a_replicas (replica, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')
       ON CONFLICT (replica) DO UPDATE SET expires_at = excluded.expires_at`,
      [this.replica, this.leaseMs],
    );
  }

  private async renew(): Promise<void> {
    if (this.closed) return;
    await this.heartbeat();
    if (!this.held.size) return;
    // Rows locked in task_id order, as the store's fenced writes lock them.
    await this.pool.query(
      `UPDATE a2a_turn_leases SET expires_at = now() + $2 * interval '1 millisecond'
       WHERE replica = $1 AND task_id IN (SELECT task_id FROM a2a_turn_leases WHERE replica = $1 ORDER BY task_id FOR UPDATE)`,
      [this.replica, this.leaseMs],
    );
  }

  /** Fails the tasks whose lease expired (their replica is gone); returns their ids. */
  async recoverExpired(): Promise<string[]> {
    if (this.closed) return [];
    await this.pool.query(
      `WITH gone AS (DELETE FROM a2a_replicas WHERE expires_at < now() - interval '1 minute' RETURNING replica)
       DELETE FROM a2a_stream_slots s USING gone WHERE s.replica = gone.replica`,
    );
    if (this.opts.takeOver) return this.takeOverExpired(this.opts.takeOver);
    const r = await this.pool.query<{ task_id: string; owner: string }>(
      "DELETE FROM a2a_turn_leases WHERE task_id IN (SELECT task_id FROM a2a_turn_leases WHERE expires_at < now() ORDER BY task_id FOR UPDATE SKIP LOCKED) RETURNING task_id, owner",
    );
    const failed: string[] = [];
    for (const { task_id: id, owner } of r.rows) {
      const task = await this.store.get(owner, id);
      const state = task?.status?.state;
      if (!task || (state !== v1_0.TaskState.SUBMITTED && state !== v1_0.TaskState.WORKING)) continue;
      const message = create(v1_0.MessageSchema, {
        messageId: randomUUID(),
        role: v1_0.Role.AGENT,
        taskId: id,
        contextId: task.contextId,
        parts: [create(v1_0.PartSchema, { content: { case: "text", value: DEFAULT_RECOVERY_MESSAGE } })],
      });
      const status = create(v1_0.TaskStatusSchema, { state: v1_0.TaskState.FAILED, message, timestamp: timestampNow() });
      task.status = status;
      task.history.push(message);
      await this.store.put(owner, task);
      this.publish(
        id,
        create(v1_0.StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: id, contextId: task.contextId, status } } }),
      );
      failed.push(id);
    }
    await this.flushed();
    return failed;
  }

  /** The gateway's recovery: the expired leases move to this replica (one replica gets each), and their turns resume here. */
  private async takeOverExpired(takeOver: (owner: string, task: v1_0.Task) => Promise<boolean>): Promise<string[]> {
    const r = await this.pool.query<{ task_id: string; owner: string }>(
      `UPDATE a2a_turn_leases SET replica = $1, expires_at = now() + $2 * interval '1 millisecond'
       WHERE task_id IN (SELECT task_id FROM a2a_turn_leases WHERE expires_at < now() ORDER BY task_id FOR UPDATE SKIP LOCKED)
       RETURNING task_id, owner`,
      [this.replica, this.leaseMs],
    );
    const taken: string[] = [];
    for (const { task_id: id, owner } of r.rows) {
      this.held.add(id);
      const task = await this.store.get(owner, id);
      if (!task) {
        this.release(id);
        continue;
      }
      const resumed = await takeOver(owner, task).catch((e: unknown) => (this.onError(e, `taking task ${id} over`), false));
      if (resumed) taken.push(id);
      else if (this.held.delete(id))
        // Not taken up here (and not given up by takeOver itself): expired again, for a later round.
        await this.pool.query("UPDATE a2a_turn_leases SET expires_at = now() WHERE task_id = $1 AND replica = $2", [id, this.replica]);
    }
    return taken;
  }

  // ---------------------------------------------------------------- events

  beginTurn(task: v1_0.Task): void {
    this.publish(task.id, taskEvent(task));
  }

  settled(): Promise<void> {
    return this.flushed();
  }

  publish(taskId: string, event: v1_0.StreamResponse): void {
    const kind = event.payload.case === "task" ? "task" : event.payload.case === "statusUpdate" ? "status" : "artifact";
    this.queue.push({ taskId, kind, body: encodeEvent(event) });
    this.barrier.submit();
    this.flushing ??= this.flushLoop();
  }

  /** Resolves once every event published before the call is committed. */
  private flushed(): Promise<void> {
    return this.barrier.wait();
  }

  private async flushLoop(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    while (this.queue.length) {
      const batch = this.queue;
      const upTo = this.barrier.mark();
      this.queue = [];
      try {
        await this.pool.query(
          `WITH ins AS (INSERT INTO a2a_task_events (task_id, kind, body)
                        SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) RETURNING task_id)
           SELECT pg_notify('a2a_events', t) FROM (SELECT DISTINCT task_id AS t FROM ins) d`,
          [batch.map((e) => e.taskId), batch.map((e) => e.kind), batch.map((e) => e.body)],
        );
      } catch (e) {
        this.onError(e, `recording ${batch.length} task event(s)`);
      }
      this.barrier.reached(upTo);
    }
    this.flushing = undefined;
  }

  /** The task's stream as a subscriber on the replica running it would get it. `task`: as stored. */
  async subscribe(task: v1_0.Task): Promise<AsyncIterableIterator<v1_0.StreamResponse>> {
    let f = this.follows.get(task.id);
    if (!f) {
      const follow: Follow = {
        channel: new Channel<v1_0.StreamResponse>(this.opts.maxBufferedEvents ?? 100_000, () => {
          if (this.follows.get(task.id) === follow && follow.channel.size === 0) this.follows.delete(task.id);
        }),
        current: undefined,
        last: undefined,
        lastId: "0",
        sync: Promise.resolve(),
        again: false,
      };
      f = follow;
      this.follows.set(task.id, f);
      this.syncFollow(task.id, f);
    }
    await f.sync;
    // The current Task, as a subscriber on the running replica begins, then the turn's next events.
    // A turn that has just ended terminal (the store not caught up yet): that Task and the final
    // status, which ends the stream. Between turns (or no events kept): the Task as stored.
    const last = f.last;
    const lastState = last?.payload.case === "statusUpdate" ? last.payload.value.status?.state : undefined;
    const first = f.current && last && isTerminal(lastState) ? [taskEvent(f.current), last] : [taskEvent(f.current ?? task)];
    return f.channel.subscribe(first, endsStream);
  }

  /** Reads the followed task's new rows (one read at a time; a notification during a read reads again). */
  private syncFollow(taskId: string, f: Follow): void {
    if (f.again) return;
    f.again = true;
    f.sync = f.sync.then(async () => {
      f.again = false;
      try {
        const r = await this.pool.query<{ id: string; kind: string; body: string }>(
          f.lastId === "0"
            ? `SELECT id, kind, body FROM a2a_task_events WHERE task_id = $1
               AND id >= coalesce((SELECT max(id) FROM a2a_task_events WHERE task_id = $1 AND kind = 'task'), 0) ORDER BY id`
            : "SELECT id, kind, body FROM a2a_task_events WHERE task_id = $1 AND id > $2 ORDER BY id",
          f.lastId === "0" ? [taskId] : [taskId, f.lastId],
        );
        for (const row of r.rows) {
          f.lastId = row.id;
          const e = decodeEvent(row.body);
          f.last = e;
          if (e.payload.case === "task")
            f.current = e.payload.value; // not an event of a stream already open
          else {
            if (f.current) fold(f.current, e);
            f.channel.publish(e);
          }
        }
      } catch (e) {
        this.onError(e, `reading the events of task ${taskId}`);
      }
    });
  }

  // ---------------------------------------------------------------- stream limit

  /** maxStreamsPerPrincipal across replicas: the streams of live replicas, counted under a per-caller lock. */
  readonly streamSlots: StreamSlots = {
    acquire: async (who, max) => {
      try {
        return await withClient(this.pool, (client) =>
          inTransaction(client, async () => {
            await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [who]);
            const open = await client.query<{ n: string }>(
              `SELECT coalesce(sum(s.n), 0) AS n FROM a2a_stream_slots s JOIN a2a_replicas r USING (replica)
               WHERE s.who = $1 AND r.expires_at > now()`,
              [who],
            );
            const ok = Number(open.rows[0]?.n ?? 0) < max;
            if (ok)
              await client.query(
                `INSERT INTO a2a_stream_slots (who, replica, n) VALUES ($1, $2, 1)
                 ON CONFLICT (who, replica) DO UPDATE SET n = a2a_stream_slots.n + 1`,
                [who, this.replica],
              );
            return ok;
          }),
        );
      } catch (e) {
        this.onError(e, "counting open streams (the stream is let through)");
        return true;
      }
    },
    release: (who) => {
      this.pool
        .query("UPDATE a2a_stream_slots SET n = greatest(n - 1, 0) WHERE who = $1 AND replica = $2", [who, this.replica])
        .catch((e) => this.onError(e, "releasing a stream slot"));
    },
  };

  // ---------------------------------------------------------------- cancel

  async cancelElsewhere(owner: string, taskId: string, call: CallContext): Promise<v1_0.Task | undefined> {
    const r = await this.pool.query<{ replica: string }>(
      "SELECT replica FROM a2a_turn_leases WHERE task_id = $1 AND owner = $2 AND expires_at > now()",
      [taskId, owner],
    );
    const replica = r.rows[0]?.replica;
    if (!replica || replica === this.replica) return undefined;
    const requestId = randomUUID();
    const answer = new Promise<{ error?: { type: A2AErrorName; message: string } } | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.cancels.delete(requestId);
        resolve(undefined);
      }, this.opts.cancelTimeoutMs ?? 5000);
      this.cancels.set(requestId, (a) => {
        clearTimeout(timer);
        this.cancels.delete(requestId);
        resolve(a);
      });
    });
    const ask: CancelAsk = { replica, from: this.replica, requestId, taskId, call };
    await this.pool.query("SELECT pg_notify('a2a_cancel', $1)", [JSON.stringify(ask)]);
    const a = await answer;
    if (!a) throw new A2AError("InternalError", `The replica running task ${taskId} did not answer the cancel in time`, { taskId });
    if (a.error) throw new A2AError(a.error.type, a.error.message, { taskId });
    return (await this.store.get(owner, taskId)) ?? undefined;
  }

  private notified(channel: string, payload: string): void {
    if (channel === "a2a_lease_released") {
      this.releases.get(payload)?.forEach((f) => f(true));
      return;
    }
    if (channel === "a2a_events") {
      const f = this.follows.get(payload);
      if (f) this.syncFollow(payload, f);
      return;
    }
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(payload) as Record<string, unknown>;
    } catch {
      return;
    }
    if (channel === "a2a_cancel_done" && msg.to === this.replica) this.cancels.get(String(msg.requestId))?.(msg);
    if (channel === "a2a_cancel" && msg.replica === this.replica && this.local) {
      const ask = msg as unknown as CancelAsk;
      void this.local
        .cancel(ask.taskId, ask.call)
        .then(
          () => ({}),
          (e: unknown) => ({
            error: e instanceof A2AError ? { type: e.type, message: e.message } : { type: "InternalError", message: "cancel failed" },
          }),
        )
        .then((a) =>
          this.pool.query("SELECT pg_notify('a2a_cancel_done', $1)", [JSON.stringify({ ...a, to: ask.from, requestId: ask.requestId })]),
        )
        .catch((e) => this.onError(e, "answering a forwarded cancel"));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flushed();
    this.closed = true;
    this.store.fence = undefined;
    for (const t of this.timers) clearInterval(t);
    for (const f of this.follows.values()) f.channel.close();
    await this.listener?.end().catch(() => undefined);
    await this.pool
      .query(
        `WITH s AS (DELETE FROM a2a_stream_slots WHERE replica = $1)
         DELETE FROM a2a_replicas WHERE replica = $1`,
        [this.replica],
      )
      .catch(() => undefined);
  }
}

/** Applies a stream event to the task, as the running replica's runtime did to its own copy. */
function fold(task: v1_0.Task, e: v1_0.StreamResponse): void {
  if (e.payload.case === "statusUpdate") {
    const status = e.payload.value.status;
    if (!status) return;
    task.status = status;
    if (status.message) task.history.push(status.message);
  } else if (e.payload.case === "artifactUpdate") {
    const { artifact, append } = e.payload.value;
    if (!artifact) return;
    const i = task.artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    const prev = task.artifacts[i];
    if (prev && append) task.artifacts[i] = { ...prev, parts: [...prev.parts, ...artifact.parts] };
    else if (prev) task.artifacts[i] = artifact;
    else task.artifacts.push(artifact);
  }
}

/** `--store postgres://…` of serve: the store, its push configs and the coordinator, migrated and listening. */
export async function startPgStores(url: string, opts: { maxStoreBytes?: number; leaseMs?: number } = {}) {
  const store = await PgTaskStore.open(url, { retention: { maxBytes: opts.maxStoreBytes } });
  const coordinator = await PgCoordinator.start(store, url, { leaseMs: opts.leaseMs });
  return {
    stores: { store, pushConfigs: store.pushConfigs, coordinator, streamSlots: coordinator.streamSlots },
    line: `tasks and push configs are kept in PostgreSQL ${redactUrl(url)}; replicas on it act as one agent (replica ${coordinator.replica})`,
  };
}
