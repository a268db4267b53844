// Agent card discovery and interface selection (A2A 1.0 §8.2, §8.3.2, §3.6.3).
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2ACardError, A2ATransportError, transportFailure } from "./errors.js";
import type { Binding, ClientWire, ProtocolVersion, Target } from "./wire.js";
import { cardCandidates, LEGACY_WELL_KNOWN_CARD, WELL_KNOWN_CARD } from "../transport/card-urls.js";
import { SUPPORTED_VERSIONS } from "../versioning/negotiate.js";

export const WELL_KNOWN_CARD_PATH = WELL_KNOWN_CARD;
export const SUPPORTED_BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
export { SUPPORTED_VERSIONS };

/** Caller restrictions on what the client may speak. */
export interface InterfacePolicy {
  /** Bindings the client may use (default: JSONRPC, HTTP+JSON and GRPC). */
  bindings?: readonly Binding[];
  /** Versions the client may use (default: 1.0 and 0.3). */
  versions?: readonly ProtocolVersion[];
  /**
   * Pin one version: only interfaces of this version are considered, and a card without one is
   * an error, never a silent fallback to another version (1.0 §3.6.3).
   */
  version?: ProtocolVersion;
}

/**
 * Where the card of an agent may be, in the order tried (src/transport/card-urls.ts): the URL
 * itself (a card at any path, or an interface URL), then the well-known card under its path and
 * each parent path up to the origin, then the pre-0.3 `/.well-known/agent.json` the same way.
 */
export function cardUrls(input: string): string[] {
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    throw new A2ATransportError("network", `not a valid URL: ${JSON.stringify(input)}`, { url: input });
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new A2ATransportError("network", `unsupported URL scheme ${u.protocol} (use http: or https:)`, { url: input });
  return cardCandidates(u.toString());
}

/** "1.0.1" → "1.0"; anything unrecognisable → undefined. */
export function majorMinor(v: string): string | undefined {
  const m = /^(\d+)\.(\d+)(\.\d+)?$/.exec(v.trim());
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

function normaliseBinding(b: string): string {
  const u = b.trim().toUpperCase();
  return u === "JSON-RPC" || u === "JSONRPC" ? "JSONRPC" : u === "REST" || u === "HTTP+JSON" || u === "HTTP_JSON" ? "HTTP+JSON" : u;
}

/**
 * The first interface of the card, in the agent's order, whose binding and version this client
 * supports and the policy allows. Throws A2ACardError (no-compatible-interface) otherwise, naming
 * what the agent offers.
 */
export function selectInterface(card: v1_0.AgentCard, policy: InterfacePolicy = {}): Target {
  const bindings = policy.bindings ?? SUPPORTED_BINDINGS;
  const versions = policy.version ? [policy.version] : (policy.versions ?? SUPPORTED_VERSIONS);
  for (const i of card.supportedInterfaces) {
    const binding = normaliseBinding(i.protocolBinding) as Binding;
    const version = majorMinor(i.protocolVersion) as ProtocolVersion | undefined;
    if (!SUPPORTED_BINDINGS.includes(binding) || !bindings.includes(binding)) continue;
    if (!version || !SUPPORTED_VERSIONS.includes(version) || !versions.includes(version)) continue;
    return { url: i.url, binding, version, tenant: i.tenant };
  }
  const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion || "(no version)"} at ${i.url}`);
  const wanted = `${versions.join(" or ")} over ${bindings.join(" or ")}`;
  const why = policy.version
    ? `the client is pinned to A2A ${policy.version} and does not fall back to another version`
    : `the client speaks ${wanted}`;
  throw new A2ACardError(
    "no-compatible-interface",
    `agent "${card.name}" offers no usable interface: ${why}; the agent offers ${offered.length ? offered.join(", ") : "no interfaces"}`,
  );
}

export interface FetchCardOptions {
  fetch?: typeof fetch;
  /** How to parse the card (default: the toolkit's versioning layer). */
  wire?: ClientWire;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Send `A2A-Version: 1.0` with the card request (a dual-version server then answers with its 1.0 card). */
  askFor1_0?: boolean;
  /**
   * Keeps fetched cards by URL and honours the card's caching headers (1.0 §8.6.2): a card within its
   * `Cache-Control: max-age` is reused without a request; a stale one is revalidated with
   * `If-None-Match` / `If-Modified-Since`, and a 304 reuses it. `no-store` is never kept.
   */
  cache?: CardCache;
}

interface CachedCard {
  text: string;
  etag?: string;
  lastModified?: string;
  /** Epoch ms until which the card is fresh (0: revalidate every time). */
  freshUntil: number;
  /** The request headers the card was fetched with (a cached card answers only the same request). */
  key: string;
}

/** A per-client cache of agent cards, keyed by card URL (see `FetchCardOptions.cache`). */
export class CardCache {
  private readonly entries = new Map<string, CachedCard>();
  constructor(private readonly now: () => number = Date.now) {}

  /** @internal */
  lookup(url: string, key: string): { fresh: boolean; entry: CachedCard } | undefined {
    const entry = this.entries.get(url);
    if (!entry || entry.key !== key) return undefined;
    return { fresh: this.now() < entry.freshUntil, entry };
  }

  /** @internal Stores (or, for `no-store` or a card without validators or lifetime, drops) a fetched card. */
  store(url: string, key: string, res: Response, text: string): void {
    const cc = (res.headers.get("cache-control") ?? "").toLowerCase();
    const etag = res.headers.get("etag") ?? undefined;
    const lastModified = res.headers.get("last-modified") ?? undefined;
    const maxAge = /(?:^|,)\s*max-age\s*=\s*(\d+)/.exec(cc);
    const freshUntil = /no-cache/.test(cc) || !maxAge ? 0 : this.now() + Number(maxAge[1]) * 1000;
    if (/no-store/.test(cc) || (!etag && !lastModified && freshUntil === 0)) this.entries.delete(url);
    else this.entries.set(url, { text, key, freshUntil, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) });
  }

  /** @internal A 304: the cached card stays, with the lifetime (and validators) of the new response. */
  revalidated(url: string, res: Response): string | undefined {
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    const merged = new Headers(res.headers);
    if (!merged.has("etag") && entry.etag) merged.set("etag", entry.etag);
    if (!merged.has("last-modified") && entry.lastModified) merged.set("last-modified", entry.lastModified);
    this.store(url, entry.key, new Response(null, { status: 200, headers: merged }), entry.text);
    return entry.text;
  }
}

export interface FetchedCard {
  card: v1_0.AgentCard;
  /** The card as received. */
  raw: unknown;
  url: string;
}

/** A JSON object in either card shape: a name and 1.0 `supportedInterfaces` or a 0.3 `url`. */
function looksLikeCard(json: unknown): boolean {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return false;
  const c = json as Record<string, unknown>;
  return typeof c.name === "string" && (Array.isArray(c.supportedInterfaces) || typeof c.url === "string");
}

/** Fetches and parses an agent card (either version's shape; 0.3 cards come back as 1.0 cards). */
export async function fetchAgentCard(input: string, opts: FetchCardOptions = {}): Promise<FetchedCard> {
  const wire = opts.wire ?? (await import("./default-wire.js")).defaultWire;
  const doFetch = opts.fetch ?? fetch;
  const urls = cardUrls(input);
  let last: A2ATransportError | undefined;
  const tried: string[] = [];
  for (const url of urls) {
    // The URL as given may be an interface URL: whatever it answers that is not a card, the next one is tried.
    // At a well-known location the answer is the card, and an unusable one is an error.
    const wellKnown = [WELL_KNOWN_CARD, LEGACY_WELL_KNOWN_CARD].some((w) => new URL(url).pathname.endsWith(w));
    const timeout = opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined;
    const signal = timeout && opts.signal ? AbortSignal.any([timeout, opts.signal]) : (timeout ?? opts.signal);
    const headers: Record<string, string> = {
      accept: "application/json",
      ...(opts.askFor1_0 !== false ? { "A2A-Version": "1.0" } : {}),
      ...opts.headers,
    };
    const key = JSON.stringify(headers);
    const cached = opts.cache?.lookup(url, key);
    let res: Response;
    let text: string;
    if (cached?.fresh) {
      res = new Response(null, { status: 200 });
      text = cached.entry.text;
    } else {
      const conditional: Record<string, string> = {};
      if (cached?.entry.etag) conditional["If-None-Match"] = cached.entry.etag;
      if (cached?.entry.lastModified) conditional["If-Modified-Since"] = cached.entry.lastModified;
      try {
        res = await doFetch(url, { method: "GET", headers: { ...headers, ...conditional }, signal });
        text = await res.text();
      } catch (e) {
        throw transportFailure(e, url, { timeout, caller: opts.signal });
      }
      if (res.status === 304 && cached) {
        text = opts.cache!.revalidated(url, res) ?? cached.entry.text;
        res = new Response(null, { status: 200 });
      } else if (res.ok) opts.cache?.store(url, key, res, text);
    }
    if (!res.ok) {
      last = new A2ATransportError("http", `agent card request ${url} answered HTTP ${res.status} ${res.statusText}`.trim(), {
        url,
        status: res.status,
      });
      tried.push(`${url} (HTTP ${res.status})`);
      if (res.status === 404 || !wellKnown) continue;
      throw last;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      tried.push(`${url} (not JSON)`);
      if (!wellKnown) continue;
      throw new A2ACardError("invalid", `agent card at ${url} is not JSON: ${(e as Error).message}`, { url, cause: e });
    }
    if (!wellKnown && !looksLikeCard(raw)) {
      tried.push(`${url} (JSON, not an agent card)`);
      continue;
    }
    let card: v1_0.AgentCard;
    try {
      card = wire.parseCard(raw);
    } catch (e) {
      throw new A2ACardError("invalid", `agent card at ${url} does not parse as an A2A 1.0 or 0.3 card: ${(e as Error).message}`, {
        url,
        cause: e,
      });
    }
    return { card, raw, url };
  }
  throw new A2ATransportError("http", `no agent card found for ${input}; tried ${tried.join(", ")}`, { url: input, status: last?.status });
}
