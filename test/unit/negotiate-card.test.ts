import { create, equals, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { resolveValidator } from "../../src/compliance/validators.js";
import { agentCardReply, cardJson, detectCardVersion, dualCardJson, parseAgentCard } from "../../src/versioning/card.js";
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

  it("serves a 0.3-shaped card, with only the 0.3 interfaces, to A2A-Version: 0.3", () => {
    const json = JSON.parse(agentCardReply(card, { headers: { "A2A-Version": "0.3" } }).body);
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

  it("serves the dual card to a request without a version, the 0.3 card when only 0.3 is served", () => {
    for (const req of [{ headers: {} }, { headers: { "A2A-Version": " " } }, { headers: {}, url: "/.well-known/agent-card.json?x=1" }])
      expect(JSON.parse(agentCardReply(card, req).body)).toEqual(dualCardJson(card).value);
    const only03 = JSON.parse(agentCardReply(card, { headers: {} }, { versions: ["0.3"] }).body);
    expect(only03).toEqual(cardJson(card, "0.3").value);
    const no1_0 = create(v1_0.AgentCardSchema, { ...init, supportedInterfaces: init.supportedInterfaces!.slice(1) });
    expect(JSON.parse(agentCardReply(no1_0, { headers: {} }).body)).toEqual(cardJson(no1_0, "0.3").value);
  });

  it("falls back to the 1.0 card when the agent has no 0.3 interface or does not serve 0.3", () => {
    const only1 = create(v1_0.AgentCardSchema, { ...init, supportedInterfaces: init.supportedInterfaces!.slice(0, 1) });
    expect(JSON.parse(agentCardReply(only1, { headers: {} }).body).supportedInterfaces).toHaveLength(1);
    expect(JSON.parse(agentCardReply(card, { headers: {} }, { versions: ["1.0"] }).body).supportedInterfaces).toHaveLength(3);
  });

  it("answers an unknown version with the 1.0 card rather than an error", () => {
    const r = agentCardReply(card, { headers: { "A2A-Version": "7.0" } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).supportedInterfaces).toBeDefined();
  });
});

describe("dual card", () => {
  const secured = create(v1_0.AgentCardSchema, {
    ...init,
    securitySchemes: {
      bearer: { scheme: { case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "JWT" } } },
      key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-Key" } } },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    skills: [
      { id: "echo", name: "Echo", description: "says it back", tags: ["echo"], securityRequirements: [{ schemes: { key: { list: [] } } }] },
    ],
    signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2ln" }],
  });
  const dual = dualCardJson(secured).value as Record<string, unknown>;
  const v10 = cardJson(secured, "1.0").value as Record<string, unknown>;
  const v03 = cardJson(secured, "0.3").value as Record<string, unknown>;
  const pick = (o: unknown, keys: string[]) => Object.fromEntries(Object.entries(o as object).filter(([k]) => keys.includes(k)));
  /** Each of `items` cut down to the members of the same item in `like`. */
  const pickEach = (items: unknown, like: unknown) => (items as object[]).map((s, i) => pick(s, Object.keys((like as object[])[i] ?? {})));

  it("holds every member of the 1.0 card with its 1.0 value, signatures included", () => {
    const only1_0 = pick(dual, Object.keys(v10));
    only1_0.skills = pickEach(dual.skills, v10.skills);
    only1_0.securitySchemes = Object.fromEntries(
      Object.entries(dual.securitySchemes as object).map(([k, s]) => [k, pick(s, Object.keys((v10.securitySchemes as never)[k]))]),
    );
    expect(only1_0).toEqual(v10);
    expect(dual.signatures).toEqual(v10.signatures);
  });

  it("holds every member of the 0.3 card with its 0.3 value, and is a valid card of both versions", () => {
    const only0_3 = pick(dual, Object.keys(v03));
    delete only0_3.signatures;
    only0_3.capabilities = pick(dual.capabilities, Object.keys(v03.capabilities as object));
    only0_3.skills = pickEach(dual.skills, v03.skills);
    only0_3.securitySchemes = Object.fromEntries(
      Object.entries(dual.securitySchemes as object).map(([k, s]) => [k, pick(s, Object.keys((v03.securitySchemes as never)[k]))]),
    );
    expect(only0_3).toEqual(v03);
    expect((dual.securitySchemes as Record<string, unknown>).bearer).toEqual({
      type: "http",
      scheme: "Bearer",
      bearerFormat: "JWT",
      httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" },
    });
    expect(resolveValidator("v0_3.AgentCard")!(dual)).toBe(true);
    expect(resolveValidator("v1_0.AgentCard")!(dual)).toBe(true);
  });

  it("parseAgentCard reads it as the 1.0 card, unchanged", () => {
    const r = parseAgentCard(dual);
    expect(r.version).toBe("1.0");
    expect(equals(v1_0.AgentCardSchema, r.value, secured)).toBe(true);
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

  it("reads a 0.3 card without the REQUIRED protocolVersion as 0.3.0 (the 0.3 schema's default)", () => {
    const { protocolVersion: _omitted, ...without } = cardJson(card, "0.3").value as Record<string, unknown>;
    const r = parseAgentCard(without);
    expect(r.version).toBe("0.3");
    expect(r.value.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(["0.3", "0.3"]);
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
