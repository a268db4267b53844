// The default ClientWire: an adapter over the versioning layer's client seam
// (src/transport/client.ts: encodeCall, decodeReply, decodeStreamEvent), which encodes 1.0
// requests for the chosen (version, binding) and decodes replies and events back into 1.0.
// Card parsing is src/versioning/card.ts's parseAgentCard (both shapes; a 0.3 card is upgraded).
import type * as v1_0 from "../../generated/v1_0/index.js";
import { decodeReply, decodeStreamEvent, encodeCall, NotA2AReplyError } from "../transport/client.js";
import { parseAgentCard } from "../versioning/card.js";
import { errorByCode, fromJsonRpcError } from "../versioning/errors.js";
import { policyOf } from "../versioning/policy.js";
import { A2ATransportError } from "./errors.js";
import type { ClientWire, Operation, ResponseOf, Target, WireEvent, WireRequest, WireResponse } from "./wire.js";

/**
 * Either card shape (a2a-wire.md §4.3–4.4) → a 1.0 card; a 0.3 card is upgraded. A "superset"
 * card (1.0 `supportedInterfaces` plus 0.3 top-level fields, as the official JS SDK serves to
 * header-less requests) is read as 1.0; its 0.3 `supportsAuthenticatedExtendedCard` still counts
 * when `capabilities.extendedAgentCard` is absent.
 */
export function parseCard(json: unknown): v1_0.AgentCard {
  const card = parseAgentCard(json).value;
  const legacyFlag = (json as { supportsAuthenticatedExtendedCard?: unknown }).supportsAuthenticatedExtendedCard === true;
  if (legacyFlag && card.capabilities && card.capabilities.extendedAgentCard === undefined) card.capabilities.extendedAgentCard = true;
  return card;
}

/** The ClientWire frames HTTP bindings only; gRPC calls go to src/transport/grpc-client.ts. */
function http(target: Target): Target & { binding: "JSONRPC" | "HTTP+JSON" } {
  if (target.binding === "GRPC") throw new Error("the HTTP wire cannot frame a gRPC call");
  return target as Target & { binding: "JSONRPC" | "HTTP+JSON" };
}

export const defaultWire: ClientWire = {
  encode(target, op, request, extensions): WireRequest {
    const { method, url, headers, body, rpcId, losses } = encodeCall(http(target), op, request as never, { extensions });
    return { method, url, headers, body, rpcId, losses };
  },
  decode<O extends Operation>(target: Target, op: O, res: WireResponse, req?: WireRequest): ResponseOf<O> {
    // The official JS SDK answers 0.3 HTTP+JSON errors as a bare JSON-RPC error object
    // ({code: -32002, message}); the code names the error better than the HTTP status does.
    const body = res.json as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (
      policyOf(target.version).restErrorMayBeRpcObject &&
      target.binding === "HTTP+JSON" &&
      res.status >= 400 &&
      typeof body?.code === "number" &&
      errorByCode(body.code)
    )
      throw fromJsonRpcError({ code: body.code, message: typeof body.message === "string" ? body.message : undefined, data: body.data });
    try {
      return decodeReply(
        http(target),
        op,
        { status: res.status, json: res.json, text: res.text },
        { rpcId: req?.rpcId, sent: req?.losses },
      ) as ResponseOf<O>;
    } catch (e) {
      if (e instanceof NotA2AReplyError)
        throw new A2ATransportError(res.status >= 400 ? "http" : "bad-response", `${target.url}: ${e.message}`, {
          url: target.url,
          status: e.status,
        });
      throw e;
    }
  },
  decodeEvent(target, op, data, sseEvent): WireEvent {
    const d = decodeStreamEvent(http(target), op, data, sseEvent);
    return "error" in d ? { error: d.error } : d.end ? { event: d.event, end: true } : { event: d.event };
  },
  parseCard,
};
