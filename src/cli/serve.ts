// `a2a-toolkit serve`: runs the reference server until SIGINT or SIGTERM.
import { resolve } from "node:path";
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
import { Command, InvalidArgumentError } from "commander";
import type { Agent } from "../server/engine/agent.js";
import { isPostgresUrl } from "../server/store/pg-store.js";

export interface ServeOptions extends HttpLimitFlags, StreamBufferFlags {
  port: number;
  host: string;
  agent: string;
  store: string;
  versions: ("1.0" | "0.3")[];
  publicUrl?: string;
  log?: boolean;
  /** Fail a task whose turn takes longer than this many ms. */
  taskTimeout?: number;
  maxRunningTaskBytes?: number;
  /** The fixture agent declares push notifications. */
  push?: boolean;
  /** Hosts, IPs or CIDR ranges webhooks may point to although private (SSRF allow-list). */
  allowWebhook?: string[];
  /** `<token>=<principal>` pairs: Authorization: Bearer <token>. */
  token?: string[];
  /** `<key>=<principal>` pairs: X-API-Key: <key>. */
  apiKey?: string[];
  /** `<token>=<principal>` pairs accepted for the extended card alone (Authorization: Bearer <token>) when nothing else needs a credential. */
  extendedCardToken?: string[];
  /** Private JWK (JSON file) the 1.0 agent card is signed with. */
  signCardKey?: string;
  signCardKid?: string;
  /** JWS algorithm (default: the JWK's `alg`, else from its key type). */
  signCardAlg?: string;
  /**
   * Deliberate protocol faults (the rewriting proxy's, src/compliance/rewrites.ts), to check that a
   * test suite notices: the server listens on a loopback port and the proxy on `port`, in front of it.
   */
  fault?: string[];
  /** Bytes of tasks the store keeps (memory: evicts beyond it; sqlite: retention deletes beyond it). */
  maxStoreBytes?: number;
  /** With a postgres:// store: how long a turn's lease lasts unless renewed (ms). */
  lease?: number;
  /** SSE streams one principal (or, without authentication, one client address) may have open. */
  maxStreams?: number;
  /** gRPC on the same port (default on; `--no-grpc` turns it off). */
  grpc?: boolean;
  /** PEM certificate and key: serve TLS (ALPN h2 → gRPC, http/1.1 → JSON-RPC and HTTP+JSON). */
  tlsCert?: string;
  tlsKey?: string;
}

/** Tasks survive a restart unless the operator opts out with `--store memory`. */
export const DEFAULT_STORE = "sqlite:./a2a-data.db";

/** `<secret>=<principal>` (the last `=` separates them, so a token may contain `=`). */
function parseCredential(v: string, previous: string[] = []): string[] {
  const i = v.lastIndexOf("=");
  if (i <= 0 || i === v.length - 1) throw new InvalidArgumentError("expected <secret>=<principal>");
  return [...previous, v];
}

function credentialTable(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs?.length) return undefined;
  const table: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.lastIndexOf("=");
    table[p.slice(0, i)] = p.slice(i + 1);
  }
  return table;
}

/** The JWS algorithm a JWK is meant for: its `alg`, else the usual one for its key type and curve. */
export function jwkAlgorithm(jwk: { kty?: string; crv?: string; alg?: string }): string {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === "EC") {
    const alg = { "P-256": "ES256", "P-384": "ES384", "P-521": "ES512" }[jwk.crv ?? ""];
    if (alg) return alg;
  }
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  if (jwk.kty === "RSA") return "RS256";
  throw new Error(`cannot tell the signing algorithm of a ${jwk.kty ?? "?"} key${jwk.crv ? ` on ${jwk.crv}` : ""}: pass --sign-card-alg`);
}

async function cardSigning(opts: ServeOptions): Promise<import("../server/plugin.js").A2APluginOptions["cardSigning"]> {
  if (!opts.signCardKey && !opts.signCardKid) return undefined;
  if (!opts.signCardKey || !opts.signCardKid) throw new Error("--sign-card-key and --sign-card-kid go together");
  const { readFile } = await import("node:fs/promises");
  let jwk: { kty?: string; crv?: string; alg?: string; d?: string };
  try {
    jwk = JSON.parse(await readFile(opts.signCardKey, "utf8")) as typeof jwk;
  } catch (e) {
    throw new Error(`--sign-card-key ${opts.signCardKey}: not a readable JSON Web Key (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof jwk !== "object" || jwk === null || !jwk.kty) throw new Error(`--sign-card-key ${opts.signCardKey}: not a JSON Web Key`);
  if (!jwk.d) throw new Error(`--sign-card-key ${opts.signCardKey}: a public key cannot sign; give the private JWK`);
  const alg = opts.signCardAlg ?? jwkAlgorithm(jwk);
  const { importJWK } = await import("jose");
  const key = await importJWK(jwk, alg); // fails here, at start, rather than on the first card request
  return { key: key as import("../security/card-signing.js").SigningKey, kid: opts.signCardKid, alg };
}

/** `fixture`, or a module whose default export (or `agent` export) is an Agent or a function returning one. */
export async function loadAgent(spec: string, fixture: { pushNotifications?: boolean } = {}): Promise<Agent> {
  if (spec === "fixture") return (await import("../server/fixture/fixture-agent.js")).createFixtureAgent(fixture);
  return (await import("./agent-module.js")).loadAgentModule(spec);
}

/** Starts the server; resolves with a function that stops it. */
export async function startServe(opts: ServeOptions, out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {
  // Unknown fault names are refused before anything starts.
  const faults = opts.fault ?? [];
  const grpcFaults = faults.length
    ? (await import("../compliance/grpc-rewrites.js")).grpcRewriteNames().filter((f) => faults.includes(f))
    : [];
  if (faults.length)
    (await import("../compliance/rewrites.js")).selectRewrites(
      [],
      faults.filter((f) => !grpcFaults.includes(f)),
    );
  if (grpcFaults.length && opts.grpc === false) throw new Error(`${grpcFaults.join(", ")}: gRPC faults need gRPC served (drop --no-grpc)`);
  // The rewriting proxy speaks cleartext to the server: behind it the server serves no TLS.
  if (faults.length && (opts.tlsCert || opts.tlsKey))
    throw new Error("--fault and --tls-cert/--tls-key do not go together (the rewriting proxy speaks cleartext)");
  const agent = await loadAgent(opts.agent, { pushNotifications: opts.push });
  const { buildServer, MemoryTaskStore } = await import("../server/index.js");
  let storeLine = "tasks are kept in memory only (lost when the server stops)";
  let stores: Pick<import("../server/plugin.js").A2APluginOptions, "store" | "pushConfigs" | "coordinator" | "streamSlots"> = {};
  if (opts.store.startsWith("sqlite:")) {
    const file = opts.store.slice("sqlite:".length);
    if (!file) throw new Error("--store sqlite:<file> needs a file name");
    const { SqliteTaskStore } = await import("../server/store/sqlite-store.js");
    const store = new SqliteTaskStore(file, { retention: { maxBytes: opts.maxStoreBytes } });
    // Tasks a previous process left running can never finish: fail them before serving.
    const recovered = store.recoverInterrupted();
    if (recovered.length) out(`failed ${recovered.length} task(s) left running by a previous process`);
    stores = { store, pushConfigs: store.pushConfigs };
    storeLine = `tasks and push configs are kept in ${resolve(file)} (--store memory to keep nothing)`;
  } else if (isPostgresUrl(opts.store)) {
    // Several replicas on one database act as one agent (cluster.ts): no recovery on start, an
    // expired lease is how a dead replica's tasks are found.
    const { startPgStores } = await import("../server/replicas/cluster.js");
    const pg = await startPgStores(opts.store, { maxStoreBytes: opts.maxStoreBytes, leaseMs: opts.lease });
    stores = pg.stores;
    storeLine = pg.line;
  } else if (opts.store === "memory") {
    if (opts.maxStoreBytes) stores = { store: new MemoryTaskStore({ maxBytes: opts.maxStoreBytes }) };
  } else throw new Error(`unknown store "${opts.store}": use memory, sqlite:<file> or postgres://user@host:port/db`);
  const { bearerAuth, apiKeyAuth } = await import("../security/auth.js");
  const tokens = credentialTable(opts.token);
  const keys = credentialTable(opts.apiKey);
  const authenticators = [
    ...(tokens ? [bearerAuth({ tokens })] : []),
    ...(keys ? [apiKeyAuth({ location: "header", name: "X-API-Key", keys })] : []),
  ];
  const cardTokens = credentialTable(opts.extendedCardToken);
  // 1.0.1 §13.3: the extended card needs a credential; --token/--api-key cover it, else these do.
  const extendedCardAuthenticators = cardTokens ? [bearerAuth({ tokens: cardTokens })] : [];
  const signing = await cardSigning(opts);
  if (!opts.tlsCert !== !opts.tlsKey) throw new Error("--tls-cert and --tls-key go together");
  const { readFile } = await import("node:fs/promises");
  const tls = opts.tlsCert && opts.tlsKey ? { cert: await readFile(opts.tlsCert), key: await readFile(opts.tlsKey) } : undefined;
  // Behind the rewriting proxy the card's URLs are the proxy's; its h2c side stands in front of gRPC.
  const grpc = opts.grpc !== false;
  const app = await buildServer({
    grpc: grpc || undefined,
    tls,
    agent,
    authenticators,
    extendedCardAuthenticators,
    cardSigning: signing,
    ...stores,
    versions: opts.versions,
    publicUrl: opts.publicUrl,
    logger: serverLogger(opts.log),
    push: { allow: opts.allowWebhook ?? [] },
    taskTimeoutMs: opts.taskTimeout,
    maxRunningTaskBytes: opts.maxRunningTaskBytes,
    maxStreamsPerPrincipal: opts.maxStreams,
    ...httpLimits(opts),
    ...streamBufferLimits(opts),
  });
  // With faults the server itself is on a loopback port and the proxy on the one asked for.
  await app.listen(faults.length ? { port: 0, host: "127.0.0.1" } : { port: opts.port, host: opts.host });
  const address = app.server.address();
  let port = typeof address === "object" && address ? address.port : opts.port;
  let close = () => app.close();
  /** Behind the proxy, gRPC is on its h2c side's own port (the card's GRPC interfaces say so). */
  let grpcAddress: string | undefined;
  if (faults.length) {
    const { startProxy } = await import("../compliance/proxy.js");
    const proxy = await startProxy({
      target: `http://127.0.0.1:${port}`,
      port: opts.port,
      host: opts.host,
      faults,
      onNote: out,
      ...(grpc ? { grpcTarget: `127.0.0.1:${port}` } : {}),
    }).catch(async (e: unknown) => {
      await app.close();
      throw e;
    });
    port = Number(new URL(proxy.url).port);
    grpcAddress = proxy.grpcAddress;
    close = async () => {
      await proxy.close();
      await app.close();
    };
  }
  const url = opts.publicUrl ?? `${tls ? "https" : "http"}://${opts.host.includes(":") ? `[${opts.host}]` : opts.host}:${port}`;
  if (authenticators.length)
    out(`every request but the agent card needs a credential (${authenticators.map((a) => a.schemeName).join(" or ")})`);
  else if (agent.extendedCard)
    out(
      extendedCardAuthenticators.length
        ? "the extended agent card needs a credential (bearer); nothing else does"
        : "the extended agent card is refused to everyone: it needs a credential (--token, --api-key or --extended-card-token)",
    );
  if (signing) out(`the 1.0 agent card is signed (${signing.alg}, kid ${signing.kid})`);
  out(storeLine); // before the "listening" line, which callers wait for
  const bindings = !grpc
    ? "JSON-RPC and HTTP+JSON"
    : grpcAddress
      ? `JSON-RPC and HTTP+JSON; gRPC on ${grpcAddress}`
      : "JSON-RPC, HTTP+JSON and gRPC";
  out(`A2A server for "${agent.card.name}" listening on ${url} (versions ${opts.versions.join(", ")}; ${bindings})`);
  out(`agent card: ${url}/.well-known/agent-card.json`);
  if (faults.length)
    out(`deliberate fault(s) injected by the rewriting proxy: ${faults.join(", ")} (this server breaks the protocol on purpose)`);
  return { url, port, close };
}

export function registerServeCommand(program: Command, setCode: (code: number) => void): void {
  const command = program
    .command("serve")
    .description("run the reference A2A server (1.0 and 0.3, JSON-RPC, HTTP+JSON and gRPC, one port)")
    .option("--port <port>", "TCP port (0 = any free port)", parsePort, 41241)
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--agent <agent>", "fixture, or the path of a module exporting an agent", "fixture")
    .option(
      "--store <store>",
      "task store: sqlite:<file> (kept across restarts), postgres://user@host:port/db (several replicas act as one), or memory",
      DEFAULT_STORE,
    )
    .option(
      "--lease <ms>",
      "postgres store: a turn's lease; a replica silent this long is taken for dead (default 10000)",
      parsePositiveInt("milliseconds"),
    )
    .option("--versions <list>", "protocol versions to serve, comma-separated", parseVersions, ["1.0", "0.3"])
    .option("--public-url <url>", "base URL to advertise in the agent card (default: from each request's Host)")
    .option("--log", "log every request (JSON lines on stdout)")
    .option(
      "--fault <name>",
      "serve behind the rewriting proxy with this fault (a2a-toolkit proxy --list; grpc-* faults apply to gRPC), to check that a test suite catches it (repeatable)",
      (v: string, previous: string[] = []) => [...previous, v],
    )
    .option("--max-store-bytes <bytes>", "bytes of tasks the store keeps (memory default 128 MiB, sqlite 1 GiB)", parsePositiveInt("bytes"))
    .option(
      "--max-streams <n>",
      "SSE streams one principal (without authentication: one client address) may have open; across replicas on postgres (default 100)",
      parsePositiveInt("streams"),
    )
    .option("--task-timeout <ms>", "fail a task whose turn takes longer than this (default: no limit)", parsePositiveInt("milliseconds"))
    .option(
      "--max-running-task-bytes <bytes>",
      "artifact bytes the running tasks may hold together (default 1073741824); beyond it new sends are refused, retryable",
      parsePositiveInt("bytes"),
    )
    .option("--token <token=principal>", "accept Authorization: Bearer <token> as <principal> (repeatable)", parseCredential)
    .option("--api-key <key=principal>", "accept X-API-Key: <key> as <principal> (repeatable)", parseCredential)
    .option(
      "--extended-card-token <token=principal>",
      "without --token/--api-key: accept Authorization: Bearer <token> for the extended agent card, which needs a credential (repeatable)",
      parseCredential,
    )
    .option("--sign-card-key <jwk file>", "sign the 1.0 agent card with this private JWK (JSON file)")
    .option("--sign-card-kid <kid>", "key id put in the card signature's protected header")
    .option("--sign-card-alg <alg>", "JWS algorithm (default: the JWK's alg, else ES256/ES384/ES512/EdDSA/RS256 by key type)")
    .option("--no-grpc", "do not serve gRPC (by default it shares the port: HTTP/2 connections are gRPC)")
    .option("--tls-cert <file>", "serve TLS with this PEM certificate (with --tls-key; ALPN h2 is gRPC, http/1.1 the rest)")
    .option("--tls-key <file>", "the PEM private key of --tls-cert")
    .option("--push", "the fixture agent declares push notifications (webhook delivery)")
    .option("--allow-webhook <list>", "hosts, IPs or CIDR ranges push webhooks may use although private (e.g. 127.0.0.1)", (v: string) =>
      v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    );
  addStreamBufferFlags(addHttpLimitFlags(command)).action(async (opts: ServeOptions) => {
    await runUntilSignal("serve", () => startServe(opts), setCode);
  });
}
