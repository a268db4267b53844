// The official @a2a-js/sdk server (1.3.0, express) as a target for the compliance suite: a
// small agent executor implementing the fixture-agent behaviours the cases rely on (echo, msg,
// ask, auth, stream, fail, slow, parts) and the ACTS SUT behaviours (ACTS §11.2 and
// tck-auth-required, chosen by the first text part; docs/acts.md), its card declaring the
// fixture extension, 1.0 JSON-RPC and HTTP+JSON interfaces, and the SDK's 0.3 compatibility
// layer on both bindings.
import * as grpc from "@grpc/grpc-js";
import { A2AService, UserBuilder as GrpcUserBuilder, grpcService } from "@a2a-js/sdk/server/grpc";
import { LegacyA2AService, legacyGrpcService } from "@a2a-js/sdk/compat/v0_3/server/grpc";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from "@a2a-js/sdk/server/express";
import { createLegacyAwarePushNotificationSender } from "@a2a-js/sdk/compat/v0_3/server";
import { FIXTURE_EXTENSION_URI } from "../../src/compliance/discovery.js";
import { CancelWaits } from "../support/sdk-echo-target.js";
import {
  ACTS_AUTH_PROMPT,
  ACTS_LONG_RUNNING_MS,
  ACTS_PREFIXES,
  FIXTURE_LIMITS,
  MULTI_TURN_PROMPT,
  TASK_FAILURE_TEXT,
  actsPrefix,
  endsMultiTurn,
} from "../../src/server/fixture/fixture-agent.js";

// The SDK's 1.0 task states, by the short names this file uses.
const STATE = {
  SUBMITTED: TaskState.TASK_STATE_SUBMITTED,
  WORKING: TaskState.TASK_STATE_WORKING,
  COMPLETED: TaskState.TASK_STATE_COMPLETED,
  FAILED: TaskState.TASK_STATE_FAILED,
  CANCELED: TaskState.TASK_STATE_CANCELED,
  REJECTED: TaskState.TASK_STATE_REJECTED,
  INPUT_REQUIRED: TaskState.TASK_STATE_INPUT_REQUIRED,
  AUTH_REQUIRED: TaskState.TASK_STATE_AUTH_REQUIRED,
} as const;
const ROLE_AGENT = 2;

type Obj = Record<string, unknown>;

function part(content: Obj, extra: Obj = {}): Obj {
  return { content, metadata: undefined, filename: "", mediaType: "", ...extra };
}

function textPart(text: string): Obj {
  return part({ $case: "text", value: text });
}

function agentMessage(text: string, taskId: string, contextId: string): Obj {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

type SdkPart = { content?: { $case: string; value: unknown } };

function textOf(message: unknown): string {
  const parts = (message as { parts?: SdkPart[] } | undefined)?.parts ?? [];
  const t = parts.find((p) => p.content?.$case === "text");
  return typeof t?.content?.value === "string" ? t.content.value : "";
}

const firstText = (ctx: RequestContext): string => textOf(ctx.userMessage);

// Whether the task was begun by tck-multi-turn: its first user message names it.
function isMultiTurn(task: RequestContext["task"]): boolean {
  const first = (task?.history ?? []).find((m) => (m as { role?: number }).role === 1);
  return actsPrefix(textOf(first)) === "tck-multi-turn";
}

class FixtureExecutor implements AgentExecutor {
  private readonly waits = new CancelWaits();

  constructor(private readonly longRunningMs: number) {}

  /** ACTS §11.2 (and tck-auth-required): the task exists; answer the behaviour `prefix` names. */
  private async acts(prefix: string, bus: ExecutionEventBus, ctx: RequestContext): Promise<void> {
    const complete = (parts: Obj[]) => {
      this.artifact(bus, ctx, parts);
      this.status(bus, ctx, STATE.COMPLETED);
    };
    switch (prefix) {
      case "tck-complete-task":
        return this.status(bus, ctx, STATE.COMPLETED, "Hello from TCK");
      case "tck-artifact-text":
        return complete([textPart("Generated text content")]);
      case "tck-artifact-file":
        return complete([
          part({ $case: "raw", value: Buffer.from("Generated file content") }, { filename: "output.txt", mediaType: "text/plain" }),
        ]);
      case "tck-artifact-file-url":
        return complete([
          part({ $case: "url", value: "https://example.com/output.txt" }, { filename: "output.txt", mediaType: "text/plain" }),
        ]);
      case "tck-artifact-data":
        return complete([part({ $case: "data", value: { key: "value", count: 42 } })]);
      case "tck-task-failure":
        return this.status(bus, ctx, STATE.FAILED, TASK_FAILURE_TEXT);
      case "tck-reject-task":
        return this.status(bus, ctx, STATE.REJECTED, "rejected");
      case "tck-input-required":
        return this.status(bus, ctx, STATE.INPUT_REQUIRED, "Please provide more input.");
      case "tck-multi-turn":
        return this.status(bus, ctx, STATE.INPUT_REQUIRED, MULTI_TURN_PROMPT);
      case "tck-auth-required":
        return this.status(bus, ctx, STATE.AUTH_REQUIRED, ACTS_AUTH_PROMPT);
      case "tck-stream-basic":
        this.status(bus, ctx, STATE.WORKING, "Streaming started.");
        return complete([textPart("Streamed content")]);
      case "tck-stream-chunked": {
        const id = crypto.randomUUID();
        this.status(bus, ctx, STATE.WORKING);
        ["chunk 1 ", "chunk 2 ", "chunk 3"].forEach((c, i) => this.artifact(bus, ctx, [textPart(c)], id, i > 0, i === 2));
        return this.status(bus, ctx, STATE.COMPLETED);
      }
      case "tck-long-running":
      case "tck-cancel": {
        const long = prefix === "tck-long-running";
        this.status(bus, ctx, STATE.WORKING, long ? "Long-running work started." : "Working until canceled.");
        const ms = long ? this.longRunningMs : FIXTURE_LIMITS.maxSlowMs;
        if (await this.waits.canceledWithin(ctx.taskId, ms)) return this.status(bus, ctx, STATE.CANCELED);
        return complete([textPart(long ? `Long-running work finished after ${ms} ms.` : `Nobody canceled this task within ${ms} ms.`)]);
      }
    }
  }

  private status(bus: ExecutionEventBus, ctx: RequestContext, state: number, message?: string): void {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        status: {
          state,
          message: message ? agentMessage(message, ctx.taskId, ctx.contextId) : undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      } as never),
    );
  }

  private artifact(
    bus: ExecutionEventBus,
    ctx: RequestContext,
    parts: Obj[],
    artifactId = crypto.randomUUID(),
    append = false,
    lastChunk = false,
  ): void {
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { artifactId, name: "result", description: "", parts, metadata: undefined, extensions: [] },
        append,
        lastChunk,
        metadata: undefined,
      } as never),
    );
  }

  private task(bus: ExecutionEventBus, ctx: RequestContext): void {
    if (ctx.task) {
      bus.publish(AgentEvent.task(ctx.task));
      return;
    }
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: STATE.SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    // Activate the extensions the client asks for that the card declares (the fixture marker).
    for (const uri of ctx.context.requestedExtensions ?? []) if (uri === FIXTURE_EXTENSION_URI) ctx.context.addActivatedExtension(uri);
    const text = firstText(ctx);
    const [verb, ...rest] = text.split(" ");
    const arg = rest.join(" ");
    if (ctx.task?.status?.state === STATE.INPUT_REQUIRED && isMultiTurn(ctx.task) && !endsMultiTurn(text)) {
      // A tck-multi-turn conversation goes on until a turn says "done".
      this.task(bus, ctx);
      this.status(bus, ctx, STATE.INPUT_REQUIRED, MULTI_TURN_PROMPT);
      bus.finished();
      return;
    }
    const acts = ctx.task ? undefined : actsPrefix(text);
    if (acts === "tck-message-response") {
      bus.publish(AgentEvent.message(agentMessage("Direct message response", "", ctx.contextId) as never));
      bus.finished();
      return;
    }
    if (acts) {
      this.task(bus, ctx);
      await this.acts(acts, bus, ctx);
      bus.finished();
      return;
    }
    if (
      ctx.task &&
      (verb !== "echo" || ctx.task.status?.state === STATE.INPUT_REQUIRED || ctx.task.status?.state === STATE.AUTH_REQUIRED)
    ) {
      // A follow-up to an interrupted task: finish it with the follow-up's text.
      this.task(bus, ctx);
      this.artifact(bus, ctx, [textPart(text)]);
      this.status(bus, ctx, STATE.COMPLETED);
      bus.finished();
      return;
    }
    if (verb === "msg") {
      bus.publish(AgentEvent.message(agentMessage(arg, "", ctx.contextId) as never));
      bus.finished();
      return;
    }
    this.task(bus, ctx);
    switch (verb) {
      case "echo":
        this.status(bus, ctx, STATE.WORKING);
        this.artifact(bus, ctx, [textPart(arg)]);
        this.status(bus, ctx, STATE.COMPLETED);
        break;
      case "ask":
        this.status(bus, ctx, STATE.INPUT_REQUIRED, "which colour?");
        break;
      case "auth":
        this.status(bus, ctx, STATE.AUTH_REQUIRED, "please authorize the compliance agent");
        break;
      case "fail":
        this.status(bus, ctx, STATE.FAILED, "the fixture agent failed on purpose");
        break;
      case "stream": {
        const n = Number(arg) || 3;
        const id = crypto.randomUUID();
        this.status(bus, ctx, STATE.WORKING);
        for (let i = 0; i < n; i++) this.artifact(bus, ctx, [textPart(`chunk ${i + 1}`)], id, i > 0, i === n - 1);
        this.status(bus, ctx, STATE.COMPLETED);
        break;
      }
      case "slow": {
        this.status(bus, ctx, STATE.WORKING);
        if (await this.waits.canceledWithin(ctx.taskId, Number(arg) || 1000)) this.status(bus, ctx, STATE.CANCELED);
        else {
          this.artifact(bus, ctx, [textPart("slow done")]);
          this.status(bus, ctx, STATE.COMPLETED);
        }
        break;
      }
      case "parts":
        this.artifact(bus, ctx, [
          textPart("text part"),
          part({ $case: "url", value: "https://example.com/compliance.txt" }, { filename: "compliance.txt", mediaType: "text/plain" }),
          part({ $case: "raw", value: Buffer.from("compliance bytes") }, { filename: "bytes.txt", mediaType: "text/plain" }),
          part({ $case: "data", value: { key: "value", count: 42 } }),
        ]);
        this.status(bus, ctx, STATE.COMPLETED);
        break;
      default:
        this.status(bus, ctx, STATE.COMPLETED, `unknown fixture behaviour: ${verb}`);
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    if (!this.waits.cancel(taskId))
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: "",
          status: { state: STATE.CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
  }
}

export interface SdkTarget {
  url: string;
  close(): Promise<void>;
}

/** `push`: declare and serve push notifications (in-memory config store, the SDK's version-aware sender; deliveries time out fast). */
/** `grpc`: also serve the SDK's gRPC services (1.0 and 0.3) and declare them, and only them, on the card. */
/** `longRunningMs`: how long tck-long-running stays WORKING (default ACTS_LONG_RUNNING_MS). */
export async function startSdkTarget(options: { push?: boolean; grpc?: boolean; longRunningMs?: number } = {}): Promise<SdkTarget> {
  const card = {
    name: "compliance fixture agent on @a2a-js/sdk",
    description: "The official SDK's server with the a2a-toolkit fixture behaviours",
    supportedInterfaces: [] as Obj[],
    version: "1.0.0",
    capabilities: {
      streaming: true,
      pushNotifications: options.push === true,
      extensions: [
        {
          uri: FIXTURE_EXTENSION_URI,
          description: "a2a-toolkit compliance fixture behaviours",
          required: false,
          params: { behaviours: ["echo", "msg", "ask", "auth", "stream", "fail", "slow", "parts"], acts: ACTS_PREFIXES },
        },
      ],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "fixture",
        name: "fixture",
        description: "fixture behaviours",
        tags: ["compliance"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const pushStore = options.push ? new InMemoryPushNotificationStore() : undefined;
  // The SDK's documented set-up for 0.3 peers: webhooks get the body shape of the version they were registered over.
  const pushSender = pushStore ? createLegacyAwarePushNotificationSender(pushStore, { timeout: 500 }) : undefined;
  const handler = new DefaultRequestHandler(
    card as never,
    new InMemoryTaskStore(),
    new FixtureExecutor(options.longRunningMs ?? ACTS_LONG_RUNNING_MS),
    undefined,
    pushStore,
    pushSender,
  );
  const app = express();
  const legacyCompat = { enabled: true };
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  // Node closes an idle keep-alive socket after 5 s; a client reusing it at that moment gets
  // ECONNRESET. Longer than the clients' own idle timeout (undici: 4 s), the race is gone.
  server.keepAliveTimeout = 65_000;
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grpc = options.grpc ? await serveGrpc(handler) : undefined;
  if (grpc)
    card.supportedInterfaces.push(
      { url: grpc.address, protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "" },
      { url: grpc.address, protocolBinding: "GRPC", protocolVersion: "0.3", tenant: "" },
    );
  else
    card.supportedInterfaces.push(
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "" },
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "0.3", tenant: "" },
    );
  return {
    url: base,
    close: async () => {
      grpc?.server.forceShutdown();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** The SDK's gRPC services around the same handler, on @grpc/grpc-js (cleartext, loopback). */
async function serveGrpc(requestHandler: DefaultRequestHandler): Promise<{ server: grpc.Server; address: string }> {
  const server = new grpc.Server();
  server.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  server.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { server, address: `127.0.0.1:${port}` };
}
