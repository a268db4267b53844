// A request with fallbackMethod: an agent that serves subscribe only by GET (the protos' verb)
// passes, and the report names the verb it serves; a TaskNotFoundError 404 is no missing route.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCase } from "../../src/compliance/runner.js";
import { restCase, restDiscovery } from "../support/rest-case.js";
import { listenHttp } from "../support/servers.js";

let server: Server;
let url = "";
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader("content-type", "application/json");
    if (req.url === "/tasks/known:subscribe" && req.method === "GET") return res.end(JSON.stringify({ ok: true }));
    if (req.url === "/tasks/gone:subscribe") {
      res.statusCode = 404;
      return res.end(JSON.stringify({ error: { code: 404, status: "NOT_FOUND", message: "no such task" } }));
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ message: `Route ${req.method}:${req.url} not found`, error: "Not Found", statusCode: 404 }));
  });
  url = await listenHttp(server);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const mkCase = (path: string, expect: Record<string, unknown>) =>
  restCase(
    [
      {
        name: "subscribe",
        request: { method: "POST", fallbackMethod: "GET", path, headers: { "Content-Type": "application/json" }, body: {} },
        expect,
      },
    ],
    "MUST",
    "v1_0/rest/streaming/x",
  );
const discovery = () => restDiscovery(url);

describe("fallbackMethod", () => {
  it("retries with GET (without the body) when POST finds no route, and reports the verb", async () => {
    seen.length = 0;
    const r = await runCase(mkCase("/tasks/known:subscribe", { status: 200, body: { ok: true } }), discovery());
    expect(r.status).toBe("pass");
    expect(seen).toEqual(["POST /tasks/known:subscribe", "GET /tasks/known:subscribe"]);
    expect(r.variants).toEqual(["subscribe method: GET (POST answered 404)"]);
  });
  it("does not retry an A2A error: a 404 with an AIP-193 body is a TaskNotFoundError", async () => {
    seen.length = 0;
    const r = await runCase(mkCase("/tasks/gone:subscribe", { status: 404 }), discovery());
    expect(r.status).toBe("pass");
    expect(seen).toEqual(["POST /tasks/gone:subscribe"]);
    expect(r.variants).toEqual(["subscribe method: POST"]);
  });
});
