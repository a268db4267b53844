// Authenticators: bearer tokens and API keys (header, query, cookie), what they put in the card (1.0
// and, through the translators, 0.3), and the 401 replies of each binding.
import { create, toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import {
  apiKeyAuth,
  authenticate,
  authenticateHook,
  bearerAuth,
  cardSecurity,
  unauthenticatedReply,
  withCardSecurity,
  type AuthRequest,
} from "../../src/security/auth.js";
import { cardJson } from "../../src/versioning/card.js";

const req = (headers: Record<string, string> = {}, url = "/"): AuthRequest => ({ headers, url });

describe("bearerAuth", () => {
  const bearer = bearerAuth({ tokens: { "tok-alice": "alice", "tok-bob": "bob" } });

  it("maps a known token to its principal; the scheme word is case-insensitive", async () => {
    expect(await bearer.authenticate(req({ authorization: "Bearer tok-alice" }))).toEqual({
      ok: true,
      principal: "alice",
      scheme: "bearer",
    });
    expect(await bearer.authenticate(req({ Authorization: "bearer   tok-bob " }))).toMatchObject({ ok: true, principal: "bob" });
  });

  it("tells a missing credential from a rejected one", async () => {
    expect(await bearer.authenticate(req())).toEqual({ ok: false, error: "missing" });
    expect(await bearer.authenticate(req({ authorization: "Basic dXNlcjpwdw==" }))).toMatchObject({ ok: false, error: "missing" });
    expect(await bearer.authenticate(req({ authorization: "Bearer nope" }))).toMatchObject({ ok: false, error: "invalid" });
    expect(await bearer.authenticate(req({ authorization: "Bearer " }))).toMatchObject({ ok: false, error: "invalid" });
    expect(await bearer.authenticate(req({ authorization: "Bearer tok-alice extra" }))).toMatchObject({ ok: false, error: "invalid" });
  });

  it("asks a verify function about tokens not in the table", async () => {
    const seen: string[] = [];
    const a = bearerAuth({
      tokens: { static: "ops" },
      verify: async (t) => {
        seen.push(t);
        return t.startsWith("jwt.") ? `sub-${t.slice(4)}` : undefined;
      },
      bearerFormat: "JWT",
    });
    expect(await a.authenticate(req({ authorization: "Bearer static" }))).toMatchObject({ principal: "ops" });
    expect(await a.authenticate(req({ authorization: "Bearer jwt.carol" }))).toMatchObject({ principal: "sub-carol" });
    expect(await a.authenticate(req({ authorization: "Bearer other" }))).toMatchObject({ ok: false, error: "invalid" });
    expect(seen).toEqual(["jwt.carol", "other"]);
  });

  it("a verify function that throws (as JWT libraries do on a bad token) rejects the credential", async () => {
    const a = bearerAuth({
      verify: () => {
        throw new Error("JWSInvalid");
      },
    });
    expect(await a.authenticate(req({ authorization: "Bearer x.y.z" }))).toEqual({ ok: false, error: "invalid", scheme: "bearer" });
  });

  it("refuses configurations that would let anyone in or name nobody", () => {
    expect(() => bearerAuth({})).toThrow(/tokens/);
    expect(() => bearerAuth({ tokens: { "": "alice" } })).toThrow(/empty/);
    expect(() => bearerAuth({ tokens: { t: "" } })).toThrow(/principal/);
  });
});

describe("apiKeyAuth", () => {
  it("reads the key from a header (any case)", async () => {
    const a = apiKeyAuth({ location: "header", name: "X-Partner-Key", keys: { k1: "partner" } });
    expect(await a.authenticate(req({ "x-partner-key": "k1" }))).toMatchObject({ ok: true, principal: "partner", scheme: "apiKey" });
    expect(await a.authenticate(req({ "x-api-key": "k1" }))).toMatchObject({ ok: false, error: "missing" });
    expect(await a.authenticate(req({ "x-partner-key": "k2" }))).toMatchObject({ ok: false, error: "invalid" });
  });

  it("reads the key from the query string", async () => {
    const a = apiKeyAuth({ location: "query", name: "api_key", keys: { "k 1": "q" } });
    expect(await a.authenticate(req({}, "/tasks/t1?A2A-Version=1.0&api_key=k%201"))).toMatchObject({ ok: true, principal: "q" });
    expect(await a.authenticate(req({}, "/tasks/t1"))).toMatchObject({ ok: false, error: "missing" });
  });

  it("reads the key from a cookie", async () => {
    const a = apiKeyAuth({ location: "cookie", name: "session", keys: { "s=1": "c" } });
    expect(await a.authenticate(req({ cookie: "theme=dark; session=s%3D1; x=y" }))).toMatchObject({ ok: true, principal: "c" });
    expect(await a.authenticate(req({ cookie: "sessionx=s%3D1" }))).toMatchObject({ ok: false, error: "missing" });
  });
});

describe("authenticate over several schemes", () => {
  const auths = [bearerAuth({ tokens: { tb: "alice" } }), apiKeyAuth({ keys: { ka: "bob" } })];

  it("the first scheme that yields a principal wins; a rejected credential makes the result invalid", async () => {
    expect(await authenticate(auths, req({ "x-api-key": "ka" }))).toMatchObject({ ok: true, principal: "bob" });
    expect(await authenticate(auths, req({ authorization: "Bearer tb", "x-api-key": "ka" }))).toMatchObject({ principal: "alice" });
    expect(await authenticate(auths, req({ authorization: "Bearer bad", "x-api-key": "ka" }))).toMatchObject({ principal: "bob" });
    expect(await authenticate(auths, req({ authorization: "Bearer bad" }))).toEqual({ ok: false, error: "invalid", scheme: "bearer" });
    expect(await authenticate(auths, req())).toEqual({ ok: false, error: "missing" });
  });

  it("authenticateHook gives the plugin's hook: a principal or undefined", async () => {
    const hook = authenticateHook(auths);
    expect(await hook(req({ authorization: "Bearer tb" }))).toBe("alice");
    expect(await hook(req())).toBeUndefined();
  });
});

describe("the agent card", () => {
  const auths = [
    bearerAuth({ tokens: { t: "a" }, bearerFormat: "JWT", description: "A JWT from our IdP" }),
    apiKeyAuth({ location: "query", name: "key", keys: { k: "b" }, schemeName: "partnerKey" }),
  ];

  it("lists each scheme and one requirement per scheme (any one suffices), in 1.0 ProtoJSON", () => {
    const s = cardSecurity(auths);
    const json = Object.fromEntries(Object.entries(s.securitySchemes).map(([k, v]) => [k, toJson(v1_0.SecuritySchemeSchema, v)]));
    expect(json).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT", description: "A JWT from our IdP" } },
      partnerKey: { apiKeySecurityScheme: { location: "query", name: "key" } },
    });
    expect(s.securityRequirements.map((r) => toJson(v1_0.SecurityRequirementSchema, r))).toEqual([
      { schemes: { bearer: {} } },
      { schemes: { partnerKey: {} } },
    ]);
  });

  it("the 0.3 view of the card carries the same schemes in 0.3 shape", () => {
    const card = withCardSecurity(
      create(v1_0.AgentCardSchema, {
        name: "Secure agent",
        description: "d",
        version: "1",
        supportedInterfaces: [{ url: "https://agent.example/", protocolBinding: "JSONRPC", protocolVersion: "0.3" }],
        capabilities: {},
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
      }),
      auths,
    );
    const v03 = cardJson(card, "0.3").value as Record<string, unknown>;
    expect(v03.securitySchemes).toEqual({
      bearer: { type: "http", scheme: "Bearer", bearerFormat: "JWT", description: "A JWT from our IdP" },
      partnerKey: { type: "apiKey", in: "query", name: "key" },
    });
    expect(v03.security).toEqual([{ bearer: [] }, { partnerKey: [] }]);
  });

  it("two authenticators cannot share a scheme name", () => {
    expect(() => cardSecurity([bearerAuth({ tokens: { a: "a" } }), bearerAuth({ tokens: { b: "b" } })])).toThrow(/bearer/);
  });
});

describe("unauthenticatedReply", () => {
  const auths = [bearerAuth({ tokens: { t: "a" } }), apiKeyAuth({ keys: { k: "b" } })];

  it("JSON-RPC: HTTP 401 with a challenge per scheme and a JSON-RPC error envelope", () => {
    const r = unauthenticatedReply({ version: "1.0", binding: "JSONRPC", rpcId: 7 }, { ok: false, error: "missing" }, auths);
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toBe('Bearer realm="a2a", ApiKey realm="a2a", in="header", name="X-API-Key"');
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { message: "Authentication required" } });
    expect(typeof body.error.code).toBe("number");
  });

  it("HTTP+JSON: 401 with an AIP-193 UNAUTHENTICATED body; a rejected bearer token gets error=invalid_token", () => {
    const r = unauthenticatedReply({ version: "1.0", binding: "HTTP+JSON" }, { ok: false, error: "invalid", scheme: "bearer" }, auths);
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toMatch(/^Bearer realm="a2a", error="invalid_token", ApiKey/);
    expect(JSON.parse(r.body)).toEqual({
      error: { code: 401, status: "UNAUTHENTICATED", message: "The credentials presented were not accepted", details: [] },
    });
  });
});
