// Push-notification config storage: the PushConfigStore interface and its in-memory implementation
// (the SQLite one is SqlitePushConfigStore in src/server/store/sqlite-store.ts).
//
// A config belongs to one task and one owner (the principal that registered it); another principal
// never sees it (the runtime answers TaskNotFound). Each config remembers the wire version it was
// registered with, because the webhook body has that version's shape (a2a-wire.md §5.6): a 0.3
// client registered a 0.3 webhook and expects a 0.3 Task body.
//
// Semantics shared by both implementations (test/unit/push-config-store.test.ts runs one suite
// against both):
// - create: an empty `id` gets a fresh UUID; an existing (owner, taskId, id) is replaced (0.3
//   `set` semantics) and keeps its place in the list order. The returned config is the stored one.
// - list: the task's configs in creation order.
// - delete: idempotent; returns whether something was removed.
// - Stored values are snapshots: later changes to the caller's object do not affect the store, and
//   returned objects must not be mutated.
import { randomUUID } from "node:crypto";
import { clone } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { ProtocolVersion } from "../versioning/negotiate.js";

export type PushWireVersion = ProtocolVersion;

export interface StoredPushConfig {
  owner: string;
  /** Wire version of the request that registered the config: the shape of the webhook body. */
  version: PushWireVersion;
  /** `taskId` and `id` are always set. */
  config: v1_0.TaskPushNotificationConfig;
}

export interface PushConfigStore {
  /** Stores `config` (its taskId must be set) for `owner`; assigns an id when it has none. */
  create(owner: string, config: v1_0.TaskPushNotificationConfig, version: PushWireVersion): Promise<StoredPushConfig>;
  get(owner: string, taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  list(owner: string, taskId: string): Promise<StoredPushConfig[]>;
  delete(owner: string, taskId: string, id: string): Promise<boolean>;
  /** Removes every config of the task (e.g. when the task itself is removed). Returns how many. */
  deleteForTask(owner: string, taskId: string): Promise<number>;
  close?(): Promise<void>;
}

/** Validates and completes a config before it is stored: taskId required, id assigned when empty. */
export function prepareConfig(config: v1_0.TaskPushNotificationConfig): v1_0.TaskPushNotificationConfig {
  if (!config.taskId) throw new TypeError("a push notification config needs a taskId");
  const copy = clone(v1_0.TaskPushNotificationConfigSchema, config);
  if (!copy.id) copy.id = randomUUID();
  return copy;
}

export class MemoryPushConfigStore implements PushConfigStore {
  // owner \0 taskId → (config id → stored), Map order = creation order.
  private readonly byTask = new Map<string, Map<string, StoredPushConfig>>();

  private key(owner: string, taskId: string): string {
    return `${owner}\u0000${taskId}`;
  }

  async create(owner: string, config: v1_0.TaskPushNotificationConfig, version: PushWireVersion): Promise<StoredPushConfig> {
    const stored: StoredPushConfig = { owner, version, config: prepareConfig(config) };
    const k = this.key(owner, config.taskId);
    let configs = this.byTask.get(k);
    if (!configs) this.byTask.set(k, (configs = new Map<string, StoredPushConfig>()));
    configs.set(stored.config.id, stored); // replacing keeps the original position
    return stored;
  }

  async get(owner: string, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    return this.byTask.get(this.key(owner, taskId))?.get(id);
  }

  async list(owner: string, taskId: string): Promise<StoredPushConfig[]> {
    return [...(this.byTask.get(this.key(owner, taskId))?.values() ?? [])];
  }

  async delete(owner: string, taskId: string, id: string): Promise<boolean> {
    const k = this.key(owner, taskId);
    const configs = this.byTask.get(k);
    const removed = configs?.delete(id) ?? false;
    if (configs && !configs.size) this.byTask.delete(k);
    return removed;
  }

  async deleteForTask(owner: string, taskId: string): Promise<number> {
    const k = this.key(owner, taskId);
    const n = this.byTask.get(k)?.size ?? 0;
    this.byTask.delete(k);
    return n;
  }
}
