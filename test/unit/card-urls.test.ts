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

  it("a card at a custom path, .json or not, is tried first, query kept", () => {
    expect(cardCandidates("http://h/cards/my-agent?v=2")[0]).toBe("http://h/cards/my-agent?v=2");
    const json = cardCandidates("http://h/cards/agent.json");
    expect(json[0]).toBe("http://h/cards/agent.json");
    // A card file's directory is the base, not the file.
    expect(json).toContain("http://h/cards/.well-known/agent-card.json");
    expect(json.some((u) => u.includes("agent.json/.well-known"))).toBe(false);
  });

  it("an interface URL: itself, then each parent path's well-known card, then the origin's", () => {
    expect(cardCandidates("http://h/a2a/jsonrpc").slice(0, 4)).toEqual([
      "http://h/a2a/jsonrpc",
      "http://h/a2a/jsonrpc/.well-known/agent-card.json",
      "http://h/a2a/.well-known/agent-card.json",
      "http://h/.well-known/agent-card.json",
    ]);
  });

  it("a well-known card URL comes first and stands for its base", () => {
    expect(cardCandidates("http://h/p/.well-known/agent-card.json")).toEqual([
      "http://h/p/.well-known/agent-card.json",
      "http://h/.well-known/agent-card.json",
      "http://h/p/.well-known/agent.json",
      "http://h/.well-known/agent.json",
    ]);
    expect(cardCandidates("http://h/.well-known/agent.json")[0]).toBe("http://h/.well-known/agent.json");
  });
});
