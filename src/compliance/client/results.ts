// Driver results in the client's own version: a result line with `"version": "0.3"` carries 0.3
// JSON objects (kind-discriminated Task, Message, status and artifact events, AgentCard, as a 0.3
// SDK returns them). The suite converts them to the 1.0 ProtoJSON shape the cases expect with the
// toolkit's 0.3 translators (src/versioning), so no driver author has to write that conversion.
// Errors carry the JSON-RPC code, the same in both versions, and are left as they are.
import { codecFor, encode1_0, OPERATIONS, type Operation } from "../../versioning/codec.js";
import * as v1_0 from "../../../generated/v1_0/index.js";

type Json = Record<string, unknown>;

const codec0_3 = codecFor("0.3", "JSONRPC");

function upgrade(op: Operation, value: unknown): unknown {
  return encode1_0(OPERATIONS[op].response, codec0_3.decodeResponse(op, value).value as never);
}

/**
 * The result in the 1.0 shape: unchanged without `"version": "0.3"`, else each member converted
 * (response, events, task, card); throws with the member's path when a member does not convert.
 */
export function resultIn1_0(result: unknown): unknown {
  if (typeof result !== "object" || result === null || (result as Json).version !== "0.3") return result;
  const { version: _version, ...rest } = result as Json;
  const at = <T>(path: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw new Error(`${path}: ${(e as Error).message}`);
    }
  };
  const out: Json = { ...rest };
  if (rest.response !== undefined) out.response = at("/response", () => upgrade("SendMessage", rest.response));
  if (rest.task !== undefined) out.task = at("/task", () => upgrade("GetTask", rest.task));
  if (rest.card !== undefined) out.card = at("/card", () => upgrade("GetExtendedAgentCard", rest.card));
  if (Array.isArray(rest.events))
    out.events = rest.events.map((e, i) => at(`/events/${i}`, () => encode1_0(v1_0.StreamResponseSchema, codec0_3.decodeEvent(e).value)));
  return out;
}
