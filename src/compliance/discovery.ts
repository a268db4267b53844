// What the agent under test declares: its interfaces (version × binding × URL), its capabilities
// per version, and whether it is a fixture agent. The card is read twice: once with
// `A2A-Version: 1.0` (1.0 shape) and once without (0.3 shape, a card of both shapes, or the same
// 1.0 card).
//
// The fixture-agent marker: an entry of `capabilities.extensions` whose `uri` is
// FIXTURE_EXTENSION_URI. Its optional `params.behaviours` lists the behaviours the agent
// implements (echo, ask, stream, fail, slow, msg, auth, parts, tck); without it every behaviour
// is assumed. Cases that need a behaviour the agent does not declare are skipped.
import type { Behaviour, Binding, Version } from "./cases.js";
import { exchange, type WireResponse } from "./http.js";
import { isPlainObject } from "./match.js";
import { cardCandidates, LEGACY_WELL_KNOWN_CARD, WELL_KNOWN_CARD } from "../transport/card-urls.js";

export const FIXTURE_EXTENSION_URI = "urn:a2a-toolkit:fixture-agent:v1";
export const ALL_BEHAVIOURS: Behaviour[] = ["echo", "ask", "stream", "fail", "slow", "msg", "auth", "parts", "tck"];

export interface AgentInterfaceInfo {
  version: Version;
  binding: Exclude<Binding, "any">;
  url: string;
  /** Where it was declared: "1.0 card supportedInterfaces[2]", "0.3 card url" … */
  source: string;
}

export interface Discovery {
  agentUrl: string;
  cardUrl: string;
  card1_0?: Record<string, unknown>;
  card0_3?: Record<string, unknown>;
  /** The answer to the A2A-Version: 1.0 card request when it is a JSON object in neither card shape. */
  unrecognisedCard1_0?: Record<string, unknown>;
  interfaces: AgentInterfaceInfo[];
  capabilities: Record<Version, Record<string, unknown>>;
  /** Behaviours of the fixture agent; undefined when the agent is not a fixture agent. */
  behaviours?: Behaviour[];
  /** Problems met while reading the card (reported, never fatal on their own). */
  notes: string[];
}

/** The card's protocolBinding (1.0) / transport (0.3) name of each case binding. */
export const PROTOCOL_BINDING = { "json-rpc": "JSONRPC", rest: "HTTP+JSON", grpc: "GRPC" } as const satisfies Record<
  Exclude<Binding, "any">,
  string
>;
const BINDINGS = Object.fromEntries(Object.entries(PROTOCOL_BINDING).map(([b, name]) => [name, b])) as Record<
  string,
  Exclude<Binding, "any">
>;

function majorMinor(v: unknown): Version | undefined {
  if (typeof v !== "string") return undefined;
  const m = /^(\d+)\.(\d+)/.exec(v);
  if (!m) return undefined;
  const mm = `${Number(m[1])}.${Number(m[2])}`;
  return mm === "1.0" || mm === "0.3" ? mm : undefined;
}

/** For a URL that names a well-known card, the base URL it stands for (the path before the well-known name). */
function wellKnownBase(cardUrl: string): string | undefined {
  const u = new URL(cardUrl);
  const wk = [WELL_KNOWN_CARD, LEGACY_WELL_KNOWN_CARD].find((w) => u.pathname.endsWith(w));
  if (!wk) return undefined;
  u.pathname = u.pathname.slice(0, -wk.length) || "/";
  u.search = "";
  return u.toString();
}

function isCard1_0(c: unknown): c is Record<string, unknown> {
  return isPlainObject(c) && Array.isArray(c.supportedInterfaces);
}

/** A 0.3 card, or a card that is both (0.3 members beside `supportedInterfaces`, as served without A2A-Version). */
function isCard0_3(c: unknown): c is Record<string, unknown> {
  return isPlainObject(c) && typeof c.url === "string";
}

export function interfacesFromCards(
  card1_0: Record<string, unknown> | undefined,
  card0_3: Record<string, unknown> | undefined,
): AgentInterfaceInfo[] {
  const out: AgentInterfaceInfo[] = [];
  const add = (i: AgentInterfaceInfo) => {
    if (!out.some((o) => o.version === i.version && o.binding === i.binding)) out.push(i);
  };
  if (card1_0) {
    (card1_0.supportedInterfaces as unknown[]).forEach((raw, idx) => {
      if (!isPlainObject(raw)) return;
      const version = majorMinor(raw.protocolVersion);
      const binding = BINDINGS[String(raw.protocolBinding)];
      if (version && binding && typeof raw.url === "string")
        add({ version, binding, url: raw.url, source: `1.0 card supportedInterfaces[${idx}]` });
    });
  }
  if (card0_3) {
    const v = card0_3.protocolVersion === undefined ? "0.3" : majorMinor(card0_3.protocolVersion);
    if (v === "0.3") {
      const preferred = card0_3.preferredTransport ?? "JSONRPC";
      const main = typeof preferred === "string" ? BINDINGS[preferred] : undefined;
      if (main) add({ version: "0.3", binding: main, url: card0_3.url as string, source: "0.3 card url/preferredTransport" });
      if (Array.isArray(card0_3.additionalInterfaces))
        card0_3.additionalInterfaces.forEach((raw, idx) => {
          if (!isPlainObject(raw)) return;
          const binding = BINDINGS[String(raw.transport)];
          if (binding && typeof raw.url === "string")
            add({ version: "0.3", binding, url: raw.url, source: `0.3 card additionalInterfaces[${idx}]` });
        });
    }
  }
  return out;
}

function fixtureBehaviours(cards: (Record<string, unknown> | undefined)[]): Behaviour[] | undefined {
  for (const card of cards) {
    const caps = card?.capabilities;
    if (!isPlainObject(caps) || !Array.isArray(caps.extensions)) continue;
    const ext = caps.extensions.find((e) => isPlainObject(e) && e.uri === FIXTURE_EXTENSION_URI) as Record<string, unknown> | undefined;
    if (!ext) continue;
    const listed = isPlainObject(ext.params) && Array.isArray(ext.params.behaviours) ? ext.params.behaviours : undefined;
    return listed ? ALL_BEHAVIOURS.filter((b) => listed.includes(b)) : [...ALL_BEHAVIOURS];
  }
  return undefined;
}

async function fetchCard(url: string, headers: Record<string, string>, timeoutMs: number): Promise<{ res: WireResponse; note?: string }> {
  const res = await exchange(
    { method: "GET", url, headers: { accept: "application/json", ...headers } },
    { timeoutMs, streamTimeoutMs: timeoutMs },
  );
  const what = `GET ${url}${headers["A2A-Version"] ? " (A2A-Version 1.0)" : ""}`;
  if (res.error) return { res, note: `${what}: ${res.error}` };
  if (res.status !== 200) return { res, note: `${what}: HTTP ${res.status}` };
  if (!isPlainObject(res.json)) return { res, note: `${what}: body is not a JSON object` };
  return { res };
}

function cardShaped(json: unknown): boolean {
  return isCard1_0(json) || isCard0_3(json);
}

/**
 * Reads the agent's card the way a client finds it (cardCandidates): the first URL that answers
 * with a JSON agent card (asked with `A2A-Version: 1.0`, else without) is the card. When none does,
 * the first URL that answered the 1.0 request with a JSON object is kept (its card cases then say
 * what is wrong with it). The notes say which URLs were tried and which one answered.
 */
export async function discover(agentUrlIn: string, timeoutMs = 10_000, headers: Record<string, string> = {}): Promise<Discovery> {
  const notes: string[] = [];
  const tried: string[] = [];
  const candidates = cardCandidates(agentUrlIn);
  const outcome = (r: { res: WireResponse; note?: string }) =>
    r.note?.replace(/^GET \S+( \(A2A-Version 1\.0\))?: /, "") ?? "JSON, not an agent card";
  type Answer = Awaited<ReturnType<typeof fetchCard>>;
  let found: { url: string; withVersion: Answer; without: Answer } | undefined;
  let firstObject: typeof found;
  for (const url of candidates) {
    const withVersion = await fetchCard(url, { ...headers, "A2A-Version": "1.0" }, timeoutMs);
    const without = withVersion.res.status === 404 ? withVersion : await fetchCard(url, headers, timeoutMs);
    if (cardShaped(withVersion.res.json) || cardShaped(without.res.json)) {
      found = { url, withVersion, without };
      break;
    }
    tried.push(`${url} (${outcome(withVersion)})`);
    if (withVersion.res.status === 0) break; // no HTTP answer at all: the other paths on this origin fare no better
    if (!firstObject && isPlainObject(withVersion.res.json) && wellKnownBase(url)) firstObject = { url, withVersion, without };
  }
  const chosen = found ?? firstObject;
  if (found) notes.push(`agent card read from ${found.url}${tried.length ? `; tried first: ${tried.join(", ")}` : ""}`);
  else notes.push(`no agent card found; tried: ${tried.join(", ")}`);
  const cardUrl = chosen?.url ?? candidates.find((c) => c.endsWith(WELL_KNOWN_CARD)) ?? candidates[0] ?? agentUrlIn;
  const agentUrl = wellKnownBase(cardUrl) ?? cardUrl;
  const withVersion = chosen?.withVersion;
  const without = chosen?.without;
  if (found) for (const r of [withVersion!, without!]) if (r.note) notes.push(r.note);
  const cards = [withVersion?.res.json, without?.res.json];
  const card1_0 = cards.find(isCard1_0);
  const card0_3 = cards.find(isCard0_3);
  if (!card1_0 && !card0_3) notes.push("no agent card in either the 1.0 or the 0.3 shape");
  if (card0_3 && card0_3.protocolVersion === undefined && !isCard1_0(card0_3))
    notes.push("the 0.3 card omits the REQUIRED protocolVersion; read as 0.3.0 (the 0.3 JSON Schema's default)");
  const asked1_0 = withVersion?.res.json;
  const unrecognisedCard1_0 = isPlainObject(asked1_0) && !isCard1_0(asked1_0) && !isCard0_3(asked1_0) ? asked1_0 : undefined;
  if (unrecognisedCard1_0) notes.push("the card served for A2A-Version: 1.0 is in neither card shape (no supportedInterfaces, no url)");
  const caps = (c: Record<string, unknown> | undefined) => (isPlainObject(c?.capabilities) ? c.capabilities : {});
  // 0.3 gates the extended card with a top-level flag rather than a capability (a2a-wire.md §1.3 #11).
  const caps0_3 = (c0_3: Record<string, unknown> | undefined, c1_0: Record<string, unknown> | undefined) =>
    c0_3 ? { ...caps(c0_3), extendedAgentCard: c0_3.supportsAuthenticatedExtendedCard === true } : caps(c1_0);
  return {
    agentUrl,
    cardUrl,
    card1_0,
    card0_3,
    ...(unrecognisedCard1_0 ? { unrecognisedCard1_0 } : {}),
    interfaces: interfacesFromCards(card1_0, card0_3),
    capabilities: { "1.0": caps(card1_0 ?? card0_3), "0.3": caps0_3(card0_3, card1_0) },
    behaviours: fixtureBehaviours([card1_0, card0_3]),
    notes,
  };
}
