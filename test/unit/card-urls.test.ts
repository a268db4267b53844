// The card URLs a client tries for the URL a user gives (src/transport/card-urls.ts), shared by the
// reference client and the compliance suite's discovery.
import { describe, expect, it } from "vitest";
import { cardCandidates } from "../../src/transport/card-urls.js";

describe("cardCandidates", () => {
  it("an origin: its well-known card, then the pre-0.3 name", () => {
    expect(cardCandidates("http://h:1/")).toEqual(["http://h:1/.well-known/agent-card.json", "http://h:1/.well-known/agent.json"]);
  });

  it("a base URL with a path prefix: the URL, the prefix's well-known card before the origin's", () => {
    const c = cardCandidates("http://h/agents/x");
    expect(c[0]).toBe("http://h/agents/x");
    expect(c.indexOf("http://h/agents/x/.well-known/agent-card.json")).toBe(1);
    expect(c.indexOf("http://h/agents/x/.well-known/agent-card.json")).toBeLessThan(c.indexOf("http://h/.well-known/agent-card.json"));
    expect(c.at(-1)).toBe("http://h/.well-known/agent.json");
  });

  it("a card at a custom path without .json is tried first, query kept", () => {
    expect(cardCandidates("http://h/cards/my-agent?v=2")[0]).toBe("http://h/cards/my-agent?v=2");
    expect(cardCandidates("http://h/cards/my-agent?v=2")).toContain("http://h/cards/.well-known/agent-card.json");
  });

  it("a card file named by its .json URL is the only candidate: a 404 there is the answer", () => {
    expect(cardCandidates("http://h/cards/agent.json")).toEqual(["http://h/cards/agent.json"]);
    expect(cardCandidates("http://h/p/.well-known/agent-card.json?x=1")).toEqual(["http://h/p/.well-known/agent-card.json?x=1"]);
    expect(cardCandidates("http://h/.well-known/agent.json")).toEqual(["http://h/.well-known/agent.json"]);
  });

  it("an interface URL: itself, then each parent path's well-known card, then the origin's", () => {
    expect(cardCandidates("http://h/a2a/jsonrpc").slice(0, 4)).toEqual([
      "http://h/a2a/jsonrpc",
      "http://h/a2a/jsonrpc/.well-known/agent-card.json",
      "http://h/a2a/.well-known/agent-card.json",
      "http://h/.well-known/agent-card.json",
    ]);
  });
});
