// Agents nobody on the project wrote, as the compliance suite's "any agent" targets: the official
// @a2a-js/sdk servers wired the way their READMEs describe, around a minimal echo executor, with
// no fixture extension on the card and no TCK messageId conventions.
//
// (a) startSdkEchoTarget: @a2a-js/sdk 1.3.0 (DefaultRequestHandler, in-memory task store, the
//     express handlers with legacyCompat), 1.0 and 0.3 on JSON-RPC and HTTP+JSON.
// (c) startSdkGrpcEchoTarget (sdk-grpc-echo-target.ts): the 1.3.0 gRPC services, 1.0 and 0.3.
// (b) startSdk03EchoTarget: @a2a-js/sdk 0.3.14 (devDependency alias a2a-js-sdk-0.3) following its
//     README's quick start: a 0.3.0 card, JSON-RPC at the card's url, HTTP+JSON as an additional interface.
//
// The executor answers every message with a task (submitted, working, one artifact holding the
// message's text, completed), or with `reply: "message"` with a bare agent message.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { Role, TaskState, type AgentCard, type Message, type Part } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from "@a2a-js/sdk/server/express";
import { AGENT_CARD_PATH as AGENT_CARD_PATH_03, type AgentCard as AgentCard03, type Message as Message03 } from "a2a-js-sdk-0.3";
import {
  DefaultRequestHandler as DefaultRequestHandler03,
  InMemoryTaskStore as InMemoryTaskStore03,
  type AgentExecutor as AgentExecutor03,
  type ExecutionEventBus as ExecutionEventBus03,
  type RequestContext as RequestContext03,
} from "a2a-js-sdk-0.3/server";
import {
  UserBuilder as UserBuilder03,
  agentCardHandler as agentCardHandler03,
  jsonRpcHandler as jsonRpcHandler03,
  restHandler as restHandler03,
} from "a2a-js-sdk-0.3/server/express";

export interface EchoTarget {
  /** The base URL: the card is at /.well-known/agent-card.json. */
  url: string;
  close(): Promise<void>;
}

export interface EchoOptions {
  /** What the executor answers with (default a completed task). */
  reply?: "task" | "message";
}

const now = () => new Date().toISOString();

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

function echoed(parts: Part[]): string {
  const t = parts.find((p) => p.content?.$case === "text")?.content;
  return t?.$case === "text" ? t.value : "";
}

export class EchoExecutor implements AgentExecutor {
  constructor(private readonly reply: "task" | "message") {}

  // Deliberately nothing to cancel: every task has ended by the time a client could ask.
  cancelTask = async (): Promise<void> => {};

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = ctx;
    const text = echoed(userMessage.parts);
    if (this.reply === "message") {
      const m: Message = {
        messageId: crypto.randomUUID(),
        contextId,
        taskId: "",
        role: Role.ROLE_AGENT,
        parts: [textPart(text)],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      bus.publish(AgentEvent.message(m));
      bus.finished();
      return;
    }
    if (!ctx.task)
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        }),
      );
    const status = (state: TaskState) =>
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: undefined, timestamp: now() }, metadata: undefined }),
      );
    status(TaskState.TASK_STATE_WORKING);
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: crypto.randomUUID(),
          name: "echo",
          description: "",
          parts: [textPart(text)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
    bus.finished();
  }
}

export async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  // Node closes an idle keep-alive socket after 5 s; a client reusing it at that moment gets
  // ECONNRESET. Longer than the clients' own idle timeout (undici: 4 s), the race is gone.
  server.keepAliveTimeout = 65_000;
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** The echo agent's 1.0 card without interfaces (the caller adds them once it listens). */
export function echoCard(what: string): AgentCard {
  return {
    name: "Echo Agent",
    description: `Echoes the text of each message (${what}).`,
    supportedInterfaces: [],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "echo",
        name: "Echo",
        description: "Echoes the message text",
        tags: ["echo"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** (a) The official SDK 1.3.0 server around the echo executor: 1.0 + 0.3 (legacyCompat), JSON-RPC and HTTP+JSON. */
export async function startSdkEchoTarget(options: EchoOptions = {}): Promise<EchoTarget> {
  const { server, base } = await serveSdk(echoCard("official SDK 1.3.0 server"), new EchoExecutor(options.reply ?? "task"));
  return { url: base, close: closer(server) };
}

/**
 * The official SDK 1.3.0 server (DefaultRequestHandler, in-memory store, the express handlers with
 * legacyCompat) around `executor`; the card declares JSON-RPC and HTTP+JSON for 1.0, and for 0.3
 * unless `only10`. The request handler is returned for other transports to share (serveSdkGrpc).
 */
export async function serveSdk(
  card: AgentCard,
  executor: AgentExecutor,
  only10 = false,
): Promise<{ server: Server; base: string; requestHandler: DefaultRequestHandler }> {
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  const legacyCompat = { enabled: true };
  app.use(`/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  const { server, base } = await listen(app);
  for (const protocolVersion of only10 ? ["1.0"] : ["1.0", "0.3"])
    card.supportedInterfaces.push(
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion, tenant: "" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion, tenant: "" },
    );
  return { server, base, requestHandler };
}

class Echo03Executor implements AgentExecutor03 {
  constructor(private readonly reply: "task" | "message") {}

  cancelTask = async (): Promise<void> => {};

  async execute(ctx: RequestContext03, bus: ExecutionEventBus03): Promise<void> {
    const { taskId, contextId, userMessage, task } = ctx;
    const t = userMessage.parts.find((p) => p.kind === "text");
    const text = t?.kind === "text" ? t.text : "";
    if (this.reply === "message") {
      const m: Message03 = { kind: "message", messageId: crypto.randomUUID(), role: "agent", parts: [{ kind: "text", text }], contextId };
      bus.publish(m);
      bus.finished();
      return;
    }
    if (!task)
      bus.publish({ kind: "task", id: taskId, contextId, status: { state: "submitted", timestamp: now() }, history: [userMessage] });
    bus.publish({ kind: "status-update", taskId, contextId, status: { state: "working", timestamp: now() }, final: false });
    bus.publish({
      kind: "artifact-update",
      taskId,
      contextId,
      artifact: { artifactId: crypto.randomUUID(), name: "echo", parts: [{ kind: "text", text }] },
    });
    bus.publish({ kind: "status-update", taskId, contextId, status: { state: "completed", timestamp: now() }, final: true });
    bus.finished();
  }
}

/** (b) A plain @a2a-js/sdk 0.3.14 server around the same echo: its README's quick start with streaming on. */
export async function startSdk03EchoTarget(options: EchoOptions = {}): Promise<EchoTarget> {
  const card: AgentCard03 = {
    name: "Echo Agent",
    description: "Echoes the text of each message (official SDK 0.3.14 server).",
    protocolVersion: "0.3.0",
    version: "0.1.0",
    url: "",
    skills: [{ id: "echo", name: "Echo", description: "Echoes the message text", tags: ["echo"] }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    additionalInterfaces: [],
  };
  return serveSdk03(card, new Echo03Executor(options.reply ?? "task"));
}

/**
 * A 0.3.14 server as its README's quick start wires it, around `executor`: the card (its url and
 * additionalInterfaces filled in here) at the well-known path, JSON-RPC at the card's url,
 * HTTP+JSON as an additional interface; in-memory tasks.
 */
export async function serveSdk03(card: AgentCard03, executor: AgentExecutor03): Promise<EchoTarget> {
  const requestHandler = new DefaultRequestHandler03(card, new InMemoryTaskStore03(), executor);
  const app = express();
  app.use(`/${AGENT_CARD_PATH_03}`, agentCardHandler03({ agentCardProvider: requestHandler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler03({ requestHandler, userBuilder: UserBuilder03.noAuthentication }));
  app.use("/a2a/rest", restHandler03({ requestHandler, userBuilder: UserBuilder03.noAuthentication }));
  const { server, base } = await listen(app);
  card.url = `${base}/a2a/jsonrpc`;
  card.additionalInterfaces = [
    { url: `${base}/a2a/jsonrpc`, transport: "JSONRPC" },
    { url: `${base}/a2a/rest`, transport: "HTTP+JSON" },
  ];
  return { url: base, close: closer(server) };
}

/** Tasks an executor holds open until a cancel or a timeout (the SDK executors' `slow`, tck-long-running, tck-cancel). */
export class CancelWaits {
  private readonly waiting = new Map<string, () => void>();

  /** Resolves true when `cancel(taskId)` comes first, false after `ms`. */
  async canceledWithin(taskId: string, ms: number): Promise<boolean> {
    const canceled = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.waiting.set(taskId, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    this.waiting.delete(taskId);
    return canceled;
  }

  /** Ends the wait of `taskId`; false when nothing waits for it. */
  cancel(taskId: string): boolean {
    const end = this.waiting.get(taskId);
    end?.();
    return end !== undefined;
  }
}
