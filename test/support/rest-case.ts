// A 1.0 HTTP+JSON case built in a test (not loaded from compliance/cases/) and the discovery of an
// agent that declares only that interface: what runCase needs to judge a hand-made server.
import type { Case, CaseStep, Level } from "../../src/compliance/cases.js";
import type { Discovery } from "../../src/compliance/discovery.js";

export function restCase(steps: CaseStep[], level: Level = "MUST", id = "v1_0/rest/x/y"): Case {
  return {
    id,
    file: "x.json",
    title: "t",
    requirements: ["S-23"],
    level,
    version: "1.0",
    binding: "rest",
    capabilities: [],
    behaviours: [],
    needsOtherPrincipal: false,
    needsWebhook: false,
    steps,
  };
}

export function restDiscovery(url: string): Discovery {
  return {
    agentUrl: url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    interfaces: [{ version: "1.0", binding: "rest", url, source: "test" }],
    capabilities: { "1.0": {}, "0.3": {} },
    notes: [],
  };
}
