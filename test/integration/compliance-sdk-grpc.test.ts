// The gRPC cases against the official @a2a-js/sdk 1.3.0 gRPC services (1.0 grpcService and 0.3
// legacyGrpcService on @grpc/grpc-js) around the echo executor (test/support/sdk-grpc-echo-target.ts):
// a server nobody here wrote. Every case that applies to an echo agent runs on both GRPC
// interfaces the card declares; each deviation found is listed, with its sentence, in the
// target's known-failing file, so a run is green and a fixed deviation shows up as stale.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { consoleReport, type Report } from "../../src/compliance/report.js";
import { runSuite } from "../../src/compliance/suite.js";
import { main } from "../../src/cli/main.js";
import { expectSkipsFor, failuresOf, interfacesOf } from "../support/compliance.js";
import { startSdkGrpcEchoTarget, type GrpcEchoTarget } from "../support/sdk-grpc-echo-target.js";

const KNOWN_FAILING = fileURLToPath(new URL("../../compliance/known-failing/a2a-js-sdk-1.3.0-grpc-echo.json", import.meta.url));
const ECHO_SKIPS =
  /^(needs scripted behaviour \(|binding not declared: |capability (absent|present): |the card does not declare what the case checks: )/;

let target: GrpcEchoTarget;
let report: Report;

beforeAll(async () => {
  vi.spyOn(console, "error").mockImplementation(() => undefined); // the SDK logs every error it answers with
  target = await startSdkGrpcEchoTarget();
  report = await runSuite({ target: target.url, knownFailingFile: KNOWN_FAILING, streamTimeoutMs: 5_000, taskTimeoutMs: 5_000 });
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await target?.close();
});

describe("gRPC cases against the official SDK's gRPC services around an echo executor", () => {
  it("finds both GRPC interfaces (host:port) and runs at least 20 gRPC cases on each", () => {
    expect(interfacesOf(report)).toEqual(["1.0 grpc", "0.3 grpc"]);
    expect(report.discovery.interfaces.every((i) => i.url === target.grpcAddress)).toBe(true);
    for (const v of ["1.0", "0.3"]) {
      const ran = report.results.filter((r) => r.version === v && r.binding === "grpc" && r.status !== "skip");
      expect(ran.length, v).toBeGreaterThanOrEqual(20);
    }
  });

  it("only the listed deviations fail, and no entry is stale", () => {
    const text = consoleReport(report);
    expect(report.staleKnownFailing, text).toEqual([]);
    expect(failuresOf(report), text).toEqual([]);
    expectSkipsFor(report, ECHO_SKIPS);
    expect(report.results.filter((r) => r.status === "known-failing").map((r) => r.id)).toEqual([
      "v0_3/grpc/send-message/unsupported-part-media-type-is-refused",
      "v1_0/grpc/send-message/unsupported-part-media-type-is-refused",
    ]);
  });

  it("the errors were judged on status code and ErrorInfo, the 1.0.1 code where the texts differ", () => {
    const step = report.results
      .find((r) => r.id === "v1_0/grpc/streaming/subscribe-to-ended-task")
      ?.steps.find((s) => s.actual?.grpc?.status !== "OK" && s.actual?.grpc);
    expect(step?.actual?.grpc).toMatchObject({ status: "FAILED_PRECONDITION", errorInfo: { reason: "UNSUPPORTED_OPERATION" } });
    expect(step?.variants).toEqual({ "/grpc/status": "1.0.1" });
  });

  it(
    "a2a-toolkit test --binding grpc judges the GRPC interface; bad --binding and a gRPC fault without --grpc-target are usage errors",
    { timeout: 30_000 },
    async () => {
      const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      try {
        const code = await main(["test", target.url, "--binding", "grpc", "--version", "1.0", "--case", "v1_0/*/get-task/*"]);
        const printed = out.mock.calls.map((c) => String(c[0])).join("");
        expect(code, printed).toBe(0);
        expect(printed).toContain("interface 1.0 GRPC 127.0.0.1:");
        expect(printed.trimEnd().split("\n").pop()).toMatch(
          /^[1-9]\d* passed, 0 failed, 0 warnings, \d+ skipped(, \d+ inconclusive)?; \d+ messages? sent$/,
        );
        expect(await main(["test", target.url, "--binding", "soap"])).toBe(2);
        // A gRPC fault needs the agent's gRPC address.
        expect(await main(["proxy", "--target", target.url, "--fault", "grpc-status-missing"])).toBe(2);
        expect(err.mock.calls.map((c) => String(c[0])).join("")).toMatch(/gRPC faults need --grpc-target/);
      } finally {
        out.mockRestore();
        err.mockRestore();
      }
    },
  );
});
