// Draws the audit sample: node docs/audit/sample.mjs [seed] [nServer] [nClient]
// Lists case files sorted, shuffles with a seeded PRNG (mulberry32, Fisher-Yates), takes the first N.
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
const seed = Number(process.argv[2] ?? 20261204),
  nS = Number(process.argv[3] ?? 60),
  nC = Number(process.argv[4] ?? 20);
function walk(d) {
  return readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith(".json") ? [p] : [];
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
function draw(dir, n, rnd) {
  const ids = walk(dir)
    .map((p) => relative(dir, p).replace(/\.json$/, ""))
    .filter((id) => id.includes("/"))
    .sort();
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return { population: ids.length, sample: ids.slice(0, n) };
}
const rnd = mulberry32(seed);
const server = draw("compliance/cases", nS, rnd),
  client = draw("compliance/client-cases", nC, rnd);
const out = { seed, prng: "mulberry32, Fisher-Yates from the end; server list drawn first, then client list, same stream", server, client };
writeFileSync("docs/audit/2026-12-04-sample.json", JSON.stringify(out, null, 2) + "\n");
console.log(JSON.stringify(out, null, 2));
