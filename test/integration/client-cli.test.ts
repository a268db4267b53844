// The command-line client against the reference server: output a person reads, --json a script
// reads, and exit codes that tell protocol errors, connection failures and bad cards apart.
import { createServer, type Server } from "node:http";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EXIT, registerClientCommands } from "../../src/cli/client-commands.js";
import { main } from "../../src/cli/main.js";
import { bearerAuth } from "../../src/security/auth.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { listenHttp, serverGroup, startRpcAgent, type RunningServer } from "../support/servers.js";

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeErr: (s) => (err += s), writeOut: (s) => (out += s) });
  registerClientCommands(program, (c) => (code = c), { out: (s) => (out += s), err: (s) => (err += s) });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    code = (e as { exitCode: number }).exitCode;
  }
  return { code, out, err };
}

const servers = serverGroup();
let url: string;
let oldUrl: string;
let securedUrl: string;
let junk: Server;
let junkUrl: string;
/** A 0.3 agent by hand: its well-known card omits protocolVersion; /cards/a holds a full card; POST /rpc answers with a Message. */
let plain: Server;
let plainUrl: string;
beforeAll(async () => {
  // The extended card needs a credential (1.0.1 §13.3): this server accepts one bearer token for it.
  url = (
    await servers.start("fastify", {
      agent: createFixtureAgent(),
      extendedCardAuthenticators: [bearerAuth({ tokens: { "card-t0ken": "carol" } })],
    })
  ).url;
  oldUrl = (await servers.start("fastify", { agent: createFixtureAgent(), versions: ["0.3"] })).url;
  securedUrl = (
    await servers.start("fastify", {
      agent: createFixtureAgent(),
      authenticate: (r) => (r.headers.authorization === "Bearer t0k" ? "me" : undefined),
    })
  ).url;
  junk = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("<html>not a card</html>"));
  junkUrl = await listenHttp(junk);
  plain = createServer((req, res) => {
    const card = {
      name: "plain 0.3 agent",
      description: "hand-written",
      url: `${plainUrl}/rpc`,
      version: "1",
      capabilities: {},
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    };
    const json = (body: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url === "/.well-known/agent-card.json") return json(card);
    if (req.method === "GET" && req.url === "/cards/a") return json({ ...card, name: "card at a custom path", protocolVersion: "0.3.0" });
    if (req.method === "POST" && req.url === "/rpc") {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const id = (JSON.parse(body) as { id: unknown }).id;
        json({
          jsonrpc: "2.0",
          id,
          result: { kind: "message", messageId: "m-1", role: "agent", parts: [{ kind: "text", text: "plain reply" }] },
        });
      });
      return;
    }
    res.writeHead(404).end();
  });
  plainUrl = await listenHttp(plain);
});
afterAll(async () => {
  await servers.close();
  junk.close();
  plain.close();
});

describe("a2a-toolkit client commands", () => {
  it("card: the card, with the interface the client would use", async () => {
    const r = await cli("card", url);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain("a2a-toolkit fixture agent");
    expect(r.out).toMatch(/\* JSONRPC\s+1\.0/);
    expect(r.out).toMatch(/streaming yes/);
    const j = await cli("card", url, "--json");
    expect(JSON.parse(j.out).supportedInterfaces.length).toBeGreaterThan(0);
    const refused = await cli("card", url, "--extended", "--binding", "rest");
    expect(refused.code).not.toBe(EXIT.ok);
    const ext = await cli("card", url, "--extended", "--binding", "rest", "--header", "Authorization: Bearer card-t0ken");
    expect(ext.code).toBe(EXIT.ok);
    expect(ext.out).toMatch(/extended: Extended/);
  });

  it("send: waits and prints the task's state and artifacts", async () => {
    const r = await cli("send", url, "echo good morning");
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/state:\s+completed/);
    expect(r.out).toContain("good morning");
  });

  it("send --stream prints chunks as they arrive; --json prints one StreamResponse per line", async () => {
    const r = await cli("send", url, "stream 3", "--stream", "--binding", "rest", "--version", "0.3");
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/chunk 1\/3chunk 2\/3chunk 3\/3\n/);
    expect(r.out.trim().split("\n").pop()).toBe("[completed]");
    const j = await cli("send", url, "stream 2", "--stream", "--json");
    const lines = j.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(Object.keys(lines[0])).toEqual(["task"]);
    expect(lines[lines.length - 1].statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("multi-turn with --task; --no-wait, cancel and get", async () => {
    const first = JSON.parse((await cli("send", url, "ask", "--json")).out);
    expect(first.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const second = await cli("send", url, "purple", "--task", first.task.id, "--context", first.task.contextId);
    expect(second.out).toMatch(/state:\s+completed/);
    expect(second.out).toContain("purple");

    const started = JSON.parse((await cli("send", url, "slow 60000", "--no-wait", "--json")).out);
    expect(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]).toContain(started.task.status.state);
    const cancel = await cli("cancel", url, started.task.id);
    expect(cancel.code).toBe(EXIT.ok);
    expect(cancel.out).toMatch(/state:\s+canceled/);
    const get = await cli("get", url, started.task.id, "--json");
    expect(JSON.parse(get.out).status.state).toBe("TASK_STATE_CANCELED");
  });

  it("subscribe follows a running task to its end", async () => {
    const started = JSON.parse((await cli("send", url, "slow 100", "--no-wait", "--json")).out);
    const r = await cli("subscribe", url, started.task.id);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out.trim().split("\n").pop()).toBe("[completed]");
    // Subscribing to the finished task (1.0 answers UnsupportedOperationError) shows it instead.
    const again = await cli("subscribe", url, started.task.id);
    expect(again.code).toBe(EXIT.ok);
    expect(again.out).toMatch(/^\[completed\] task /);
  });

  it("list works at 1.0; at 0.3 it is a protocol error (exit 1)", async () => {
    const r = await cli("list", url, "--status", "completed");
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toMatch(/completed\s+context/);
    const old3 = await cli("list", url, "--version", "0.3");
    expect(old3.code).toBe(EXIT.protocol);
    expect(old3.err).toMatch(/UnsupportedOperationError \(-32004\)/);
  });

  it("exit codes: protocol error 1, usage 2, connection 3, card 4, failed task 5, credentials refused 6", async () => {
    const missing = await cli("get", url, "no-such-task");
    expect(missing.code).toBe(EXIT.protocol);
    expect(missing.err).toContain("TaskNotFoundError (-32001)");
    expect((await cli("send", url)).code).toBe(EXIT.usage);
    expect((await cli("send", url, "x", "--version", "2.0")).code).toBe(EXIT.usage);
    const down = await cli("card", "http://127.0.0.1:1");
    expect(down.code).toBe(EXIT.connection);
    expect(down.err).toMatch(/connection failed \(network\): could not reach http:\/\/127\.0\.0\.1:1\/\.well-known\/agent-card\.json/);
    const bad = await cli("send", junkUrl, "hi");
    expect(bad.code).toBe(EXIT.card);
    expect(bad.err).toMatch(/agent card problem: agent card at .* is not JSON/);
    const pinned = await cli("send", oldUrl, "echo x", "--version", "1.0");
    expect(pinned.code).toBe(EXIT.card);
    expect(pinned.err).toMatch(/pinned to A2A 1\.0 and does not fall back/);
    expect((await cli("send", oldUrl, "echo x")).code).toBe(EXIT.ok);
    expect((await cli("send", url, "fail")).code).toBe(EXIT.taskFailed);
    const refused = await cli("send", securedUrl, "echo x");
    expect(refused.code).toBe(EXIT.auth);
    expect(refused.err).toMatch(/not authorized: .*HTTP 401/);
    expect((await cli("send", securedUrl, "echo x", "--token", "t0k")).code).toBe(EXIT.ok);
    expect((await cli("send", securedUrl, "echo x", "--header", "Authorization: Bearer t0k")).code).toBe(EXIT.ok);
  });

  it("card and send read a 0.3 card without protocolVersion as 0.3.0 (its schema default)", async () => {
    const card = await cli("card", plainUrl);
    expect(card.code, card.err).toBe(EXIT.ok);
    expect(card.out).toMatch(/\* JSONRPC\s+0\.3/);
    const sent = await cli("send", plainUrl, "hi");
    expect(sent.code, sent.err).toBe(EXIT.ok);
    expect(sent.out).toContain("plain reply");
  });

  it("card and send find a card at a custom path, and say which URLs they tried when there is none", async () => {
    const card = await cli("card", `${plainUrl}/cards/a`);
    expect(card.code, card.err).toBe(EXIT.ok);
    expect(card.out).toContain("card at a custom path");
    expect((await cli("send", `${plainUrl}/cards/a`, "hi")).out).toContain("plain reply");
    const empty = createServer((_req, res) => res.writeHead(404).end());
    const at = await listenHttp(empty);
    try {
      const none = await cli("card", `${at}/agents/x`);
      expect(none.code).toBe(EXIT.connection);
      expect(none.err).toContain(
        `no agent card found for ${at}/agents/x; tried ${at}/agents/x (HTTP 404), ${at}/agents/x/.well-known/agent-card.json (HTTP 404), ` +
          `${at}/agents/.well-known/agent-card.json (HTTP 404), ${at}/.well-known/agent-card.json (HTTP 404), ${at}/agents/x/.well-known/agent.json (HTTP 404)`,
      );
    } finally {
      empty.close();
    }
  });

  it("is registered on the a2a-toolkit command", async () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await main(["card", "http://127.0.0.1:1"])).toBe(EXIT.connection);
    } finally {
      err.mockRestore();
    }
  });
});

describe("send --data and --metadata", () => {
  let agent: RunningServer;
  let at: string;
  let sent: { parts: unknown[]; metadata?: unknown }[] = [];
  beforeAll(async () => {
    // Records each message and answers with a text part and a data part.
    agent = await startRpcAgent(
      (rpc) => {
        sent.push(rpc.params.message as (typeof sent)[number]);
        return {
          result: { message: { messageId: "m-1", role: "ROLE_AGENT", parts: [{ text: "here" }, { data: { n: 1, list: ["a", null] } }] } },
        };
      },
      { defaultInputModes: ["text/plain", "application/json"], defaultOutputModes: ["application/json"] },
    );
    at = agent.url;
  });
  afterAll(() => agent.close());

  it("sends data parts and metadata as given; prints each part on its line, data as JSON", async () => {
    sent = [];
    const r = await cli("send", at, "hi", "--data", '{"q":[1,2]}', "--data", "7", "--metadata", '{"backend":"b2"}');
    expect(r.err).toBe("");
    expect(r.code).toBe(EXIT.ok);
    expect(sent[0]).toMatchObject({ parts: [{ text: "hi" }, { data: { q: [1, 2] } }, { data: 7 }], metadata: { backend: "b2" } });
    expect(r.out).toBe('agent:\n  here\n  {"n":1,"list":["a",null]}\n');
    // Data alone: no text part.
    sent = [];
    expect((await cli("send", at, "--data", '{"only":true}')).code).toBe(EXIT.ok);
    expect(sent[0]?.parts).toEqual([{ data: { only: true } }]);
  });

  it("bad JSON, metadata that is no object, or nothing to send: usage errors (exit 2), nothing sent", async () => {
    sent = [];
    for (const [args, message] of [
      [["--data", "{nope"], "--data expects JSON"],
      [["x", "--metadata", "[1]"], "--metadata expects a JSON object"],
      [["x", "--metadata", "nope"], "--metadata expects JSON"],
      [[], "send needs a text or at least one --data"],
    ] as const) {
      const r = await cli("send", at, ...args);
      expect(r.code).toBe(EXIT.usage);
      expect(r.err).toContain(message);
      expect(r.err.trim().split("\n")).toHaveLength(1);
    }
    expect(sent).toEqual([]);
  });
});
