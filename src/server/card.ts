// The agent card the server publishes: the agent's declaration plus one interface per (binding,
// version) the server serves, all at the same URL (JSON-RPC POSTs to it; HTTP+JSON paths hang
// below it: `/message:send` for 1.0, `/v1/message:send` for 0.3).
import * as v1_0 from "../../generated/v1_0/index.js";
import { decode } from "../runtime/protojson.js";
import { SUPPORTED_VERSIONS, type ProtocolVersion } from "../versioning/negotiate.js";
import type { AgentCardInit } from "./agent.js";

export type ServedVersion = ProtocolVersion;
export type ServedBinding = "JSONRPC" | "HTTP+JSON";

/** Preference order of the interfaces in the card: 1.0 before 0.3, JSON-RPC before HTTP+JSON. */
export function interfacesFor(
  url: string,
  versions: readonly ServedVersion[],
  bindings: readonly ServedBinding[] = ["JSONRPC", "HTTP+JSON"],
) {
  const order = SUPPORTED_VERSIONS.filter((v) => versions.includes(v));
  return order.flatMap((protocolVersion) => bindings.map((protocolBinding) => ({ url, protocolBinding, protocolVersion })));
}

/**
 * The 1.0 card: `init` with its defaults filled in (input/output modes text/plain, no skills) and
 * `capabilities.extendedAgentCard` set when an extended card exists.
 */
export function buildCard(init: AgentCardInit, url: string, versions: readonly ServedVersion[], hasExtendedCard: boolean): v1_0.AgentCard {
  const capabilities = { ...(init.capabilities ?? {}) };
  if (hasExtendedCard) capabilities.extendedAgentCard = true;
  const json: v1_0.AgentCardJson = {
    ...init,
    defaultInputModes: init.defaultInputModes ?? ["text/plain"],
    defaultOutputModes: init.defaultOutputModes ?? ["text/plain"],
    skills: init.skills ?? [],
    capabilities,
    supportedInterfaces: interfacesFor(url, versions),
  };
  return decode(v1_0.AgentCardSchema, json);
}
