import { startSdkGrpcEchoTarget } from "./test/support/sdk-grpc-echo-target.js";
import { runSuite } from "./src/compliance/suite.js";
const t = await startSdkGrpcEchoTarget();
console.error = () => {};
const report = await runSuite({ target: t.url, caseGlobs: [process.argv[2] ?? "**/grpc/**"], streamTimeoutMs: 3000, taskTimeoutMs: 3000 });
const by: Record<string, number> = {};
for (const r of report.results) { by[r.status] = (by[r.status] ?? 0) + 1; if (r.status !== "pass" && !(r.status === "skip" && /needs scripted/.test(r.reason ?? ""))) console.log(r.id, r.status, r.reason?.slice(0, 400)); if (process.argv[3]) for (const s of r.steps) console.log(JSON.stringify({n:s.name, actual: s.actual, diffs: s.diffs}).slice(0,2000)); }
console.log(by);
await t.close();
