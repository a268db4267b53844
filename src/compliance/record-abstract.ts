// What a recorded exchange was, read through the project's codecs: the abstract operation the
// client called, its request as 1.0 ProtoJSON, and the answer as its 1.0 view (the reply, each
// stream event, or the A2A error it carried). `a2a-toolkit record` writes a conversation whose
// every exchange reads this way as a scenario (src/compliance/scenarios.ts) that replays through
// any agent's own interfaces; one that does not (a request no codec decodes, an answer that is no
// A2A reply) stays a case file of raw wire steps.
import { decodeCall } from "../transport/server.js";
import { decodeReply, decodeStreamEvent, type TargetLike } from "../transport/client.js";
import { encode1_0, OPERATIONS, type Operation } from "../versioning/codec.js";
import { isErrorName } from "./wire-rules.js";

export type RecordedBinding = "json-rpc" | "rest";

/** An exchange as an abstract operation: the ACTS step it becomes. */
export interface AbstractExchange {
  operation: Operation;
  /** The request as 1.0 ProtoJSON. */
  params: unknown;
  /** The answer: its 1.0 view, the 1.0 views of its stream events, or the A2A error (ACTS §6.2 name). */
  answer: { view: unknown } | { events: unknown[] } | { error: string };
}

export interface RecordedWire {
  version: "1.0" | "0.3";
  binding: RecordedBinding;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  /** Path of the interface URL the request went to (REST routes are relative to it). */
  basePath: string;
  response: { status: number; json?: unknown; text?: string; events?: unknown[] };
}

const CODEC_BINDING = { "json-rpc": "JSONRPC", rest: "HTTP+JSON" } as const;

/** The A2A error a thrown value stands for, if it is one. */
function errorName(e: unknown): string | undefined {
  return e instanceof Error && isErrorName(e.name) ? e.name : undefined;
}

/** The exchange as an abstract operation, or why it cannot be one. */
export function readAbstract(x: RecordedWire): AbstractExchange | { problem: string } {
  const call = decodeCall(
    {
      method: x.request.method,
      url: x.request.url,
      headers: x.request.headers,
      ...(x.request.body !== undefined ? { body: x.request.body } : {}),
    },
    // 0.3 HTTP+JSON: an absent or false `blocking` returns at once (L22), as the official SDKs read it.
    { binding: CODEC_BINDING[x.binding], versions: [x.version], basePath: x.basePath },
  );
  if (call.kind !== "call") return { problem: `the request decodes to no ${x.version} operation (HTTP ${call.status})` };
  const op = call.operation;
  const params = encode1_0(OPERATIONS[op].request, call.request as never);
  const target: TargetLike = { url: "", binding: CODEC_BINDING[x.binding], version: x.version };
  const res = x.response;
  try {
    if (res.events) {
      const events: unknown[] = [];
      for (const data of res.events) {
        const d = decodeStreamEvent(target, op, data);
        if ("error" in d)
          return events.length
            ? { problem: `stream event ${events.length}: ${d.error.message}` }
            : { operation: op, params, answer: { error: d.error.name } };
        events.push(encode1_0(OPERATIONS.SendStreamingMessage.response, d.event));
      }
      return { operation: op, params, answer: { events } };
    }
    const value = decodeReply(
      target,
      op,
      { status: res.status, json: res.json, text: res.text },
      call.rpcId !== undefined ? { rpcId: call.rpcId } : {},
    );
    return { operation: op, params, answer: { view: encode1_0(OPERATIONS[op].response, value as never) } };
  } catch (e) {
    const name = errorName(e);
    if (name && name !== "InvalidAgentResponseError") return { operation: op, params, answer: { error: name } };
    return { problem: `the answer decodes to no ${op} reply: ${(e as Error).message}` };
  }
}
