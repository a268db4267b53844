// The exit codes of `a2a-toolkit test` (docs/cli.md): 0 passed, 1 a MUST failure, 2 a usage error,
// 3 the agent unreachable or not A2A; each in one line on stderr, never a stack trace, which a
// small fuzz over argument lists checks for every command that ends by itself.
import { createServer, type Server } from "node:http";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { listenHttp, startRpcAgent, type RunningServer } from "../support/servers.js";

// `test` without a URL would run the whole suite against the embedded server: here it meets a closed port.
vi.mock("../../src/cli/embedded-target.js", () => ({
  startEmbeddedTarget: async () => ({ url: "http://127.0.0.1:1", knownFailingFile: "/nonexistent.json", close: async () => undefined }),
}));

const CASE = "v1_0/json-rpc/get-task/unknown-id-returns-task-not-found";

/** A 1.0 JSON-RPC agent whose every call fails with `errorCode` (-32001 is right for an unknown task). */
let errorCode = -32001;
let agent: RunningServer;
let agentUrl: string;
/** Answers every request with 200 and a JSON object that is no agent card. */
let notA2a: Server;
let notA2aUrl: string;

beforeAll(async () => {
  agent = await startRpcAgent(() => ({ error: { code: errorCode, message: "no such task" } }), { name: "exit-code agent" });
  agentUrl = agent.url;
  notA2a = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"hello":"world"}'));
  notA2aUrl = await listenHttp(notA2a);
});
afterAll(async () => {
  await agent.close();
  notA2a.close();
});
afterEach(() => vi.restoreAllMocks());

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    const code = await main(argv);
    const text = (m: typeof out) => m.mock.calls.map((c) => String(c[0])).join("");
    return { code, out: text(out), err: text(err) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** A line of a V8 stack trace. */
const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/m;

describe("a2a-toolkit test: exit codes", () => {
  it("0: no MUST case failed; the first line says PASSED", async () => {
    errorCode = -32001;
    const r = await run("test", agentUrl, "--case", CASE);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toMatch(/^PASSED /);
  });

  it("1: a MUST case failed; the first line says FAILED", async () => {
    errorCode = -32603;
    const r = await run("test", agentUrl, "--case", CASE);
    expect(r.code).toBe(1);
    expect(r.out.split("\n")[0]).toMatch(/^FAILED  1 MUST failure/);
    expect(r.out).toContain(`FAIL ${CASE} [MUST]`);
  });

  it("2: a usage error, in one line: unknown option, a URL without its scheme, a --case glob matching nothing", async () => {
    for (const [argv, message] of [
      [["test", "--no-such-option", agentUrl], "unknown option '--no-such-option'"],
      [["test", "localhost:23100"], 'not an http(s) URL: "localhost:23100" (did you mean http://localhost:23100?)'],
      [["test", "--case", "v1_0/no-such-area/*", agentUrl], '--case "v1_0/no-such-area/*" matches no case ID (IDs look like v1_0/'],
      [["test", "--list", "--case", "nothing*"], '--case "nothing*" matches no case ID'],
    ] as const) {
      const r = await run(...argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err).toContain(message);
      expect(r.err.trimEnd().split("\n"), r.err).toHaveLength(1);
      expect(r.out).toBe("");
    }
  });

  it("2: a report file that cannot be written, after the verdict", async () => {
    errorCode = -32001;
    const r = await run("test", agentUrl, "--case", CASE, "--report", "html=/dev/null/x.html");
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^PASSED /);
    expect(r.err).toMatch(/^a2a-toolkit test: --report: cannot write \/dev\/null\/x\.html: .+\n$/);
  });

  it("3: nothing listens, or it answers but is no A2A agent: one line, no report", async () => {
    const closed = await run("test", "http://127.0.0.1:1");
    expect(closed.code).toBe(3);
    expect(closed.err).toMatch(/^a2a-toolkit test: no agent card found; tried: http:\/\/127\.0\.0\.1:1\/\.well-known\/agent-card\.json \(/);
    expect(closed.err.trimEnd().split("\n")).toHaveLength(1);
    expect(closed.out).toBe("");
    const other = await run("test", notA2aUrl);
    expect(other.code).toBe(3);
    expect(other.err.trimEnd().split("\n")).toHaveLength(1);
    expect(other.out).toBe("");
  });

  it("3: a card URL ending in .json that answers 404 is not replaced by the host's root card", async () => {
    errorCode = -32001;
    const r = await run("test", `${agentUrl}/cards/missing.json`, "--case", CASE);
    expect(r.code).toBe(3);
    expect(r.err).toContain(`${agentUrl}/cards/missing.json (HTTP 404)`);
    // (A base URL still walks up to the root card: test/unit/card-urls.test.ts.)
  });

  it("the --case hint's example is an ID of the suite", async () => {
    const r = await run("test", "--case", "v1_0/nothing/*", agentUrl);
    const example = /IDs look like (\S+);/.exec(r.err)?.[1];
    expect(example).toBeDefined();
    expect((await run("test", "--list", "--case", example!)).out).toMatch(new RegExp(`^${example} `));
  });

  it("--list: ID, level and title of each selected case; --version still means the protocol version", async () => {
    const r = await run("test", "--list", "--version", "0.3", "--binding", "rest", "--case", "*/*/get-task/*");
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(l).toMatch(/^v0_3\/rest\/get-task\/\S+ +(MUST|SHOULD|MAY) +0\.3 HTTP\+JSON: /);
  });
});

describe("no input prints a stack trace", () => {
  it("a fuzz over argument lists of the commands that end by themselves", { timeout: 60_000 }, async () => {
    const word = fc.constantFrom(
      "localhost:23100",
      "http://127.0.0.1:1",
      "http://[::1",
      "ftp://x",
      "",
      "{",
      "[1]",
      "1.0",
      "0.3",
      "all",
      "**",
      "-1",
      "json=",
      "html=/dev/null/x.html",
      "x:y",
      "\u0000",
    );
    const option = fc.constantFrom(
      "--version",
      "--binding",
      "--case",
      "--level",
      "--report",
      "--timeout",
      "--header",
      "--data",
      "--metadata",
      "--max-messages",
      "--list",
      "--nope",
      "-V",
      "--json",
    );
    const command = fc.constantFrom("test", "card", "send", "get", "cancel", "list", "subscribe", "no-such-command");
    await fc.assert(
      fc.asyncProperty(command, fc.array(fc.oneof(word, option), { maxLength: 5 }), async (cmd, rest) => {
        const r = await run(cmd, ...rest);
        const all = r.out + r.err;
        expect(all, `${cmd} ${JSON.stringify(rest)}`).not.toMatch(STACK_FRAME);
        expect(all).not.toContain("internal error");
        expect(r.code).toBeGreaterThanOrEqual(0);
        expect(r.code).toBeLessThanOrEqual(6);
      }),
      { seed: 29, numRuns: 40 },
    );
  });
});
