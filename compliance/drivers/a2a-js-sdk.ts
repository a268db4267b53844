// Client-compliance driver for the official @a2a-js/sdk client (1.3.0), as an example of wrapping
// a client that is not the toolkit's. Protocol: compliance/drivers/README.md (one JSON
// instruction on stdin, one JSON result as the last stdout line, the agent URL as argument).
//
//   a2a-toolkit test-client -- node --import tsx compliance/drivers/a2a-js-sdk.ts {url}
//
// Mapping: version "1.0" uses the SDK's native 1.0 transports; "0.3" turns on its legacyCompat
// (0.3 card and transports). binding restricts the transport factories handed to the
// ClientFactory (json-rpc, rest, grpc: the SDK's GrpcTransportFactory over @grpc/grpc-js, cleartext);
// "any" (or none) gives all three in the SDK's default preference. returnImmediately
// is the SDK's ClientConfig.polling. Results are converted with the SDK's own toJSON functions
// (ProtoJSON of its 1.0 types); errors are mapped to their JSON-RPC code with the SDK's
// toJsonRpcError.
import { AgentCard, ListTasksResponse, Message, StreamResponse, Task } from "@a2a-js/sdk";
import {
  ClientFactory,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { toJsonRpcError } from "@a2a-js/sdk/errors";
import { credentials } from "@grpc/grpc-js";

interface Instruction {
  op: "send" | "get" | "cancel" | "list" | "subscribe" | "extended-card";
  version?: "1.0" | "0.3";
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
  allPages?: boolean;
  token?: string;
  /** With `token`: the header(s) the card's declared scheme puts it in, for the application to set. */
  credentialHeaders?: Record<string, string>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function errorResult(e: unknown): unknown {
  const err = e as Error & { code?: number };
  let code: number | undefined;
  try {
    code = toJsonRpcError(e).code;
  } catch {
    code = undefined;
  }
  // toJsonRpcError maps anything it does not know to -32603; report those as client failures.
  if (code !== undefined && code !== -32603) return { ok: false, error: { code, name: err?.name, message: err?.message } };
  return { ok: false, error: { kind: "client", name: err?.name, message: err?.message ?? String(e) } };
}

async function run(url: string, ins: Instruction): Promise<unknown> {
  const legacyCompat = { enabled: ins.version === "0.3" };
  // Credentials the SDK's way: the application's headers (the ones the suite says the card's
  // declared scheme asks for) through an authentication handler around fetch.
  const auth = ins.credentialHeaders;
  const fetchImpl = auth ? createAuthenticatingFetchWithRetry(fetch, { headers: async () => auth, shouldRetryWithHeaders: async () => undefined }) : fetch;
  const transports = [];
  const only = ins.binding === "any" ? undefined : ins.binding;
  if (!only || only === "json-rpc") transports.push(new JsonRpcTransportFactory({ legacyCompat, fetchImpl }));
  if (!only || only === "rest") transports.push(new RestTransportFactory({ legacyCompat, fetchImpl }));
  // gRPC: the SDK's @grpc/grpc-js transport (legacyCompat picks its 0.3 transport for a 0.3 interface);
  // cleartext, as the suite's fixture serves gRPC on loopback without TLS.
  if (!only || only === "grpc") transports.push(new GrpcTransportFactory({ legacyCompat, grpcChannelCredentials: credentials.createInsecure() }));
  const factory = new ClientFactory({
    transports,
    cardResolver: new DefaultAgentCardResolver({ legacyCompat, fetchImpl }),
    clientConfig: { polling: ins.returnImmediately === true },
  });
  const client = await factory.createFromUrl(url);
  const options = ins.extensions?.length ? { serviceParameters: ServiceParameters.create(withA2AExtensions(...ins.extensions)) } : undefined;
  switch (ins.op) {
    case "send": {
      const params = {
        message: {
          messageId: crypto.randomUUID(),
          role: 1, // ROLE_USER
          parts: [{ content: { $case: "text" as const, value: ins.text ?? "hello" } }],
          contextId: ins.contextId ?? "",
          taskId: ins.taskId ?? "",
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        tenant: "",
        configuration: ins.historyLength !== undefined ? ({ historyLength: ins.historyLength, acceptedOutputModes: [], taskPushNotificationConfig: undefined } as never) : undefined,
        metadata: undefined,
      };
      if (!ins.stream) {
        const r = await client.sendMessage(params as never, options);
        const isTask = "status" in (r as object);
        return { ok: true, response: isTask ? { task: Task.toJSON(r as Task) } : { message: Message.toJSON(r as Message) } };
      }
      const events: unknown[] = [];
      for await (const ev of client.sendMessageStream(params as never, options)) events.push(StreamResponse.toJSON(ev));
      return { ok: true, events };
    }
    case "subscribe": {
      const events: unknown[] = [];
      for await (const ev of client.resubscribeTask({ id: ins.taskId ?? "", tenant: "" }, options)) events.push(StreamResponse.toJSON(ev));
      return { ok: true, events };
    }
    case "get":
      return { ok: true, task: Task.toJSON(await client.getTask({ id: ins.taskId ?? "", tenant: "", historyLength: ins.historyLength }, options)) };
    case "cancel":
      return { ok: true, task: Task.toJSON(await client.cancelTask({ id: ins.taskId ?? "", tenant: "", metadata: undefined }, options)) };
    case "extended-card":
      return { ok: true, card: AgentCard.toJSON(await client.getAgentCard(options)) };
    case "list": {
      const tasks: unknown[] = [];
      let pageToken = ins.pageToken ?? "";
      for (let pages = 1; ; pages++) {
        const page = await client.listTasks(
          {
            tenant: "",
            contextId: "",
            status: 0, // TASK_STATE_UNSPECIFIED: no filter
            pageSize: ins.pageSize,
            pageToken,
            statusTimestampAfter: ins.statusTimestampAfter ? new Date(ins.statusTimestampAfter) : undefined,
          } as never,
          options,
        );
        const json = ListTasksResponse.toJSON(page) as { tasks?: unknown[]; nextPageToken?: string };
        tasks.push(...(json.tasks ?? []));
        pageToken = json.nextPageToken ?? "";
        if (!ins.allPages || !pageToken || pages >= 20) return { ok: true, tasks, nextPageToken: pageToken };
      }
    }
  }
}

const url = process.argv[2];
let result: unknown;
try {
  if (!url) throw new Error("usage: a2a-js-sdk.ts <agent-url> < instruction.json");
  result = await run(url, JSON.parse(await readStdin()) as Instruction);
} catch (e) {
  result = errorResult(e);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
