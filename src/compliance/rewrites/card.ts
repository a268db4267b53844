// Faults of the agent card: required members missing (either version).
import { isObj, V1_REQUIRED } from "./helpers.js";
import type { Citation, Rewrite } from "./types.js";

/** The agent card without one member. */
function cardWithout(member: string): Rewrite["reply"] {
  return (r) => {
    if (!isObj(r.body) || !(member in r.body)) return r;
    const { [member]: _dropped, ...card } = r.body;
    return { ...r, body: card };
  };
}

const V03_CARD: Citation = {
  version: "0.3.0",
  section: "11.1.1",
  quote: "Expose Agent Card: MUST provide a valid AgentCard document as defined in [Section 5](#5-agent-discovery-the-agent-card).",
};

export const CARD_FAULTS: readonly Rewrite[] = [
  {
    name: "v03-card-protocol-version-missing",
    kind: "fault",
    description: "the 0.3 agent card (served without A2A-Version) has no protocolVersion",
    spec: [V03_CARD],
    applies: { versions: ["0.3"], bindings: ["card"] },
    reply: cardWithout("protocolVersion"),
  },
  {
    name: "card-name-missing",
    kind: "fault",
    description: "the agent card (either version) has no name",
    spec: [V1_REQUIRED, V03_CARD],
    applies: { bindings: ["card"] },
    reply: cardWithout("name"),
  },
  {
    name: "card-supported-interfaces-missing",
    kind: "fault",
    description: "the 1.0 agent card has no supportedInterfaces",
    spec: [V1_REQUIRED],
    applies: { versions: ["1.0"], bindings: ["card"] },
    reply: cardWithout("supportedInterfaces"),
  },
];
