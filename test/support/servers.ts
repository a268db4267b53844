// Servers for integration tests, each listening on 127.0.0.1 port 0: the reference server over
// each HTTP adapter (scenarios run over both with describe.each(ADAPTERS)), an app a test built,
// the reference server behind the rewriting proxy (JSON-RPC calls: rpc.ts).
import type { AddressInfo, Server as NetServer } from "node:net";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { FastifyInstance } from "fastify";
import { startProxy } from "../../src/compliance/proxy.js";
import { buildServer, createA2AHttpServer, type BuildServerOptions } from "../../src/server/index.js";

const SILENT = { error: () => {}, warn: () => {} };

export const ADAPTERS = ["fastify", "node:http"] as const;
export type Adapter = (typeof ADAPTERS)[number];

export interface RunningServer {
  /** http://127.0.0.1:<port> (plus the prefix, when given). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** buildServer's options; `authenticate` reads what both adapters' requests have. */
export type ServerOptions = Omit<BuildServerOptions, "authenticate"> & {
  authenticate?: (request: { headers: IncomingHttpHeaders; url?: string }) => string | undefined | Promise<string | undefined>;
};

/** A node:http (or net) server listening on 127.0.0.1 port 0: its base URL, http://127.0.0.1:<port>. */
export async function listenHttp(server: NetServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A 1.0 agent written by hand on node:http: its card (one JSON-RPC interface at <url>/rpc; `card`
 * overrides members) at /.well-known/agent-card.json, 404 for any other GET, and every POST's
 * JSON-RPC request answered with `answer(request)`'s result or error member.
 */
export async function startRpcAgent(
  answer: (rpc: { id: unknown; method: string; params: Record<string, unknown> }) => { result: unknown } | { error: unknown },
  card: Record<string, unknown> = {},
): Promise<RunningServer> {
  const server = createServer((req, res) => {
    const json = (body: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url !== "/.well-known/agent-card.json") return res.writeHead(404).end();
    if (req.method === "GET")
      return json({
        name: "hand-written agent",
        description: "a test's agent",
        version: "1",
        supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
        capabilities: {},
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [],
        ...card,
      });
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const rpc = JSON.parse(body) as { id: unknown; method: string; params: Record<string, unknown> };
      json({ jsonrpc: "2.0", id: rpc.id, ...answer(rpc) });
    });
  });
  const url = await listenHttp(server);
  return {
    url,
    port: Number(new URL(url).port),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An app the test built (buildServer, buildGateway, Fastify()) listening on 127.0.0.1 port 0; close() closes the app. */
export async function listen(app: FastifyInstance, prefix = ""): Promise<RunningServer> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}${prefix}`, port, close: () => app.close() };
}

/** The reference server (buildServer's options) over `adapter`, listening on 127.0.0.1 port 0. */
export async function startServer(adapter: Adapter, options: ServerOptions): Promise<RunningServer> {
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  if (adapter === "fastify") return listen(await buildServer(options), prefix);
  // fastify's `logger: false` (buildServer's default) is silent: so is this one, unless a logger is given.
  const { logger, ...rest } = options;
  const server = createA2AHttpServer({ ...rest, logger: logger ? undefined : SILENT });
  const base = await listenHttp(server);
  return {
    url: `${base}${prefix}`,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/**
 * The servers one test file starts, closed together by `close` (in afterAll; the last started
 * first). A server closed early by its own close() leaves the group.
 */
export function serverGroup() {
  const running: RunningServer[] = [];
  const add = (server: RunningServer): RunningServer => {
    const tracked: RunningServer = {
      ...server,
      close: async () => {
        const at = running.indexOf(tracked);
        if (at >= 0) running.splice(at, 1);
        await server.close();
      },
    };
    running.push(tracked);
    return tracked;
  };
  return {
    /** `app` listening (see listen); resolves to its URL. */
    listen: async (app: FastifyInstance): Promise<string> => add(await listen(app)).url,
    start: async (adapter: Adapter, options: ServerOptions): Promise<RunningServer> => add(await startServer(adapter, options)),
    close: async (): Promise<void> => {
      for (const server of [...running].reverse()) await server.close();
    },
  };
}

/**
 * The reference server (fastify) behind the rewriting proxy applying `faults` (none: the proxy
 * alone, for a baseline): the server carries no fault of its own, the proxy breaks the protocol.
 * With `grpc: true` the proxy's h2c side stands in front of the server's gRPC services too (the
 * gRPC faults among `faults` apply there; the card's GRPC interfaces point at it).
 */
export async function startFaultyServer(options: ServerOptions, faults: string[]): Promise<RunningServer> {
  const server = await startServer("fastify", options);
  const grpcTarget = options.grpc === true ? `127.0.0.1:${server.port}` : undefined;
  const proxy = await startProxy({ target: server.url, faults, grpcTarget }).catch(async (e: unknown) => {
    await server.close();
    throw e;
  });
  return {
    url: proxy.url,
    port: Number(new URL(proxy.url).port),
    close: async () => {
      await proxy.close();
      await server.close();
    },
  };
}
