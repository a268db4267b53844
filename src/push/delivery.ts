// Push-notification delivery: POSTs task updates to the webhooks registered for a task
// (A2A 1.0 §4.3.3, §13.2; a2a-wire.md §5.6, rules S-44/S-45).
//
// Body by the wire version the config was registered with:
//   1.0 → the StreamResponse as ProtoJSON, `Content-Type: application/a2a+json`;
//   0.3 → the Task (D03-RPC, `kind: "task"`), `Content-Type: application/json`. A 0.3 webhook
//         always gets a whole Task, so for status and artifact updates the caller passes the task
//         snapshot, which is sent instead (loss L24, rpc0_3.downgradePushPayload); without one the
//         event is not sent to 0.3 webhooks.
// Headers: `X-A2A-Notification-Token: <token>` when the config has a token (0.3's mechanism; 1.0
// defines none, so both get it), `Authorization: <scheme> <credentials>` when the config has
// authentication with credentials.
//
// Delivery policy (defaults in DEFAULT_PUSH_OPTIONS):
// - `enqueue` returns at once; nothing the webhook does can block or fail the caller.
// - One queue per config (owner, task, config id): a config's notifications go out one at a time, in
//   order; different configs (and tasks) proceed independently, at most `concurrency` requests in
//   flight overall.
// - A 2xx status is success (the answer's body is drained, not waited for; connections are kept
//   alive per webhook host, at most 4 each). Network errors, timeouts (`timeoutMs`
//   for the whole request, up to the status line), 408, 429 and 5xx
//   are retried after `backoffMs × 2^(attempt-1)` (capped at `maxBackoffMs`, ±20% jitter) up to
//   `maxAttempts` attempts in all; then the notification is dropped (given up) and the next one in
//   the queue goes. Other 4xx and 3xx (redirects are not followed: they could lead past the SSRF
//   guard) fail at once without retry.
// - The URL is checked again before every attempt (ssrf.ts) and the request connects to exactly the
//   addresses checked; a refused URL fails the notification without retry (a host name that does
//   not resolve is retried).
// - Bounds: a config's queue holds at most `maxQueuePerConfig` notifications, the one being sent
//   included (beyond it the oldest waiting one is dropped, so the newest state, e.g. the terminal
//   one, is kept); all queues together hold at most `maxQueueTotal` (beyond it new notifications are
//   dropped). With `supersede0_3`, for a 0.3 webhook, whose every body is the whole task, a new
//   notification replaces one still waiting ("superseded"): a slow receiver gets the latest state
//   instead of every step, and a long artifact stream does not queue one full task copy per chunk.
// Every outcome is reported to `onOutcome` (and to the logger when it is a failure), for metrics.
import http from "node:http";
import https from "node:https";
import * as v1_0 from "../../generated/v1_0/index.js";
import { encode } from "../runtime/protojson.js";
import { policyOf } from "../versioning/policy.js";
import type { PushConfigStore, StoredPushConfig } from "./config-store.js";
import { checkWebhookUrl, pinnedLookup, WebhookUrlError, type AddressLookup } from "./ssrf.js";

export interface PushDeliveryOptions {
  /** SSRF allow-list: host names, IPs or CIDR ranges that may be private (ssrf.ts). */
  allow?: readonly string[];
  /** Resolver for the SSRF guard (default dns.lookup); tests inject one. */
  lookup?: AddressLookup;
  /** Per-request timeout, ms (default 10,000: the spec's 10–30 s SHOULD). */
  timeoutMs?: number;
  /** Attempts per notification, the first included (default 5). */
  maxAttempts?: number;
  /** First retry delay, ms (default 1,000); doubles per attempt. */
  backoffMs?: number;
  /** Longest retry delay, ms (default 60,000). */
  maxBackoffMs?: number;
  /** Waiting notifications per config (default 100). */
  maxQueuePerConfig?: number;
  /** Waiting notifications across all configs (default 10,000). */
  maxQueueTotal?: number;
  /** Requests in flight at once across all webhooks (default 16). */
  concurrency?: number;
  /** 0.3 webhooks: a newer task snapshot replaces one not yet sent (default false: every step is sent). */
  supersede0_3?: boolean;
  logger?: { warn(obj: unknown, msg?: string): void };
  onOutcome?: (outcome: PushOutcome) => void;
}

export const DEFAULT_PUSH_OPTIONS = {
  timeoutMs: 10_000,
  maxAttempts: 5,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  maxQueuePerConfig: 100,
  maxQueueTotal: 10_000,
  concurrency: 16,
  supersede0_3: false,
} as const;

export type PushOutcome =
  | { kind: "delivered"; owner: string; taskId: string; configId: string; attempts: number; status: number }
  | { kind: "retrying"; owner: string; taskId: string; configId: string; attempt: number; delayMs: number; error: string }
  | { kind: "failed"; owner: string; taskId: string; configId: string; attempts: number; error: string }
  | { kind: "dropped"; owner: string; taskId: string; configId: string; why: "queue-full" | "total-queue-full" | "closed" }
  | { kind: "skipped"; owner: string; taskId: string; configId: string; why: string }
  | { kind: "superseded"; owner: string; taskId: string; configId: string };

interface Notification {
  body: string;
  contentType: string;
  attempts: number;
}

interface ConfigQueue {
  key: string;
  config: StoredPushConfig;
  waiting: Notification[];
  busy: boolean;
  timer?: NodeJS.Timeout;
}

const USER_AGENT = "a2a-toolkit push";

export class PushDelivery {
  private readonly o: Required<Omit<PushDeliveryOptions, "allow" | "lookup" | "logger" | "onOutcome">> &
    Pick<PushDeliveryOptions, "allow" | "lookup" | "logger" | "onOutcome">;
  private readonly queues = new Map<string, ConfigQueue>();
  private total = 0;
  private active = 0;
  private readonly ready: ConfigQueue[] = [];
  private intake: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly inflight = new Set<http.ClientRequest>();
  // Keep-alive pools: a webhook that gets a stream of events reuses its connection. Every socket in
  // them was opened to an address the SSRF guard passed.
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 4, maxFreeSockets: 2, timeout: 30_000 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 4, maxFreeSockets: 2, timeout: 30_000 }),
  };
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly configs: PushConfigStore,
    opts: PushDeliveryOptions = {},
  ) {
    const pick = (v: number | undefined, d: number, min: number) => (v === undefined || !Number.isFinite(v) ? d : Math.max(min, v));
    this.o = {
      ...opts,
      timeoutMs: pick(opts.timeoutMs, DEFAULT_PUSH_OPTIONS.timeoutMs, 1),
      maxAttempts: Math.floor(pick(opts.maxAttempts, DEFAULT_PUSH_OPTIONS.maxAttempts, 1)),
      backoffMs: pick(opts.backoffMs, DEFAULT_PUSH_OPTIONS.backoffMs, 0),
      maxBackoffMs: pick(opts.maxBackoffMs, DEFAULT_PUSH_OPTIONS.maxBackoffMs, 0),
      maxQueuePerConfig: Math.floor(pick(opts.maxQueuePerConfig, DEFAULT_PUSH_OPTIONS.maxQueuePerConfig, 1)),
      maxQueueTotal: Math.floor(pick(opts.maxQueueTotal, DEFAULT_PUSH_OPTIONS.maxQueueTotal, 1)),
      concurrency: Math.floor(pick(opts.concurrency, DEFAULT_PUSH_OPTIONS.concurrency, 1)),
      supersede0_3: opts.supersede0_3 ?? DEFAULT_PUSH_OPTIONS.supersede0_3,
    };
  }

  /** Notifications queued across all configs, those being sent included. */
  get queued(): number {
    return this.total;
  }

  /**
   * Sends `event` to every webhook registered for the task. Returns at once. `snapshot` is the task
   * as it is after the event; 0.3 webhooks receive it for non-Task events (see the header). The
   * event is serialised before this returns; the snapshot is copied shallowly, like MemoryTaskStore
   * does: replacing its fields or appending to its history, artifacts or parts afterwards does not
   * change what is sent, changing nested objects in place would.
   */
  enqueue(owner: string, taskId: string, event: v1_0.StreamResponse, snapshot?: v1_0.Task): void {
    if (this.closed) return;
    // Cheap copies now (the runtime goes on changing its live task); the expensive work (a 0.3
    // snapshot's encoding and downgrade) happens later, and only if a 0.3 webhook exists.
    const eventJson = encode(v1_0.StreamResponseSchema, event, { alwaysEmit: v1_0.alwaysEmit }) as v1_0.StreamResponseJson;
    const snap = snapshot && event.payload.case !== "task" ? shallowTask(snapshot) : undefined;
    // One chain keeps notifications in enqueue order although the config lookup is asynchronous.
    this.intake = this.intake
      .then(async () => {
        const configs = await this.configs.list(owner, taskId);
        if (!configs.length) return;
        const bodies = new Map<string, { body: string; contentType: string } | null>();
        for (const c of configs) {
          if (!bodies.has(c.version)) bodies.set(c.version, renderJson(c.version, eventJson, snap));
          const b = bodies.get(c.version);
          if (!b) {
            this.report({ kind: "skipped", owner, taskId, configId: c.config.id, why: "0.3 webhooks need a task snapshot" });
            continue;
          }
          this.push(c, b.body, b.contentType);
        }
      })
      .catch((e: unknown) => this.o.logger?.warn({ err: e, taskId }, "push notification could not be queued"));
  }

  /** Queues one prepared notification for one config (what `enqueue` does per config). */
  deliver(config: StoredPushConfig, event: v1_0.StreamResponse, snapshot?: v1_0.Task): boolean {
    if (this.closed) return false;
    const b = render(config.version, event, snapshot);
    if (!b) return false;
    return this.push(config, b.body, b.contentType);
  }

  private push(config: StoredPushConfig, body: string, contentType: string): boolean {
    const ids = { owner: config.owner, taskId: config.config.taskId, configId: config.config.id };
    if (this.closed) {
      this.report({ kind: "dropped", ...ids, why: "closed" });
      return false;
    }
    const key = `${ids.owner}\u0000${ids.taskId}\u0000${ids.configId}`;
    let q = this.queues.get(key);
    if (!q) this.queues.set(key, (q = { key, config, waiting: [], busy: false }));
    else q.config = config; // a re-registered config (new URL, credentials) applies from now on
    // A 0.3 body is the whole task: a newer one supersedes one that has not been tried yet.
    const last = q.waiting[q.waiting.length - 1];
    if (
      this.o.supersede0_3 &&
      policyOf(config.version).pushBodyIsTask &&
      q.busy &&
      q.waiting.length > 1 &&
      last?.contentType === contentType
    ) {
      q.waiting[q.waiting.length - 1] = { body, contentType, attempts: 0 };
      this.report({ kind: "superseded", ...ids });
      return true;
    }
    // The head of `waiting` is being tried (or waits for its retry): only later ones may be dropped.
    if (q.waiting.length >= this.o.maxQueuePerConfig) {
      const start = q.busy ? 1 : 0;
      if (q.waiting.length <= start) {
        this.report({ kind: "dropped", ...ids, why: "queue-full" });
        return false;
      }
      q.waiting.splice(start, 1);
      this.total--;
      this.report({ kind: "dropped", ...ids, why: "queue-full" });
    } else if (this.total >= this.o.maxQueueTotal) {
      this.report({ kind: "dropped", ...ids, why: "total-queue-full" });
      return false;
    }
    q.waiting.push({ body, contentType, attempts: 0 });
    this.total++;
    if (!q.busy) this.schedule(q);
    return true;
  }

  private schedule(q: ConfigQueue): void {
    q.busy = true;
    this.ready.push(q);
    this.pump();
  }

  private pump(): void {
    while (this.active < this.o.concurrency && this.ready.length && !this.closed) {
      const q = this.ready.shift()!;
      this.active++;
      void this.attempt(q).finally(() => {
        this.active--;
        this.pump();
        this.checkIdle();
      });
    }
  }

  private async attempt(q: ConfigQueue): Promise<void> {
    const n = q.waiting[0];
    if (!n) {
      q.busy = false;
      this.queues.delete(q.key);
      return;
    }
    n.attempts++;
    const c = q.config;
    const ids = { owner: c.owner, taskId: c.config.taskId, configId: c.config.id };
    let error: string;
    let retry: boolean;
    try {
      const status = await this.post(c, n);
      if (this.closed) return;
      if (status >= 200 && status < 300) {
        this.report({ kind: "delivered", ...ids, attempts: n.attempts, status });
        return this.next(q);
      }
      error = `HTTP ${status}`;
      retry = status >= 500 || status === 408 || status === 429;
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
      // A refused URL stays refused; a name that did not resolve may resolve later.
      retry = !(e instanceof WebhookUrlError) || e.reason === "unresolvable";
    }
    if (this.closed) return;
    if (!retry || n.attempts >= this.o.maxAttempts) {
      this.report({ kind: "failed", ...ids, attempts: n.attempts, error });
      return this.next(q);
    }
    const base = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** (n.attempts - 1));
    const delayMs = Math.round(base * (0.8 + Math.random() * 0.4));
    this.report({ kind: "retrying", ...ids, attempt: n.attempts, delayMs, error });
    q.timer = setTimeout(() => {
      q.timer = undefined;
      this.ready.push(q);
      this.pump();
    }, delayMs);
    q.timer.unref?.();
  }

  private next(q: ConfigQueue): void {
    q.waiting.shift();
    this.total--;
    if (q.waiting.length) this.ready.push(q);
    else {
      q.busy = false;
      this.queues.delete(q.key);
    }
  }

  private async post(c: StoredPushConfig, n: Notification): Promise<number> {
    const checked = await checkWebhookUrl(c.config.url, { allow: this.o.allow, lookup: this.o.lookup });
    const headers: Record<string, string> = {
      "content-type": n.contentType,
      "content-length": String(Buffer.byteLength(n.body)),
      "user-agent": USER_AGENT,
    };
    if (c.config.token) headers["x-a2a-notification-token"] = c.config.token;
    const auth = c.config.authentication;
    if (auth?.scheme && auth.credentials) headers.authorization = `${auth.scheme} ${auth.credentials}`;
    const u = checked.url;
    const mod = u.protocol === "https:" ? https : http;
    return new Promise<number>((resolve, reject) => {
      const agent = u.protocol === "https:" ? this.agents.https : this.agents.http;
      const req = mod.request(u, { method: "POST", headers, lookup: pinnedLookup(checked), agent }, (res) => {
        // The status is the answer. The body is drained (so the connection can be reused) but never
        // waited for: past 64 KiB, or past the deadline, the connection is dropped instead.
        resolve(res.statusCode ?? 0);
        let bytes = 0;
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > 65_536) res.destroy();
        });
        res.on("end", () => clearTimeout(deadline));
        res.on("error", () => {});
      });
      // One deadline for the whole exchange (connect, send, status line), not an idle timeout.
      const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
      this.inflight.add(req);
      req.on("close", () => {
        clearTimeout(deadline);
        this.inflight.delete(req);
      });
      req.on("error", reject);
      req.end(n.body);
    });
  }

  private report(o: PushOutcome): void {
    if (o.kind === "failed" || o.kind === "dropped")
      this.o.logger?.warn({ push: o }, `push notification ${o.kind} for task ${o.taskId} (config ${o.configId})`);
    try {
      this.o.onOutcome?.(o);
    } catch {
      // an observer's bug must not stop delivery
    }
  }

  private checkIdle(): void {
    if (this.active || this.total) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  /** Resolves when every queued notification has been delivered, failed or dropped. */
  async idle(): Promise<void> {
    await this.intake;
    if (!this.active && !this.total) return;
    await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /** Stops delivery: pending retries are dropped and requests in flight are aborted. */
  async close(): Promise<void> {
    this.closed = true;
    await this.intake.catch(() => {});
    for (const q of this.queues.values()) {
      if (q.timer) clearTimeout(q.timer);
      for (let i = 0; i < q.waiting.length; i++)
        this.report({
          kind: "dropped",
          owner: q.config.owner,
          taskId: q.config.config.taskId,
          configId: q.config.config.id,
          why: "closed",
        });
    }
    this.queues.clear();
    this.ready.length = 0;
    this.total = 0;
    for (const r of this.inflight) r.destroy(new Error("push delivery closed"));
    this.agents.http.destroy();
    this.agents.https.destroy();
    this.checkIdle();
  }
}

/** The webhook body and content type for a config of `version`; null when a 0.3 body cannot be made. */
export function render(
  version: StoredPushConfig["version"],
  event: v1_0.StreamResponse,
  snapshot?: v1_0.Task,
): { body: string; contentType: string } | null {
  return renderJson(
    version,
    encode(v1_0.StreamResponseSchema, event, { alwaysEmit: v1_0.alwaysEmit }) as v1_0.StreamResponseJson,
    snapshot,
  );
}

function renderJson(
  version: StoredPushConfig["version"],
  json: v1_0.StreamResponseJson,
  snapshot?: v1_0.Task,
): { body: string; contentType: string } | null {
  const policy = policyOf(version);
  // Only a body that is the task needs the snapshot encoded.
  const snap =
    snapshot && policy.pushBodyIsTask ? (encode(v1_0.TaskSchema, snapshot, { alwaysEmit: v1_0.alwaysEmit }) as v1_0.TaskJson) : undefined;
  return policy.pushBody(json, snap);
}

function shallowTask(t: v1_0.Task): v1_0.Task {
  return { ...t, history: [...t.history], artifacts: t.artifacts.map((a) => ({ ...a, parts: [...a.parts] })) };
}
