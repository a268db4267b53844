// The AgentCard of D03-PB (the v0.3.0 proto, ProtoJSON) ⇄ 1.0. D03-PB spells security schemes
// as 1.0 does (oneof wrappers), so only the OAuth flows (L8) and renamed members differ.
import type * as pb from "../../../generated/v0_3/a2a_pb.js";
import type * as v1_0 from "../../../generated/v1_0/index.js";
import type { LossLog } from "../loss.js";
import { cardDownStart, cardVersionDown, cardVersionUp, interfacesUp } from "./card.js";
import { compact, oneMember, reportUnknown, str } from "./common.js";
import { PB_FIELDS, SECURITY_SCHEME_MEMBERS } from "./fields.js";

function flowsDown(f: v1_0.OAuthFlowsJson, path: string, log: LossLog): pb.OAuthFlowsJson {
  if (f.deviceCode) {
    log.add("L8", `${path}/deviceCode`, "the deviceCode OAuth flow has no 0.3 form; dropped");
    return {};
  }
  if (f.authorizationCode) {
    const { pkceRequired, ...rest } = f.authorizationCode;
    if (pkceRequired) log.add("L8", `${path}/authorizationCode/pkceRequired`, "pkceRequired has no 0.3 field; dropped");
    return { authorizationCode: rest };
  }
  return f;
}

function schemesDown(s: { [k: string]: v1_0.SecuritySchemeJson } | undefined, log: LossLog) {
  if (!s) return undefined;
  const out: { [k: string]: pb.SecuritySchemeJson } = {};
  for (const [k, v] of Object.entries(s)) {
    const path = `/securitySchemes/${k}`;
    oneMember(v, SECURITY_SCHEME_MEMBERS, path, "SecurityScheme");
    if (!v.oauth2SecurityScheme) {
      out[k] = v;
      continue;
    }
    const flows = flowsDown(v.oauth2SecurityScheme.flows ?? {}, `${path}/oauth2SecurityScheme/flows`, log);
    // D03-PB OAuthFlows is a oneof that must be set: a scheme left without a flow cannot be shown.
    if (Object.keys(flows).length === 0) {
      log.add("L8", path, `scheme "${k}" has no flow a 0.3 client can use; the scheme is not shown (requirements naming it stay)`);
      continue;
    }
    out[k] = { oauth2SecurityScheme: compact({ ...v.oauth2SecurityScheme, flows }) };
  }
  return out;
}

export function cardDown(c: v1_0.AgentCardJson, log: LossLog): pb.AgentCardJson {
  const { legacy, main, caps } = cardDownStart(c, log);
  if (str(c.iconUrl)) log.add("L11", "/iconUrl", "the v0.3.0 proto AgentCard has no iconUrl; dropped");
  return compact({
    protocolVersion: cardVersionDown(main.protocolVersion),
    name: c.name,
    description: c.description,
    url: main.url,
    preferredTransport: main.protocolBinding || "JSONRPC",
    additionalInterfaces:
      legacy.length > 1
        ? legacy.map((i, n) => ({ url: i.url, transport: n === 0 ? i.protocolBinding || "JSONRPC" : i.protocolBinding }))
        : undefined,
    provider: c.provider,
    version: c.version,
    documentationUrl: c.documentationUrl,
    capabilities: compact({ streaming: caps.streaming, pushNotifications: caps.pushNotifications, extensions: caps.extensions }),
    securitySchemes: schemesDown(c.securitySchemes, log),
    security: c.securityRequirements,
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: c.skills?.map((s) => {
      const { securityRequirements, ...rest } = s;
      return compact({ ...rest, security: securityRequirements });
    }),
    supportsAuthenticatedExtendedCard: caps.extendedAgentCard,
  });
}

export function cardUp(c: pb.AgentCardJson, log: LossLog): v1_0.AgentCardJson {
  reportUnknown(c, PB_FIELDS.agentCard, "", log);
  const version = cardVersionUp(c.protocolVersion || "0.3.0", log);
  const caps = c.capabilities ?? {};
  if (c.signatures?.length) log.add("L9", "/signatures", "signatures cover the 0.3 card and cannot verify the translated card; dropped");
  // ProtoJSON omits "" and [] — the fields 1.0 requires get their default back.
  return compact({
    name: c.name ?? "",
    description: c.description ?? "",
    supportedInterfaces: interfacesUp(
      { url: c.url ?? "", transport: c.preferredTransport || "JSONRPC" },
      c.additionalInterfaces?.map((i) => ({ url: i.url ?? "", transport: i.transport ?? "" })),
      version,
    ),
    provider: c.provider,
    version: c.version ?? "",
    documentationUrl: c.documentationUrl,
    capabilities: compact({
      streaming: caps.streaming,
      pushNotifications: caps.pushNotifications,
      extensions: caps.extensions,
      extendedAgentCard: c.supportsAuthenticatedExtendedCard,
    }),
    securitySchemes: c.securitySchemes,
    securityRequirements: c.security,
    defaultInputModes: c.defaultInputModes ?? [],
    defaultOutputModes: c.defaultOutputModes ?? [],
    skills: (c.skills ?? []).map((s) => {
      const { security, ...rest } = s;
      return compact({
        ...rest,
        id: s.id ?? "",
        name: s.name ?? "",
        description: s.description ?? "",
        tags: s.tags ?? [],
        securityRequirements: security,
      });
    }),
    iconUrl: (c as { iconUrl?: string }).iconUrl, // 0.3.x proto field #18, accepted on input
  });
}
