// The projection of a scenario step (compliance/scenarios/) onto one (version, binding): an abstract
// operation with 1.0 ProtoJSON params becomes the wire request of that pair, and the wire answer
// becomes the 1.0 view its expectations are matched against. Both go through the project's codecs,
// the seam the reference client uses (src/transport/client.ts encodeCall / decodeReply; for gRPC the
// version's codec over the ProtoJSON of its proto, which src/compliance/grpc.ts sends as binary).
// What the wire itself must look like is not judged here: src/compliance/wire-rules.ts.
import { decodeReply, decodeStreamEvent, encodeCall, NotA2AReplyError } from "../transport/client.js";
import { codecFor, decode1_0, encode1_0, OPERATIONS, type Operation } from "../versioning/codec.js";
import type { Version } from "./cases.js";
import type { WireResponse } from "./http.js";

export type { Operation };

export type WireBinding = "json-rpc" | "rest" | "grpc";

/** An abstract operation of a projected step (CaseRequest.operation). */
export interface AbstractCall {
  /** The 1.0 operation (A2AService method name: GetTask, SendMessage …). */
  operation: Operation;
  /** Its request as 1.0 ProtoJSON; templates are rendered before projection. */
  params: unknown;
  version: Version;
  binding: WireBinding;
  /** JSON-RPC id the request carries (and the reply must echo). */
  rpcId?: string | number;
}

const CODEC_BINDING = { "json-rpc": "JSONRPC", rest: "HTTP+JSON", grpc: "HTTP+JSON" } as const;

/**
 * The request of `call` on its binding: JSON-RPC the envelope (path ""), HTTP+JSON the verb, path
 * (with query) and body of the operation's route, gRPC the request message as the version's
 * ProtoJSON. Throws when the params are no valid 1.0 request (a scenario error).
 */
export function projectCall(call: AbstractCall): { method: string; path: string; body?: unknown; fallbackMethod?: "GET" } {
  const { operation: op, version, binding } = call;
  const request = decode1_0(OPERATIONS[op].request, call.params ?? {}, "request");
  if (binding === "grpc") return { method: "POST", path: "", body: codecFor(version, "HTTP+JSON").encodeRequest(op, request).value };
  const wire = encodeCall({ url: "", binding: CODEC_BINDING[binding], version }, op, request, { rpcId: call.rpcId });
  if (binding === "rest" && op === "SubscribeToTask")
    // The prose names POST (1.0.1 §11.3.2, 0.3.0 §7.9), the proto's annotation GET: POST first, as
    // the hand-written cases did (1.0 with an empty body, 0.3 with the resource name), then GET.
    return {
      method: "POST",
      path: wire.url,
      body: version === "1.0" ? {} : codecFor(version, "HTTP+JSON").encodeRequest(op, request as never).value,
      fallbackMethod: "GET",
    };
  return {
    method: wire.method,
    path: binding === "json-rpc" ? "" : wire.url,
    ...(wire.body !== undefined ? { body: JSON.parse(wire.body) as unknown } : {}),
  };
}

/** The 1.0 view of a reply (the ACTS §4.2 assertion root), or why there is none. */
export function viewOf(call: Omit<AbstractCall, "params">, res: WireResponse): { view: unknown } | { problem: string } {
  const { operation: op, version, binding } = call;
  try {
    let decoded;
    if (binding === "grpc") {
      if (res.grpc?.status !== "OK") return { problem: `no ${op} answer: gRPC status ${res.grpc?.status ?? "missing"}` };
      decoded = codecFor(version, "HTTP+JSON").decodeResponse(op, res.json ?? {}).value;
    } else
      decoded = decodeReply(
        { url: "", binding: CODEC_BINDING[binding], version },
        op,
        { status: res.status, json: res.json, text: res.text },
        {
          ...(call.rpcId !== undefined ? { rpcId: call.rpcId } : {}),
        },
      );
    return { view: encode1_0(OPERATIONS[op].response, decoded as never) };
  } catch (e) {
    const what = e instanceof NotA2AReplyError ? e.message : `${(e as Error).name}: ${(e as Error).message}`;
    return { problem: `the reply does not decode as a 1.0 ${OPERATIONS[op].response.name}: ${what}` };
  }
}

/**
 * The 1.0 view of each event of a stream (1.0 StreamResponse ProtoJSON), through the same codecs:
 * JSON-RPC's envelope and 0.3's shapes taken off. An event that does not decode (or is an error)
 * has no view: the reason instead, at its index.
 */
export function streamViewOf(
  call: Omit<AbstractCall, "params">,
  events: readonly { json?: unknown; event?: string }[],
): ({ view: unknown } | { problem: string })[] {
  const { operation: op, version, binding } = call;
  return events.map((e) => {
    try {
      let decoded;
      if (binding === "grpc") decoded = codecFor(version, "HTTP+JSON").decodeEvent(e.json ?? {}).value;
      else {
        const d = decodeStreamEvent({ url: "", binding: CODEC_BINDING[binding], version }, op, e.json ?? {}, e.event);
        if ("error" in d) return { problem: `the event is an error: ${d.error.name}: ${d.error.message}` };
        decoded = d.event;
      }
      return { view: encode1_0(OPERATIONS[op].response, decoded as never) };
    } catch (err) {
      return { problem: `the event does not decode as a 1.0 StreamResponse: ${(err as Error).name}: ${(err as Error).message}` };
    }
  });
}
