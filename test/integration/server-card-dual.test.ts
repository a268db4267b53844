// The card fetched without A2A-Version from a server (and a gateway) serving 1.0 and 0.3, with a
// bearer token and a signing key (serve --token … --sign-card-key …): one document that the
// official SDK's 1.0 and 0.3 card readers and our parseAgentCard each read as their own card, whose
// 1.0 signature verifies; and the card's HTTP validators (ETag, Last-Modified).
import { Message, verifyAgentCardSignature, type AgentCard as SdkCard } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import { equals } from "@bufbuild/protobuf";
import { exportJWK, generateKeyPair, type CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { buildGateway } from "../../src/gateway/index.js";
import { bearerAuth } from "../../src/security/auth.js";
import { jwksKeyResolver, verifyAgentCard } from "../../src/security/card-signing.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { parseAgentCard } from "../../src/versioning/card.js";
import { startSdkServer } from "./client-sdk-server.js";
import { serverGroup } from "../support/servers.js";

type Json = Record<string, unknown>;
const { listen, close: closeServers } = serverGroup();
let publicKey: CryptoKey;
let resolveKey: ReturnType<typeof jwksKeyResolver>;
const targets: Record<"serve" | "gateway", string> = { serve: "", gateway: "" };
const CARD = "/.well-known/agent-card.json";

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  publicKey = pair.publicKey;
  resolveKey = jwksKeyResolver({ keys: [{ ...(await exportJWK(publicKey)), kid: "k1" }] });
  const secured = {
    authenticators: [bearerAuth({ tokens: { tok: "alice" } })],
    cardSigning: { key: pair.privateKey, kid: "k1", alg: "ES256" },
  };
  targets.serve = await listen(await buildServer({ agent: createFixtureAgent(), ...secured }));
  const backend = await listen(await buildServer({ agent: createFixtureAgent(), versions: ["1.0"] }));
  targets.gateway = await listen(await buildGateway({ gateway: { default: "b", backends: [{ name: "b", url: backend }] }, ...secured }));
});
afterAll(closeServers);

const getCard = async (base: string, headers: Record<string, string> = {}) => {
  const res = await fetch(base + CARD, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};
/** What a client that sends no A2A-Version on the card request (the official conformance kit) does. */
const noVersionHeader = (url: string | URL | Request) => fetch(url);
const withToken: typeof fetch = (url, init) =>
  fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: "Bearer tok" } });

async function sdkSend(card: SdkCard, legacy: boolean): Promise<string> {
  const legacyCompat = { enabled: legacy };
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ legacyCompat, fetchImpl: withToken }),
      new RestTransportFactory({ legacyCompat, fetchImpl: withToken }),
    ],
  });
  const client = await factory.createFromAgentCard(card);
  const r = await client.sendMessage({
    tenant: "",
    message: Message.fromJSON({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "echo dual" }] }),
    configuration: undefined,
    metadata: undefined,
  });
  const task = r as { artifacts?: { parts: { content?: { $case: string; value: unknown } }[] }[] };
  return String(task.artifacts?.[0]?.parts[0]?.content?.value);
}

describe.each(["serve", "gateway"] as const)("%s: the card without A2A-Version", (target) => {
  it("is read by parseAgentCard as exactly the 1.0 card, and its signature verifies", async () => {
    const base = targets[target];
    const dual = await getCard(base);
    const v10 = await getCard(base, { "A2A-Version": "1.0" });
    const read = parseAgentCard(dual);
    expect(read.version).toBe("1.0");
    expect(equals(v1_0.AgentCardSchema, read.value, parseAgentCard(v10).value)).toBe(true);
    expect(read.value.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(["1.0", "1.0", "0.3", "0.3"]);
    expect(Object.keys(read.value.securitySchemes)).toEqual(["bearer"]);
    expect(await verifyAgentCard(dual as never, resolveKey)).toEqual([expect.objectContaining({ verified: true, kid: "k1" })]);
    // The signature still covers what a 1.0 reader sees: changing a 1.0 member breaks it.
    expect((await verifyAgentCard({ ...dual, securityRequirements: [] }, resolveKey))[0]?.verified).toBe(false);
    // The 0.3 reader's members are there too.
    expect(dual).toMatchObject({ protocolVersion: "0.3.0", url: base, preferredTransport: "JSONRPC", security: [{ bearer: [] }] });
  });

  it("the official SDK's 1.0 card resolver reads it and its client works on each 1.0 interface", async () => {
    const card = await new DefaultAgentCardResolver({ fetchImpl: noVersionHeader }).resolve(targets[target]);
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
      "JSONRPC 1.0",
      "HTTP+JSON 1.0",
      "JSONRPC 0.3",
      "HTTP+JSON 0.3",
    ]);
    for (const binding of ["JSONRPC", "HTTP+JSON"]) {
      const only = { ...card, supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === binding).slice(0, 1) };
      expect(await sdkSend(only, false)).toBe("dual");
    }
  });

  it("the official SDK's 0.3 reader (legacy compat resolver, parseLegacyAgentCard) reads it and works on each 0.3 interface", async () => {
    const base = targets[target];
    const card = await new DefaultAgentCardResolver({ fetchImpl: noVersionHeader, legacyCompat: { enabled: true } }).resolve(base);
    for (const binding of ["JSONRPC", "HTTP+JSON"]) {
      const only = {
        ...card,
        supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === binding && i.protocolVersion === "0.3"),
      };
      expect(await sdkSend(only, true)).toBe("dual");
    }
    // A reader of the 0.3 fields alone (the SDK's 0.3 card translation) gets the 0.3 interfaces and schemes.
    const legacy = parseLegacyAgentCard(await getCard(base));
    expect(new Set(legacy.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion.slice(0, 3)} ${i.url}`))).toEqual(
      new Set([`JSONRPC 0.3 ${base}`, `HTTP+JSON 0.3 ${base}`]),
    );
    expect(legacy.securitySchemes.bearer?.scheme).toMatchObject({ $case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } });
    expect(legacy.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
  });

  it("with A2A-Version 0.3 is still the pure 0.3 card, with 1.0 the pure 1.0 card; each has its own ETag", async () => {
    const base = targets[target];
    const get = (headers: Record<string, string>) => fetch(base + CARD, { headers });
    const [none, v03, v10] = await Promise.all([get({}), get({ "A2A-Version": "0.3" }), get({ "A2A-Version": "1.0" })]);
    const c03 = (await v03.json()) as Json;
    expect(c03.supportedInterfaces).toBeUndefined();
    expect(c03.signatures).toBeUndefined();
    expect(((await v10.json()) as Json).url).toBeUndefined();
    expect(new Set([none, v03, v10].map((r) => r.headers.get("etag"))).size).toBe(3);
  });
});

describe("the official SDK's card signature verifier", () => {
  it("refuses the 1.0 card and the dual card alike when a requirement has no scopes (it drops `{schemes: {bearer: {}}}`)", async () => {
    // @a2a-js/sdk 1.3.0 canonicalizes after removing every empty object, so `securityRequirements:
    // [{schemes: {bearer: {}}}]` leaves its payload, while §8.4.1 keeps a non-empty map. Ours is
    // the spec's form; the dual card changes nothing here (the 1.0 card fails the same way).
    const verify = verifyAgentCardSignature(async () => publicKey);
    for (const headers of [{}, { "A2A-Version": "1.0" }] as Record<string, string>[])
      await expect(verify((await getCard(targets.serve, headers)) as never)).rejects.toThrow(/No valid signatures/);
  });

  it("verifies the dual card of a signed server without security requirements", async () => {
    const pair = await generateKeyPair("ES256");
    const base = await listen(
      await buildServer({ agent: createFixtureAgent(), cardSigning: { key: pair.privateKey, kid: "k2", alg: "ES256" } }),
    );
    const dual = await getCard(base);
    expect(dual.supportedInterfaces).toHaveLength(4);
    await expect(verifyAgentCardSignature(async () => pair.publicKey)(dual as never)).resolves.toBeUndefined();
  });
});

describe("parseAgentCard on the official SDK server's card without A2A-Version", () => {
  it("reads the security it declares although that card has it in the 0.3 shape only", async () => {
    const sdk = await startSdkServer(["1.0", "0.3"], {
      card: {
        securitySchemes: {
          bearer: { scheme: { $case: "httpAuthSecurityScheme", value: { description: "", scheme: "Bearer", bearerFormat: "" } } },
        },
        securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      } as never,
    });
    try {
      const raw = (await (await fetch(sdk.url + CARD)).json()) as Json;
      // What the SDK serves: 0.3-shaped schemes and `security`, beside supportedInterfaces.
      expect(raw).toMatchObject({ securitySchemes: { bearer: { type: "http", scheme: "Bearer" } }, security: [{ bearer: [] }] });
      expect(raw.securityRequirements).toBeUndefined();
      const read = parseAgentCard(raw);
      expect(read.version).toBe("1.0");
      expect(read.value.supportedInterfaces).toHaveLength(4);
      expect(read.value.securitySchemes.bearer?.scheme).toMatchObject({ case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } });
      expect(read.value.securityRequirements.map((r) => Object.keys(r.schemes))).toEqual([["bearer"]]);
    } finally {
      await sdk.close();
    }
  });
});

describe("card validators", () => {
  it("Last-Modified and If-Modified-Since answer 304 consistently with the ETag", async () => {
    const url = targets.serve + CARD;
    const first = await fetch(url, { headers: { "A2A-Version": "1.0" } });
    const lastModified = first.headers.get("last-modified")!;
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.now());
    const etag = first.headers.get("etag")!;
    const status = async (h: Record<string, string>) => {
      const r = await fetch(url, { headers: { "A2A-Version": "1.0", ...h } });
      await r.arrayBuffer();
      return [r.status, r.headers.get("etag"), r.headers.get("last-modified")];
    };
    expect(await status({ "if-modified-since": lastModified })).toEqual([304, etag, lastModified]);
    expect((await status({ "if-modified-since": new Date(Date.now() + 60_000).toUTCString() }))[0]).toBe(304);
    expect((await status({ "if-modified-since": new Date(Date.parse(lastModified) - 1000).toUTCString() }))[0]).toBe(200);
    expect((await status({ "if-modified-since": "yesterday" }))[0]).toBe(200);
    expect((await status({ "if-none-match": `W/${etag}` }))[0]).toBe(304);
    // If-None-Match decides when both are sent (RFC 9110 §13.1.3).
    expect((await status({ "if-none-match": '"other"', "if-modified-since": lastModified }))[0]).toBe(200);
  });
});
