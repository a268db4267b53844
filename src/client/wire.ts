// The client's view of the wire: everything version- and binding-specific sits behind
// `ClientWire`, so the rest of src/client works in A2A 1.0 types only. The default
// implementation (default-wire.ts) delegates to src/versioning and src/transport; tests pass a stub.
import type { Loss } from "../versioning/loss.js";
import type * as v1_0 from "../../generated/v1_0/index.js";
import type { A2AError } from "../versioning/errors.js";
import type { ProtocolVersion } from "../versioning/negotiate.js";

export type { ProtocolVersion };
/** `protocolBinding` strings of the bindings this client speaks (GRPC: src/transport/grpc-client.ts, not the ClientWire). */
export type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";

/** The interface a client talks to: one entry of the card's `supportedInterfaces`. */
export interface Target {
  url: string;
  binding: Binding;
  version: ProtocolVersion;
  /** Echoed on every request when non-empty (1.0 §8.3.2). */
  tenant: string;
}

// The 11 operations (1.0 names) and their request/response types come from the codec seam.
export { OPERATIONS } from "../versioning/codec.js";
export type { Operation, RequestOf, ResponseOf } from "../versioning/codec.js";
import type { Operation, RequestOf, ResponseOf } from "../versioning/codec.js";

/** An HTTP request ready for fetch(). */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** JSON-RPC id of the request, checked against the reply's. */
  rpcId?: string | number;
  /** What the request's translation could not carry (e.g. L10: the reply's history is trimmed to match). */
  losses?: Loss[];
}

/** An HTTP response as read by the client (body parsed as JSON when it is JSON, else undefined). */
export interface WireResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
  text: string;
}

/** One item of a stream after decoding. `end` marks a 0.3 `final: true` event. */
export type WireEvent = { event: v1_0.StreamResponse; end?: boolean } | { error: A2AError };

export interface ClientWire {
  /**
   * Encodes a 1.0 request for the target. Throws an A2AError when the operation does not exist
   * in the target's version (ListTasks on 0.3 → UnsupportedOperationError).
   */
  encode<O extends Operation>(target: Target, op: O, request: RequestOf<O>, extensions: readonly string[]): WireRequest;
  /** Decodes a non-streaming reply; throws A2AError for a protocol error, anything else for a reply that is not A2A. */
  decode<O extends Operation>(target: Target, op: O, response: WireResponse, request?: WireRequest): ResponseOf<O>;
  /** Decodes the `data` of one SSE event (already JSON-parsed) of a stream. */
  decodeEvent(target: Target, op: Operation, data: unknown, sseEvent?: string): WireEvent;
  /** Recognises either card shape and returns it as a 1.0 card. Throws on a card of neither version. */
  parseCard(json: unknown): v1_0.AgentCard;
}
