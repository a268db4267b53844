import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTestCommand } from "../../src/cli/test-command.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { serverGroup } from "../support/servers.js";

const addFormats = createRequire(import.meta.url)("ajv-formats").default as typeof import("ajv-formats").default;
const servers = serverGroup();
const dir = mkdtempSync(join(tmpdir(), "acts-report-"));
const fixture = join(import.meta.dirname, "..", "fixtures", "acts", "executor.acts.yaml");
let code: number;
let stdout = "";

// A full `test` run in-process (about 3 s cold): `make test-acts` runs it (A2A_ACTS=1), beside the corpus.
const run = process.env.A2A_ACTS === "1";

beforeAll(async () => {
  if (!run) return;
  const server = await servers.start("fastify", { agent: createFixtureAgent(), grpc: true });
  code = await runTestCommand(
    server.url,
    { acts: fixture, onlyActs: true, report: `acts=${dir},json=${join(dir, "all.json")}` },
    { stdout: (s) => (stdout += s), stderr: () => {} },
  );
}, 60_000);
afterAll(async () => {
  await servers.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(run)("test --acts <file> --report acts=<dir>", () => {
  it("writes one §13 file per (version, binding), each valid against the schema derived from the §13 CDDL", () => {
    const files = readdirSync(dir)
      .filter((f) => f !== "all.json")
      .sort();
    expect(files).toEqual(["0.3-grpc.json", "0.3-jsonrpc.json", "0.3-rest.json", "1.0-grpc.json", "1.0-jsonrpc.json", "1.0-rest.json"]);
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv);
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "compliance", "acts", "report.schema.json"), "utf8")) as object,
    );
    for (const f of files) {
      const doc = JSON.parse(readFileSync(join(dir, f), "utf8")) as {
        sdk: unknown;
        spec_version: string;
        transport: string;
        summary: { total: number };
      };
      expect(validate(doc) ? [] : validate.errors, f).toEqual([]);
      expect(doc.sdk).toEqual({ name: "a2a-toolkit fixture agent", version: "1.0.0", language: "unknown" });
      expect(doc.spec_version).toBe(f.slice(0, 3));
      expect(doc.transport).toBe(f.slice(4, -5));
      expect(doc.summary.total).toBe(8);
    }
    const rest = JSON.parse(readFileSync(join(dir, "1.0-rest.json"), "utf8")) as { summary: { by_level: Record<string, unknown> } };
    expect(rest.summary.by_level.must).toEqual({ total: 4, passed: 4, failed: 0, skipped: 0, errors: 0 });
  });

  const pairs = ["1.0", "0.3"].flatMap((version) => ["jsonrpc", "rest", "grpc"].map((binding) => ({ version, binding })));
  describe.each(pairs)("the executor on $version $binding", ({ version, binding }) => {
    const doc = () =>
      JSON.parse(readFileSync(join(dir, `${version}-${binding}.json`), "utf8")) as {
        suites: { tests: { id: string; result: string; skip_reason?: string; failure?: unknown; steps?: { result: string }[] }[] }[];
      };
    const result = (id: string) => doc().suites[0]!.tests.find((t) => t.id === id)!;

    it.each(["EXE-POLL-001", "EXE-STREAM-001", "EXE-ERR-001"])("%s passes", (id) => {
      expect(result(id).failure).toBeUndefined();
      expect(result(id).result).toBe("pass");
    });

    it("skips on 0.3 what the translation loses, naming the loss register row", () => {
      // historyLength 0 has no form in the 0.3 protobuf shape (L10): made good on HTTP+JSON, not on gRPC.
      expect(result("EXE-CAPTURE-001")).toMatchObject(
        version === "0.3" && binding === "grpc"
          ? { result: "skip", skip_reason: expect.stringMatching(/^0\.3 cannot express this GetTask request: loss register L10/) }
          : { result: "pass" },
      );
      expect(result("EXE-LIST-001")).toMatchObject(
        version === "0.3"
          ? { result: "skip", skip_reason: expect.stringMatching(/^0\.3 cannot express ListTasks: loss register L6/) }
          : { result: "pass" },
      );
    });

    it("skips a test whose precondition the card does not meet, naming it; raw steps only where the filter says", () => {
      expect(result("EXE-PRE-001")).toMatchObject({ result: "skip", skip_reason: expect.stringMatching(/capabilities.pushNotifications/) });
      expect(result("EXE-RAW-001").result).toBe(binding === "rest" && version === "1.0" ? "pass" : "skip");
      if (version === "0.3" && binding === "rest")
        expect(result("EXE-RAW-001").skip_reason).toMatch(/raw step \(§4\.4\) written for the 1\.0 wire/);
    });

    it("fails a wrong expectation with step, path, expected and actual; later steps do not run", () => {
      const r = result("EXE-FAIL-001");
      expect(r.failure).toMatchObject({
        step_id: "send",
        assertion_path: "task.status.state",
        expected: "TASK_STATE_COMPLETED",
        actual: "TASK_STATE_INPUT_REQUIRED",
      });
      expect(r.steps?.map((s) => s.result)).toEqual(["fail", "skip"]);
    });
  });

  it("a missing ACTS path is a usage error naming it (exit 2), not a crash", async () => {
    let err = "";
    const code = await runTestCommand(
      "http://127.0.0.1:1",
      { acts: "/nonexistent/x.acts.yaml", onlyActs: true, timeout: "2000" },
      { stdout: () => {}, stderr: (s) => (err += s) },
    );
    expect(code).toBe(2);
    expect(err).toMatch(/--acts: \/nonexistent\/x\.acts\.yaml does not exist/);
  });

  it("shows the ACTS results beside our own in the JSON report and the console; only a MUST failure fails the run", () => {
    const all = JSON.parse(readFileSync(join(dir, "all.json"), "utf8")) as { results: { id: string; status: string }[] };
    expect(all.results.map((r) => r.id)).toContain("acts/EXE-CAPTURE-001@grpc");
    expect(all.results.map((r) => r.id)).toContain("acts/EXE-CAPTURE-001@0.3-jsonrpc");
    expect(all.results.find((r) => r.id === "acts/EXE-FAIL-001@rest")?.status).toBe("warn");
    expect(stdout).toMatch(/1\.0 rest \(http:\/\/127\.0\.0\.1:\d+\): conformant/);
    expect(stdout).toMatch(/0\.3 grpc \(127\.0\.0\.1:\d+\): conformant/);
    expect(code).toBe(0);
  });

  it("counts the messages the ACTS tests sent in the report and on the last line", () => {
    const all = JSON.parse(readFileSync(join(dir, "all.json"), "utf8")) as { summary: { messagesSent: number } };
    // Each of the six interfaces runs the fixture's send_message steps (and a test fails after its first send).
    expect(all.summary.messagesSent).toBeGreaterThanOrEqual(6);
    expect(stdout).toContain(`; ${all.summary.messagesSent} messages sent`);
  });
});
