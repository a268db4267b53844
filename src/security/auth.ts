// Pluggable request authentication for the reference server (A2A 1.0 §7.4, §13.1; a2a-wire.md
// §2.12.1–2.12.2, rules S-56/S-57).
//
// An Authenticator reads one kind of credential from a request and answers with a principal (who
// owns the tasks and push configs the request creates), "missing" (no credential of its kind) or
// "invalid" (a credential that does not verify). It also describes itself for the agent card: its
// entry under `securitySchemes` and a `securityRequirements` alternative, so the card always says
// what the server really checks. The 0.3 card's `securitySchemes`/`security` come from the same
// 1.0 fields through the card translators (src/versioning/card.ts).
//
//   bearerAuth({ tokens: { "t0ken": "alice" } })            Authorization: Bearer <token>
//   bearerAuth({ verify: async (token) => principal })      e.g. a JWT check
//   apiKeyAuth({ location: "header", name: "X-API-Key", keys: { k1: "bob" } })   also "query", "cookie"
//
// `authenticate(authenticators, request)` tries each in order and takes the first principal; when
// none succeeds the result is "invalid" if any credential was presented and rejected, else "missing".
// `unauthenticatedReply(ctx, result, authenticators)` is the reply the binding gives then: HTTP 401
// with one `WWW-Authenticate` challenge per scheme (RFC 9110 §11.6.1; RFC 6750 `error="invalid_token"`
// for a rejected bearer token) and
//   - JSON-RPC: a JSON-RPC error envelope (id null, InvalidRequest "Authentication required"): the
//     spec leaves the JSON-RPC code of authentication failures open and puts them at the HTTP level;
//   - HTTP+JSON: an AIP-193 body `{"error":{"code":401,"status":"UNAUTHENTICATED","message":…}}`.
// The reply never says whether a token exists for someone else: "invalid" and "missing" differ only
// in the bearer challenge's error attribute.
//
// Static tokens and keys are looked up by their SHA-256 digest, so lookup time does not depend on
// how much of a guess matches a real secret.
import { createHash } from "node:crypto";
import { create, toJson } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { Binding } from "../versioning/codec.js";
import { A2AError } from "../versioning/errors.js";
import type { ProtocolVersion } from "../versioning/negotiate.js";
import { encodeError, type HttpReply } from "../transport/server.js";

/** What an authenticator reads: a fastify request has these fields. */
export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /** Request target (path and query). */
  url: string;
}

export type AuthResult = { ok: true; principal: string; scheme: string } | { ok: false; error: "missing" | "invalid"; scheme?: string };

/** The principal for a credential, or undefined (or a throw) to reject it. */
export type Verify = (credential: string, request: AuthRequest) => string | undefined | Promise<string | undefined>;

export interface Authenticator {
  /** Key of the scheme in the card's `securitySchemes`. */
  readonly schemeName: string;
  readonly securityScheme: v1_0.SecurityScheme;
  authenticate(request: AuthRequest): Promise<AuthResult>;
  /** The `WWW-Authenticate` challenge for a 401 (`invalid`: a credential of this kind was rejected). */
  challenge(invalid: boolean): string;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest("base64");

function secretTable(table: Record<string, string> | Map<string, string> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const entries = table instanceof Map ? [...table] : Object.entries(table ?? {});
  for (const [secret, principal] of entries) {
    if (!secret) throw new TypeError("an empty token or key cannot authenticate anyone");
    if (!principal) throw new TypeError("every token or key needs a non-empty principal");
    out.set(digest(secret), principal);
  }
  return out;
}

function verifier(table: Record<string, string> | Map<string, string> | undefined, verify: Verify | undefined): Verify {
  if (!table && !verify) throw new TypeError("give `tokens`/`keys`, a `verify` function, or both");
  const known = secretTable(table);
  return async (cred, req) => {
    const found = known.get(digest(cred));
    if (found || !verify) return found;
    try {
      return await verify(cred, req);
    } catch {
      // Verifiers such as JWT libraries throw on a bad token: that is a rejected credential, not a 500.
      return undefined;
    }
  };
}

function header(req: AuthRequest, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(req.headers)) if (k.toLowerCase() === want) return Array.isArray(v) ? v[0] : v;
  return undefined;
}

const quote = (s: string) => `"${s.replace(/[\\"]/g, "\\$&")}"`;

export interface BearerAuthOptions {
  /** token → principal. */
  tokens?: Record<string, string> | Map<string, string>;
  /** Called for tokens not in `tokens`: the principal, or undefined to reject. */
  verify?: Verify;
  /** Scheme key in the card (default "bearer"). */
  schemeName?: string;
  /** Card hint such as "JWT". */
  bearerFormat?: string;
  description?: string;
  /** `realm` of the challenge (default "a2a"). */
  realm?: string;
}

export function bearerAuth(opts: BearerAuthOptions): Authenticator {
  const check = verifier(opts.tokens, opts.verify);
  const schemeName = opts.schemeName ?? "bearer";
  const realm = opts.realm ?? "a2a";
  return {
    schemeName,
    securityScheme: create(v1_0.SecuritySchemeSchema, {
      scheme: {
        case: "httpAuthSecurityScheme",
        value: { scheme: "Bearer", bearerFormat: opts.bearerFormat ?? "", description: opts.description ?? "" },
      },
    }),
    async authenticate(req) {
      const h = header(req, "authorization")?.trim();
      if (!h) return { ok: false, error: "missing" };
      const token = /^bearer +(\S+)\s*$/i.exec(h)?.[1];
      if (!token) return { ok: false, error: h.toLowerCase().startsWith("bearer") ? "invalid" : "missing", scheme: schemeName };
      const principal = await check(token, req);
      return principal ? { ok: true, principal, scheme: schemeName } : { ok: false, error: "invalid", scheme: schemeName };
    },
    challenge(invalid) {
      return `Bearer realm=${quote(realm)}${invalid ? ', error="invalid_token"' : ""}`;
    },
  };
}

export interface ApiKeyAuthOptions {
  /** Where the key travels, as in the card's APIKeySecurityScheme (default "header"). */
  location?: "header" | "query" | "cookie";
  /** Header, query parameter or cookie name (default "X-API-Key"). */
  name?: string;
  /** key → principal. */
  keys?: Record<string, string> | Map<string, string>;
  verify?: Verify;
  /** Scheme key in the card (default "apiKey"). */
  schemeName?: string;
  description?: string;
  realm?: string;
}

function cookie(req: AuthRequest, name: string): string | undefined {
  const raw = header(req, "cookie");
  if (!raw) return undefined;
  for (const pair of raw.split(";")) {
    const i = pair.indexOf("=");
    if (i < 0 || pair.slice(0, i).trim() !== name) continue;
    const v = pair
      .slice(i + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  }
  return undefined;
}

export function apiKeyAuth(opts: ApiKeyAuthOptions): Authenticator {
  const check = verifier(opts.keys, opts.verify);
  const location = opts.location ?? "header";
  if (!["header", "query", "cookie"].includes(location))
    throw new TypeError(`API key location must be header, query or cookie, not ${location}`);
  const name = opts.name ?? "X-API-Key";
  const schemeName = opts.schemeName ?? "apiKey";
  const realm = opts.realm ?? "a2a";
  const read = (req: AuthRequest): string | undefined => {
    if (location === "header") return header(req, name)?.trim();
    if (location === "cookie") return cookie(req, name);
    const q = req.url.indexOf("?");
    return q >= 0 ? (new URLSearchParams(req.url.slice(q + 1)).get(name) ?? undefined) : undefined;
  };
  return {
    schemeName,
    securityScheme: create(v1_0.SecuritySchemeSchema, {
      scheme: { case: "apiKeySecurityScheme", value: { location, name, description: opts.description ?? "" } },
    }),
    async authenticate(req) {
      const key = read(req);
      if (!key) return { ok: false, error: "missing" };
      const principal = await check(key, req);
      return principal ? { ok: true, principal, scheme: schemeName } : { ok: false, error: "invalid", scheme: schemeName };
    },
    challenge() {
      // No registered HTTP scheme exists for API keys; the challenge tells a person where the key goes.
      return `ApiKey realm=${quote(realm)}, in=${quote(location)}, name=${quote(name)}`;
    },
  };
}

/** Tries each authenticator in order; the first principal wins. */
export async function authenticate(authenticators: readonly Authenticator[], request: AuthRequest): Promise<AuthResult> {
  let invalid: AuthResult | undefined;
  for (const a of authenticators) {
    const r = await a.authenticate(request);
    if (r.ok) return r;
    if (r.error === "invalid") invalid ??= r;
  }
  return invalid ?? { ok: false, error: "missing" };
}

/**
 * The plugin's `authenticate` hook (A2APluginOptions.authenticate) from authenticators: the
 * principal, or undefined for a 401.
 */
export function authenticateHook(authenticators: readonly Authenticator[]): (request: AuthRequest) => Promise<string | undefined> {
  return async (request) => {
    const r = await authenticate(authenticators, request);
    return r.ok ? r.principal : undefined;
  };
}

/**
 * The card's `securitySchemes` and `securityRequirements` for these authenticators: each is one
 * alternative (any one of them suffices, which is how `authenticate` treats them).
 */
export function cardSecurity(authenticators: readonly Authenticator[]): {
  securitySchemes: Record<string, v1_0.SecurityScheme>;
  securityRequirements: v1_0.SecurityRequirement[];
} {
  const securitySchemes: Record<string, v1_0.SecurityScheme> = {};
  for (const a of authenticators) {
    if (securitySchemes[a.schemeName]) throw new TypeError(`two authenticators use the scheme name ${a.schemeName}`);
    securitySchemes[a.schemeName] = a.securityScheme;
  }
  const securityRequirements = authenticators.map((a) =>
    create(v1_0.SecurityRequirementSchema, { schemes: { [a.schemeName]: create(v1_0.StringListSchema, { list: [] }) } }),
  );
  return { securitySchemes, securityRequirements };
}

/**
 * The same as JSON, for an agent's card declaration (AgentCardInit is 1.0 card JSON):
 * `card: { ...myCard, ...cardSecurityJson(authenticators) }`.
 */
export function cardSecurityJson(authenticators: readonly Authenticator[]): {
  securitySchemes: Record<string, v1_0.SecuritySchemeJson>;
  securityRequirements: v1_0.SecurityRequirementJson[];
} {
  const s = cardSecurity(authenticators);
  return {
    securitySchemes: Object.fromEntries(Object.entries(s.securitySchemes).map(([k, v]) => [k, toJson(v1_0.SecuritySchemeSchema, v)])),
    securityRequirements: s.securityRequirements.map((r) => toJson(v1_0.SecurityRequirementSchema, r)),
  };
}

/** `card` with the authenticators' schemes and requirements added (existing entries kept). */
export function withCardSecurity(card: v1_0.AgentCard, authenticators: readonly Authenticator[]): v1_0.AgentCard {
  const s = cardSecurity(authenticators);
  return {
    ...card,
    securitySchemes: { ...card.securitySchemes, ...s.securitySchemes },
    securityRequirements: [...card.securityRequirements, ...s.securityRequirements],
  };
}

/** The 401 reply for an unauthenticated request, in the shape of its binding (see the header). */
export function unauthenticatedReply(
  ctx: { version: ProtocolVersion; binding: Binding; rpcId?: string | number | null },
  result: AuthResult,
  authenticators: readonly Authenticator[],
): HttpReply {
  const invalidScheme = !result.ok && result.error === "invalid" ? result.scheme : undefined;
  const challenges = authenticators.map((a) => a.challenge(a.schemeName === invalidScheme));
  const headers: Record<string, string> = { "www-authenticate": challenges.join(", ") || 'Bearer realm="a2a"' };
  const message = invalidScheme ? "The credentials presented were not accepted" : "Authentication required";
  if (ctx.binding === "JSONRPC") {
    const r = encodeError(
      { version: ctx.version, binding: "JSONRPC", rpcId: ctx.rpcId ?? null },
      new A2AError("InvalidRequestError", message),
    );
    return { ...r, status: 401, headers: { ...r.headers, ...headers } };
  }
  return {
    kind: "reply",
    status: 401,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ error: { code: 401, status: "UNAUTHENTICATED", message, details: [] } }),
  };
}
