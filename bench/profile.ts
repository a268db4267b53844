// Where a process's CPU time went, from a V8 CPU profile (`node --cpu-prof`, or bench/grpc.ts
// --cpu-prof <dir>): self time per bucket (our code by folder, each library, node internals,
// garbage collection) and the heaviest functions, each as a share of the time not idle. Shares
// survive a loaded machine far better than absolute times do.
//
//   npx tsx bench/profile.ts <file.cpuprofile> [--top 25]
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
const ti = args.indexOf("--top");
const TOP = ti >= 0 ? Number(args[ti + 1]) : 25;
if (!file) {
  process.stderr.write("usage: npx tsx bench/profile.ts <file.cpuprofile> [--top 25]\n");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

/** The bucket a function's self time counts in. */
function bucket(n: Node): string {
  const { functionName, url } = n.callFrame;
  if (!url) {
    if (functionName === "(garbage collector)") return "V8 garbage collection";
    if (functionName === "(idle)") return "idle";
    if (functionName === "(program)") return "(program: V8 and native, unattributed)";
    return `native: ${functionName || "(anonymous)"}`;
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  // node:internal/http2/core → "node: http2"; node:events → "node: events".
  if (url.startsWith("node:")) {
    const parts = url.slice(5).split("/");
    return `node: ${parts[0] === "internal" && parts.length > 2 ? parts[1] : parts[0] === "internal" ? (parts[1] ?? "internal").replace(/\.js$/, "") : parts[0]}`;
  }
  const ours = /\/((?:src|generated|bench)\/.*)$/.exec(url);
  if (ours) return ours[1]!;
  return url;
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  self.set(id, (self.get(id) ?? 0) + dt);
  total += dt;
});
const sum = (key: (n: Node) => string) => {
  const m = new Map<string, number>();
  for (const [id, t] of self) {
    const k = key(byId.get(id)!);
    m.set(k, (m.get(k) ?? 0) + t);
  }
  return [...m].sort((a, b) => b[1] - a[1]);
};
const busy = total - (sum(bucket).find(([k]) => k === "idle")?.[1] ?? 0);
// Shares of the time the process was not idle: what a call costs, whatever the load around it.
const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;
const out = [
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s not idle; shares of the time not idle`,
  "",
  "self time by bucket:",
  ...sum(bucket)
    .filter(([k, t]) => k !== "idle" && t / busy >= 0.001)
    .map(([k, t]) => `${pct(t)}  ${k}`),
  "",
  `heaviest functions (self time):`,
  ...sum((n) => `${n.callFrame.functionName || "(anonymous)"} ${bucket(n)}:${n.callFrame.lineNumber + 1}`)
    .filter(([k]) => !k.startsWith("(idle)"))
    .slice(0, TOP)
    .map(([k, t]) => `${pct(t)}  ${k}`),
];
process.stdout.write(out.join("\n") + "\n");
