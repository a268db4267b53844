// One benchmark target per process: `tsx bench/server-targets.ts ours|sdk|ours+grpc|sdk+grpc [sqlite <file> | postgres <url>]`
// starts a server with the same echo agent on a free port of 127.0.0.1 and prints `READY <port>` on stdout.
// `ours+grpc` serves gRPC too, on the same port; `sdk+grpc` adds the SDK's gRPC server
// (@grpc/grpc-js, the 1.0 and 0.3 services) on another port: `READY <port> GRPC <port>`.
//
// The agent: the first text part `stream <n>` streams n chunks of one artifact and completes;
// any other text completes with one artifact holding the text. Both servers serve 1.0 and 0.3,
// JSON-RPC and HTTP+JSON, with in-memory task stores, or with `sqlite <file>` their SQLite stores:
// ours the SqliteTaskStore `serve` uses by default; the SDK's DatabaseTaskStore
// (`@a2a-js/sdk/server/database`) on Kysely's SqliteDialect over better-sqlite3, the schema made by
// the SDK's own `a2a-db upgrade --url sqlite:<file>`, the file in WAL mode with synchronous=NORMAL
// (our store's settings, so both promise the same durability). `postgres <url>` (the SDK only,
// bench/replicas.ts): its DatabaseTaskStore on PostgreSQL.
import { randomUUID } from "node:crypto";

// A2A_BENCH_PROBE=<file>: record where the latency tail comes from (bench/tail-probe.ts).
if (process.env.A2A_BENCH_PROBE) await (await import("./tail-probe.js")).installProbe(process.env.A2A_BENCH_PROBE);

async function ours(file?: string, grpc = false): Promise<number> {
  const { buildServer, firstText, reply, stream } = await import("../src/server/index.js");
  let stores = {};
  if (file) {
    const { SqliteTaskStore } = await import("../src/server/store/sqlite-store.js");
    // A2A_BENCH_CHECKPOINT='{"pollMs":25,...}': the store's checkpoint options, for experiments (tail-probe.ts).
    const checkpoint = process.env.A2A_BENCH_CHECKPOINT
      ? (JSON.parse(process.env.A2A_BENCH_CHECKPOINT) as import("../src/server/store/sqlite-checkpoint.js").WalCheckpointOptions)
      : undefined;
    const store = new SqliteTaskStore(file, { checkpoint });
    store.recoverInterrupted();
    stores = { store, pushConfigs: store.pushConfigs };
  }
  const app = await buildServer({
    ...stores,
    grpc: grpc || undefined,
    agent: {
      card: { name: "bench echo", description: "echo", version: "1", capabilities: { streaming: true } },
      handleMessage(m) {
        const text = firstText(m);
        const n = /^stream (\d+)$/.exec(text);
        if (!n) return reply(text);
        return stream(
          (function* () {
            for (let i = 1; i <= Number(n[1]); i++) yield `chunk ${i}`;
          })(),
        );
      },
    },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return (app.server.address() as { port: number }).port;
}

/** The SDK's DatabaseTaskStore on `file`, its schema made by its `a2a-db upgrade`. */
async function sdkSqliteStore(file: string) {
  const { execFileSync } = await import("node:child_process");
  execFileSync(process.execPath, ["node_modules/@a2a-js/sdk/dist/cli/a2a_db.js", "upgrade", "--url", `sqlite:${file}`], {
    stdio: "ignore",
  });
  const { default: Database } = await import("better-sqlite3");
  const { Kysely, SqliteDialect } = await import("kysely");
  const { DatabaseTaskStore } = await import("@a2a-js/sdk/server/database");
  const database = new Database(file);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  return new DatabaseTaskStore(new Kysely({ dialect: new SqliteDialect({ database }) }));
}

/** The SDK's own PostgreSQL store (`@a2a-js/sdk/server/database`, Kysely over pg); schema by its `a2a-db upgrade`. */
async function sdkPgStore(url: string) {
  const { DatabaseTaskStore } = await import("@a2a-js/sdk/server/database");
  const { Kysely, PostgresDialect } = await import("kysely");
  const pg = (await import("pg")).default;
  return new DatabaseTaskStore(new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10 }) }) }));
}

let grpcPort: number | undefined;

async function sdk(file?: string, pg?: string, grpc = false): Promise<number> {
  const { default: express } = await import("express");
  const server = await import("@a2a-js/sdk/server");
  const { jsonRpcHandler, restHandler, agentCardHandler, UserBuilder } = await import("@a2a-js/sdk/server/express");
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = server;
  const { Role, TaskState } = await import("@a2a-js/sdk");

  const app = express();
  const listening = await new Promise<import("node:http").Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const port = (listening.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  const iface = (protocolBinding: string, protocolVersion: string, path: string) => ({
    url: url + path,
    protocolBinding,
    protocolVersion,
    tenant: "",
  });
  const card = {
    name: "bench echo",
    description: "echo",
    version: "1",
    supportedInterfaces: [
      iface("JSONRPC", "1.0", "/"),
      iface("HTTP+JSON", "1.0", "/rest"),
      iface("JSONRPC", "0.3", "/"),
      iface("HTTP+JSON", "0.3", "/rest"),
    ],
    provider: undefined,
    documentationUrl: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
    iconUrl: undefined,
  };
  const status = (state: number) => ({ state, message: undefined, timestamp: new Date().toISOString() });
  const executor = {
    async execute(ctx: InstanceType<typeof server.RequestContext>, bus: import("@a2a-js/sdk/server").ExecutionEventBus) {
      const part = ctx.userMessage.parts[0]?.content;
      const text = part?.$case === "text" ? part.value : "";
      const base = { taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined };
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED),
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
      bus.publish(AgentEvent.statusUpdate({ ...base, status: status(TaskState.TASK_STATE_WORKING) }));
      const n = /^stream (\d+)$/.exec(text);
      const artifactId = randomUUID();
      const chunk = (t: string, append: boolean, lastChunk: boolean) =>
        AgentEvent.artifactUpdate({
          ...base,
          artifact: {
            artifactId,
            name: "",
            description: "",
            parts: [{ content: { $case: "text", value: t }, metadata: undefined, filename: "", mediaType: "" }],
            metadata: undefined,
            extensions: [],
          },
          append,
          lastChunk,
        });
      if (n) for (let i = 1; i <= Number(n[1]); i++) bus.publish(chunk(`chunk ${i}`, i > 1, i === Number(n[1])));
      else bus.publish(chunk(text, false, true));
      bus.publish(AgentEvent.statusUpdate({ ...base, status: status(TaskState.TASK_STATE_COMPLETED) }));
      bus.finished();
    },
    async cancelTask() {},
  };
  void Role;
  const store = file ? await sdkSqliteStore(file) : pg ? await sdkPgStore(pg) : new InMemoryTaskStore();
  const handler = new DefaultRequestHandler(card, store, executor);
  const legacyCompat = { enabled: true };
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  if (grpc) {
    const grpcJs = await import("@grpc/grpc-js");
    const { A2AService, grpcService } = await import("@a2a-js/sdk/server/grpc");
    const { LegacyA2AService, legacyGrpcService } = await import("@a2a-js/sdk/compat/v0_3/server/grpc");
    const g = new grpcJs.Server();
    g.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    g.addService(LegacyA2AService, legacyGrpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    grpcPort = await new Promise<number>((resolve, reject) =>
      g.bindAsync("127.0.0.1:0", grpcJs.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    // The SDK's gRPC service accepts the versions the card lists for GRPC.
    for (const v of ["1.0", "0.3"])
      card.supportedInterfaces.push({ url: `127.0.0.1:${grpcPort}`, protocolBinding: "GRPC", protocolVersion: v, tenant: "" });
  }
  return port;
}

const [which, storeKind, where] = process.argv.slice(2);
const grpc = which?.endsWith("+grpc") === true;
const kind = grpc ? which?.slice(0, -"+grpc".length) : which;
const dbFile = storeKind === "sqlite" ? where : undefined;
const pgUrl = storeKind === "postgres" ? where : undefined;
const port = kind === "ours" && !pgUrl ? await ours(dbFile, grpc) : kind === "sdk" ? await sdk(dbFile, pgUrl, grpc) : undefined;
if (port === undefined || (storeKind !== undefined && !where)) {
  process.stderr.write(
    "usage: tsx bench/server-targets.ts ours|sdk|ours+grpc|sdk+grpc [sqlite <file> | postgres <url>] (postgres: sdk only)\n",
  );
  process.exit(2);
}
process.stdout.write(grpc ? `READY ${port} GRPC ${grpcPort ?? port}\n` : `READY ${port}\n`);
// Exit normally on a signal, so `node --cpu-prof` can write its profile.
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => process.exit(0));
