// The judge stays independent of what it judges: nothing under src/compliance/ may import the
// reference server or client. Allowed: its own modules, generated/ validators, src/runtime,
// src/versioning/errors.ts, src/transport, Node built-ins and npm packages.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const DIR = join(ROOT, "src/compliance");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = join(dir, n);
    return statSync(f).isDirectory() ? sources(f) : n.endsWith(".ts") ? [f] : [];
  });
}

const ALLOWED = [/^src\/compliance\//, /^generated\/v(1_0|0_3)\//, /^src\/runtime\//, /^src\/versioning\/errors\.ts$/, /^src\/transport\//];

// One exception: a 0.3 client's driver may report its results in 0.3 JSON, which the suite converts
// with the toolkit's 0.3 translators (issue 19); only that module may import them. The requests the
// client sends are still judged on the raw wire.
const RESULTS_0_3 = "src/compliance/client/results.ts";

describe("src/compliance imports", () => {
  it("reach only the allowed layers", () => {
    const bad: string[] = [];
    for (const file of sources(DIR)) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/(?:from\s+|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
        const spec = m[1];
        if (!spec.startsWith(".")) continue; // node: built-ins and packages
        const target = relative(ROOT, resolve(dirname(file), spec))
          .split("\\")
          .join("/")
          .replace(/\.js$/, ".ts");
        if (!ALLOWED.some((re) => re.test(target)) && !(relative(ROOT, file) === RESULTS_0_3 && target === "src/versioning/codec.ts"))
          bad.push(`${relative(ROOT, file)} imports ${spec}`);
      }
    }
    expect(sources(DIR).length).toBeGreaterThan(10);
    expect(bad).toEqual([]);
  });
});
