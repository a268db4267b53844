import { create, equals, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { agentCardReply, cardJson, detectCardVersion, parseAgentCard } from "../../src/versioning/card.js";
import { A2AError } from "../../src/versioning/errors.js";

const init: MessageInitShape<typeof v1_0.AgentCardSchema> = {
  name: "Echo",
  description: "echoes",
  version: "1.2.3",
  supportedInterfaces: [
    { url: "https://agent.example/a2a/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "https://agent.example/a2a/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    { url: "https://agent.example/rest/v03", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
  ],
  capabilities: { streaming: true, extendedAgentCard: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "says it back", tags: ["echo"] }],
};
const card = create(v1_0.AgentCardSchema, init);

describe("agent card by negotiated version", () => {
  it("serves the 1.0 card to A2A-Version: 1.0 and says it varies by that header", () => {
    const r = agentCardReply(card, { headers: { "A2A-Version": "1.0.1" } });
    expect(r.headers.vary).toBe("A2A-Version");
    const json = JSON.parse(r.body);
    expect(json.supportedInterfaces).toHaveLength(3);
    expect(json.url).toBeUndefined();
  });

  it("serves a 0.3-shaped card, with only the 0.3 interfaces, to a header-less request", () => {
    const json = JSON.parse(agentCardReply(card, { headers: {} }).body);
    expect(json.protocolVersion).toMatch(/^0\.3/);
    expect(json.url).toBe("https://agent.example/a2a/v03");
    expect(json.preferredTransport).toBe("JSONRPC");
    expect(json.supportsAuthenticatedExtendedCard).toBe(true);
    expect(JSON.stringify(json)).not.toContain("/a2a/v1");
  });

  it("honours the query parameter", () => {
    expect(
      JSON.parse(agentCardReply(card, { headers: {}, url: "/.well-known/agent-card.json?A2A-Version=1.0" }).body).supportedInterfaces,
    ).toBeDefined();
  });

  it("falls back to the 1.0 card when the agent has no 0.3 interface or does not serve 0.3", () => {
    const only1 = create(v1_0.AgentCardSchema, { ...init, supportedInterfaces: [init.supportedInterfaces![0]] });
    expect(JSON.parse(agentCardReply(only1, { headers: {} }).body).supportedInterfaces).toHaveLength(1);
    expect(JSON.parse(agentCardReply(card, { headers: {} }, { versions: ["1.0"] }).body).supportedInterfaces).toHaveLength(3);
  });

  it("answers an unknown version with the 1.0 card rather than an error", () => {
    const r = agentCardReply(card, { headers: { "A2A-Version": "7.0" } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).supportedInterfaces).toBeDefined();
  });
});

describe("parseAgentCard", () => {
  it("reads a 1.0 card as is", () => {
    const r = parseAgentCard(cardJson(card, "1.0").value);
    expect(r.version).toBe("1.0");
    expect(equals(v1_0.AgentCardSchema, r.value, card)).toBe(true);
  });

  it("reads a 0.3 card into a 1.0 card with 0.3 interfaces", () => {
    const r = parseAgentCard(cardJson(card, "0.3").value);
    expect(r.version).toBe("0.3");
    expect(r.value.name).toBe("Echo");
    expect(r.value.capabilities?.extendedAgentCard).toBe(true);
    expect(r.value.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.url])).toEqual([
      ["JSONRPC", "0.3", "https://agent.example/a2a/v03"],
      ["HTTP+JSON", "0.3", "https://agent.example/rest/v03"],
    ]);
  });

  it("recognises the shapes", () => {
    expect(detectCardVersion({ name: "x", url: "https://a", protocolVersion: "0.3.0" })).toBe("0.3");
    expect(detectCardVersion({ name: "x", supportedInterfaces: [{ url: "u" }], url: "https://a" })).toBe("1.0");
    expect(detectCardVersion({ name: "x" })).toBe("1.0");
  });

  it("rejects a card of neither shape with InvalidAgentResponse", () => {
    expect(() => parseAgentCard({ name: 5 })).toThrow(A2AError);
    expect(() => parseAgentCard({ url: "https://a", protocolVersion: "0.3.0" })).toThrowError(/0\.3 agent card/);
    expect(() => parseAgentCard("card")).toThrow(A2AError);
  });
});
