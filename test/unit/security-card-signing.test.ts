// Signed agent cards: RFC 8785 canonicalisation (the RFC's published vectors), sign → verify round
// trips with ES256, RS256 and EdDSA, tampering, key order, wrong keys, rotation, the client hook.
import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import canonicalize from "canonicalize";
import { base64url, exportJWK, generateKeyPair } from "jose";
import { assert, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { encode } from "../../src/runtime/protojson.js";
import { generateAgentCardSignature, verifyAgentCardSignature } from "@a2a-js/sdk";
import { A2ACardError, createA2AClient } from "../../src/client/index.js";
import {
  canonicalCardJson,
  cardSignatureVerifier,
  jwksKeyResolver,
  signAgentCard,
  verifyAgentCard,
  type KeyResolver,
  type SigningKey,
} from "../../src/security/card-signing.js";
import { cardJson } from "../../src/versioning/card.js";

describe("RFC 8785 canonicalisation (the RFC's own test data)", () => {
  // Appendix B: IEEE 754 double (hex) → its canonical JSON number.
  const numbers: [string, string][] = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"], // minus zero
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  it.each(numbers)("number %s → %s", (hex, expected) => {
    expect(canonicalize(Buffer.from(hex, "hex").readDoubleBE(0))).toBe(expected);
  });

  it("NaN and Infinity have no canonical form", () => {
    expect(() => canonicalize(Number.NaN)).toThrow();
    expect(() => canonicalize(Number.POSITIVE_INFINITY)).toThrow();
  });

  it("§3.2.2: literals, numbers and string escapes", () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalize(JSON.parse(input))).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it("§3.2.3: property names sorted by UTF-16 code units", () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    expect(canonicalize(JSON.parse(input))).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });
});

function exampleCard(): v1_0.AgentCard {
  return create(v1_0.AgentCardSchema, {
    name: "Signed Agent ✓",
    description: "An agent whose card is signed",
    version: "2.1.0",
    supportedInterfaces: [{ url: "https://agent.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["demo"] }],
    provider: { organization: "Example Org", url: "https://example.com" },
  });
}

/** JSON with every object's keys in reverse order (same content, different serialisation). */
function reverseKeys(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(reverseKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reverseKeys(x)]),
    );
  return v;
}

const toJsonCard = (c: v1_0.AgentCard) => encode(v1_0.AgentCardSchema, c, { alwaysEmit: v1_0.alwaysEmit }) as JsonObject;

describe("canonicalCardJson", () => {
  it("is the 1.0 card JSON without signatures, keys sorted", () => {
    const text = canonicalCardJson(exampleCard());
    const parsed = JSON.parse(text);
    expect(parsed.signatures).toBeUndefined();
    expect(Object.keys(parsed)).toEqual([...Object.keys(parsed)].sort());
    expect(parsed.capabilities).toEqual({ pushNotifications: false, streaming: true }); // optional false is kept
    expect(text).not.toMatch(/\n| {2}/);
  });
});

const algs: [string, () => Promise<{ privateKey: SigningKey; publicKey: SigningKey }>][] = [
  ["ES256", () => generateKeyPair("ES256")],
  ["RS256", () => generateKeyPair("RS256", { modulusLength: 2048 })],
  ["EdDSA", () => generateKeyPair("EdDSA", { crv: "Ed25519" })],
];

describe.each(algs)("sign and verify with %s", (alg, keys) => {
  let privateKey: SigningKey;
  let publicKey: SigningKey;
  let signed: v1_0.AgentCard;
  const byKid: KeyResolver = (h) => (h.kid === "key-1" ? publicKey : undefined);

  beforeAll(async () => {
    ({ privateKey, publicKey } = await keys());
    signed = await signAgentCard(exampleCard(), privateKey, { kid: "key-1", alg });
  });

  it("appends one detached-payload signature with alg, kid and typ in the protected header", () => {
    expect(signed.signatures).toHaveLength(1);
    const [sig] = signed.signatures;
    assert(sig);
    expect(JSON.parse(new TextDecoder().decode(base64url.decode(sig.protected)))).toEqual({ alg, kid: "key-1", typ: "JOSE" });
    expect(sig.signature).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(toJsonCard(signed).signatures).toEqual([{ protected: sig.protected, signature: sig.signature }]); // no payload member
  });

  it("verifies, from the message and from the JSON a client would fetch", async () => {
    expect(await verifyAgentCard(signed, byKid)).toEqual([{ index: 0, kid: "key-1", alg, verified: true }]);
    const wire = JSON.parse(JSON.stringify(toJsonCard(signed))) as JsonObject;
    expect((await verifyAgentCard(wire, byKid))[0]?.verified).toBe(true);
  });

  it("still verifies when the JSON's keys come in another order", async () => {
    const reordered = reverseKeys(toJsonCard(signed)) as JsonObject;
    expect(Object.keys(reordered)[0]).not.toBe(Object.keys(toJsonCard(signed))[0]);
    expect((await verifyAgentCard(reordered, byKid))[0]?.verified).toBe(true);
  });

  it("fails when any field is changed", async () => {
    const tampered = [
      { ...signed, name: "Signed Agent ✗" },
      { ...signed, supportedInterfaces: signed.supportedInterfaces.map((i) => ({ ...i, url: "https://evil.example/a2a" })) },
      { ...signed, capabilities: { ...signed.capabilities!, pushNotifications: true } },
      { ...signed, skills: [] },
    ];
    for (const t of tampered) expect((await verifyAgentCard(t, byKid))[0]).toMatchObject({ verified: false });
    const wire = toJsonCard(signed);
    (wire.defaultOutputModes as string[]).reverse();
    expect((await verifyAgentCard(wire, byKid))[0]?.verified).toBe(false);
  });

  it("fails with another key, and when no key is known for the kid", async () => {
    const other = await keys();
    expect((await verifyAgentCard(signed, () => other.publicKey))[0]).toMatchObject({ verified: false });
    expect((await verifyAgentCard(signed, () => undefined))[0]).toEqual({
      index: 0,
      kid: "key-1",
      alg,
      verified: false,
      error: "no key for kid key-1",
    });
  });

  it("accepts the public key as a JWK", async () => {
    const jwk = await exportJWK(publicKey as CryptoKey);
    expect((await verifyAgentCard(signed, () => jwk))[0]?.verified).toBe(true);
  });
});

describe("several signatures, headers, refusals", () => {
  it("key rotation: each signature is checked on its own", async () => {
    const old = await generateKeyPair("ES256");
    const current = await generateKeyPair("ES256");
    let card = await signAgentCard(exampleCard(), old.privateKey, { kid: "old", alg: "ES256" });
    card = await signAgentCard(card, current.privateKey, {
      kid: "current",
      alg: "ES256",
      jku: "https://agent.example.com/jwks.json",
      header: { note: "rotated" },
    });
    const checks = await verifyAgentCard(card, (h) => (h.kid === "current" ? current.publicKey : undefined));
    expect(checks.map((c) => [c.kid, c.verified])).toEqual([
      ["old", false],
      ["current", true],
    ]);
    const rotated = card.signatures[1];
    assert(rotated);
    const h = JSON.parse(new TextDecoder().decode(base64url.decode(rotated.protected)));
    expect(h).toEqual({ alg: "ES256", kid: "current", typ: "JOSE", jku: "https://agent.example.com/jwks.json" });
    expect(toJsonCard(card).signatures).toEqual([expect.any(Object), expect.objectContaining({ header: { note: "rotated" } })]);
  });

  it("refuses symmetric algorithms and headers without kid", async () => {
    const secret = new Uint8Array(32).fill(7);
    const hs = await signAgentCard(exampleCard(), secret, { kid: "k", alg: "HS256" });
    expect((await verifyAgentCard(hs, () => secret))[0]).toMatchObject({ verified: false, error: "algorithm HS256 is not accepted" });
    const forged = {
      ...hs,
      signatures: hs.signatures.map((s) => ({ ...s, protected: base64url.encode(JSON.stringify({ alg: "ES256" })) })),
    };
    expect((await verifyAgentCard(forged, () => secret))[0]).toMatchObject({
      verified: false,
      error: "the protected header must name alg and kid",
    });
    await expect(signAgentCard(exampleCard(), secret, { kid: "", alg: "HS256" })).rejects.toThrow(/kid/);
    await expect(signAgentCard(exampleCard(), secret, { kid: "k", alg: "none" })).rejects.toThrow(/alg/);
  });

  it("the 0.3 view of a signed card has no signatures (loss L9)", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const card = await signAgentCard(
      { ...exampleCard(), supportedInterfaces: exampleCard().supportedInterfaces.map((i) => ({ ...i, protocolVersion: "0.3" })) },
      privateKey,
      { kid: "k", alg: "ES256" },
    );
    const down = cardJson(card, "0.3");
    expect((down.value as JsonObject).signatures).toBeUndefined();
    expect(down.losses.map((l) => l.id)).toContain("L9");
  });

  it("cardSignatureVerifier: the client hook accepts a card with one good signature, refuses unsigned ones", async () => {
    const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const hook = cardSignatureVerifier(() => publicKey);
    expect(await hook(await signAgentCard(exampleCard(), privateKey, { kid: "k", alg: "EdDSA" }))).toBe(true);
    expect(await hook(exampleCard())).toBe(false);
    expect(await cardSignatureVerifier(() => publicKey, { allowUnsigned: true })(exampleCard())).toBe(true);
  });

  it("jwksKeyResolver finds the key by kid in a trusted JWK Set, and only a signing key of the right alg", async () => {
    const a = await generateKeyPair("ES256", { extractable: true });
    const b = await generateKeyPair("ES256", { extractable: true });
    const jwks = {
      keys: [
        { ...(await exportJWK(a.publicKey)), kid: "a", alg: "ES256", use: "sig" },
        { ...(await exportJWK(b.publicKey)), kid: "b", alg: "RS256" },
      ],
    };
    const resolve = jwksKeyResolver(jwks);
    const byA = await signAgentCard(exampleCard(), a.privateKey, { kid: "a", alg: "ES256" });
    const byB = await signAgentCard(exampleCard(), b.privateKey, { kid: "b", alg: "ES256" });
    const byC = await signAgentCard(exampleCard(), b.privateKey, { kid: "c", alg: "ES256" });
    expect((await verifyAgentCard(byA, resolve))[0]?.verified).toBe(true);
    expect((await verifyAgentCard(byB, resolve))[0]).toMatchObject({ verified: false, error: "no key for kid b" });
    expect((await verifyAgentCard(byC, resolve))[0]).toMatchObject({ verified: false, error: "no key for kid c" });
  });
});

describe("the reference client refuses a tampered signed card", () => {
  it("createA2AClient with cardSignatureVerifier accepts the signed card JSON and refuses it once changed", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const signed = toJsonCard(await signAgentCard(exampleCard(), privateKey, { kid: "k1", alg: "ES256" }));
    const verifyCard = cardSignatureVerifier((h) => (h.kid === "k1" ? publicKey : undefined));
    const client = await createA2AClient(JSON.parse(JSON.stringify(signed)), { verifyCard });
    expect(client.target.url).toBe("https://agent.example.com/a2a");
    const evil = {
      ...signed,
      supportedInterfaces: [{ url: "https://evil.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    };
    const err = await createA2AClient(evil, { verifyCard }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(A2ACardError);
    expect((err as A2ACardError).kind).toBe("verification-failed");
  });
});

describe("interoperability with @a2a-js/sdk's card signatures", () => {
  it("the SDK verifies our signature, and we verify the SDK's", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const ours = toJsonCard(await signAgentCard(exampleCard(), privateKey, { kid: "k", alg: "ES256" }));
    await expect(verifyAgentCardSignature(async () => publicKey)(ours as never)).resolves.toBeUndefined();
    const theirs = await generateAgentCardSignature(privateKey, { alg: "ES256", kid: "k", typ: "JOSE" })(
      toJsonCard(exampleCard()) as never,
    );
    expect(await verifyAgentCard(theirs as unknown as JsonObject, () => publicKey)).toEqual([
      { index: 0, kid: "k", alg: "ES256", verified: true },
    ]);
    const tampered = { ...(theirs as unknown as JsonObject), name: "Someone else" };
    expect((await verifyAgentCard(tampered, () => publicKey))[0]?.verified).toBe(false);
  });
});
