// Card discovery like a client (issue 12 item 4): the reference server at the root, behind a base
// URL with a path prefix, and with its card served only at a custom path (a small node:http front
// that hides the well-known card and proxies the rest) gets the same cases with the same verdicts.
// A target that serves no card at all gets one skip reason that says what was tried.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import type { Report } from "../../src/compliance/report.js";
import { runSuite } from "../../src/compliance/suite.js";
import { listenHttp, type RunningServer, startServer } from "../support/servers.js";

const CASES = ["v*/card/*", "v1_0/*/get-task/*", "v0_3/*/get-task/*", "v1_0/json-rpc/send-message/*"];
const CARD_PATH = "/cards/my-agent";

const reference = (opts: { prefix?: string; publicUrl?: string } = {}) => startServer("fastify", { agent: createFixtureAgent(), ...opts });

/** Forwards a request to `backend` (same method, path, headers and body) and streams the answer back. */
function forward(req: IncomingMessage, res: ServerResponse, backend: string, path: string): void {
  const up = httpRequest(`${backend}${path}`, { method: req.method, headers: req.headers }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on("error", () => res.destroy());
  req.pipe(up);
}

const verdicts = (r: Report) => Object.fromEntries(r.results.map((x) => [x.id, x.status]));

describe("card discovery: the same cases wherever the card is", () => {
  let root: RunningServer;
  let prefixed: RunningServer;
  let custom: { server: RunningServer; front: Server; url: string };
  let empty: { server: Server; url: string };

  beforeAll(async () => {
    root = await reference();
    prefixed = await reference({ prefix: "/agents/x" });
    // The front: the card only at CARD_PATH, no well-known card anywhere, everything else proxied.
    let backend = "";
    const front = createServer((req, res) => {
      if (req.url?.startsWith(CARD_PATH)) return forward(req, res, backend, "/.well-known/agent-card.json");
      if (req.url?.includes("/.well-known/")) return void res.writeHead(404).end();
      forward(req, res, backend, req.url ?? "/");
    });
    const frontUrl = await listenHttp(front);
    const behind = await reference({ publicUrl: frontUrl });
    backend = behind.url;
    custom = { server: behind, front, url: `${frontUrl}${CARD_PATH}` };
    const nothing = createServer((_req, res) => void res.writeHead(404).end());
    empty = { server: nothing, url: `${await listenHttp(nothing)}/agents/none` };
  });
  afterAll(async () => {
    await Promise.all([root?.close(), prefixed?.close(), custom?.server.close()]);
    await Promise.all([custom?.front, empty?.server].map((s) => s && new Promise((r) => s.close(r))));
  });

  it("a base URL with a path prefix and a card at a custom path get the root's cases and verdicts", { timeout: 30_000 }, async () => {
    const run = (target: string) => runSuite({ target, caseGlobs: CASES, streamTimeoutMs: 5_000 });
    const atRoot = await run(root.url);
    const ran = atRoot.results.filter((r) => r.status !== "skip");
    expect(ran.length).toBeGreaterThan(25);
    // The card cases ran (against the card, wherever it is; the JWS case needs a signed card), and every case the root runs passes.
    expect(ran.filter((r) => r.id.includes("/card/")).length).toBe(5);
    // (An agent that never asks for input leaves the interrupted-state cases inconclusive.)
    expect(ran.filter((r) => r.status !== "pass" && r.status !== "inconclusive").map((r) => r.id)).toEqual([]);
    for (const target of [prefixed.url, custom.url]) {
      const report = await run(target);
      expect(verdicts(report), target).toEqual(verdicts(atRoot));
      expect(report.discovery.interfaces.map((i) => `${i.version} ${i.binding}`)).toEqual(
        atRoot.discovery.interfaces.map((i) => `${i.version} ${i.binding}`),
      );
    }
  });

  it("names the URL that answered and those tried before it", async () => {
    const prefixedRun = await runSuite({ target: prefixed.url, caseGlobs: ["v1_0/card/*"] });
    expect(prefixedRun.discovery.cardUrl).toBe(`${prefixed.url}/.well-known/agent-card.json`);
    expect(prefixedRun.discovery.notes[0]).toBe(
      `agent card read from ${prefixed.url}/.well-known/agent-card.json; tried first: ${prefixed.url} (HTTP 405)`,
    );
    const customRun = await runSuite({ target: custom.url, caseGlobs: ["v1_0/card/*"] });
    expect(customRun.discovery.cardUrl).toBe(custom.url);
    expect(customRun.discovery.notes[0]).toBe(`agent card read from ${custom.url}`);
  });

  it("a failed discovery lists every URL tried, and the skips say there is no card", async () => {
    const report = await runSuite({ target: empty.url, caseGlobs: CASES });
    const origin = new URL(empty.url).origin;
    expect(report.discovery.notes[0]).toBe(
      "no agent card found; tried: " +
        [
          empty.url,
          `${empty.url}/.well-known/agent-card.json`,
          `${origin}/agents/.well-known/agent-card.json`,
          `${origin}/.well-known/agent-card.json`,
          `${empty.url}/.well-known/agent.json`,
          `${origin}/agents/.well-known/agent.json`,
          `${origin}/.well-known/agent.json`,
        ]
          .map((u) => `${u} (HTTP 404)`)
          .join(", "),
    );
    expect(new Set(report.results.map((r) => `${r.status}: ${r.reason}`))).toEqual(
      new Set(["skip: no agent card found (the report's notes list the URLs tried)"]),
    );
  });
});
