// Signed agent cards (A2A 1.0 §8.4; a2a-wire.md §7.3, rule S-61): JWS with a detached payload over
// the RFC 8785 (JCS) canonical form of the card without its `signatures`.
//
//   canonicalCardPayload(card)                 the exact bytes that are signed (UTF-8 of the JCS text)
//   signAgentCard(card, key, {kid, alg, jku?, header?})
//                                              → the card with one more AgentCardSignature
//                                                {protected, signature, header?}
//   verifyAgentCard(card, resolveKey, {algorithms?})
//                                              → one result per signature: verified or why not
//   cardSignatureVerifier(resolveKey)          → a `verifyCard` hook for the client (true when at
//                                                least one signature verifies)
//   jwksKeyResolver(jwks)                      → a resolveKey over a trusted JWK Set (by kid)
//
// The payload is the card as A2A 1.0 ProtoJSON (encode with the A2A overrides), which gives the
// spec's presence rules: REQUIRED fields always, proto3 `optional` fields whenever set (even to
// their default), other fields only when not at their default; `signatures` removed; then JCS
// (the `canonicalize` package: sorted keys, ECMAScript number and string forms). Verification
// decodes a JSON card into the 1.0 message first, so key order, whitespace, unknown members and
// explicitly written defaults of non-`optional` fields do not change the payload, while any change
// of a value (or setting/unsetting an `optional` field) does. A card translated to or from 0.3 does
// not verify (the 0.3 view omits `signatures`, loss L9).
// Interop: @a2a-js/sdk 1.3.0 verifies our signatures and we verify its (tested). It omits REQUIRED
// fields that hold their default (e.g. `version: ""`, `skills: []`) where §8.4.1 keeps them, so the
// two differ only on cards whose required fields are empty.
//
// The protected header holds `alg`, `kid` (both MUST), `typ: "JOSE"` and, when given, `jku`; the
// signing input is BASE64URL(protected) '.' BASE64URL(payload), and the payload itself is not stored
// (detached). All cryptography is jose's.
import { create, type JsonObject } from "@bufbuild/protobuf";
import canonicalize from "canonicalize";
import { base64url, FlattenedSign, flattenedVerify, importJWK, type CryptoKey, type JWK, type JSONWebKeySet, type KeyObject } from "jose";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decode, encode } from "../runtime/protojson.js";

export type SigningKey = CryptoKey | KeyObject | JWK | Uint8Array;

/** Algorithms accepted by default when verifying: asymmetric ones only (no HMAC, never "none"). */
export const DEFAULT_CARD_ALGORITHMS = [
  "ES256",
  "ES384",
  "ES512",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "EdDSA",
  "Ed25519",
];

export interface SignOptions {
  /** Key id, put in the protected header (MUST); verifiers find the key by it. */
  kid: string;
  /** JWS algorithm, e.g. "ES256", "RS256", "EdDSA". */
  alg: string;
  /** URL of a JWK Set holding the key (optional protected `jku`). */
  jku?: string;
  /** Unprotected header members (AgentCardSignature.header). */
  header?: JsonObject;
}

function asMessage(card: v1_0.AgentCard | JsonObject): v1_0.AgentCard {
  return (card as { $typeName?: string }).$typeName === "lf.a2a.v1.AgentCard"
    ? (card as v1_0.AgentCard)
    : decode(v1_0.AgentCardSchema, JSON.parse(JSON.stringify(card))); // as on the wire: `undefined` members vanish
}

/** The canonical JSON text that is signed: the 1.0 card without `signatures`, RFC 8785. */
export function canonicalCardJson(card: v1_0.AgentCard | JsonObject): string {
  const msg = asMessage(card);
  const json = encode(v1_0.AgentCardSchema, { ...msg, signatures: [] }, { alwaysEmit: v1_0.alwaysEmit }) as JsonObject;
  delete json.signatures;
  const text = canonicalize(json);
  if (text === undefined) throw new TypeError("the card has no JSON form");
  return text;
}

/** The signed bytes: UTF-8 of canonicalCardJson. */
export function canonicalCardPayload(card: v1_0.AgentCard | JsonObject): Uint8Array {
  return new TextEncoder().encode(canonicalCardJson(card));
}

async function keyFor(key: SigningKey, alg: string): Promise<CryptoKey | KeyObject | Uint8Array> {
  if (key instanceof Uint8Array) return key;
  if (typeof key === "object" && key !== null && "kty" in key) return importJWK(key, alg);
  return key as CryptoKey | KeyObject;
}

/** Returns a copy of `card` with a new signature appended (existing signatures are kept). */
export async function signAgentCard(card: v1_0.AgentCard, key: SigningKey, opts: SignOptions): Promise<v1_0.AgentCard> {
  if (!opts.kid) throw new TypeError("a card signature needs a kid");
  if (!opts.alg || opts.alg.toLowerCase() === "none") throw new TypeError("a card signature needs a real alg");
  const jws = new FlattenedSign(canonicalCardPayload(card)).setProtectedHeader({
    alg: opts.alg,
    kid: opts.kid,
    typ: "JOSE",
    ...(opts.jku ? { jku: opts.jku } : {}),
  });
  if (opts.header) jws.setUnprotectedHeader(opts.header);
  const signed = await jws.sign(await keyFor(key, opts.alg));
  const sig = create(v1_0.AgentCardSignatureSchema, {
    protected: signed.protected!,
    signature: signed.signature,
    ...(opts.header ? { header: opts.header } : {}),
  });
  return { ...card, signatures: [...card.signatures, sig] };
}

export interface ProtectedHeader {
  alg?: string;
  kid?: string;
  jku?: string;
  typ?: string;
  [k: string]: unknown;
}

/** Finds the public key for a signature (by kid / jku / your trust store); undefined = unknown key. */
export type KeyResolver = (
  header: ProtectedHeader,
  signature: v1_0.AgentCardSignature,
) => SigningKey | undefined | Promise<SigningKey | undefined>;

export interface SignatureCheck {
  index: number;
  kid?: string;
  alg?: string;
  verified: boolean;
  /** Why it did not verify. */
  error?: string;
}

/**
 * A KeyResolver over a JWK Set you trust (e.g. fetched over HTTPS from the agent's operator and
 * pinned): the key whose `kid` matches the signature's, when its `alg` (if set) matches too and it
 * is not marked for encryption only. The `jku` a signature names is not fetched: whether to trust
 * that URL is the caller's decision.
 */
export function jwksKeyResolver(jwks: JSONWebKeySet): KeyResolver {
  return (header) => jwks.keys.find((k) => k.kid === header.kid && (!k.alg || k.alg === header.alg) && (!k.use || k.use === "sig"));
}

/** Checks every signature of the card; `verified` on each says whether it holds. */
export async function verifyAgentCard(
  card: v1_0.AgentCard | JsonObject,
  resolveKey: KeyResolver,
  opts: { algorithms?: readonly string[] } = {},
): Promise<SignatureCheck[]> {
  const msg = asMessage(card);
  const payload = base64url.encode(canonicalCardPayload(msg));
  const algorithms = [...(opts.algorithms ?? DEFAULT_CARD_ALGORITHMS)];
  const out: SignatureCheck[] = [];
  for (const [index, sig] of msg.signatures.entries()) {
    let header: ProtectedHeader;
    try {
      header = JSON.parse(new TextDecoder().decode(base64url.decode(sig.protected))) as ProtectedHeader;
      if (typeof header !== "object" || header === null) throw new Error();
    } catch {
      out.push({ index, verified: false, error: "the protected header is not base64url JSON" });
      continue;
    }
    const { kid, alg } = header;
    if (typeof alg !== "string" || typeof kid !== "string" || !kid) {
      out.push({ index, kid, alg, verified: false, error: "the protected header must name alg and kid" });
      continue;
    }
    if (!algorithms.includes(alg)) {
      out.push({ index, kid, alg, verified: false, error: `algorithm ${alg} is not accepted` });
      continue;
    }
    try {
      const key = await resolveKey(header, sig);
      if (!key) {
        out.push({ index, kid, alg, verified: false, error: `no key for kid ${kid}` });
        continue;
      }
      await flattenedVerify(
        {
          protected: sig.protected,
          signature: sig.signature,
          payload,
          ...(sig.header ? { header: sig.header } : {}),
        },
        await keyFor(key, alg),
        { algorithms },
      );
      out.push({ index, kid, alg, verified: true });
    } catch (e) {
      out.push({ index, kid, alg, verified: false, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}

/**
 * A `verifyCard` hook for createA2AClient: accepts a card when at least one signature verifies
 * (§8.4 SHOULD verify at least one); an unsigned card is refused unless `allowUnsigned`.
 */
export function cardSignatureVerifier(
  resolveKey: KeyResolver,
  opts: { allowUnsigned?: boolean; algorithms?: readonly string[] } = {},
): (card: v1_0.AgentCard) => Promise<boolean> {
  return async (card) => {
    if (!card.signatures.length) return opts.allowUnsigned === true;
    return (await verifyAgentCard(card, resolveKey, opts)).some((c) => c.verified);
  };
}
