// The official @a2a-js/sdk 0.3.14 server (devDependency alias a2a-js-sdk-0.3) around an executor
// implementing the ACTS SUT behaviours (ACTS §11.2 and tck-auth-required; the first text part
// names the behaviour, docs/acts.md): a 0.3 agent nobody here wrote, for running the corpus
// through the translation layer. Wired like its README's quick start (sdk-echo-target.ts (b)):
// a 0.3.0 card, JSON-RPC at the card's url, HTTP+JSON as an additional interface. Text without a
// prefix is echoed, as the echo target does.
import type { AgentCard, Message, Part, TaskState } from "a2a-js-sdk-0.3";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "a2a-js-sdk-0.3/server";
import * as fixture from "../../src/server/fixture/fixture-agent.js";
import { CancelWaits, serveSdk03, type EchoTarget } from "./sdk-echo-target.js";

const now = () => new Date().toISOString();

const textOf = (m: Message | undefined): string => {
  const t = m?.parts.find((p) => p.kind === "text");
  return t?.kind === "text" ? t.text : "";
};

class Acts03Executor implements AgentExecutor {
  private readonly waits = new CancelWaits();

  constructor(private readonly longRunningMs: number) {}

  cancelTask = async (taskId: string): Promise<void> => {
    this.waits.cancel(taskId);
  };

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage, task } = ctx;
    const text = textOf(userMessage);
    const say = (words: string): Message => ({
      kind: "message",
      messageId: crypto.randomUUID(),
      role: "agent",
      parts: [{ kind: "text", text: words }],
      taskId,
      contextId,
    });
    const status = (state: TaskState, words?: string) =>
      bus.publish({
        kind: "status-update",
        taskId,
        contextId,
        status: { state, timestamp: now(), ...(words ? { message: say(words) } : {}) },
        final: state !== "working" && state !== "submitted",
      });
    const artifact = (parts: Part[], artifactId: string = crypto.randomUUID(), append = false, lastChunk = true) =>
      bus.publish({ kind: "artifact-update", taskId, contextId, artifact: { artifactId, name: "result", parts }, append, lastChunk });
    const complete = (parts: Part[]) => {
      artifact(parts);
      status("completed");
    };

    const prefix = task ? undefined : fixture.actsPrefix(text);
    if (prefix === "tck-message-response") {
      bus.publish({
        kind: "message",
        messageId: crypto.randomUUID(),
        role: "agent",
        parts: [{ kind: "text", text: "Direct message response" }],
        contextId,
      });
      bus.finished();
      return;
    }
    if (!task)
      bus.publish({
        kind: "task",
        id: taskId,
        contextId,
        status: { state: "submitted", timestamp: now() },
        history: [userMessage],
      });
    if (task) {
      // A follow-up: a tck-multi-turn conversation goes on until "done"; anything else completes with its text.
      const multiTurn = fixture.actsPrefix(textOf(task.history?.find((m) => m.role === "user"))) === "tck-multi-turn";
      if (task.status.state === "input-required" && multiTurn && !fixture.endsMultiTurn(text))
        status("input-required", fixture.MULTI_TURN_PROMPT);
      else complete([{ kind: "text", text }]);
    } else await this.behave(prefix, text, taskId, { status, artifact, complete });
    bus.finished();
  }

  private async behave(
    prefix: string | undefined,
    text: string,
    taskId: string,
    out: {
      status: (s: TaskState, words?: string) => void;
      artifact: (parts: Part[], id?: string, append?: boolean, last?: boolean) => void;
      complete: (parts: Part[]) => void;
    },
  ): Promise<void> {
    const { status, artifact, complete } = out;
    switch (prefix) {
      case "tck-complete-task":
        return status("completed", "Hello from TCK");
      case "tck-artifact-text":
        return complete([{ kind: "text", text: "Generated text content" }]);
      case "tck-artifact-file":
        return complete([
          {
            kind: "file",
            file: { bytes: Buffer.from("Generated file content").toString("base64"), name: "output.txt", mimeType: "text/plain" },
          },
        ]);
      case "tck-artifact-file-url":
        return complete([{ kind: "file", file: { uri: "https://example.com/output.txt", name: "output.txt", mimeType: "text/plain" } }]);
      case "tck-artifact-data":
        return complete([{ kind: "data", data: { key: "value", count: 42 } }]);
      case "tck-task-failure":
        return status("failed", fixture.TASK_FAILURE_TEXT);
      case "tck-reject-task":
        return status("rejected", "rejected");
      case "tck-input-required":
        return status("input-required", "Please provide more input.");
      case "tck-multi-turn":
        return status("input-required", fixture.MULTI_TURN_PROMPT);
      case "tck-auth-required":
        return status("auth-required", fixture.ACTS_AUTH_PROMPT);
      case "tck-stream-basic":
        status("working", "Streaming started.");
        return complete([{ kind: "text", text: "Streamed content" }]);
      case "tck-stream-chunked": {
        const id = crypto.randomUUID();
        status("working");
        ["chunk 1 ", "chunk 2 ", "chunk 3"].forEach((c, i) => artifact([{ kind: "text", text: c }], id, i > 0, i === 2));
        return status("completed");
      }
      case "tck-long-running":
      case "tck-cancel": {
        const long = prefix === "tck-long-running";
        status("working", long ? "Long-running work started." : "Working until canceled.");
        const ms = long ? this.longRunningMs : fixture.FIXTURE_LIMITS.maxSlowMs;
        if (await this.waits.canceledWithin(taskId, ms)) return status("canceled");
        return complete([
          { kind: "text", text: long ? `Long-running work finished after ${ms} ms.` : `Nobody canceled this task within ${ms} ms.` },
        ]);
      }
      default:
        status("working");
        return complete([{ kind: "text", text }]);
    }
  }
}

/** The 0.3.14 server with the §11.2 executor; `longRunningMs`: how long tck-long-running stays working. */
export async function startSdk03ActsTarget(options: { longRunningMs?: number } = {}): Promise<EchoTarget> {
  const card: AgentCard = {
    name: "ACTS agent on @a2a-js/sdk 0.3.14",
    description: "The official SDK 0.3.14 server with the ACTS SUT behaviours (the first text part names the behaviour).",
    protocolVersion: "0.3.0",
    version: "0.1.0",
    url: "",
    skills: [{ id: "acts", name: "ACTS behaviours", description: fixture.ACTS_PREFIXES.join(", "), tags: ["acts", "test"] }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    additionalInterfaces: [],
  };
  return serveSdk03(card, new Acts03Executor(options.longRunningMs ?? fixture.ACTS_LONG_RUNNING_MS));
}
