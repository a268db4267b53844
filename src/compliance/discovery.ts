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

const BINDINGS: Record<string, Exclude<Binding, "any">> = { JSONRPC: "json-rpc", "HTTP+JSON": "rest" };

function majorMinor(v: unknown): Version | undefined {
  if (typeof v !== "string") return undefined;
  const m = /^(\d+)\.(\d+)/.exec(v);
  if (!m) return undefined;
  const mm = `${Number(m[1])}.${Number(m[2])}`;
  return mm === "1.0" || mm === "0.3" ? mm : undefined;
}

/** The well-known card URL for an agent URL (a URL that already names the card is kept). */
export function cardUrlFor(agentUrl: string): { agentUrl: string; cardUrl: string } {
  const u = new URL(agentUrl);
  if (u.pathname.endsWith("/.well-known/agent-card.json")) {
    const base = new URL(u);
    base.pathname = u.pathname.slice(0, -"/.well-known/agent-card.json".length) || "/";
    return { agentUrl: base.toString(), cardUrl: u.toString() };
  }
  return { agentUrl: u.toString(), cardUrl: new URL("/.well-known/agent-card.json", u).toString() };
}

function isCard1_0(c: unknown): c is Record<string, unknown> {
  return isPlainObject(c) && Array.isArray(c.supportedInterfaces);
}

/** A 0.3 card, or a card that is both (0.3 members beside `supportedInterfaces`, as served without A2A-Version). */
function isCard0_3(c: unknown): c is Record<string, unknown> {
  return isPlainObject(c) && typeof c.url === "string";
}

export function interfacesFromCards(card1_0: Record<string, unknown> | undefined, card0_3: Record<string, unknown> | undefined): AgentInterfaceInfo[] {
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
      const main = BINDINGS[String(card0_3.preferredTransport ?? "JSONRPC")];
      if (main) add({ version: "0.3", binding: main, url: card0_3.url as string, source: "0.3 card url/preferredTransport" });
      if (Array.isArray(card0_3.additionalInterfaces))
        card0_3.additionalInterfaces.forEach((raw, idx) => {
          if (!isPlainObject(raw)) return;
          const binding = BINDINGS[String(raw.transport)];
          if (binding && typeof raw.url === "string") add({ version: "0.3", binding, url: raw.url, source: `0.3 card additionalInterfaces[${idx}]` });
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
  const res = await exchange({ method: "GET", url, headers: { accept: "application/json", ...headers } }, { timeoutMs, streamTimeoutMs: timeoutMs });
  const what = `GET ${url}${headers["A2A-Version"] ? " (A2A-Version 1.0)" : ""}`;
  if (res.error) return { res, note: `${what}: ${res.error}` };
  if (res.status !== 200) return { res, note: `${what}: HTTP ${res.status}` };
  if (!isPlainObject(res.json)) return { res, note: `${what}: body is not a JSON object` };
  return { res };
}

export async function discover(agentUrlIn: string, timeoutMs = 10_000, headers: Record<string, string> = {}): Promise<Discovery> {
  const { agentUrl, cardUrl } = cardUrlFor(agentUrlIn);
  const notes: string[] = [];
  const withVersion = await fetchCard(cardUrl, { ...headers, "A2A-Version": "1.0" }, timeoutMs);
  const without = await fetchCard(cardUrl, headers, timeoutMs);
  for (const r of [withVersion, without]) if (r.note) notes.push(r.note);
  const cards = [withVersion.res.json, without.res.json];
  const card1_0 = cards.find(isCard1_0);
  const card0_3 = cards.find(isCard0_3);
  if (!card1_0 && !card0_3) notes.push("no agent card in either the 1.0 or the 0.3 shape");
  const asked1_0 = withVersion.res.json;
  const unrecognisedCard1_0 = isPlainObject(asked1_0) && !isCard1_0(asked1_0) && !isCard0_3(asked1_0) ? asked1_0 : undefined;
  if (unrecognisedCard1_0) notes.push("the card served for A2A-Version: 1.0 is in neither card shape (no supportedInterfaces, no url)");
  const caps = (c: Record<string, unknown> | undefined) => (isPlainObject(c?.capabilities) ? (c.capabilities as Record<string, unknown>) : {});
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
