// The reference A2A server: `buildServer(options)` for a ready fastify app, `a2aPlugin` to mount
// the same into an existing fastify app (with a prefix), `a2aRequestListener` / `createA2AHttpServer`
// for node:http, `createFront` and `A2AHandler` for other frameworks and handlers, and the agent
// programming model.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { a2aPlugin, type A2APluginOptions } from "./adapters/fastify.js";
import { a2aGrpcHandler, type A2AGrpcHandlerOptions } from "./adapters/grpc.js";
import { shareWithGrpc } from "./adapters/shared-port.js";
import { TaskRuntime } from "./engine/runtime.js";
import { StreamBudget } from "./front/stream-budget.js";
import type { A2AFrontOptions } from "./front/front.js";
import {
  a2aServerOptions,
  limitConnectionsPerAddress,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  type HttpLimitOptions,
} from "./front/http-limits.js";

export * from "./engine/agent.js";
/** The 1.0 protocol types (TaskState, Role, Message …) agents work with. */
export * as v1_0 from "../../generated/v1_0/index.js";
export { toPart, toParts, firstText, type PartInit } from "./engine/parts.js";
export { MemoryTaskStore, type TaskStore, type TaskQuery, type TaskPage, type MemoryTaskStoreOptions } from "./store/store.js";
export { TaskRuntime, type CallContext, type RuntimeOptions } from "./engine/runtime.js";
export { createFixtureAgent } from "./fixture/fixture-agent.js";
export { a2aPlugin, type A2APluginOptions, type A2AHandlerPluginOptions } from "./adapters/fastify.js";
export {
  a2aRequestListener,
  createA2AHttpServer,
  type A2ARequestListener,
  type A2ARequestListenerOptions,
  type A2AHandlerListenerOptions,
} from "./adapters/node-http.js";
export { a2aGrpcHandler, type A2AGrpcHandler, type A2AGrpcHandlerOptions, type GrpcRequest } from "./adapters/grpc.js";
export { shareWithGrpc, type SharedPort } from "./adapters/shared-port.js";
export {
  createFront,
  type A2AFrontOptions,
  type A2AServeOptions,
  type A2AHandlerServeOptions,
  type Front,
  type FrontRequest,
  type FrontStream,
} from "./front/front.js";
export type { A2AHandler, HandlerContext, EventStream } from "./engine/handler.js";
export { buildCard } from "./front/card.js";
export { StreamBudget, DEFAULT_STREAM_BUDGET, type StreamBudgetOptions } from "./front/stream-budget.js";
export { a2aServerOptions, limitConnectionsPerAddress, type HttpLimitOptions } from "./front/http-limits.js";

export interface BuildServerOptions extends A2APluginOptions, HttpLimitOptions {
  /** Mount point of the A2A routes (default: the root). */
  prefix?: string;
  /** fastify's logger option (default: off). */
  logger?: FastifyServerOptions["logger"];
  /**
   * Serve gRPC (both A2A services, adapters/grpc.ts) on the same port: HTTP/2 connections (the
   * cleartext preface, or ALPN h2 with `tls`) go to the gRPC handler, over the same handler. `true`
   * lists GRPC interfaces at the port's `host:port`; a string is another `host:port` to list.
   */
  grpc?: true | string;
  /** Serve TLS with this PEM key and certificate (HTTP/1.1 and, with `grpc`, h2 by ALPN). */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

/** A fastify app serving `agent` over A2A 1.0 and 0.3, JSON-RPC and HTTP+JSON; call `listen` on it. */
export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  const {
    prefix,
    logger,
    headersTimeoutMs,
    idleTimeoutMs,
    maxConnectionsPerAddress,
    tls,
    http2PingIntervalMs,
    http2PingTimeoutMs,
    ...plugin
  } = options;
  const app = a2aFastify({ prefix, logger, headersTimeoutMs, idleTimeoutMs, maxConnectionsPerAddress, tls, ...plugin });
  if (!plugin.grpc) {
    await app.register(a2aPlugin, { ...plugin, prefix: prefix ?? "" });
    return app;
  }
  if (plugin.authenticate && !plugin.authenticators?.length)
    throw new Error("buildServer: grpc needs `authenticators`; the `authenticate` hook takes a fastify request, which gRPC calls have not");
  // One handler behind both fronts (the plugin's and the gRPC handler's): the same tasks on every binding.
  // One runtime and one stream budget (stream-budget.ts) behind both fronts.
  const runtime = plugin.runtime ?? new TaskRuntime(plugin);
  const streamBudget = sharedStreamBudget(plugin);
  await app.register(a2aPlugin, { ...plugin, runtime, streamBudget, prefix: prefix ?? "" });
  if (!plugin.runtime) app.addHook("preClose", () => runtime.close());
  attachGrpc(
    app,
    { ...plugin, authenticate: undefined, runtime, streamBudget, prefix: prefix ?? "" },
    { http2PingIntervalMs, http2PingTimeoutMs },
  );
  return app;
}

/**
 * Serves gRPC on a fastify app's port (adapters/shared-port.ts) over `runtime`, the handler its
 * A2A routes serve (buildServer, buildGateway); its HTTP/2 sessions end when the app closes.
 */
export function attachGrpc(
  app: FastifyInstance,
  options: A2AGrpcHandlerOptions,
  limits: Pick<HttpLimitOptions, "http2PingIntervalMs" | "http2PingTimeoutMs"> = {},
): void {
  const port = shareWithGrpc(app.server, a2aGrpcHandler(options), {
    bodyTimeoutMs: options.bodyTimeoutMs,
    pingIntervalMs: limits.http2PingIntervalMs,
    pingTimeoutMs: limits.http2PingTimeoutMs,
  });
  app.addHook("preClose", () => port.close());
}

/** The stream budget the options give, or one made from their limits: what the HTTP and gRPC fronts of one app share. */
export function sharedStreamBudget(
  opts: Pick<A2AFrontOptions<never>, "streamBudget" | "maxStreamBufferBytes" | "maxStreamBufferBytesPerStream">,
): StreamBudget {
  return (
    opts.streamBudget ?? new StreamBudget({ maxBytes: opts.maxStreamBufferBytes, maxBytesPerStream: opts.maxStreamBufferBytesPerStream })
  );
}

/** A fastify app with a2aServerOptions and the per-address connection limit (buildServer, buildGateway). */
export function a2aFastify(
  opts: HttpLimitOptions & Pick<BuildServerOptions, "prefix" | "logger" | "versions" | "bodyLimit" | "tls" | "grpc">,
): FastifyInstance {
  const base = a2aServerOptions(opts);
  const https = opts.tls && {
    ...base.http,
    key: opts.tls.key,
    cert: opts.tls.cert,
    ALPNProtocols: opts.grpc ? ["h2", "http/1.1"] : ["http/1.1"],
  };
  // fastify's types tell https servers from http ones; the routes and hooks are the same.
  const app = Fastify({ logger: opts.logger ?? false, ...base, ...(https ? { https } : {}) } as never) as unknown as FastifyInstance;
  limitConnectionsPerAddress(app.server, Math.max(1, Math.floor(opts.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS)));
  return app;
}
