// The push-notification configs of the reference server's TaskRuntime (runtime.ts): registration
// (the webhook URL's SSRF check, at most maxPushConfigsPerTask configs per task), reads, paged
// lists and deletes over the PushConfigStore, and which tasks may have webhooks (only their events
// are handed to PushDelivery). The runtime checks that the task exists and is the caller's first.
import { create } from "@bufbuild/protobuf";
import * as v1_0 from "../../../generated/v1_0/index.js";
import type { PushConfigStore, PushWireVersion } from "../../push/config-store.js";
import type { PushDeliveryOptions } from "../../push/delivery.js";
import { checkWebhookRegistration, WebhookUrlError } from "../../push/ssrf.js";
import { A2AError, invalidParams } from "../../versioning/errors.js";

interface PushRegistryOptions {
  maxPerTask: number;
  /** The SSRF allow-list and lookup of webhook URLs (src/push/delivery.ts options). */
  push: Pick<PushDeliveryOptions, "allow" | "lookup">;
  logger: { warn(obj: unknown, msg?: string): void };
}

/** Tasks remembered as having webhooks, at most (the oldest forgotten first). */
const MAX_WATCHED = 100_000;

export class PushRegistry {
  /** Tasks that may have webhooks (bounded, oldest dropped). */
  private readonly watched = new Set<string>();

  constructor(
    readonly configs: PushConfigStore,
    private readonly opts: PushRegistryOptions,
  ) {}

  /** True when the task may have webhooks: its events go to PushDelivery. */
  watches(taskId: string): boolean {
    return this.watched.has(taskId);
  }

  /**
   * InvalidParams unless the webhook URL passes the SSRF guard at registration (src/push/ssrf.ts).
   * The caller learns only that the URL is not allowed; what its host resolved to goes to the log.
   */
  async checkWebhook(url: string): Promise<void> {
    try {
      await checkWebhookRegistration(url, { allow: this.opts.push.allow, lookup: this.opts.push.lookup });
    } catch (e) {
      if (!(e instanceof WebhookUrlError)) throw e;
      this.opts.logger.warn({ reason: e.reason }, `push config refused: ${e.message}`);
      throw invalidParams("/url", e.publicMessage);
    }
  }

  /** Stores a config (its URL checked already); InvalidParams when its task has maxPerTask others. */
  async register(
    owner: string,
    config: v1_0.TaskPushNotificationConfig,
    version: PushWireVersion,
  ): Promise<v1_0.TaskPushNotificationConfig> {
    await this.checkRoom(owner, config.taskId, config.id);
    const stored = await this.configs.create(owner, config, version);
    this.watched.delete(config.taskId);
    this.watched.add(config.taskId);
    if (this.watched.size > MAX_WATCHED) this.watched.delete(this.watched.values().next().value as string);
    return stored.config;
  }

  /** A config by id; with `emptyIsFirst`, id "" names the task's sole (or first) one. TaskNotFound when none. */
  async get(owner: string, taskId: string, id: string, emptyIsFirst: boolean): Promise<v1_0.TaskPushNotificationConfig> {
    const stored = id === "" && emptyIsFirst ? (await this.configs.list(owner, taskId))[0] : await this.configs.get(owner, taskId, id);
    if (!stored) throw new A2AError("TaskNotFoundError", `Task ${taskId} has no push notification config ${id}`, { taskId, configId: id });
    return stored.config;
  }

  /** One page of the task's configs (pageSize 0: all); the page token is the next index. */
  async list(owner: string, req: v1_0.ListTaskPushNotificationConfigsRequest): Promise<v1_0.ListTaskPushNotificationConfigsResponse> {
    if (req.pageSize < 0) throw invalidParams("/pageSize", "must not be negative");
    const all = (await this.configs.list(owner, req.taskId)).map((s) => s.config);
    let start = 0;
    if (req.pageToken) {
      start = Number.parseInt(Buffer.from(req.pageToken, "base64url").toString("utf8"), 10);
      if (!Number.isInteger(start) || start < 0 || start > all.length)
        throw invalidParams("/pageToken", "is not a page token this server issued");
    }
    const end = req.pageSize > 0 ? Math.min(all.length, start + req.pageSize) : all.length;
    return create(v1_0.ListTaskPushNotificationConfigsResponseSchema, {
      configs: all.slice(start, end),
      nextPageToken: end < all.length ? Buffer.from(String(end)).toString("base64url") : "",
    });
  }

  delete(owner: string, taskId: string, id: string): Promise<boolean> {
    return this.configs.delete(owner, taskId, id);
  }

  /** InvalidParams when storing config `id` would give the task more than maxPerTask configs (replacing one is allowed). */
  private async checkRoom(owner: string, taskId: string, id: string): Promise<void> {
    const existing = await this.configs.list(owner, taskId);
    if (existing.length < this.opts.maxPerTask || (id && existing.some((c) => c.config.id === id))) return;
    throw invalidParams(
      "/id",
      `task ${taskId} already has ${existing.length} push notification configs, the most this server keeps per task; delete one first`,
    );
  }
}
