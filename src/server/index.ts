// The reference A2A server: `buildServer(options)` for a ready fastify app, `a2aPlugin` to mount
// the same into an existing fastify app (with a prefix), and the agent programming model.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { a2aPlugin, type A2APluginOptions } from "./plugin.js";

export * from "./agent.js";
/** The 1.0 protocol types (TaskState, Role, Message …) agents work with. */
export * as v1_0 from "../../generated/v1_0/index.js";
export { toPart, toParts, firstText, type PartInit } from "./parts.js";
export { MemoryTaskStore, type TaskStore, type TaskQuery, type TaskPage, type MemoryTaskStoreOptions } from "./store.js";
export { TaskRuntime, type CallContext, type RuntimeOptions } from "./runtime.js";
export { createFixtureAgent } from "./fixture-agent.js";
export { a2aPlugin, type A2APluginOptions } from "./plugin.js";
export { buildCard } from "./card.js";

export interface BuildServerOptions extends A2APluginOptions {
  /** Mount point of the A2A routes (default: the root). */
  prefix?: string;
  /** fastify's logger option (default: off). */
  logger?: FastifyServerOptions["logger"];
}

/** A fastify app serving `agent` over A2A 1.0 and 0.3, JSON-RPC and HTTP+JSON; call `listen` on it. */
export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  const { prefix, logger, ...plugin } = options;
  const app = Fastify({ logger: logger ?? false, bodyLimit: plugin.bodyLimit ?? 1024 * 1024, forceCloseConnections: true });
  await app.register(a2aPlugin, { ...plugin, prefix: prefix ?? "" });
  return app;
}
