// Where an agent's card may be, for the URL a user gives (a client's card discovery, shared by the
// reference client and the compliance suite): a base URL with or without a path prefix, a card URL
// at any path (a `.json` one is the only place looked at), or an interface URL.
export const WELL_KNOWN_CARD = "/.well-known/agent-card.json";
/** Where cards were served before 0.3 (tried last). */
export const LEGACY_WELL_KNOWN_CARD = "/.well-known/agent.json";

/**
 * The URLs to try, in order, for the URL the user gave: a base URL (with or without a path prefix),
 * a card URL at any path, or an interface URL. The URL itself first (unless it is an origin: its
 * path is where the well-known card goes), then `<path>/.well-known/agent-card.json` for its path
 * and each parent path up to the origin, then the same with `/.well-known/agent.json`. A URL whose
 * path ends in `.json` names the card file itself: it is the only candidate.
 */
export function cardCandidates(input: string): string[] {
  const u = new URL(input);
  let path = u.pathname;
  // A card file named explicitly is the only place to look: a 404 there is an answer, not a reason
  // to test another card (the host's root card, say).
  if (path.endsWith(".json")) return [u.toString()];
  path = path.replace(/\/+$/, "");
  const out = path ? [u.toString()] : [];
  const bases: string[] = [];
  for (let p = path; ; p = p.slice(0, p.lastIndexOf("/"))) {
    bases.push(p);
    if (!p) break;
  }
  for (const wk of [WELL_KNOWN_CARD, LEGACY_WELL_KNOWN_CARD]) for (const b of bases) out.push(`${u.origin}${b}${wk}`);
  return [...new Set(out)];
}
