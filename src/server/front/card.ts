// The agent card the server publishes: the agent's declaration plus one interface per (binding,
// version) the server serves, all at the same URL (JSON-RPC POSTs to it; HTTP+JSON paths hang
// below it: `/message:send` for 1.0, `/v1/message:send` for 0.3); gRPC, when served, at the
// `host:port` gRPC clients dial (the service name tells the version).
import * as v1_0 from "../../../generated/v1_0/index.js";
import { decode } from "../../runtime/protojson.js";
import { SUPPORTED_VERSIONS, type ProtocolVersion } from "../../versioning/negotiate.js";
import type { AgentCardInit } from "../engine/agent.js";

export type ServedVersion = ProtocolVersion;
export type ServedBinding = "JSONRPC" | "HTTP+JSON" | "GRPC";

/**
 * Preference order of the interfaces in the card: 1.0 before 0.3, JSON-RPC before HTTP+JSON
 * before gRPC (at `grpcUrl`, when given).
 */
export function interfacesFor(
  url: string,
  versions: readonly ServedVersion[],
  bindings: readonly ServedBinding[] = ["JSONRPC", "HTTP+JSON"],
  grpcUrl?: string,
) {
  const order = SUPPORTED_VERSIONS.filter((v) => versions.includes(v));
  const all: ServedBinding[] = grpcUrl ? [...bindings.filter((b) => b !== "GRPC"), "GRPC"] : [...bindings];
  return order.flatMap((protocolVersion) =>
    all.map((protocolBinding) => ({ url: protocolBinding === "GRPC" ? grpcUrl! : url, protocolBinding, protocolVersion })),
  );
}

/** The `host:port` of a base URL (gRPC on the same port as the HTTP interfaces). */
export function grpcAddressOf(url: string): string {
  const u = new URL(url);
  return u.port ? u.host : `${u.host}:${u.protocol === "https:" ? 443 : 80}`;
}

/** What a card that declares no input modes says the agent accepts (the runtime holds the agent to it). */
export const DEFAULT_INPUT_MODES = ["text/plain"];

/**
 * The 1.0 card: `init` with its defaults filled in (input/output modes text/plain, no skills) and
 * `capabilities.extendedAgentCard` set when an extended card exists.
 */
export function buildCard(
  init: AgentCardInit,
  url: string,
  versions: readonly ServedVersion[],
  hasExtendedCard: boolean,
  grpcUrl?: string,
): v1_0.AgentCard {
  const capabilities = { ...(init.capabilities ?? {}) };
  if (hasExtendedCard) capabilities.extendedAgentCard = true;
  const json: v1_0.AgentCardJson = {
    ...init,
    defaultInputModes: init.defaultInputModes ?? DEFAULT_INPUT_MODES,
    defaultOutputModes: init.defaultOutputModes ?? ["text/plain"],
    skills: init.skills ?? [],
    capabilities,
    supportedInterfaces: interfacesFor(url, versions, undefined, grpcUrl),
  };
  return decode(v1_0.AgentCardSchema, json);
}
