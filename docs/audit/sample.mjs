// Draws the audit sample: node docs/audit/sample.mjs [seed] [nServer] [nClient] [out]
// Lists case files sorted, shuffles with a seeded PRNG (mulberry32, Fisher-Yates), takes the first N.
// Server population: every compliance/cases/**/*.json (ID: path without .json) plus, when the folder
// exists, every compliance/scenarios/<operation>/<scenario>.yaml counted once however many
// (version, binding) pairs it runs on (ID: "scenarios/<operation>/<scenario>"). Before scenarios
// existed (2026-12-04 audit, commit 37464d3) the list is the same as the first version of this script.
// Client population: every compliance/client-cases/**/*.json plus, when the folder exists, every
// compliance/client-scenarios/<operation>/<scenario>.yaml, each once (ID: "client-scenarios/<op>/<name>");
// without that folder (2026-12-05 audit, commit 907552d) the client list is the same as before.
// out defaults to docs/audit/<YYYY-MM-DD read from the seed>-sample.json.
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
const seed = Number(process.argv[2] ?? 20261204),
  nS = Number(process.argv[3] ?? 60),
  nC = Number(process.argv[4] ?? 20);
const s = String(seed);
const outPath = process.argv[5] ?? `docs/audit/${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}-sample.json`;
function walk(d, ext) {
  return readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    return statSync(p).isDirectory() ? walk(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}
function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function ids(dir, ext, prefix = "") {
  return walk(dir, ext)
    .map((p) => prefix + relative(dir, p).slice(0, -ext.length))
    .filter((id) => id.includes("/"));
}
function draw(list, n, rnd) {
  const ids = [...list].sort();
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return { population: ids.length, sample: ids.slice(0, n) };
}
const rnd = mulberry32(seed);
const scenarios = existsSync("compliance/scenarios") ? ids("compliance/scenarios", ".yaml", "scenarios/") : [];
const caseFiles = ids("compliance/cases", ".json");
const clientScenarios = existsSync("compliance/client-scenarios") ? ids("compliance/client-scenarios", ".yaml", "client-scenarios/") : [];
const clientCaseFiles = ids("compliance/client-cases", ".json");
const server = draw([...caseFiles, ...scenarios], nS, rnd),
  client = draw([...clientCaseFiles, ...clientScenarios], nC, rnd);
if (scenarios.length) Object.assign(server, { caseFiles: caseFiles.length, scenarios: scenarios.length });
if (clientScenarios.length) Object.assign(client, { caseFiles: clientCaseFiles.length, scenarios: clientScenarios.length });
const out = { seed, prng: "mulberry32, Fisher-Yates from the end; server list drawn first, then client list, same stream", server, client };
writeFileSync(outPath, JSON.stringify(out, null, 2) + "\n");
console.log(JSON.stringify(out, null, 2));
