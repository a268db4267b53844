// The reference A2A server: `buildServer(options)` for a ready fastify app, `a2aPlugin` to mount
// the same into an existing fastify app (with a prefix), `a2aRequestListener` / `createA2AHttpServer`
// for node:http, `createFront` and `A2AHandler` for other frameworks and handlers, and the agent
// programming model.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { a2aPlugin, type A2APluginOptions } from "./adapters/fastify.js";
import { a2aServerOptions, limitConnectionsPerAddress, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, type HttpLimitOptions } from "./http-limits.js";

export * from "./agent.js";
/** The 1.0 protocol types (TaskState, Role, Message …) agents work with. */
export * as v1_0 from "../../generated/v1_0/index.js";
export { toPart, toParts, firstText, type PartInit } from "./parts.js";
export { MemoryTaskStore, type TaskStore, type TaskQuery, type TaskPage, type MemoryTaskStoreOptions } from "./store.js";
export { TaskRuntime, type CallContext, type RuntimeOptions } from "./runtime.js";
export { createFixtureAgent } from "./fixture-agent.js";
export { a2aPlugin, type A2APluginOptions, type A2AHandlerPluginOptions } from "./adapters/fastify.js";
export {
  a2aRequestListener,
  createA2AHttpServer,
  type A2ARequestListener,
  type A2ARequestListenerOptions,
  type A2AHandlerListenerOptions,
} from "./adapters/node-http.js";
export {
  createFront,
  type A2AFrontOptions,
  type A2AServeOptions,
  type A2AHandlerServeOptions,
  type Front,
  type FrontRequest,
  type FrontStream,
} from "./front.js";
export type { A2AHandler, HandlerContext, EventStream } from "./handler.js";
export { buildCard } from "./card.js";
export { a2aServerOptions, limitConnectionsPerAddress, type HttpLimitOptions } from "./http-limits.js";

export interface BuildServerOptions extends A2APluginOptions, HttpLimitOptions {
  /** Mount point of the A2A routes (default: the root). */
  prefix?: string;
  /** fastify's logger option (default: off). */
  logger?: FastifyServerOptions["logger"];
}

/** A fastify app serving `agent` over A2A 1.0 and 0.3, JSON-RPC and HTTP+JSON; call `listen` on it. */
export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  const { prefix, logger, headersTimeoutMs, idleTimeoutMs, maxConnectionsPerAddress, ...plugin } = options;
  const app = a2aFastify({ prefix, logger, headersTimeoutMs, idleTimeoutMs, maxConnectionsPerAddress, ...plugin });
  await app.register(a2aPlugin, { ...plugin, prefix: prefix ?? "" });
  return app;
}

/** A fastify app with a2aServerOptions and the per-address connection limit (buildServer, buildGateway). */
export function a2aFastify(
  opts: HttpLimitOptions & Pick<BuildServerOptions, "prefix" | "logger" | "versions" | "bodyLimit">,
): FastifyInstance {
  const app = Fastify({ logger: opts.logger ?? false, ...a2aServerOptions(opts) });
  limitConnectionsPerAddress(app.server, Math.max(1, Math.floor(opts.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS)));
  return app;
}
