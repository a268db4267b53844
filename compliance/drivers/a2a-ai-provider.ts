// Client-compliance driver for a2a-ai-provider (0.5.0-alpha.1), a Vercel AI SDK provider over the
// official 0.3 JSON-RPC client: an example of a client with a small API. Protocol:
// compliance/drivers/README.md.
//
//   a2a-toolkit test-client --version 0.3 -- node --import tsx compliance/drivers/a2a-ai-provider.ts {url}
//
// The provider's API is the AI SDK's: generateText (a blocking message/send) and streamText
// (message/stream), a model named by the agent card's URL, and `providerOptions.a2a.contextId`.
// What it reports are the A2A objects it received, as the AI SDK passes them through: the response
// body of generateText and the raw chunks of streamText (includeRawChunks), 0.3 JSON the suite
// converts. Everything else is `unsupported`, decided before the provider is called: A2A 1.0,
// HTTP+JSON, every operation but send, and the send options it has no parameter for (taskId,
// returnImmediately, historyLength, extensions). Credentials go where an AI SDK application puts
// headers, the call's `headers`. The provider and the AI SDK are imported only for a supported
// instruction, so a skip is fast.

interface Instruction {
  op: string;
  version?: "1.0" | "0.3";
  binding?: "json-rpc" | "rest" | "any";
  text?: string;
  stream?: boolean;
  taskId?: string;
  contextId?: string;
  returnImmediately?: boolean;
  historyLength?: number;
  extensions?: string[];
  credentialHeaders?: Record<string, string>;
}

/** What the provider offers no way to ask for, or undefined. */
function unsupported(ins: Instruction): string | undefined {
  if (ins.version === "1.0") return "a2a-ai-provider speaks only A2A 0.3";
  if (ins.binding === "rest" || (ins.binding as string) === "grpc") return "a2a-ai-provider speaks only JSON-RPC";
  if (ins.op !== "send") return `a2a-ai-provider can only send a message (generateText, streamText), not ${ins.op}`;
  const options = (["taskId", "returnImmediately", "historyLength", "extensions"] as const).filter((k) => ins[k] !== undefined);
  if (options.length) return `a2a-ai-provider has no parameter for ${options.join(", ")}`;
  return undefined;
}

async function run(url: string, ins: Instruction): Promise<unknown> {
  const [{ generateText, streamText }, { a2a }] = await Promise.all([import("ai"), import("a2a-ai-provider")]);
  const call = {
    model: a2a(`${url}/.well-known/agent-card.json`),
    prompt: ins.text ?? "hello",
    ...(ins.contextId ? { providerOptions: { a2a: { contextId: ins.contextId } } } : {}),
    // Credentials: the AI SDK's way for an application to set headers (the provider ignores them).
    ...(ins.credentialHeaders ? { headers: ins.credentialHeaders } : {}),
  };
  if (!ins.stream) {
    const r = await generateText(call);
    return { ok: true, version: "0.3", response: r.response.body };
  }
  const events: unknown[] = [];
  for await (const part of streamText({ ...call, includeRawChunks: true }).fullStream) {
    if (part.type === "raw") events.push(part.rawValue);
    if (part.type === "error") throw part.error;
  }
  return { ok: true, version: "0.3", events };
}

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const url = process.argv[2];
let result: unknown;
try {
  if (!url) throw new Error("usage: a2a-ai-provider.ts <agent-url> < instruction.json");
  const ins = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Instruction;
  const reason = unsupported(ins);
  result = reason ? { kind: "unsupported", reason } : await run(url, ins);
} catch (e) {
  console.error(e);
  // The provider turns A2A errors into plain Errors with the message only: no code to report.
  result = { ok: false, error: { kind: "client", message: e instanceof Error ? e.message : String(e) } };
}
process.stdout.write(`${JSON.stringify(result)}\n`);
