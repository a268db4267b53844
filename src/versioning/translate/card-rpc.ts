// The AgentCard of D03-RPC (0.3 a2a.json) ⇄ 1.0: security schemes with their OAuth flows (L8,
// L16), security requirements, skills and interfaces (translate/card.ts). Losses: LOSSY.md.
import type * as v0_3 from "../../../generated/v0_3/index.js";
import type * as v1_0 from "../../../generated/v1_0/index.js";
import type { LossLog } from "../loss.js";
import { cardDownStart, cardVersionDown, cardVersionUp, interfacesUp } from "./card.js";
import { compact, oneMember, reportUnknown, untranslatable } from "./common.js";
import { RPC_FIELDS, SECURITY_SCHEME_MEMBERS } from "./fields.js";

const FLOW_PREFERENCE = ["authorizationCode", "clientCredentials", "password", "implicit"] as const;
function securityDown(reqs: v1_0.SecurityRequirementJson[]): Record<string, string[]>[] {
  return reqs.map((r) => Object.fromEntries(Object.entries(r.schemes ?? {}).map(([k, v]) => [k, v.list ?? []])));
}
function securityUp(reqs: Record<string, string[]>[]): v1_0.SecurityRequirementJson[] {
  return reqs.map((r) => ({ schemes: Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.length ? { list: v } : {}])) }));
}

function flowsDown(f: v1_0.OAuthFlowsJson, path: string, log: LossLog): v0_3.OAuthFlows {
  const out: v0_3.OAuthFlows = {};
  if (f.authorizationCode) {
    const a = f.authorizationCode;
    if (a.pkceRequired) log.add("L8", `${path}/authorizationCode/pkceRequired`, "pkceRequired has no 0.3 field; dropped");
    out.authorizationCode = compact({
      authorizationUrl: a.authorizationUrl ?? "",
      tokenUrl: a.tokenUrl ?? "",
      refreshUrl: a.refreshUrl,
      scopes: a.scopes ?? {},
    });
  }
  if (f.clientCredentials) {
    const a = f.clientCredentials;
    out.clientCredentials = compact({ tokenUrl: a.tokenUrl ?? "", refreshUrl: a.refreshUrl, scopes: a.scopes ?? {} });
  }
  if (f.implicit) {
    const a = f.implicit;
    out.implicit = compact({ authorizationUrl: a.authorizationUrl ?? "", refreshUrl: a.refreshUrl, scopes: a.scopes ?? {} });
  }
  if (f.password) {
    const a = f.password;
    out.password = compact({ tokenUrl: a.tokenUrl ?? "", refreshUrl: a.refreshUrl, scopes: a.scopes ?? {} });
  }
  if (f.deviceCode) log.add("L8", `${path}/deviceCode`, "the deviceCode OAuth flow has no 0.3 form; dropped");
  return out;
}

function flowsUp(f: v0_3.OAuthFlows, path: string, log: LossLog): v1_0.OAuthFlowsJson {
  const present = FLOW_PREFERENCE.filter((k) => f[k] !== undefined);
  const [keep, ...dropped] = present;
  if (keep === undefined) return {};
  if (dropped.length)
    log.add(
      "L16",
      path,
      `1.0 allows one OAuth flow per scheme; kept ${keep}, dropped ${dropped.join(", ")} (preference: ${FLOW_PREFERENCE.join(" > ")})`,
    );
  return { [keep]: f[keep] };
}

function schemeDown(s: v1_0.SecuritySchemeJson, path: string, log: LossLog): v0_3.SecurityScheme {
  switch (oneMember(s, SECURITY_SCHEME_MEMBERS, path, "SecurityScheme")) {
    case "apiKeySecurityScheme": {
      const a = s.apiKeySecurityScheme!;
      const loc = (a.location ?? "").toLowerCase();
      if (loc !== "query" && loc !== "header" && loc !== "cookie")
        throw untranslatable(`${path}/apiKeySecurityScheme/location`, `location "${a.location}" has no 0.3 form (query, header, cookie)`);
      return compact({ type: "apiKey" as const, in: loc, name: a.name ?? "", description: a.description });
    }
    case "httpAuthSecurityScheme": {
      const a = s.httpAuthSecurityScheme!;
      return compact({ type: "http" as const, scheme: a.scheme ?? "", bearerFormat: a.bearerFormat, description: a.description });
    }
    case "oauth2SecurityScheme": {
      const a = s.oauth2SecurityScheme!;
      return compact({
        type: "oauth2" as const,
        flows: flowsDown(a.flows ?? {}, `${path}/oauth2SecurityScheme/flows`, log),
        oauth2MetadataUrl: a.oauth2MetadataUrl,
        description: a.description,
      });
    }
    case "openIdConnectSecurityScheme": {
      const a = s.openIdConnectSecurityScheme!;
      return compact({ type: "openIdConnect" as const, openIdConnectUrl: a.openIdConnectUrl ?? "", description: a.description });
    }
    default:
      return compact({ type: "mutualTLS" as const, description: s.mtlsSecurityScheme!.description });
  }
}

function schemeUp(s: v0_3.SecurityScheme, path: string, log: LossLog): v1_0.SecuritySchemeJson {
  switch (s.type) {
    case "apiKey":
      return { apiKeySecurityScheme: compact({ description: s.description, location: s.in, name: s.name }) };
    case "http":
      return { httpAuthSecurityScheme: compact({ description: s.description, scheme: s.scheme, bearerFormat: s.bearerFormat }) };
    case "oauth2":
      return {
        oauth2SecurityScheme: compact({
          description: s.description,
          flows: flowsUp(s.flows, `${path}/flows`, log),
          oauth2MetadataUrl: s.oauth2MetadataUrl,
        }),
      };
    case "openIdConnect":
      return { openIdConnectSecurityScheme: compact({ description: s.description, openIdConnectUrl: s.openIdConnectUrl }) };
    case "mutualTLS":
      return { mtlsSecurityScheme: compact({ description: s.description }) };
  }
}

/** A scheme left without an OAuth flow cannot be used by a 0.3 client (L8) and is not shown. */
function schemesDown(schemes: { [k: string]: v1_0.SecuritySchemeJson } | undefined, log: LossLog) {
  if (!schemes) return undefined;
  const out: { [k: string]: v0_3.SecurityScheme } = {};
  for (const [k, s] of Object.entries(schemes)) {
    const d = schemeDown(s, `/securitySchemes/${k}`, log);
    if (d.type === "oauth2" && Object.keys(d.flows).length === 0) {
      log.add(
        "L8",
        `/securitySchemes/${k}`,
        `scheme "${k}" has no flow a 0.3 client can use; the scheme is not shown (requirements naming it stay)`,
      );
      continue;
    }
    out[k] = d;
  }
  return out;
}

/** 1.0 OAuthFlows must hold one flow: a 0.3 oauth2 scheme with none is not shown (L16). */
function schemesUp(schemes: { [k: string]: v0_3.SecurityScheme } | undefined, log: LossLog) {
  if (!schemes) return undefined;
  const out: { [k: string]: v1_0.SecuritySchemeJson } = {};
  for (const [k, s] of Object.entries(schemes)) {
    if (s.type === "oauth2" && !FLOW_PREFERENCE.some((f) => s.flows[f] !== undefined)) {
      log.add(
        "L16",
        `/securitySchemes/${k}/flows`,
        `scheme "${k}" declares no OAuth flow; 1.0 needs exactly one, so the scheme is not shown`,
      );
      continue;
    }
    out[k] = schemeUp(s, `/securitySchemes/${k}`, log);
  }
  return out;
}

export function cardDown(c: v1_0.AgentCardJson, log: LossLog): v0_3.AgentCard {
  const { legacy, main, caps } = cardDownStart(c, log);
  return compact({
    protocolVersion: cardVersionDown(main.protocolVersion),
    name: c.name as string,
    description: c.description as string,
    url: main.url as string,
    preferredTransport: main.protocolBinding || "JSONRPC",
    additionalInterfaces:
      legacy.length > 1
        ? legacy.map((i, n) => ({
            url: i.url as string,
            transport: n === 0 ? i.protocolBinding || "JSONRPC" : (i.protocolBinding as string),
          }))
        : undefined,
    provider: c.provider as v0_3.AgentProvider | undefined,
    version: c.version as string,
    documentationUrl: c.documentationUrl,
    iconUrl: c.iconUrl,
    capabilities: compact({
      streaming: caps.streaming,
      pushNotifications: caps.pushNotifications,
      extensions: caps.extensions?.map((e) =>
        compact({ uri: e.uri ?? "", description: e.description, required: e.required, params: e.params }),
      ),
    }),
    supportsAuthenticatedExtendedCard: caps.extendedAgentCard,
    securitySchemes: schemesDown(c.securitySchemes, log),
    security: c.securityRequirements && securityDown(c.securityRequirements),
    defaultInputModes: c.defaultInputModes ?? [],
    defaultOutputModes: c.defaultOutputModes ?? [],
    skills: (c.skills ?? []).map((s) =>
      compact({
        id: s.id as string,
        name: s.name as string,
        description: s.description as string,
        tags: s.tags ?? [],
        examples: s.examples,
        inputModes: s.inputModes,
        outputModes: s.outputModes,
        security: s.securityRequirements && securityDown(s.securityRequirements),
      }),
    ),
  });
}

export function cardUp(c: v0_3.AgentCard, log: LossLog): v1_0.AgentCardJson {
  reportUnknown(c, RPC_FIELDS.agentCard, "", log);
  const version = cardVersionUp(c.protocolVersion, log);
  const caps = c.capabilities;
  if (caps.stateTransitionHistory !== undefined)
    log.add("L14", "/capabilities/stateTransitionHistory", "stateTransitionHistory was removed in 1.0; dropped");
  if (c.signatures?.length) log.add("L9", "/signatures", "signatures cover the 0.3 card and cannot verify the translated card; dropped");
  return compact({
    name: c.name,
    description: c.description,
    supportedInterfaces: interfacesUp({ url: c.url, transport: c.preferredTransport || "JSONRPC" }, c.additionalInterfaces, version),
    provider: c.provider,
    version: c.version,
    documentationUrl: c.documentationUrl,
    capabilities: compact({
      streaming: caps.streaming,
      pushNotifications: caps.pushNotifications,
      extensions: caps.extensions?.map((e) =>
        compact({ uri: e.uri, description: e.description, required: e.required, params: e.params as v1_0.AgentExtensionJson["params"] }),
      ),
      extendedAgentCard: c.supportsAuthenticatedExtendedCard,
    }),
    securitySchemes: schemesUp(c.securitySchemes, log),
    securityRequirements: c.security && securityUp(c.security),
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: c.skills.map((s) =>
      compact({
        id: s.id,
        name: s.name,
        description: s.description,
        tags: s.tags,
        examples: s.examples,
        inputModes: s.inputModes,
        outputModes: s.outputModes,
        securityRequirements: s.security && securityUp(s.security),
      }),
    ),
    iconUrl: c.iconUrl,
  });
}
