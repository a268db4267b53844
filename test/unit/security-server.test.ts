// The authenticators in the reference server as it is today (its `authenticate` hook, the card from
// the agent's declaration), through fastify's in-process inject: who gets in, who sees which task,
// and what the card declares in 1.0 and 0.3.
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../../src/server/index.js";
import { createFixtureAgent } from "../../src/server/fixture/fixture-agent.js";
import { apiKeyAuth, authenticateHook, bearerAuth, cardSecurityJson } from "../../src/security/auth.js";
import { injectRpc } from "../support/rpc.js";

const auths = [
  bearerAuth({ tokens: { "tok-alice": "alice", "tok-bob": "bob" }, bearerFormat: "opaque" }),
  apiKeyAuth({ location: "query", name: "key", keys: { "key-carol": "carol" }, schemeName: "queryKey" }),
];

let app: FastifyInstance;
beforeAll(async () => {
  const fixture = createFixtureAgent();
  app = await buildServer({
    agent: { ...fixture, card: { ...fixture.card, ...cardSecurityJson(auths) } },
    authenticate: authenticateHook(auths),
  });
});
afterAll(() => app.close());

let n = 0;
const rpc = (method: string, params: unknown, headers: Record<string, string> = {}, url = "/") =>
  injectRpc(app, method, params, headers, url);
const send = (text: string, headers: Record<string, string>, url?: string) =>
  rpc("SendMessage", { message: { messageId: `m${++n}`, role: "ROLE_USER", parts: [{ text }] } }, headers, url);

describe("authenticators behind the server's authenticate hook", () => {
  it("a request without credentials, or with a wrong token, is refused with 401", async () => {
    expect((await send("echo hi", {})).status).toBe(401);
    expect((await send("echo hi", { authorization: "Bearer nope" })).status).toBe(401);
    expect((await send("echo hi", {}, "/?key=wrong")).status).toBe(401);
  });

  it("each principal sees only its own tasks: another token gets TaskNotFound", async () => {
    const sent = await send("echo mine", { authorization: "Bearer tok-alice" });
    expect(sent.status).toBe(200);
    const id = sent.body.result.task.id as string;
    expect((await rpc("GetTask", { id }, { authorization: "Bearer tok-alice" })).body.result.id).toBe(id);
    const other = await rpc("GetTask", { id }, { authorization: "Bearer tok-bob" });
    expect(other.body.error.code).toBe(-32001);
    const viaKey = await rpc("GetTask", { id }, {}, "/?key=key-carol");
    expect(viaKey.body.error.code).toBe(-32001);
    const carols = await rpc("ListTasks", {}, {}, "/?key=key-carol");
    expect(carols.body.result.tasks).toEqual([]);
  });

  it("the card declares the schemes: 1.0 securitySchemes/securityRequirements, 0.3 securitySchemes/security", async () => {
    const c10 = JSON.parse((await app.inject({ url: "/.well-known/agent-card.json", headers: { "a2a-version": "1.0" } })).body);
    expect(c10.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "opaque" } },
      queryKey: { apiKeySecurityScheme: { location: "query", name: "key" } },
    });
    expect(c10.securityRequirements).toEqual([{ schemes: { bearer: {} } }, { schemes: { queryKey: {} } }]);
    const c03 = JSON.parse((await app.inject({ url: "/.well-known/agent-card.json", headers: { "a2a-version": "0.3" } })).body);
    expect(c03.securitySchemes).toEqual({
      bearer: { type: "http", scheme: "Bearer", bearerFormat: "opaque" },
      queryKey: { type: "apiKey", in: "query", name: "key" },
    });
    expect(c03.security).toEqual([{ bearer: [] }, { queryKey: [] }]);
  });
});
