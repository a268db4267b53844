// Agents that follow no script, the way LLM agents behave, behind the official @a2a-js/sdk 1.3.0
// server (1.0 and 0.3 via legacyCompat, JSON-RPC and HTTP+JSON; its gRPC services, 1.0 and 0.3, on
// their own port around the same request handler): the "any agent" targets of the verdict work
// (issue 27). Each answers free text, never the fixture extension, the TCK's messageId
// conventions or the ACTS first-part prefixes, and differs in one behaviour:
//
//   free-text      a task whose answer is streamed as three appended artifact chunks, then completed
//   message        always a bare agent Message
//   slow           like free-text, after `delayMs` (default 3 s) per answer
//   never-ends     a task that stays working until cancelled
//   no-context     tasks without contextId (the update events still carry it: they must); 1.0 only,
//                  since a 0.3 Task must have one (0.3 §6.1 declares `contextId: string`)
//   alternating    Message on odd turns, Task on even ones (counted over the agent's life)
//   input-first    input-required on the first turn of every task; the follow-up completes it
//
// `turns` counts the executor's turns: how many messages the run cost the agent.
import { Role, TaskState, type Message, type TaskStatus } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { closer, echoCard, serveSdk, textPart, type EchoTarget } from "./sdk-echo-target.js";
import { serveSdkGrpc } from "./sdk-grpc-echo-target.js";

export const UNSCRIPTED = ["free-text", "message", "slow", "never-ends", "no-context", "alternating", "input-first"] as const;
export type Unscripted = (typeof UNSCRIPTED)[number];

export interface UnscriptedTarget extends EchoTarget {
  /** Turns the executor has run (each one a message sent to the agent). */
  readonly turns: number;
}

const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function agentMessage(contextId: string, taskId: string, value: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(value)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Free text, never an echo: what an LLM says when asked anything. */
const ANSWER = ["Thanks for the question. ", "Here is what I found: ", "nothing in particular."];

class UnscriptedExecutor implements AgentExecutor {
  turns = 0;
  private readonly running = new Map<string, { bus: ExecutionEventBus; contextId: string; stop: () => void }>();

  constructor(
    private readonly kind: Unscripted,
    private readonly delayMs: number,
  ) {}

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.running.get(taskId);
    this.running.delete(taskId);
    const status: TaskStatus = { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() };
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: run?.contextId ?? "", status, metadata: undefined }));
    bus.finished();
    if (run && run.bus !== bus) run.bus.finished();
    run?.stop();
  };

  /** Ends the turns still running (the agent is shutting down). */
  stopAll(): void {
    for (const run of this.running.values()) run.stop();
    this.running.clear();
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const turn = ++this.turns;
    const { taskId, contextId, userMessage } = ctx;
    if (this.kind === "slow") await sleep(this.delayMs);
    if (this.kind === "message" || (this.kind === "alternating" && turn % 2 === 1)) {
      bus.publish(AgentEvent.message(agentMessage(contextId, "", ANSWER.join(""))));
      bus.finished();
      return;
    }
    const status = (state: TaskState, message?: Message) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: now() }, metadata: undefined }));
    // A stream starts with the task (1.0.1 §3.1.2), a continuation's too: the SDK refuses a stream
    // whose first event is a status update.
    if (ctx.task) bus.publish(AgentEvent.task(ctx.task));
    else
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId: this.kind === "no-context" ? "" : contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        }),
      );
    status(TaskState.TASK_STATE_WORKING);
    if (this.kind === "never-ends") {
      // Keeps working, as a model that never stops would: the turn ends only with a cancel.
      await new Promise<void>((stop) => this.running.set(taskId, { bus, contextId, stop }));
      return;
    }
    if (this.kind === "input-first" && !ctx.task) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(contextId, taskId, "Which one do you mean?"));
      bus.finished();
      return;
    }
    const artifactId = crypto.randomUUID();
    ANSWER.forEach((chunk, i) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId, name: "answer", description: "", parts: [textPart(chunk)], metadata: undefined, extensions: [] },
          append: i > 0,
          lastChunk: i === ANSWER.length - 1,
          metadata: undefined,
        }),
      ),
    );
    status(TaskState.TASK_STATE_COMPLETED);
    bus.finished();
  }
}

/** The official SDK 1.3.0 server around one unscripted behaviour; 1.0 and 0.3, JSON-RPC, HTTP+JSON and gRPC. */
export async function startSdkUnscriptedTarget(kind: Unscripted, options: { delayMs?: number } = {}): Promise<UnscriptedTarget> {
  const card = echoCard(`official SDK 1.3.0 server, unscripted: ${kind}`);
  card.name = "Unscripted Agent";
  card.skills = card.skills.map((k) => ({ ...k, id: "chat", name: "Chat", description: "Answers in free text", tags: ["chat"] }));
  const executor = new UnscriptedExecutor(kind, options.delayMs ?? 3_000);
  const only10 = kind === "no-context";
  const { server, base, requestHandler } = await serveSdk(card, executor, only10);
  const grpc = await serveSdkGrpc(requestHandler, card, only10);
  return {
    url: base,
    close: async () => {
      executor.stopAll();
      grpc.close();
      await closer(server)();
    },
    get turns() {
      return executor.turns;
    },
  };
}
