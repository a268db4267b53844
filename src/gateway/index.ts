// The translating gateway: one A2A endpoint (1.0 and 0.3, JSON-RPC and HTTP+JSON) in front of
// several backend agents, each spoken to in its own version and binding.
//
//   createGateway(config, options)  reads the backends' cards, builds the gateway's card and runtime
//   gatewayPlugin                   fastify plugin: the reference server's routes over that runtime
//   buildGateway(options)           a ready fastify app; call `listen` on it
//
// The gateway card's skills are the backends' skills, their ids prefixed with the backend's name
// (`weather/forecast`); a backend whose card is unreadable or lists no skills is published as one
// skill whose id is its `skill` setting, else its name. Every skill carries the tag
// `agent_id:<backend name>`. Callers route with `message.metadata.agent_id` (see runtime.ts).
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type * as v1_0 from "../../generated/v1_0/index.js";
import type { Agent, AgentCardInit } from "../server/engine/agent.js";
import { a2aPlugin, type A2APluginOptions } from "../server/plugin.js";
import { a2aFastify, attachGrpc, sharedStreamBudget } from "../server/index.js";
import type { HttpLimitOptions } from "../server/front/http-limits.js";
import type { Logger } from "../server/engine/runtime.js";
import type { TurnCoordinator } from "../server/engine/coordinator.js";
import type { TaskStore } from "../server/store/store.js";
import { Backend } from "./backends.js";
import { checkConfig, type GatewayConfig } from "./config.js";
import { createHttpFetch, type HttpFetchOptions } from "./http-fetch.js";
import { GatewayRuntime } from "./runtime.js";

export * from "./config.js";
export { Backend } from "./backends.js";
export {
  GatewayRuntime,
  BACKEND_FAILURE,
  RESUME_FAILURE,
  META_BACKEND,
  META_REMOTE_CONTEXT,
  META_REMOTE_TASK,
  META_CALLER_TIMEOUT,
} from "./runtime.js";

export interface GatewayOptions {
  store?: TaskStore;
  /** Replicas on one PostgreSQL store acting as one gateway (GatewayRuntimeOptions.coordinator). */
  coordinator?: TurnCoordinator;
  logger?: Logger;
  /** fetch used to reach the backends (default: a keep-alive fetch over node:http, http-fetch.ts). */
  fetch?: typeof fetch;
  /**
   * Bytes the default fetch reads of a backend's answer (http-fetch.ts; not applied to an own `fetch`):
   * `maxAnswerBytes` of a whole answer, `maxEventBytes` of one stream event, `maxStreamBytes` of a
   * stream (16 MiB, 16 MiB, 256 MiB). Past one, the task ends FAILED naming the limit, and the
   * backend is asked to cancel its task when its id is known.
   */
  backendLimits?: Pick<HttpFetchOptions, "maxAnswerBytes" | "maxEventBytes" | "maxStreamBytes">;
  /** Longest wait for one backend's card, per attempt (default 5,000 ms; then it is retried in the background). */
  discoveryTimeoutMs?: number;
  /** How long createGateway waits for the backends' cards before it returns (default 250 ms). */
  startWaitMs?: number;
  /** Per task, as on the reference server: history bytes (oldest messages dropped) and artifact bytes (the task fails); 4 MiB each. */
  maxHistoryBytes?: number;
  maxArtifactBytes?: number;
}

export const DEFAULT_START_WAIT_MS = 250;

/** What the gateway declares of itself: its card (read again as late backends are discovered). */
export type GatewayAgent = Pick<Agent, "card">;

export interface Gateway {
  readonly config: GatewayConfig;
  readonly agent: GatewayAgent;
  readonly runtime: GatewayRuntime;
  readonly backends: readonly Backend[];
  close(): Promise<void>;
}

/**
 * Builds the gateway after waiting at most `startWaitMs` for the backends' cards. A backend whose
 * card has not been read by then (down, slow, hanging) is published with its configured
 * description, logged, and discovered in the background (each attempt bounded by
 * `discoveryTimeoutMs`, retried with back-off); until then a message for it gets the generic
 * failure at once. When its card arrives, its skills join the gateway's card and routes.
 */
export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const checked = checkConfig(config);
  const log = options.logger ?? {
    error: (o: unknown, m?: string) => console.error(m ?? "", o),
    warn: (o: unknown, m?: string) => console.warn(m ?? "", o),
  };
  // Node 20's fetch costs ~1 ms of CPU per call; the gateway's own keep-alive fetch a fraction of it.
  const ownFetch = options.fetch ? undefined : createHttpFetch(options.backendLimits);
  const backends = checked.backends.map((b) => new Backend(b, checked.timeoutMs, options.fetch ?? ownFetch, options.discoveryTimeoutMs));
  const reads = backends.map((b) =>
    b
      .client()
      .catch((err: unknown) =>
        log.warn({ err, backend: b.name, url: b.config.url }, "backend card not readable yet; retrying in the background"),
      ),
  );
  let waited: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(reads),
    new Promise((done) => (waited = setTimeout(done, Math.max(0, options.startWaitMs ?? DEFAULT_START_WAIT_MS)))),
  ]);
  clearTimeout(waited);

  let card = gatewayCard(checked, backends);
  // Only the card: the gateway forwards messages, it calls no agent.
  const agent: GatewayAgent = {
    get card() {
      return card;
    },
  };
  const runtime = new GatewayRuntime({
    agent,
    backends,
    defaultBackend: checked.default,
    store: options.store,
    coordinator: options.coordinator,
    logger: log,
    maxHistoryBytes: options.maxHistoryBytes,
    maxArtifactBytes: options.maxArtifactBytes,
  });
  const publish = (b: Backend) => {
    for (const s of skillsOf(b)) runtime.addRoute(s.skill.id!, s.backend);
  };
  for (const b of backends) {
    publish(b);
    // A card read later (background discovery): its skills are published from then on.
    b.onConnected = (late) => {
      publish(late);
      card = gatewayCard(checked, backends);
    };
  }
  return {
    config: checked,
    agent,
    runtime,
    backends,
    close: async () => {
      for (const b of backends) b.close();
      await runtime.close();
      ownFetch?.close();
    },
  };
}

/** The gateway's card: the backends' skills (as read so far), extensions and modes. */
function gatewayCard(checked: GatewayConfig, backends: readonly Backend[]): AgentCardInit {
  const skills = backends.flatMap((b) => skillsOf(b));
  // The backends' extensions, declared as optional: a caller that activates one gets it forwarded
  // to a backend that declares it (one backend's required extension cannot bind the others).
  const extensions: v1_0.AgentExtensionJson[] = [];
  for (const b of backends)
    for (const e of b.card?.capabilities?.extensions ?? [])
      if (e.uri && !extensions.some((x) => x.uri === e.uri))
        extensions.push({
          uri: e.uri,
          ...(e.description ? { description: e.description } : {}),
          ...(e.params ? { params: e.params } : {}),
        });
  return {
    name: checked.name ?? "A2A gateway",
    description: checked.description ?? `Routes messages to ${backends.map((b) => b.name).join(", ")} by metadata.agent_id`,
    version: "1.0.0",
    capabilities: { streaming: true, ...(extensions.length ? { extensions } : {}) },
    defaultInputModes: union(backends.map((b) => b.card?.defaultInputModes)) ?? ["text/plain"],
    defaultOutputModes: union(backends.map((b) => b.card?.defaultOutputModes)) ?? ["text/plain"],
    skills: skills.map((s) => s.skill),
  };
}

function skillsOf(b: Backend): { skill: v1_0.AgentSkillJson; backend: Backend }[] {
  const tags = [`agent_id:${b.name}`, ...(b.config.keywords ?? [])];
  const remote = b.card?.skills ?? [];
  if (!remote.length)
    return [
      {
        backend: b,
        skill: {
          id: b.config.skill ?? b.name,
          name: b.card?.name || b.name,
          description: b.config.description ?? (b.card?.description || `The agent ${b.name}`),
          tags,
        },
      },
    ];
  return remote.map((s) => ({
    backend: b,
    skill: {
      id: `${b.name}/${s.id}`,
      name: s.name,
      description: b.config.description ? `${b.config.description}: ${s.description}` : s.description,
      tags: [...tags, ...s.tags],
      ...(s.examples.length ? { examples: s.examples } : {}),
      ...(s.inputModes.length ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes.length ? { outputModes: s.outputModes } : {}),
    },
  }));
}

function union(lists: (readonly string[] | undefined)[]): string[] | undefined {
  const all = [...new Set(lists.flatMap((l) => l ?? []))];
  return all.length ? all : undefined;
}

export interface GatewayPluginOptions extends Omit<
  A2APluginOptions,
  "agent" | "runtime" | "store" | "taskTimeoutMs" | "push" | "pushConfigs"
> {
  /** A gateway made with createGateway, or a configuration to make one from. */
  gateway: Gateway | GatewayConfig;
  /** With a configuration: where the gateway's tasks live (default in memory). */
  store?: TaskStore;
  fetch?: typeof fetch;
  /** With a configuration: GatewayOptions.backendLimits. */
  backendLimits?: GatewayOptions["backendLimits"];
}

/** Mounts the gateway's A2A routes (the reference server's) into a fastify app. */
export async function gatewayPlugin(app: FastifyInstance, opts: GatewayPluginOptions): Promise<void> {
  const { gateway: given, store, fetch: fetchImpl, backendLimits, ...plugin } = opts;
  const gateway =
    "runtime" in given
      ? given
      : await createGateway(given, {
          store,
          logger: app.log,
          fetch: fetchImpl,
          backendLimits,
          maxHistoryBytes: plugin.maxHistoryBytes,
          maxArtifactBytes: plugin.maxArtifactBytes,
        });
  if (!("runtime" in given)) app.addHook("preClose", () => gateway.close());
  await app.register(a2aPlugin, { ...plugin, handler: gateway.runtime });
}

export interface BuildGatewayOptions extends GatewayPluginOptions, HttpLimitOptions {
  prefix?: string;
  logger?: FastifyServerOptions["logger"];
  /** A gRPC facade on the same port (both services over the gateway's runtime), as buildServer's `grpc`. */
  grpc?: true | string;
}

/** A fastify app serving the gateway on one port; it closes the gateway it made when the app closes. */
export async function buildGateway(options: BuildGatewayOptions): Promise<FastifyInstance> {
  const { prefix, logger, headersTimeoutMs, idleTimeoutMs, maxConnectionsPerAddress, http2PingIntervalMs, http2PingTimeoutMs, ...plugin } =
    options;
  const app = a2aFastify({ prefix, logger, headersTimeoutMs, idleTimeoutMs, maxConnectionsPerAddress, ...plugin });
  if (!plugin.grpc) {
    await app.register(gatewayPlugin, { ...plugin, prefix: prefix ?? "" });
    return app;
  }
  if (!("runtime" in plugin.gateway)) throw new Error("buildGateway: grpc needs a gateway made with createGateway");
  if (plugin.authenticate && !plugin.authenticators?.length)
    throw new Error(
      "buildGateway: grpc needs `authenticators`; the `authenticate` hook takes a fastify request, which gRPC calls have not",
    );
  // One stream budget (server/front/stream-budget.ts) behind both fronts.
  const streamBudget = sharedStreamBudget(plugin);
  await app.register(gatewayPlugin, { ...plugin, streamBudget, prefix: prefix ?? "" });
  const { gateway, store: _store, fetch: _fetch, backendLimits: _limits, ...serve } = plugin;
  attachGrpc(
    app,
    { ...serve, authenticate: undefined, handler: gateway.runtime, streamBudget, prefix: prefix ?? "" },
    { http2PingIntervalMs, http2PingTimeoutMs },
  );
  return app;
}
