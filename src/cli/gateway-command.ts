// `a2a-toolkit gateway`: runs the translating gateway (src/gateway/) until SIGINT or SIGTERM.
import {
  addHttpLimitFlags,
  httpLimits,
  streamBufferLimits,
  addStreamBufferFlags,
  parsePort,
  parsePositiveInt,
  parseVersions,
  runUntilSignal,
  serverLogger,
  type HttpLimitFlags,
  type StreamBufferFlags,
} from "./options.js";
import { Command } from "commander";
import type { BackendConfig, GatewayConfig } from "../gateway/config.js";

export interface GatewayCommandOptions extends HttpLimitFlags, StreamBufferFlags {
  port: number;
  /** gRPC facade on the same port (default on; `--no-grpc` turns it off). */
  grpc?: boolean;
  host: string;
  backend?: string[];
  config?: string;
  default?: string;
  /** memory, sqlite:<file> or postgres://… (default: the config file's `store`, else memory). */
  store?: string;
  /** With a postgres store: a followed task's lease (ms; default: the config file's `leaseMs`, else 10,000). */
  lease?: number;
  versions: ("1.0" | "0.3")[];
  timeout?: number;
  /** Longest wait for one backend's card, per attempt (then retried in the background). */
  discoveryTimeout?: number;
  /** Bytes read of a backend's whole answer, of one stream event, of one stream (createGateway `backendLimits`). */
  maxBackendAnswerBytes?: number;
  maxBackendEventBytes?: number;
  maxBackendStreamBytes?: number;
  publicUrl?: string;
  log?: boolean;
}

/** The configuration the options describe: the file's, plus `--backend` entries, `--default`, `--timeout`. */
export async function gatewayConfigFrom(
  opts: Pick<GatewayCommandOptions, "backend" | "config" | "default" | "timeout">,
): Promise<GatewayConfig> {
  const { loadConfigFile, parseBackendList, checkConfig } = await import("../gateway/config.js");
  const fromFile: Partial<GatewayConfig> = opts.config ? await loadConfigFile(opts.config) : {};
  const extra: BackendConfig[] = (opts.backend ?? []).flatMap((b) => parseBackendList(b));
  return checkConfig({
    ...fromFile,
    backends: [...(fromFile.backends ?? []), ...extra],
    ...(opts.default ? { default: opts.default } : {}),
    ...(opts.timeout ? { timeoutMs: opts.timeout } : {}),
  });
}

/** Starts the gateway; resolves with its URL and a function that stops it. */
export async function startGateway(opts: GatewayCommandOptions, out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {
  const config = await gatewayConfigFrom(opts);
  const { buildGateway, createGateway } = await import("../gateway/index.js");
  let store: import("../server/store/store.js").TaskStore | undefined;
  // Tasks a previous process on the same file was following when it stopped (SUBMITTED or WORKING).
  let running: { owner: string; task: import("../../generated/v1_0/index.js").Task }[] = [];
  const where = opts.store ?? config.store ?? "memory";
  let coordinator: import("../server/replicas/cluster.js").PgCoordinator | undefined;
  // A lease may expire before the gateway exists: its take-over waits for it.
  type Resume = (owner: string, task: import("../../generated/v1_0/index.js").Task) => Promise<boolean>;
  let ready: (resume: Resume) => void = () => {};
  const resumer = new Promise<Resume>((r) => (ready = r));
  if (where.startsWith("sqlite:")) {
    const file = where.slice("sqlite:".length);
    if (!file) throw new Error("--store sqlite:<file> needs a file name");
    const { SqliteTaskStore } = await import("../server/store/sqlite-store.js");
    const sqlite = new SqliteTaskStore(file);
    running = sqlite.listRunning();
    store = sqlite;
  } else if (/^postgres(ql)?:\/\//.test(where)) {
    // The same tables as serve's (pg-store.ts), migrated on open. Replicas on one database act as
    // one gateway (cluster.ts): a followed task's lease; when a replica's lease expires another
    // takes the task over and follows it again (resume), as a restarted gateway does.
    const { PgTaskStore } = await import("../server/store/pg-store.js");
    const { PgCoordinator } = await import("../server/replicas/cluster.js");
    const pg = await PgTaskStore.open(where);
    coordinator = await PgCoordinator.start(pg, where, {
      leaseMs: opts.lease ?? config.leaseMs,
      takeOver: (owner, task) => resumer.then((resume) => resume(owner, task)),
    });
    running = await pg.listRunning();
    store = pg;
  } else if (where !== "memory") throw new Error(`unknown store "${where}": use memory, sqlite:<file> or postgres://user@host:port/db`);
  const logger = opts.log
    ? undefined
    : { error: (o: unknown, m?: string) => process.stderr.write(`${m ?? "error"}: ${describe(o)}\n`), warn: () => {} };
  const backendLimits = {
    maxAnswerBytes: opts.maxBackendAnswerBytes,
    maxEventBytes: opts.maxBackendEventBytes,
    maxStreamBytes: opts.maxBackendStreamBytes,
  };
  const gateway = await createGateway(config, { store, coordinator, logger, discoveryTimeoutMs: opts.discoveryTimeout, backendLimits });
  ready(async (owner, task) => {
    const resumed = await gateway.runtime.resume(owner, task);
    if (resumed) out(`following task ${task.id} again: the replica that followed it stopped renewing its lease`);
    return resumed;
  });
  if (running.length) {
    // Unlike `serve` (which fails them: recoverInterrupted), the gateway takes them up again: the
    // backend may still be working on the remote task, or have finished it. The remote task is read
    // and followed to its end; a task whose backend is no longer configured (or whose metadata names
    // no remote task) is failed. Done before serving, so a SubscribeToTask after the restart finds
    // the task live. With replicas, a task another live replica follows is left to it (its lease).
    let resumed = 0;
    for (const r of running) if (await gateway.runtime.resume(r.owner, r.task)) resumed++;
    const failed = coordinator ? 0 : running.length - resumed;
    out(
      `resumed ${resumed} task(s) left running by a previous process${failed ? `; failed ${failed} that could not be followed again` : ""}`,
    );
  }
  const app = await buildGateway({
    gateway,
    grpc: opts.grpc === false ? undefined : true,
    versions: opts.versions,
    publicUrl: opts.publicUrl,
    logger: serverLogger(opts.log),
    ...httpLimits(opts),
    ...streamBufferLimits(opts),
  });
  app.addHook("onClose", () => gateway.close());
  await app.listen({ port: opts.port, host: opts.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  const url = opts.publicUrl ?? `http://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`;
  for (const b of gateway.backends) {
    const c = b.card ? `${b.card.name}` : "card not readable yet";
    out(
      `agent_id ${b.name} → ${b.config.url} (${c})${b.name === (config.default ?? (gateway.backends.length === 1 ? b.name : "")) ? " [default]" : ""}`,
    );
  }
  const bindings = opts.grpc === false ? "JSON-RPC and HTTP+JSON" : "JSON-RPC, HTTP+JSON and gRPC";
  out(`A2A gateway listening on ${url} (versions ${opts.versions.join(", ")}; ${bindings})`);
  return { url, port, close: () => app.close() };
}

function describe(o: unknown): string {
  const err = (o as { err?: unknown } | undefined)?.err;
  return err instanceof Error ? err.message : JSON.stringify(o);
}

export function registerGatewayCommand(program: Command, setCode: (code: number) => void): void {
  const command = program
    .command("gateway")
    .description("run a translating A2A gateway: callers speak 1.0 or 0.3, each backend its own version and binding")
    .option("--port <port>", "TCP port (0 = any free port)", parsePort, 41242)
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option(
      "--backend <list>",
      "backends as name=<url>[,name=<url>...] (repeatable); the name is the agent_id callers route by",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option("--config <file>", "YAML or JSON file listing the backends (see README, Gateway)")
    .option("--default <name>", "backend for messages without metadata.agent_id (default: the only backend)")
    .option(
      "--store <store>",
      "task store: memory, sqlite:<file> or postgres://user@host:port/db (kept across restarts; replicas on one postgres act as one; default memory)",
    )
    .option(
      "--lease <ms>",
      "postgres store: a followed task's lease; a replica silent this long is taken for dead and its tasks followed by another (default 10000)",
      parsePositiveInt("milliseconds"),
    )
    .option("--versions <list>", "protocol versions served to callers, comma-separated", parseVersions, ["1.0", "0.3"])
    .option("--timeout <ms>", "per-turn deadline of backends that set none (default 300000)", parsePositiveInt("milliseconds"))
    .option(
      "--discovery-timeout <ms>",
      "longest wait for one backend's agent card; a backend not read by then is retried in the background (default 5000)",
      parsePositiveInt("milliseconds"),
    )
    .option(
      "--max-backend-answer-bytes <n>",
      "bytes read of a backend's whole answer; past it the task ends FAILED naming the limit (default 16777216)",
      parsePositiveInt("bytes"),
    )
    .option("--max-backend-event-bytes <n>", "bytes read of one event of a backend's stream (default 16777216)", parsePositiveInt("bytes"))
    .option("--max-backend-stream-bytes <n>", "bytes read of one backend stream in all (default 268435456)", parsePositiveInt("bytes"))
    .option("--public-url <url>", "base URL to advertise in the agent card (default: from each request's Host)")
    .option("--log", "log every request (JSON lines on stdout)")
    .option("--no-grpc", "no gRPC facade (by default it shares the port: HTTP/2 connections are gRPC)");
  addStreamBufferFlags(addHttpLimitFlags(command)).action(async (opts: GatewayCommandOptions) => {
    if (!opts.backend?.length && !opts.config) {
      process.stderr.write("a2a-toolkit gateway: name at least one backend with --backend name=<url> or --config <file>\n");
      setCode(2);
      return;
    }
    await runUntilSignal("gateway", () => startGateway(opts), setCode);
  });
}
