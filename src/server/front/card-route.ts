// The card route of the front: the agent card as served at /.well-known/agent-card.json (built,
// signed and cached per base URL, ETag / Last-Modified, 304s) and the extended card the handler
// declares. The handler's card may change while serving (the gateway's, when a backend is
// discovered late): what depends on it is derived again when its declaration is another object.
import { createHash } from "node:crypto";
import type * as v1_0 from "../../../generated/v1_0/index.js";
import type { HttpReply } from "../../transport/server.js";
import { agentCardReply, askedCardVersion } from "../../versioning/card.js";
import { SUPPORTED_VERSIONS, type ProtocolVersion } from "../../versioning/negotiate.js";
import { policyOf } from "../../versioning/policy.js";
import { cardSecurity, withCardSecurity, type Authenticator } from "../../security/auth.js";
import { signAgentCard, type SigningKey } from "../../security/card-signing.js";
import type { AgentCardInit } from "../engine/agent.js";
import type { A2AHandler, HandlerContext } from "../engine/handler.js";
import { buildCard, grpcAddressOf } from "./card.js";

type Headers = Record<string, string | string[] | undefined>;

export interface CardRouteOptions {
  versions: readonly ProtocolVersion[];
  /** Seconds the card may be cached (Cache-Control max-age). */
  cardMaxAge: number;
  /** The GRPC interfaces' address: `true` the interface URL's host:port, or this host:port. */
  grpc?: true | string;
  /** Every call is authenticated with these: both cards declare their schemes and requirements. */
  authenticators?: readonly Authenticator[];
  /** An otherwise open server authenticates the extended card with these: their schemes only. */
  cardAuthenticators: readonly Authenticator[];
  signing?: { key: SigningKey; kid: string; alg: string; jku?: string };
}

/** What the handler's current declaration implies for the front. */
export interface Declared {
  hasExtended: boolean;
  /** URIs of the extensions the card declares, and of those it requires. */
  declaredUris: ReadonlySet<string>;
  requiredUris: readonly string[];
}

export class CardRoute {
  private declared: (Declared & { declaration: AgentCardInit }) | undefined;
  // Signing costs a few ms: each card is built once per base URL, so every shape of the public
  // card (1.0, dual) carries the same signature.
  private readonly built = new Map<string, Promise<v1_0.AgentCard>>();
  // One entry per shape and base URL; its ETag and Last-Modified (the time it was built, to the
  // second) last as long as the entry, so a validator never outlives the body it names.
  private readonly replies = new Map<string, { reply: HttpReply; etag: string; modified: number }>();

  constructor(
    private readonly handler: A2AHandler,
    private readonly opts: CardRouteOptions,
  ) {}

  /** The handler's declaration now, and what it implies (derived again when it changed). */
  current(): Declared & { declaration: AgentCardInit } {
    const now = this.handler.card();
    if (now.declaration !== this.declared?.declaration) {
      this.built.clear();
      this.replies.clear();
      const declared = now.declaration.capabilities?.extensions ?? [];
      this.declared = {
        hasExtended: now.extended,
        declaredUris: new Set(declared.map((e) => e.uri ?? "")),
        requiredUris: declared.filter((e) => e.required && e.uri).map((e) => e.uri!),
        declaration: now.declaration,
      };
    }
    // The same object while the declaration is the same (read on every call by the gate).
    return this.declared;
  }

  /** The 1.0 card as served at base URL `url`: the declaration, its interfaces and the schemes we check, signed last. */
  cardFor(url: string, extended: AgentCardInit | undefined): Promise<v1_0.AgentCard> {
    const { declaration, hasExtended } = this.current();
    const key = `${extended ? "extended" : "public"} ${url}`;
    let card = this.built.get(key);
    if (!card) {
      card = this.build(url, extended ?? declaration, extended !== undefined || hasExtended);
      if (this.built.size > 64) this.built.clear();
      this.built.set(key, card);
      card.catch(() => this.built.delete(key));
    }
    return card;
  }

  private async build(url: string, init: AgentCardInit, extended: boolean): Promise<v1_0.AgentCard> {
    const { versions, grpc, authenticators, cardAuthenticators, signing } = this.opts;
    const grpcUrl = grpc === true ? grpcAddressOf(url) : grpc || undefined;
    let c = buildCard(init, url, versions, extended, grpcUrl);
    if (authenticators) c = withCardSecurity(c, authenticators);
    else if (cardAuthenticators.length)
      c = { ...c, securitySchemes: { ...c.securitySchemes, ...cardSecurity(cardAuthenticators).securitySchemes } };
    if (signing) c = await signAgentCard(c, signing.key, { kid: signing.kid, alg: signing.alg, jku: signing.jku });
    return c;
  }

  /** GET|HEAD of the card at base URL `url`: the shape A2A-Version asks for (1.0 / 0.3 / dual), or 304. */
  async serve(request: { headers: Headers; url: string }, url: string): Promise<HttpReply> {
    const { versions, cardMaxAge } = this.opts;
    // The seam picks the shape from A2A-Version; the key covers what it looks at.
    const asked = askedCardVersion({ headers: request.headers, url: request.url });
    const key = `${asked === "" || SUPPORTED_VERSIONS.some((v) => v === asked) ? asked : "other"} ${url}`;
    this.current();
    let cached = this.replies.get(key);
    if (!cached) {
      const card = await this.cardFor(url, undefined);
      const r = agentCardReply(card, { headers: request.headers, url: request.url }, { versions });
      const etag = `"${createHash("sha256").update(r.body).digest("base64url").slice(0, 27)}"`;
      cached = { reply: r, etag, modified: Math.floor(Date.now() / 1000) * 1000 };
      if (this.replies.size > 64) this.replies.clear();
      this.replies.set(key, cached);
    }
    const headers = {
      ...cached.reply.headers,
      "cache-control": `public, max-age=${cardMaxAge}`,
      etag: cached.etag,
      "last-modified": new Date(cached.modified).toUTCString(),
    };
    return notModified(request.headers, cached) ? { kind: "reply", status: 304, headers, body: "" } : { ...cached.reply, headers };
  }

  /** GetExtendedAgentCard: the handler declares, the route publishes it at base URL `url`. */
  async extended(version: ProtocolVersion, request: v1_0.GetExtendedAgentCardRequest, ctx: HandlerContext, url: string) {
    // Without one, the handler's UnsupportedOperationError (1.0 §3.3.4), unless the version has its
    // own error (policy.ts).
    const noCard = policyOf(version).noExtendedCard;
    if (noCard && !this.current().hasExtended) throw noCard();
    return this.cardFor(url, await this.handler.getExtendedAgentCard(request, ctx));
  }
}

/**
 * RFC 9110 §13.1: If-None-Match (weak comparison, `*`) decides when present; otherwise
 * If-Modified-Since, when it is a valid date no earlier than the entry's Last-Modified.
 */
function notModified(headers: Headers, entry: { etag: string; modified: number }): boolean {
  const inm = headers["if-none-match"];
  const ifNoneMatch = Array.isArray(inm) ? inm.join(",") : inm;
  if (ifNoneMatch !== undefined) return ifNoneMatch.split(",").some((t) => ["*", entry.etag].includes(t.trim().replace(/^W\//, "")));
  const ims = headers["if-modified-since"];
  return typeof ims === "string" && Date.parse(ims) >= entry.modified;
}
