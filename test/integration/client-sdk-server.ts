// Test fixture: the official @a2a-js/sdk 1.3.0 server (express) with an agent whose behaviour
// depends on the text it receives, serving A2A 1.0 and/or 0.3 on JSON-RPC and HTTP+JSON.
//
//   "hello …"  → a bare Message reply (no task)
//   "task …"   → a task: SUBMITTED, WORKING, one artifact "echo: …", COMPLETED
//   "slow N"   → a task streaming N artifact chunks, one per `gate` release (see below), then COMPLETED
//   "ask …"    → INPUT_REQUIRED; the next message on that task completes it ("multi-turn")
//   "fail …"   → FAILED
// `release` lets a test decide when a slow task moves on, so nothing depends on timing.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { Role, TaskState, type AgentCard } from "@a2a-js/sdk";
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";
import { listenHttp } from "../support/servers.js";

export interface SdkServer {
  url: string;
  /** Lets a slow task take `n` more steps (default 1). */
  release(n?: number): void;
  /** Forgets banked releases (between tests). */
  resetGates(): void;
  /** Destroys every open client connection (streams drop; tasks keep running). */
  dropConnections(): void;
  close(): Promise<void>;
}

type Versions = readonly ("1.0" | "0.3")[];

const text = (s: string) => ({ content: { $case: "text" as const, value: s }, metadata: undefined, filename: "", mediaType: "text/plain" });

function agentMessage(s: string, taskId: string, contextId: string) {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [text(s)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function status(state: TaskState, taskId: string, contextId: string, msg?: string) {
  return {
    taskId,
    contextId,
    status: { state, message: msg ? agentMessage(msg, taskId, contextId) : undefined, timestamp: new Date().toISOString() },
    metadata: undefined,
  };
}

function artifact(taskId: string, contextId: string, chunk: string, append: boolean, lastChunk: boolean) {
  return {
    taskId,
    contextId,
    artifact: { artifactId: "result", name: "result", description: "", parts: [text(chunk)], metadata: undefined, extensions: [] },
    append,
    lastChunk,
    metadata: undefined,
  };
}

export async function startSdkServer(
  versions: Versions = ["1.0", "0.3"],
  opts: { tenant?: string; /** Card members replacing the defaults (e.g. security schemes). */ card?: Partial<AgentCard> } = {},
): Promise<SdkServer> {
  // Gates: a slow task waits at one before each step. release() opens the waiting gate, or
  // banks a credit that the next gate consumes, so releases are never lost.
  const gates: (() => void)[] = [];
  let credits = 0;
  const gate = () =>
    new Promise<void>((resolve) => {
      if (credits > 0) {
        credits--;
        resolve();
      } else gates.push(resolve);
    });
  const cancelled = new Set<string>();

  const executor: AgentExecutor = {
    async execute(ctx, bus: ExecutionEventBus) {
      const input = ctx.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join(" ");
      const { taskId, contextId } = ctx;
      if (input.startsWith("hello")) {
        bus.publish({ kind: "message", data: agentMessage(`hi: ${input}`, "", contextId) });
        bus.finished();
        return;
      }
      if (!ctx.task)
        bus.publish({
          kind: "task",
          data: {
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
            artifacts: [],
            history: [ctx.userMessage],
            metadata: undefined,
          },
        });
      if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        bus.publish({ kind: "artifactUpdate", data: artifact(taskId, contextId, `answer: ${input}`, false, true) });
        bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_COMPLETED, taskId, contextId) });
        bus.finished();
        return;
      }
      bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_WORKING, taskId, contextId) });
      if (input.startsWith("ask")) {
        bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_INPUT_REQUIRED, taskId, contextId, "which colour?") });
      } else if (input.startsWith("fail")) {
        bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_FAILED, taskId, contextId, "it broke") });
      } else if (input.startsWith("slow")) {
        const n = Number(input.split(" ")[1] ?? "3");
        for (let i = 0; i < n; i++) {
          await gate();
          if (cancelled.has(taskId)) return;
          bus.publish({ kind: "artifactUpdate", data: artifact(taskId, contextId, `chunk${i} `, i > 0, i === n - 1) });
        }
        await gate();
        if (cancelled.has(taskId)) return;
        bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_COMPLETED, taskId, contextId) });
      } else {
        bus.publish({ kind: "artifactUpdate", data: artifact(taskId, contextId, `echo: ${input}`, false, true) });
        bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_COMPLETED, taskId, contextId) });
      }
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      cancelled.add(taskId);
      for (const g of gates.splice(0)) g();
      bus.publish({ kind: "statusUpdate", data: status(TaskState.TASK_STATE_CANCELED, taskId, "") });
      bus.finished();
    },
  };

  const app = express();
  const server: Server = createServer(app);
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const base = await listenHttp(server);

  const interfaces = versions.flatMap((v) => [
    { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: v === "1.0" ? (opts.tenant ?? "") : "", protocolVersion: v },
    { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", tenant: v === "1.0" ? (opts.tenant ?? "") : "", protocolVersion: v },
  ]);
  const card: AgentCard = {
    name: "SDK test agent",
    description: "the official SDK server, driven by message text",
    supportedInterfaces: interfaces,
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "echo",
        name: "echo",
        description: "echoes",
        tags: ["echo"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
    ...opts.card,
  };
  const pushStore = new InMemoryPushNotificationStore();
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    pushStore,
    new DefaultPushNotificationSender(pushStore),
    { ...card, name: "SDK test agent (extended)" },
  );
  const legacyCompat = { enabled: versions.includes("0.3") };
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));

  return {
    url: base,
    release(n = 1) {
      for (let i = 0; i < n; i++) {
        const g = gates.shift();
        if (g) g();
        else credits++;
      }
    },
    resetGates() {
      credits = 0;
    },
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const g of gates.splice(0)) g();
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, "close").catch(() => {});
    },
  };
}
