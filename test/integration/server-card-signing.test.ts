// Signed agent cards served by the reference server (plugin option `cardSigning`, CLI
// `serve --sign-card-key/--sign-card-kid`): the 1.0 card fetched over HTTP verifies with
// verifyAgentCard and the public key; the 0.3 card carries no signatures (L9); the dual card
// (no A2A-Version) carries the 1.0 card's.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { equals } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { bearerAuth } from "../../src/security/auth.js";
import { jwksKeyResolver, verifyAgentCard } from "../../src/security/card-signing.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { parseAgentCard } from "../../src/versioning/card.js";
import { startServer, type RunningServer } from "../support/servers.js";
import { spawnCli } from "../support/serve-child.js";

type Json = Record<string, unknown>;

let server: RunningServer;
let base: string;
let publicJwk: JWK;
const resolveKey = () => jwksKeyResolver({ keys: [{ ...publicJwk, kid: "card-key-1" }] });

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  publicJwk = await exportJWK(publicKey);
  server = await startServer("fastify", {
    agent: createFixtureAgent(),
    authenticators: [bearerAuth({ tokens: { tok: "alice" } })],
    cardSigning: { key: privateKey, kid: "card-key-1", alg: "ES256", jku: "https://keys.example.com/jwks.json" },
  });
  base = server.url;
});
afterAll(() => server.close());

const card = async (headers: Record<string, string>) =>
  (await (await fetch(`${base}/.well-known/agent-card.json`, { headers })).json()) as Json;

describe("cardSigning", () => {
  it("the 1.0 card fetched over HTTP lists one signature that verifies with the public key", async () => {
    const c = await card({ "A2A-Version": "1.0" });
    expect(c.signatures).toHaveLength(1);
    const [sig] = c.signatures as Json[];
    const header = JSON.parse(Buffer.from(String(sig?.protected), "base64url").toString()) as Json;
    expect(header).toEqual({ alg: "ES256", kid: "card-key-1", typ: "JOSE", jku: "https://keys.example.com/jwks.json" });
    const checks = await verifyAgentCard(c as never, resolveKey());
    expect(checks).toEqual([expect.objectContaining({ verified: true, kid: "card-key-1" })]);
    // The signature covers what the server added: interfaces and security schemes.
    expect(c.securitySchemes).toMatchObject({ bearer: {} });
    for (const change of [{ name: "Someone else" }, { securitySchemes: {} }, { supportedInterfaces: [] }]) {
      expect((await verifyAgentCard({ ...c, ...change } as never, resolveKey()))[0]?.verified).toBe(false);
    }
  });

  it("the 0.3 card (A2A-Version: 0.3) has no signatures (L9)", async () => {
    const c = await card({ "A2A-Version": "0.3" });
    expect(c.protocolVersion).toBe("0.3.0");
    expect(c.signatures).toBeUndefined();
  });

  it("the extended card is signed too", async () => {
    const res = await fetch(`${base}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0", authorization: "Bearer tok" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard" }),
    });
    const ext = ((await res.json()) as { result: Json }).result;
    expect((await verifyAgentCard(ext as never, resolveKey()))[0]?.verified).toBe(true);
    const again = (await (
      await fetch(`${base}/extendedAgentCard`, { headers: { "A2A-Version": "1.0", authorization: "Bearer tok" } })
    ).json()) as Json;
    expect(again.signatures).toEqual(ext.signatures);
  });
});

describe("serve --sign-card-key / --sign-card-kid", () => {
  const dir = mkdtempSync(join(tmpdir(), "a2a-sign-"));
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("signs the card with the JWK file; the 1.0 card and the card without A2A-Version verify with its public half", async () => {
    const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const keyFile = join(dir, "card-key.jwk");
    writeFileSync(keyFile, JSON.stringify(await exportJWK(privateKey)));
    const cli = spawnCli([
      "serve",
      "--port",
      "0",
      "--store",
      "memory",
      "--sign-card-key",
      keyFile,
      "--sign-card-kid",
      "cli-key",
      "--token",
      "tok=alice",
    ]);
    child = cli.child;
    const url = await cli.url;
    const c = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as Json;
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "cli-key" }] };
    expect(await verifyAgentCard(c as never, jwksKeyResolver(jwks))).toEqual([expect.objectContaining({ verified: true, alg: "EdDSA" })]);
    // Without A2A-Version: the dual card (docs/policies.md), read by parseAgentCard as the 1.0 card.
    const dual = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as Json;
    expect(dual).toMatchObject({ protocolVersion: "0.3.0", securitySchemes: { bearer: { type: "http", httpAuthSecurityScheme: {} } } });
    expect(await verifyAgentCard(dual as never, jwksKeyResolver(jwks))).toEqual([expect.objectContaining({ verified: true })]);
    expect(equals(v1_0.AgentCardSchema, parseAgentCard(dual).value, parseAgentCard(c).value)).toBe(true);
  });
});
