// Client compliance end to end: the reference client, through its driver, passes every client
// scenario (its known failures listed in compliance/drivers/reference-client.known-failing.json),
// and a deliberately careless client, driven the same way, fails the scenarios it breaks.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runTestClientCommand } from "../../src/cli/test-client-command.js";
import { runClientSuite } from "../../src/compliance/client/runner.js";
import { failuresOf } from "../support/compliance.js";
import { nodeCommand } from "../support/serve-child.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const driver = [...nodeCommand("compliance/drivers/reference-client.ts"), "{url}"];

describe("client compliance: reference client", () => {
  // Each case starts the driver in its own process (about a second each): `make test` runs every
  // 1.0 JSON-RPC and gRPC case (36 of 118); `make test-variants` (A2A_CLIENT_FULL=1) all of them.
  const full = Boolean(process.env.A2A_CLIENT_FULL);
  it(`passes every scenario${full ? "" : " of 1.0 JSON-RPC and gRPC"}`, { timeout: 300_000 }, async () => {
    const report = await runClientSuite({
      command: driver,
      concurrency: 2,
      knownFailingFile: join(root, "compliance/drivers/reference-client.known-failing.json"),
      ...(full ? {} : { caseGlobs: ["v1_0/json-rpc/**", "*/grpc/**"] }),
    });
    const failed = failuresOf(report);
    expect(failed).toEqual([]);
    expect(report.summary.passed).toBeGreaterThanOrEqual(full ? 90 : 30);
    expect(report.staleKnownFailing).toEqual([]);
    // gRPC through the client's own transport (src/transport/grpc-client.ts), not skipped as unsupported.
    const grpc = report.results.filter((r) => r.id.includes("/grpc/"));
    expect(grpc.length).toBeGreaterThanOrEqual(6);
    expect(grpc.filter((r) => r.status !== "pass").map((r) => `${r.id}: ${r.status} ${r.reason ?? ""}`)).toEqual([]);
  });
});

describe("client compliance: a careless client fails", () => {
  // Speaks 1.0 JSON-RPC by hand: no A2A-Version header, a client-chosen taskId, `kind` in the message.
  const dir = mkdtempSync(join(tmpdir(), "a2a-careless-"));
  const careless = join(dir, "careless.mjs");
  writeFileSync(
    careless,
    `let s = ""; process.stdin.on("data", (d) => (s += d)); process.stdin.on("end", async () => {
  const url = process.argv[2];
  const card = await (await fetch(url + "/.well-known/agent-card.json")).json();
  const iface = card.supportedInterfaces[0].url;
  const body = { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { kind: "message", messageId: "m1", taskId: "mine", role: "ROLE_USER", parts: [{ text: JSON.parse(s).text }] } } };
  const r = await (await fetch(iface, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json();
  console.log(JSON.stringify({ ok: true, response: r.result }));
});`,
  );

  it("the command exits 1 and ends with the summary line; 0 for the reference client", { timeout: 60_000 }, async () => {
    const run = async (command: string[]) => {
      let stdout = "";
      const code = await runTestClientCommand(
        command,
        { case: ["v1_0/json-rpc/send/blocking-send-returns-task"] },
        { stdout: (s) => (stdout += s), stderr: () => undefined },
      );
      return { code, last: stdout.trimEnd().split("\n").pop() };
    };
    expect(await run([process.execPath, careless, "{url}"])).toEqual({ code: 1, last: "0 passed, 1 failed, 0 warnings, 0 skipped" });
    expect(await run(driver)).toEqual({ code: 0, last: "1 passed, 0 failed, 0 warnings, 0 skipped" });
    expect((await run(["node", "driver.js"])).code).toBe(2); // no {url}
  });

  it("is caught on the header, the invented taskId and kind", { timeout: 60_000 }, async () => {
    const report = await runClientSuite({
      command: [process.execPath, careless, "{url}"],
      caseGlobs: ["v1_0/json-rpc/send/blocking-send-returns-task"],
    });
    expect(report.summary.failed).toBe(1);
    const diffs = (report.results[0]?.steps ?? []).flatMap((s) => s.diffs.map((d) => d.path));
    expect(diffs).toEqual(expect.arrayContaining(["/headers/a2a-version", "/view/message/taskId", "/body/params/message/kind"]));
  });
});
