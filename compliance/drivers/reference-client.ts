// Client-compliance driver for the toolkit's reference client (src/client). The protocol is in
// compliance/drivers/README.md: one JSON instruction on stdin, one JSON result as the last line
// of stdout, the agent's URL as the only argument.
//
//   a2a-toolkit test-client -- node --import tsx compliance/drivers/reference-client.ts {url}
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2ACardError, A2AError, A2ATransportError, applyStreamEvent, createA2AClient, textMessage } from "../../src/client/index.js";
import { toJson } from "../../src/client/format.js";

interface Instruction {
  op: "send" | "get" | "cancel" | "list" | "subscribe" | "extended-card";
  version?: "1.0" | "0.3";
  /** Leave out to let the client choose from the card. */
  binding?: "json-rpc" | "rest" | "grpc" | "any";
  text?: string;
  stream?: boolean;
  taskId?: string;
  contextId?: string;
  returnImmediately?: boolean;
  historyLength?: number;
  extensions?: string[];
  pageSize?: number;
  pageToken?: string;
  statusTimestampAfter?: string;
  /** list: follow nextPageToken until it is empty. */
  allPages?: boolean;
  /** Bearer token the client holds (placed as the card's security schemes say). */
  token?: string;
}

/** The instruction's binding as the card names it (gRPC: the client's transport over HTTP/2, src/transport/grpc-client.ts). */
const BINDINGS = { "json-rpc": "JSONRPC", rest: "HTTP+JSON", grpc: "GRPC" } as const;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function errorResult(e: unknown): unknown {
  if (e instanceof A2AError) return { ok: false, error: { code: e.code, name: e.name, message: e.message } };
  if (e instanceof A2ATransportError) return { ok: false, error: { kind: e.kind, message: e.message, ...(e.status ? { status: e.status } : {}) } };
  if (e instanceof A2ACardError) return { ok: false, error: { kind: `card:${e.kind}`, message: e.message } };
  return { ok: false, error: { kind: "client", message: e instanceof Error ? e.message : String(e) } };
}

async function run(url: string, ins: Instruction): Promise<unknown> {
  const binding = ins.binding && ins.binding !== "any" ? BINDINGS[ins.binding] : undefined;
  const client = await createA2AClient(url, {
    ...(ins.version ? { version: ins.version } : {}),
    ...(binding ? { bindings: [binding] } : {}),
    ...(ins.extensions ? { extensions: ins.extensions } : {}),
    ...(ins.token ? { credentials: { bearer: ins.token } } : {}),
    timeoutMs: 10_000,
    resubscribe: { maxAttempts: 2, backoffMs: 10 },
  });
  switch (ins.op) {
    case "send": {
      const request = {
        message: textMessage(ins.text ?? "hello", { taskId: ins.taskId, contextId: ins.contextId }),
        ...(ins.returnImmediately !== undefined || ins.historyLength !== undefined
          ? { configuration: { returnImmediately: ins.returnImmediately ?? false, ...(ins.historyLength !== undefined ? { historyLength: ins.historyLength } : {}) } }
          : {}),
      };
      if (!ins.stream) return { ok: true, response: toJson(v1_0.SendMessageResponseSchema, await client.sendMessage(request)) };
      const events: unknown[] = [];
      let task: v1_0.Task | undefined;
      for await (const ev of client.sendStreamingMessage(request)) {
        events.push(toJson(v1_0.StreamResponseSchema, ev));
        task = applyStreamEvent(task, ev);
      }
      return { ok: true, events, ...(task ? { task: toJson(v1_0.TaskSchema, task) } : {}) };
    }
    case "subscribe": {
      const events: unknown[] = [];
      let task: v1_0.Task | undefined;
      for await (const ev of client.subscribeToTask({ id: ins.taskId ?? "" })) {
        events.push(toJson(v1_0.StreamResponseSchema, ev));
        task = applyStreamEvent(task, ev);
      }
      return { ok: true, events, ...(task ? { task: toJson(v1_0.TaskSchema, task) } : {}) };
    }
    case "get":
      return {
        ok: true,
        task: toJson(v1_0.TaskSchema, await client.getTask({ id: ins.taskId ?? "", ...(ins.historyLength !== undefined ? { historyLength: ins.historyLength } : {}) })),
      };
    case "extended-card":
      return { ok: true, card: toJson(v1_0.AgentCardSchema, await client.useExtendedCard()) };
    case "cancel":
      return { ok: true, task: toJson(v1_0.TaskSchema, await client.cancelTask({ id: ins.taskId ?? "" })) };
    case "list": {
      const tasks: unknown[] = [];
      let pageToken = ins.pageToken ?? "";
      let pages = 0;
      for (;;) {
        const page = await client.listTasks({
          ...(ins.pageSize !== undefined ? { pageSize: ins.pageSize } : {}),
          ...(pageToken ? { pageToken } : {}),
          ...(ins.statusTimestampAfter ? { statusTimestampAfter: timestampFrom(ins.statusTimestampAfter) } : {}),
        });
        pages++;
        tasks.push(...page.tasks.map((t) => toJson(v1_0.TaskSchema, t)));
        pageToken = page.nextPageToken;
        if (!ins.allPages || !pageToken || pages >= 20) return { ok: true, tasks, nextPageToken: pageToken, pages };
      }
    }
  }
}

function timestampFrom(iso: string) {
  const ms = Date.parse(iso);
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

const url = process.argv[2];
let result: unknown;
try {
  if (!url) throw new Error("usage: reference-client.ts <agent-url> < instruction.json");
  result = await run(url, JSON.parse(await readStdin()) as Instruction);
} catch (e) {
  result = errorResult(e);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
