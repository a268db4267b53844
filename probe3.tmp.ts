import { startSdkGrpcEchoTarget } from "./test/support/sdk-grpc-echo-target.js";
import { startProxy } from "./src/compliance/proxy.js";
import { runSuite } from "./src/compliance/suite.js";
import { GRPC_REWRITES } from "./src/compliance/grpc-rewrites.js";
console.error = () => {};
const faults = process.argv[2] ? [process.argv[2]] : GRPC_REWRITES.map((r) => r.name);
const base = new Map<string, string>();
for (const f of ["", ...faults]) {
  const t = await startSdkGrpcEchoTarget();
  const proxy = await startProxy({ target: t.url, grpcTarget: t.grpcAddress, faults: f ? [f] : [] });
  const report = await runSuite({ target: proxy.url, caseGlobs: ["**/grpc/**"], streamTimeoutMs: 1500, taskTimeoutMs: 2000, knownFailingFile: "compliance/known-failing/a2a-js-sdk-1.3.0-grpc-echo.json" });
  const changed = report.results.filter((r) => f && r.status !== base.get(r.id));
  if (!f) for (const r of report.results) base.set(r.id, r.status);
  console.log(f || "baseline", JSON.stringify(proxy.changes()), report.results.filter(r=>r.status!=="skip").length, "ran;", changed.length, "changed");
  for (const r of changed) console.log("   ", r.id, base.get(r.id), "->", r.status, (r.reason ?? "").slice(0, 160));
  await proxy.close(); await t.close();
}
