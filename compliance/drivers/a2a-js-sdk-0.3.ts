// Client-compliance driver for the official @a2a-js/sdk 0.3.x client (installed here as the
// devDependency `a2a-js-sdk-0.3`, @a2a-js/sdk 0.3.14 under an npm alias), as an example of a
// driver for a client that speaks only A2A 0.3. Protocol: compliance/drivers/README.md.
//
//   a2a-toolkit test-client --version 0.3 -- node --import tsx compliance/drivers/a2a-js-sdk-0.3.ts {url}
//
// The driver reports the SDK's 0.3 objects as they are ("version": "0.3" on the result line); the
// suite converts them to 1.0. What the 0.3 API cannot express is answered `unsupported` before
// the client is called: A2A 1.0, ListTasks. binding picks the transport factories handed to the
// ClientFactory (JSON-RPC, HTTP+JSON, or both in the card's preference); returnImmediately is
// ClientConfig.polling (blocking: false). Credentials are set by the application: the
// instruction's credentialHeaders go to the SDK's createAuthenticatingFetchWithRetry, which adds
// them to every request. Errors: the SDK's error classes, or the JSON-RPC error it keeps in
// `errorResponse`, give the code; anything else is reported without one.
import {
  AuthenticatedExtendedCardNotConfiguredError,
  ClientFactory,
  ContentTypeNotSupportedError,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  InvalidAgentResponseError,
  JsonRpcTransportFactory,
  PushNotificationNotSupportedError,
  RestTransportFactory,
  ServiceParameters,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  withA2AExtensions,
} from "a2a-js-sdk-0.3/client";
import { GrpcTransportFactory } from "a2a-js-sdk-0.3/client/grpc";
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
  /** With `token`: the header(s) the card's declared scheme puts it in, for the application to set. */
  credentialHeaders?: Record<string, string>;
}

const ERROR_CODES: [new (...a: never[]) => Error, number][] = [
  [TaskNotFoundError, -32001],
  [TaskNotCancelableError, -32002],
  [PushNotificationNotSupportedError, -32003],
  [UnsupportedOperationError, -32004],
  [ContentTypeNotSupportedError, -32005],
  [InvalidAgentResponseError, -32006],
  [AuthenticatedExtendedCardNotConfiguredError, -32007],
];

function errorResult(e: unknown): unknown {
  // A stream error arrives as an Error whose cause is the SDK's mapped error.
  const err = (e instanceof Error && e.cause instanceof Error ? e.cause : e) as Error & { errorResponse?: { error?: { code?: unknown } } };
  const rpcCode = err?.errorResponse?.error?.code;
  const code = typeof rpcCode === "number" ? rpcCode : ERROR_CODES.find(([cls]) => err instanceof cls)?.[1];
  if (code !== undefined) return { ok: false, error: { code, name: err.constructor.name, message: err.message } };
  return { ok: false, error: { kind: "client", name: err?.name, message: err?.message ?? String(e) } };
}

/** What the 0.3 client's API offers no way to ask for, or undefined. */
function unsupported(ins: Instruction): string | undefined {
  if (ins.version === "1.0") return "the 0.3 SDK speaks only A2A 0.3";
  if (ins.op === "list") return "A2A 0.3 has no ListTasks";
  return undefined;
}

async function run(url: string, ins: Instruction): Promise<unknown> {
  // The SDK does not read the card's securitySchemes: the application sets the auth header, here
  // the one the suite says the declared scheme asks for, through the SDK's authenticating fetch.
  const auth = ins.credentialHeaders;
  const fetchImpl = auth ? createAuthenticatingFetchWithRetry(fetch, { headers: async () => auth, shouldRetryWithHeaders: async () => undefined }) : fetch;
  const transports = [];
  const only = ins.binding === "any" ? undefined : ins.binding;
  if (!only || only === "json-rpc") transports.push(new JsonRpcTransportFactory({ fetchImpl }));
  if (!only || only === "rest") transports.push(new RestTransportFactory({ fetchImpl }));
  // gRPC: the SDK's @grpc/grpc-js transport, cleartext (the suite's fixture serves gRPC on loopback without TLS).
  if (!only || only === "grpc") transports.push(new GrpcTransportFactory({ grpcChannelCredentials: credentials.createInsecure() }));
  const factory = new ClientFactory({
    transports,
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    clientConfig: { polling: ins.returnImmediately === true },
  });
  const client = await factory.createFromUrl(url);
  const options = ins.extensions?.length ? { serviceParameters: ServiceParameters.create(withA2AExtensions(...ins.extensions)) } : undefined;
  const collect = async (events: AsyncIterable<unknown>) => {
    const out: unknown[] = [];
    for await (const ev of events) out.push(ev);
    return { ok: true, version: "0.3", events: out };
  };
  switch (ins.op) {
    case "send": {
      const params = {
        message: {
          kind: "message" as const,
          messageId: crypto.randomUUID(),
          role: "user" as const,
          parts: [{ kind: "text" as const, text: ins.text ?? "hello" }],
          ...(ins.contextId ? { contextId: ins.contextId } : {}),
          ...(ins.taskId ? { taskId: ins.taskId } : {}),
        },
        ...(ins.historyLength !== undefined ? { configuration: { historyLength: ins.historyLength } } : {}),
      };
      if (ins.stream) return collect(client.sendMessageStream(params, options));
      return { ok: true, version: "0.3", response: await client.sendMessage(params, options) };
    }
    case "subscribe":
      return collect(client.resubscribeTask({ id: ins.taskId ?? "" }, options));
    case "get":
      return { ok: true, version: "0.3", task: await client.getTask({ id: ins.taskId ?? "", historyLength: ins.historyLength }, options) };
    case "cancel":
      return { ok: true, version: "0.3", task: await client.cancelTask({ id: ins.taskId ?? "" }, options) };
    case "extended-card":
      return { ok: true, version: "0.3", card: await client.getAgentCard(options) };
    default:
      return { kind: "unsupported", reason: `no operation ${String(ins.op)}` };
  }
}

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const url = process.argv[2];
let result: unknown;
try {
  if (!url) throw new Error("usage: a2a-js-sdk-0.3.ts <agent-url> < instruction.json");
  const ins = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Instruction;
  const reason = unsupported(ins);
  result = reason ? { kind: "unsupported", reason } : await run(url, ins);
} catch (e) {
  console.error(e);
  result = errorResult(e);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
