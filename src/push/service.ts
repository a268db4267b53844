// The four push-notification config operations (A2A 1.0 §3.1.7–3.1.10; a2a-wire.md §2.10, rules
// S-40..S-43) over a PushConfigStore, in 1.0 types, for the runtime to delegate to.
//
// - Create: the task must exist and belong to the caller (else TaskNotFound, never a hint); the URL
//   must pass the SSRF guard (else InvalidParams naming `url`); an empty id gets a UUID; an existing
//   id is replaced; at most `maxConfigsPerTask` configs per task (default 10, InvalidParams beyond).
//   The config remembers the wire version of the request (the webhook body's shape).
// - Get: TaskNotFound for an unknown task or config id (S-42).
// - List: the task's configs in creation order, `pageSize` 1..100 (0 = 100), an opaque `pageToken`,
//   `nextPageToken` "" on the last page.
// - Delete: removes it; deleting a config that is not there succeeds too (idempotent, S-43), but the
//   task must still be the caller's.
// `registerFromSend` handles SendMessage's `configuration.taskPushNotificationConfig` the same way
// once the task exists.
import { create } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError, invalidParams } from "../versioning/errors.js";
import type { PushConfigStore, PushWireVersion } from "./config-store.js";
import { checkWebhookUrl, WebhookUrlError, type WebhookUrlPolicy } from "./ssrf.js";

export interface PushCallContext {
  principal: string;
  /** Wire version of the request ("1.0" | "0.3"). */
  version: string;
}

export interface PushConfigServiceOptions {
  configs: PushConfigStore;
  /** Whether the task exists and belongs to `owner` (e.g. `(o, id) => store.get(o, id).then(Boolean)`). */
  taskExists: (owner: string, taskId: string) => Promise<boolean>;
  /** SSRF policy for registration (the same `allow` as the PushDelivery's). */
  ssrf?: WebhookUrlPolicy;
  maxConfigsPerTask?: number;
}

const MAX_PAGE = 100;

function notFound(what: string, id: string): A2AError {
  return new A2AError("TaskNotFoundError", `${what} ${id} was not found`, what === "Task" ? { taskId: id } : {});
}

function wireVersion(v: string): PushWireVersion {
  return v === "0.3" ? "0.3" : "1.0";
}

export class PushConfigService {
  private readonly maxPerTask: number;

  constructor(private readonly o: PushConfigServiceOptions) {
    this.maxPerTask = Math.max(1, Math.floor(o.maxConfigsPerTask ?? 10));
  }

  private async requireTask(ctx: PushCallContext, taskId: string): Promise<void> {
    if (!taskId) throw invalidParams("taskId", "is required");
    if (!(await this.o.taskExists(ctx.principal, taskId))) throw notFound("Task", taskId);
  }

  private async checkUrl(url: string): Promise<void> {
    if (!url) throw invalidParams("url", "is required");
    try {
      await checkWebhookUrl(url, this.o.ssrf);
    } catch (e) {
      if (e instanceof WebhookUrlError) throw invalidParams("url", e.message);
      throw e;
    }
  }

  async create(req: v1_0.TaskPushNotificationConfig, ctx: PushCallContext): Promise<v1_0.TaskPushNotificationConfig> {
    await this.requireTask(ctx, req.taskId);
    return this.store(req, ctx);
  }

  /** SendMessage's `configuration.taskPushNotificationConfig`, once `taskId` exists. */
  async registerFromSend(
    taskId: string,
    config: v1_0.TaskPushNotificationConfig,
    ctx: PushCallContext,
  ): Promise<v1_0.TaskPushNotificationConfig> {
    return this.store({ ...config, taskId }, ctx);
  }

  /** Checks a SendMessage's config before the task is created (so a bad URL creates no task). */
  async precheck(config: v1_0.TaskPushNotificationConfig): Promise<void> {
    await this.checkUrl(config.url);
  }

  private async store(req: v1_0.TaskPushNotificationConfig, ctx: PushCallContext): Promise<v1_0.TaskPushNotificationConfig> {
    await this.checkUrl(req.url);
    const existing = await this.o.configs.list(ctx.principal, req.taskId);
    if (existing.length >= this.maxPerTask && !existing.some((c) => req.id && c.config.id === req.id))
      throw invalidParams("taskId", `a task may have at most ${this.maxPerTask} push notification configs`);
    const stored = await this.o.configs.create(ctx.principal, req, wireVersion(ctx.version));
    return stored.config;
  }

  async get(req: v1_0.GetTaskPushNotificationConfigRequest, ctx: PushCallContext): Promise<v1_0.TaskPushNotificationConfig> {
    await this.requireTask(ctx, req.taskId);
    const c = await this.o.configs.get(ctx.principal, req.taskId, req.id);
    if (!c) throw notFound("Push notification config", req.id);
    return c.config;
  }

  async list(
    req: v1_0.ListTaskPushNotificationConfigsRequest,
    ctx: PushCallContext,
  ): Promise<v1_0.ListTaskPushNotificationConfigsResponse> {
    await this.requireTask(ctx, req.taskId);
    if (req.pageSize < 0 || req.pageSize > MAX_PAGE) throw invalidParams("pageSize", `must be between 1 and ${MAX_PAGE}`);
    const size = req.pageSize || MAX_PAGE;
    let start = 0;
    if (req.pageToken) {
      const m = /^o(\d{1,9})$/.exec(Buffer.from(req.pageToken, "base64url").toString("latin1"));
      if (!m) throw invalidParams("pageToken", "is not a token this server issued");
      start = Number(m[1]);
    }
    const all = await this.o.configs.list(ctx.principal, req.taskId);
    const page = all.slice(start, start + size);
    const more = start + size < all.length;
    return create(v1_0.ListTaskPushNotificationConfigsResponseSchema, {
      configs: page.map((c) => c.config),
      nextPageToken: more ? Buffer.from(`o${start + size}`, "latin1").toString("base64url") : "",
    });
  }

  async delete(req: v1_0.DeleteTaskPushNotificationConfigRequest, ctx: PushCallContext): Promise<void> {
    await this.requireTask(ctx, req.taskId);
    if (!req.id) throw invalidParams("id", "is required");
    await this.o.configs.delete(ctx.principal, req.taskId, req.id);
  }
}
