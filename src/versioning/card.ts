// The agent card by version (a2a-wire.md §4.4, §7.1): one 1.0 card is the source of truth; 0.3
// readers get it translated to the 0.3 shape (only the 0.3 interfaces, L2).
//
// API
//   WELL_KNOWN_CARD_PATH                        "/.well-known/agent-card.json"
//   cardJson(card, version)                     → Translated<JSON> of the card in that version's shape
//   dualCardJson(card)                          → Translated<JSON>: the 0.3 card and the 1.0 card in one document
//   askedCardVersion(req)                       → "" (no version asked) or the asked Major.Minor
//   agentCardReply(card, req, {versions?})      → HttpReply for GET /.well-known/agent-card.json, chosen by
//                                                 the request's A2A-Version (header or query), `Vary: A2A-Version`
//   detectCardVersion(json)                     → "1.0" | "0.3" (heuristics below)
//   parseAgentCard(json)                        → Translated<v1_0.AgentCard> & {version}: either shape → 1.0 card
//                                                 (a card of both: its 1.0 members, security it lacks read
//                                                 from the 0.3 ones; a 0.3 card without protocolVersion
//                                                 as 0.3.0, its schema default); throws A2AError InvalidAgentResponse
//                                                 on a card of neither shape
//
// Which card a request gets (docs/policies.md):
//   A2A-Version 1.0 (or 1.0.x)            → the 1.0 card;
//   0.3                                   → the 0.3 card, built from the card's 0.x interfaces;
//   absent or empty                       → means 0.3 (1.0 §3.6.1), but 1.0 clients often send nothing
//                                           on the card request: when both versions are served and the
//                                           card has interfaces of both, the dual card (below), which
//                                           each version's reader reads as its own card; else the 0.3
//                                           card;
//   either 0.3 form impossible            → (no 0.x interface, or 0.3 not in `versions`) the 1.0 card:
//                                           discovery never fails;
//   any other version                     → the 1.0 card (the newest shape we have), not an error: the
//                                           card is how a client finds out what is supported.
import type { JsonValue } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import type * as v0_3 from "../../generated/v0_3/index.js";
import { decode1_0, encode1_0 } from "./codec.js";
import { A2AError } from "./errors.js";
import type { Translated } from "./loss.js";
import {
  normalizeVersion,
  readHeader,
  requestedVersion,
  SUPPORTED_VERSIONS,
  VERSION_HEADER,
  type HeadersLike,
  type ProtocolVersion,
} from "./negotiate.js";
import * as rpc0_3 from "./rpc0_3.js";

export const WELL_KNOWN_CARD_PATH = "/.well-known/agent-card.json";

/** The card as JSON in `version`'s shape (0.3: the JSON-RPC schema shape every 0.3 reader parses). */
export function cardJson(card: v1_0.AgentCard, version: ProtocolVersion): Translated<JsonValue> {
  const json = encode1_0(v1_0.AgentCardSchema, card);
  if (version === "1.0") return { value: json, losses: [] };
  const down = rpc0_3.downgradeAgentCard(json as v1_0.AgentCardJson);
  return { value: down.value as unknown as JsonValue, losses: down.losses };
}

/**
 * The dual card: the 0.3 card's members and the 1.0 card's members in one JSON object. Where the
 * two versions use the same name the member holds the 1.0 value, whose shape is the same in both
 * (name, skills, capabilities, …), except `securitySchemes`, whose entries differ (0.3: a `type`
 * discriminator; 1.0: one member per kind): each entry holds both, the 0.3 members beside the 1.0
 * one. 1.0 §5.7 lets each reader ignore the other version's members, so a 1.0 reader gets exactly
 * the 1.0 card, and its `signatures` (over the 1.0 card, §8.4) verify; a 0.3 reader gets the 0.3
 * card plus unknown members. Throws like cardJson(card, "0.3") when there is no 0.x interface.
 */
export function dualCardJson(card: v1_0.AgentCard): Translated<JsonValue> {
  type Obj = Record<string, JsonValue>;
  const v10 = cardJson(card, "1.0").value as Obj;
  const down = cardJson(card, "0.3");
  const v03 = down.value as Obj;
  const out: Obj = { ...v03, ...v10 };
  const skills03 = (v03.skills ?? []) as Obj[];
  out.skills = ((v10.skills ?? []) as Obj[]).map((s, i) => ({ ...skills03[i], ...s }));
  if (v10.securitySchemes) {
    const schemes03 = (v03.securitySchemes ?? {}) as Record<string, Obj>;
    out.securitySchemes = Object.fromEntries(
      Object.entries(v10.securitySchemes as Record<string, Obj>).map(([k, s]) => [k, { ...schemes03[k], ...s }]),
    );
  }
  // The 1.0 signatures are kept (they verify for a 1.0 reader): L9 does not apply here.
  return { value: out, losses: down.losses.filter((l) => l.id !== "L9") };
}

export interface CardRequestLike {
  headers: HeadersLike;
  /** Request target; its `A2A-Version` query parameter counts like the header. */
  url?: string;
}

/** The version the card request asks for (header, else query; Major.Minor), or "" when it names none. */
export function askedCardVersion(req: CardRequestLike): string {
  const q = req.url?.indexOf("?") ?? -1;
  const query = q >= 0 ? new URLSearchParams(req.url!.slice(q + 1)) : undefined;
  const header = readHeader(req.headers, VERSION_HEADER)?.split(",")[0] ?? "";
  const named =
    header.trim() !== "" || (query !== undefined && [...query].some(([k, v]) => k.toLowerCase() === "a2a-version" && v.trim() !== ""));
  return named ? requestedVersion(req.headers, query) : "";
}

/** The card as an HTTP reply (an HttpReply of src/transport/server.ts: the card has no losses to report). */
export interface CardReply {
  kind: "reply";
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function agentCardReply(
  card: v1_0.AgentCard,
  req: CardRequestLike,
  opts: { versions?: readonly ProtocolVersion[] } = {},
): CardReply {
  const versions = opts.versions ?? SUPPORTED_VERSIONS;
  const asked = askedCardVersion(req);
  let body: Translated<JsonValue> | undefined;
  if ((asked === "" || asked === "0.3") && versions.includes("0.3")) {
    const dual =
      asked === "" && versions.includes("1.0") && card.supportedInterfaces.some((i) => normalizeVersion(i.protocolVersion) === "1.0");
    try {
      body = dual ? dualCardJson(card) : cardJson(card, "0.3");
    } catch (e) {
      if (!(e instanceof A2AError)) throw e; // no 0.x interface: fall back to the 1.0 card
    }
  }
  body ??= cardJson(card, "1.0");
  return {
    kind: "reply",
    status: 200,
    headers: { "content-type": "application/json", vary: VERSION_HEADER },
    body: JSON.stringify(body.value),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * 1.0 when the card has a non-empty `supportedInterfaces`; 0.3 when it has none and carries a
 * 0.3 marker (`url`, `preferredTransport`, `additionalInterfaces`,
 * `supportsAuthenticatedExtendedCard`, or a 0.x `protocolVersion`); else 1.0 (whose validator then
 * says what is missing). A "superset" card with both is read as 1.0.
 */
export function detectCardVersion(json: unknown): ProtocolVersion {
  if (!isObject(json)) return "1.0";
  if (Array.isArray(json.supportedInterfaces) && json.supportedInterfaces.length > 0) return "1.0";
  const marker =
    typeof json.url === "string" ||
    "preferredTransport" in json ||
    "additionalInterfaces" in json ||
    "supportsAuthenticatedExtendedCard" in json ||
    (typeof json.protocolVersion === "string" && /^0\.\d+/.test(json.protocolVersion));
  return marker ? "0.3" : "1.0";
}

const SCHEME_MEMBERS_1_0 = [
  "apiKeySecurityScheme",
  "httpAuthSecurityScheme",
  "oauth2SecurityScheme",
  "openIdConnectSecurityScheme",
  "mtlsSecurityScheme",
];

/**
 * A card of both shapes whose 1.0 members leave the security out, as the official SDK's card for a
 * request without A2A-Version does (0.3-shaped `securitySchemes` entries only, `security` without
 * `securityRequirements`): the missing 1.0 members are read from the 0.3 ones (a scheme 1.0 cannot
 * hold is dropped, L16). A 1.0 member that is present always wins; other cards are returned as they are.
 */
function securityFrom0_3(json: Record<string, unknown>): Translated<Record<string, unknown>> {
  const schemes = isObject(json.securitySchemes) ? json.securitySchemes : {};
  const only0_3 = Object.keys(schemes).filter((k) => {
    const s = schemes[k];
    return isObject(s) && typeof s.type === "string" && !SCHEME_MEMBERS_1_0.some((m) => m in s);
  });
  const lacksRequirements = (o: unknown) => isObject(o) && o.securityRequirements === undefined && Array.isArray(o.security);
  const skills = Array.isArray(json.skills) ? (json.skills as unknown[]) : [];
  if (typeof json.url !== "string" || (!only0_3.length && !lacksRequirements(json) && !skills.some(lacksRequirements)))
    return { value: json, losses: [] };
  let up: Translated<v1_0.AgentCardJson>;
  try {
    up = rpc0_3.upgradeAgentCard(json as unknown as v0_3.AgentCard);
  } catch {
    return { value: json, losses: [] }; // not a valid 0.3 card either: the 1.0 validator says what is wrong
  }
  const upSchemes = (up.value.securitySchemes ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...json, securitySchemes: { ...schemes } };
  for (const k of only0_3) {
    if (upSchemes[k]) (out.securitySchemes as Record<string, unknown>)[k] = upSchemes[k];
    else delete (out.securitySchemes as Record<string, unknown>)[k];
  }
  if (lacksRequirements(json)) out.securityRequirements = up.value.securityRequirements;
  out.skills = skills.map((s, i) =>
    lacksRequirements(s) ? { ...(s as object), securityRequirements: up.value.skills?.[i]?.securityRequirements } : s,
  );
  return { value: out, losses: up.losses.filter((l) => /^\/(securitySchemes|security|skills\/\d+\/security)/.test(l.path)) };
}

export function parseAgentCard(json: unknown): Translated<v1_0.AgentCard> & { version: ProtocolVersion } {
  if (!isObject(json)) throw new A2AError("InvalidAgentResponseError", "Invalid agent card: not a JSON object");
  const version = detectCardVersion(json);
  if (version === "1.0") {
    const filled = securityFrom0_3(json);
    return { value: decode1_0(v1_0.AgentCardSchema, filled.value, "response"), losses: filled.losses, version };
  }
  let up: Translated<v1_0.AgentCardJson>;
  // protocolVersion is REQUIRED in the 0.3 schema, with the default "0.3.0": a card without it is read as 0.3.0.
  const card0_3 = json.protocolVersion === undefined ? { ...json, protocolVersion: "0.3.0" } : json;
  try {
    up = rpc0_3.upgradeAgentCard(card0_3 as unknown as v0_3.AgentCard);
  } catch (e) {
    if (e instanceof A2AError)
      throw new A2AError("InvalidAgentResponseError", `Invalid 0.3 agent card: ${e.message}`, e.metadata, e.details);
    throw e;
  }
  return { value: decode1_0(v1_0.AgentCardSchema, up.value, "response"), losses: up.losses, version };
}
