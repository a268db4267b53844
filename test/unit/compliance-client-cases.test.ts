// Client compliance: the scenario files load and validate, scenarios come in version twins, the
// fixture server matches what a client sends against a scenario (and reports what differs), and
// the driver protocol reads the last JSON line of a driver's output.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadClientCases, parseClientCase, type ClientCase } from "../../src/compliance/client/cases.js";
import { runDriver } from "../../src/compliance/client/driver.js";
import { startFixtureServer } from "../../src/compliance/client/fixture-server.js";

describe("client compliance cases", () => {
  const cases = loadClientCases();

  it("load and validate, and cover the client rules of both versions", () => {
    expect(cases.length).toBeGreaterThanOrEqual(90);
    const rules = new Set(cases.flatMap((c) => c.requirements));
    for (const r of ["C-01", "C-03", "C-04", "C-06", "C-07", "C-09", "C-13", "C-14", "C-16", "C-17", "C-21", "C-28"])
      expect(rules).toContain(r);
    expect(new Set(cases.map((c) => c.version))).toEqual(new Set(["1.0", "0.3"]));
  });

  it("every 0.3 scenario has a 1.0 twin on the same binding", () => {
    const ids = new Set(cases.map((c) => c.id));
    // A 0.3 HTTP+JSON error case per de-facto body shape: the a2a-python one (-message-body) shares the 1.0 twin.
    // 0.3 picks an interface by preferredTransport and additionalInterfaces (0.3 §5.6.3), 1.0 by the order of
    // supportedInterfaces (1.0.1 §8.3.2): the twin of the 0.3 selection case is 1.0's first-supported-interface.
    const twin = (id: string) =>
      id
        .replace(/^v0_3\//, "v1_0/")
        .replace(/-message-body$/, "")
        .replace(/\/card\/(json-rpc|rest)-url-from-additional-interfaces$/, "/card/first-supported-interface");
    for (const c of cases.filter((x) => x.version === "0.3")) expect(ids, c.id).toContain(twin(c.id));
  });

  it("rejects a case with an unknown member, operator or requirement", () => {
    const base = {
      title: "t",
      requirements: ["C-01"],
      level: "MUST",
      version: "1.0",
      binding: "json-rpc",
      instruction: { op: "send" },
      exchanges: [],
      result: {},
    };
    expect(parseClientCase("v1_0/json-rpc/x", "x", { ...base, surprise: 1 }).problems.join()).toMatch(/surprise/);
    expect(parseClientCase("v1_0/json-rpc/x", "x", { ...base, result: { $nope: 1 } }).problems.join()).toMatch(/unknown operator/);
    expect(parseClientCase("v1_0/json-rpc/x", "x", { ...base, requirements: ["C-99"] }, new Set(["C-01"])).problems.join()).toMatch(/C-99/);
    expect(parseClientCase("v0_3/json-rpc/x", "x", base).problems.join()).toMatch(/version/);
  });
});

const scenario: ClientCase = {
  id: "v1_0/json-rpc/unit/scenario",
  file: "",
  title: "unit",
  requirements: ["C-01"],
  level: "MUST",
  version: "1.0",
  binding: "json-rpc",
  instruction: { op: "get", taskId: "t1" },
  exchanges: [
    {
      name: "optional first",
      optional: true,
      request: { body: { method: "Never" } },
      response: { body: {} },
    },
    {
      name: "get",
      request: {
        method: "POST",
        path: "",
        headers: { "a2a-version": "1.0" },
        body: { jsonrpc: "2.0", id: { $capture: "rpcId" }, method: "GetTask" },
      },
      response: { body: { jsonrpc: "2.0", id: "{{rpcId}}", result: { id: "t1" } } },
    },
  ],
  result: { ok: true },
};

describe("client compliance fixture server", () => {
  it("serves the card, matches requests in order, echoes captures and records what differs", async () => {
    const f = await startFixtureServer(scenario);
    try {
      const card = (await (await fetch(`${f.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
      expect(card.supportedInterfaces[0]?.url).toBe(`${f.url}/a2a`);
      const r = await fetch(`${f.url}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 42, method: "GetTask", params: { id: "t1" } }),
      });
      expect(await r.json()).toEqual({ jsonrpc: "2.0", id: 42, result: { id: "t1" } });
      expect(f.outcomes.map((o) => o.status)).toEqual(["skipped", "pass"]);
      // Nothing more is expected: a further request is recorded as unexpected.
      const extra = await fetch(`${f.url}/a2a`, { method: "POST", body: "{}" });
      expect(extra.status).toBe(500);
      expect(f.unexpected).toHaveLength(1);
      expect(f.cardFetches).toHaveLength(1);
    } finally {
      await f.close();
    }
  });

  it("reports a missing A2A-Version header and a wrong path", async () => {
    const f = await startFixtureServer(scenario);
    try {
      await fetch(`${f.url}/elsewhere`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask" }),
      });
      const o = f.outcomes[1];
      expect(o?.status).toBe("fail");
      expect(o?.diffs.map((d) => d.path).sort()).toEqual(["/headers/a2a-version", "/path"]);
    } finally {
      await f.close();
    }
  });
});

describe("layering", () => {
  it("the judge (src/compliance) never imports the server or the client it judges", () => {
    const dir = new URL("../../src/compliance/", import.meta.url);
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.filter((f) => /from\s+["'][^"']*\.\.\/(\.\.\/)?(server|client)\//.test(readFileSync(new URL(f, dir), "utf8")));
    expect(offenders).toEqual([]);
  });
});

describe("driver protocol", () => {
  const dir = mkdtempSync(join(tmpdir(), "a2a-driver-"));
  const script = join(dir, "echo-driver.mjs");
  writeFileSync(
    script,
    `let s="";process.stdin.on("data",d=>s+=d);process.stdin.on("end",()=>{console.log("log line");console.log(JSON.stringify({ok:true,url:process.argv[2],got:JSON.parse(s)}))});`,
  );

  it("passes {url} and the instruction, and reads the last JSON line", async () => {
    const out = await runDriver([process.execPath, script, "{url}"], "http://127.0.0.1:9", { op: "get" }, 10_000);
    expect(out.result).toEqual({ ok: true, url: "http://127.0.0.1:9", got: { op: "get" } });
    expect(out.timedOut).toBe(false);
  });

  it("reports a driver that prints no result", async () => {
    const out = await runDriver([process.execPath, "-e", "process.exit(3)"], "http://x", {}, 10_000);
    expect(out.result).toBeUndefined();
    expect(out.exitCode).toBe(3);
  });
});
