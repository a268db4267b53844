// The default ClientWire: an adapter over the versioning layer's client seam
// (src/transport/client.ts: encodeCall, decodeReply, decodeStreamEvent), which encodes 1.0
// requests for the chosen (version, binding) and decodes replies and events back into 1.0.
// Card parsing recognises both card shapes (a2a-wire.md §4.3–4.4) and upgrades a 0.3 card.
import type { JsonValue } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decode } from "../runtime/protojson.js";
import { decodeReply, decodeStreamEvent, encodeCall, NotA2AReplyError } from "../transport/client.js";
import { upgradeAgentCard } from "../versioning/rpc0_3.js";
import { errorByCode, fromJsonRpcError } from "../versioning/errors.js";
import { A2ATransportError } from "./errors.js";
import type { ClientWire, Operation, ResponseOf, Target, WireEvent, WireRequest, WireResponse } from "./wire.js";

/**
 * A 0.3-shaped card: no non-empty `supportedInterfaces`, and a top-level `url` or one of the 0.3
 * interface fields, or a 0.x `protocolVersion` (a2a-wire.md §4.4).
 */
export function isCard0_3(json: unknown): boolean {
  if (!json || typeof json !== "object" || Array.isArray(json)) return false;
  const o = json as Record<string, unknown>;
  if (Array.isArray(o.supportedInterfaces) && o.supportedInterfaces.length > 0) return false;
  return (
    typeof o.url === "string" ||
    "preferredTransport" in o ||
    "additionalInterfaces" in o ||
    "supportsAuthenticatedExtendedCard" in o ||
    (typeof o.protocolVersion === "string" && /^0\./.test(o.protocolVersion))
  );
}

export function parseCard(json: unknown): v1_0.AgentCard {
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new Error("the card is not a JSON object");
  if (isCard0_3(json)) {
    const up = upgradeAgentCard(json as Parameters<typeof upgradeAgentCard>[0]);
    return decode(v1_0.AgentCardSchema, up.value as JsonValue);
  }
  const o = json as Record<string, unknown>;
  if (!Array.isArray(o.supportedInterfaces)) throw new Error("neither a 1.0 card (no supportedInterfaces) nor a 0.3 card (no url)");
  return decode(v1_0.AgentCardSchema, json);
}

export const defaultWire: ClientWire = {
  encode(target, op, request, extensions): WireRequest {
    const { method, url, headers, body, rpcId } = encodeCall(target, op, request as never, { extensions });
    return { method, url, headers, body, rpcId };
  },
  decode<O extends Operation>(target: Target, op: O, res: WireResponse, req?: WireRequest): ResponseOf<O> {
    // The official JS SDK answers 0.3 HTTP+JSON errors as a bare JSON-RPC error object
    // ({code: -32002, message}); the code names the error better than the HTTP status does.
    const body = res.json as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (
      target.version === "0.3" &&
      target.binding === "HTTP+JSON" &&
      res.status >= 400 &&
      typeof body?.code === "number" &&
      errorByCode(body.code)
    )
      throw fromJsonRpcError({ code: body.code, message: typeof body.message === "string" ? body.message : undefined, data: body.data });
    try {
      return decodeReply(target, op, { status: res.status, json: res.json, text: res.text }, { rpcId: req?.rpcId }) as ResponseOf<O>;
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
    const d = decodeStreamEvent(target, op, data, sseEvent);
    return "error" in d ? { error: d.error } : d.end ? { event: d.event, end: true } : { event: d.event };
  },
  parseCard,
};
