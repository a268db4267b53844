// Push notifications (a2a-wire.md §5.6): webhook configs per task and their delivery.
//
// Delivery: every event of a task (the same StreamResponse a stream subscriber gets) is POSTed to
// each of the task's webhooks, in order, one request at a time per webhook; a network error or a
// 5xx answer is retried (`retries`, default 2, with 250 ms · 2^n back-off); each attempt times
// out after `timeoutMs` (default 10 s). A 1.0-registered webhook gets the StreamResponse as
// `application/a2a+json`; a 0.3-registered one gets the 0.3 body, which is always the Task: it is
// sent on status changes only (a snapshot of the task), as `application/json`. `authentication`
// becomes `Authorization: <scheme> <credentials>`; `token` is sent as `X-A2A-Notification-Token`.
//
// Retention: configs live as long as the runtime keeps them: at most `maxConfigsPerTask` (default
// 10) per task and `maxTasks` (default 10,000) tasks with configs; beyond that the task whose
// configs were set longest ago loses them. Deleting is idempotent.
import { randomUUID } from "node:crypto";
import { create, toJson } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { encode1_0 } from "../versioning/codec.js";
import { A2AError, invalidParams } from "../versioning/errors.js";
import { downgradePushPayload } from "../versioning/rpc0_3.js";
import type { Logger } from "./runtime.js";

export interface PushOptions {
  /** Attempts after the first on a network error or 5xx (default 2). */
  retries?: number;
  /** Per-attempt timeout in ms (default 10,000). */
  timeoutMs?: number;
  /**
   * Whether a webhook URL may be registered (default: any http or https URL). Production servers
   * should refuse private, loopback and link-local addresses here (SSRF, A2A 1.0 §13.2).
   */
  allowUrl?: (url: URL) => boolean;
  maxConfigsPerTask?: number;
  maxTasks?: number;
  fetch?: typeof fetch;
}

interface Hook {
  config: v1_0.TaskPushNotificationConfig;
  /** Wire version of the request that registered it: decides the body shape. */
  version: string;
  queue: Promise<void>;
  pending: number;
}

const MAX_PENDING = 10_000;

export class PushNotifications {
  private readonly hooks = new Map<string, Map<string, Hook>>();
  private readonly retries: number;
  private readonly timeoutMs: number;
  private readonly allowUrl: (url: URL) => boolean;
  private readonly maxPerTask: number;
  private readonly maxTasks: number;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly log: Logger,
    opts: PushOptions = {},
  ) {
    this.retries = opts.retries ?? 2;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.allowUrl = opts.allowUrl ?? ((u) => u.protocol === "http:" || u.protocol === "https:");
    this.maxPerTask = opts.maxConfigsPerTask ?? 10;
    this.maxTasks = opts.maxTasks ?? 10_000;
    this.fetchImpl = opts.fetch ?? fetch;
  }

  has(taskId: string): boolean {
    return this.hooks.has(taskId);
  }

  /** Throws InvalidParams when the config's URL may not be used. */
  check(input: v1_0.TaskPushNotificationConfig): void {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw invalidParams("/url", "is not an absolute URL");
    }
    if (!this.allowUrl(url)) throw invalidParams("/url", "is not an allowed webhook URL");
  }

  /** Creates or replaces (same id) a config of `taskId`; returns it with its id. */
  set(taskId: string, input: v1_0.TaskPushNotificationConfig, version: string): v1_0.TaskPushNotificationConfig {
    this.check(input);
    const config = create(v1_0.TaskPushNotificationConfigSchema, {
      id: input.id || randomUUID(),
      taskId,
      url: input.url,
      token: input.token,
      ...(input.authentication ? { authentication: input.authentication } : {}),
    });
    let forTask = this.hooks.get(taskId);
    if (!forTask) {
      forTask = new Map();
      this.hooks.set(taskId, forTask);
      while (this.hooks.size > this.maxTasks) this.hooks.delete(this.hooks.keys().next().value as string);
    }
    const old = forTask.get(config.id);
    if (!old && forTask.size >= this.maxPerTask)
      throw new A2AError("InvalidParamsError", `Task ${taskId} already has ${this.maxPerTask} push notification configs`);
    forTask.set(config.id, { config, version, queue: old?.queue ?? Promise.resolve(), pending: old?.pending ?? 0 });
    return config;
  }

  get(taskId: string, id: string): v1_0.TaskPushNotificationConfig | undefined {
    return this.hooks.get(taskId)?.get(id)?.config;
  }

  list(taskId: string): v1_0.TaskPushNotificationConfig[] {
    return [...(this.hooks.get(taskId)?.values() ?? [])].map((h) => h.config);
  }

  delete(taskId: string, id: string): void {
    const forTask = this.hooks.get(taskId);
    forTask?.delete(id);
    if (forTask && forTask.size === 0) this.hooks.delete(taskId);
  }

  /** Queues `event` for every webhook of its task. `task` is the task as it is right now. */
  deliver(task: v1_0.Task, event: v1_0.StreamResponse): void {
    const forTask = this.hooks.get(task.id);
    if (!forTask) return;
    let body1_0: string | undefined;
    let body0_3: string | undefined;
    for (const hook of forTask.values()) {
      let body: string | undefined;
      let contentType: string;
      if (hook.version === "0.3") {
        if (event.payload.case !== "statusUpdate" && event.payload.case !== "task") continue;
        body0_3 ??= this.encode0_3(task, event);
        body = body0_3;
        contentType = "application/json";
      } else {
        body1_0 ??= JSON.stringify(encode1_0(v1_0.StreamResponseSchema, event));
        body = body1_0;
        contentType = "application/a2a+json";
      }
      if (body === undefined) continue;
      if (hook.pending >= MAX_PENDING) {
        this.log.warn({ taskId: task.id, url: hook.config.url }, "webhook is too far behind; event dropped");
        continue;
      }
      hook.pending++;
      const send = body;
      hook.queue = hook.queue
        .then(() => this.post(hook.config, send, contentType))
        .finally(() => {
          hook.pending--;
        });
    }
  }

  private encode0_3(task: v1_0.Task, event: v1_0.StreamResponse): string | undefined {
    try {
      const json = encode1_0(v1_0.StreamResponseSchema, event) as v1_0.StreamResponseJson;
      const snapshot = toJson(v1_0.TaskSchema, task) as v1_0.TaskJson;
      const down = downgradePushPayload(json, snapshot).value;
      return down === undefined ? undefined : JSON.stringify(down);
    } catch (err) {
      this.log.error({ err, taskId: task.id }, "could not encode a 0.3 webhook body");
      return undefined;
    }
  }

  private async post(config: v1_0.TaskPushNotificationConfig, body: string, contentType: string): Promise<void> {
    const headers: Record<string, string> = { "content-type": contentType };
    if (config.authentication?.scheme)
      headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`.trim();
    if (config.token) headers["x-a2a-notification-token"] = config.token;
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.fetchImpl(config.url, { method: "POST", headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
        await res.arrayBuffer().catch(() => undefined);
        if (res.status < 500) {
          if (res.status >= 300)
            this.log.warn({ url: config.url, status: res.status, taskId: config.taskId }, "webhook refused a notification");
          return;
        }
        if (attempt >= this.retries) {
          this.log.warn({ url: config.url, status: res.status, taskId: config.taskId }, "webhook failed; giving up");
          return;
        }
      } catch (err) {
        if (attempt >= this.retries) {
          this.log.warn({ err, url: config.url, taskId: config.taskId }, "webhook unreachable; giving up");
          return;
        }
      }
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  }

  /** Resolves when every queued notification has been attempted. */
  async idle(): Promise<void> {
    await Promise.all([...this.hooks.values()].flatMap((m) => [...m.values()].map((h) => h.queue)));
  }
}
