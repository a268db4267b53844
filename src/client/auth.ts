// Authentication headers for requests, driven by the agent card's security schemes
// (A2A 1.0 §4.5, §7). The client never negotiates credentials; it places the ones it is given
// where the card says they go.
import type * as v1_0 from "../../generated/v1_0/index.js";

/** Produces headers (and query parameters, for `in: query` API keys) for one request. */
export type AuthProvider = (ctx: { card: v1_0.AgentCard; url: string }) => AuthMaterial | Promise<AuthMaterial>;

export interface AuthMaterial {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

type Secret = string | (() => string | Promise<string>);

async function reveal(s: Secret): Promise<string> {
  return typeof s === "function" ? await s() : s;
}

/** `Authorization: Bearer <token>` (HTTP bearer, OAuth 2.0 and OpenID Connect schemes). */
export function bearer(token: Secret): AuthProvider {
  return async () => ({ headers: { authorization: `Bearer ${await reveal(token)}` } });
}

/**
 * An API key placed as the card's APIKeySecurityScheme says (header or query parameter and
 * its name; `opts.scheme` picks one when the card declares several). Without such a scheme in
 * the card, the key goes in `opts.name` (default `X-API-Key`) as a header.
 */
export function apiKey(key: Secret, opts: { scheme?: string; name?: string } = {}): AuthProvider {
  return async ({ card }) => {
    const value = await reveal(key);
    const entries = Object.entries(card.securitySchemes ?? {});
    const found = entries.find(
      ([name, s]) => s.scheme.case === "apiKeySecurityScheme" && (opts.scheme === undefined || opts.scheme === name),
    );
    const scheme = found?.[1].scheme.case === "apiKeySecurityScheme" ? found[1].scheme.value : undefined;
    const name = scheme?.name || opts.name || "X-API-Key";
    const where = (scheme?.location || "header").toLowerCase();
    if (where === "query") return { query: { [name]: value } };
    if (where === "cookie") return { headers: { cookie: `${name}=${encodeURIComponent(value)}` } };
    return { headers: { [name]: value } };
  };
}

/** Credentials by kind; `fromCredentials` picks the providers the card's schemes call for. */
export interface Credentials {
  bearer?: Secret;
  apiKey?: Secret;
}

/**
 * Providers for the given credentials, in the order the card's security schemes name them. A
 * credential the card does not mention is still sent (a card may omit its schemes).
 */
export function fromCredentials(creds: Credentials): AuthProvider[] {
  const out: AuthProvider[] = [];
  if (creds.bearer !== undefined) out.push(bearer(creds.bearer));
  if (creds.apiKey !== undefined) out.push(apiKey(creds.apiKey));
  return out;
}

/** Runs every provider and merges what they produce (later providers win on a clash). */
export async function collectAuth(providers: readonly AuthProvider[], card: v1_0.AgentCard, url: string): Promise<Required<AuthMaterial>> {
  const headers: Record<string, string> = {};
  const query: Record<string, string> = {};
  for (const p of providers) {
    const m = await p({ card, url });
    Object.assign(headers, m.headers ?? {});
    Object.assign(query, m.query ?? {});
  }
  return { headers, query };
}

/** Which kinds of credentials the card's security schemes ask for (for messages and the CLI). */
export function describeSecurity(card: v1_0.AgentCard): string[] {
  return Object.entries(card.securitySchemes ?? {}).map(([name, s]) => {
    switch (s.scheme.case) {
      case "apiKeySecurityScheme":
        return `${name}: API key in ${s.scheme.value.location || "header"} "${s.scheme.value.name}"`;
      case "httpAuthSecurityScheme":
        return `${name}: HTTP ${s.scheme.value.scheme}`;
      case "oauth2SecurityScheme":
        return `${name}: OAuth 2.0 (bearer token)`;
      case "openIdConnectSecurityScheme":
        return `${name}: OpenID Connect (bearer token)`;
      case "mtlsSecurityScheme":
        return `${name}: mutual TLS`;
      default:
        return `${name}: unknown scheme`;
    }
  });
}
