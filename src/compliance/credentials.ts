// Credentials no server issued, for the schemes an agent card declares: what a security case sends
// to check that a server refuses invalid credentials (1.0.1 §3.3.2 "Servers **MUST** reject requests
// with invalid or missing authentication credentials"; 0.3 §4.4 "**MUST** authenticate every incoming
// request"). One header per declared scheme that a header carries (HTTP auth, API key in a header,
// OAuth 2.0 and OpenID Connect bearer tokens), all sent together; mutual TLS and API keys in a
// query or cookie are not headers and are left out.
import { isPlainObject } from "./match.js";

const bogus = () => `a2a-toolkit-invalid-${crypto.randomUUID()}`;

/** The header one declared scheme (1.0 oneof wrapper or 0.3 `type` object) is carried in, with an invalid value. */
function headerOf(scheme: unknown): [string, string] | undefined {
  if (!isPlainObject(scheme)) return undefined;
  // 1.0: {"httpAuthSecurityScheme": {...}}, {"apiKeySecurityScheme": {...}}, ...; 0.3: {"type": "http", ...}.
  const [kind, body] =
    typeof scheme.type === "string"
      ? [scheme.type, scheme]
      : (Object.entries(scheme).find(([, v]) => isPlainObject(v)) ?? ([undefined, undefined] as const));
  if (!isPlainObject(body)) return undefined;
  if (kind === "http" || kind === "httpAuthSecurityScheme") {
    const name = typeof body.scheme === "string" && body.scheme ? body.scheme : "Bearer";
    return /^basic$/i.test(name)
      ? ["Authorization", `Basic ${Buffer.from(`${bogus()}:${bogus()}`).toString("base64")}`]
      : ["Authorization", `${name} ${bogus()}`];
  }
  if (kind === "apiKey" || kind === "apiKeySecurityScheme") {
    const where = body.in ?? body.location;
    return where === "header" && typeof body.name === "string" && body.name ? [body.name, bogus()] : undefined;
  }
  if (["oauth2", "openIdConnect", "oauth2SecurityScheme", "openIdConnectSecurityScheme"].includes(String(kind)))
    return ["Authorization", `Bearer ${bogus()}`];
  return undefined;
}

/** Invalid credentials for every header-borne scheme of the card's `securitySchemes` ({} when there is none). */
export function invalidCredentials(card: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const schemes = card?.securitySchemes;
  if (!isPlainObject(schemes)) return out;
  for (const scheme of Object.values(schemes)) {
    const h = headerOf(scheme);
    if (h && !Object.keys(out).some((k) => k.toLowerCase() === h[0].toLowerCase())) out[h[0]] = h[1];
  }
  return out;
}
