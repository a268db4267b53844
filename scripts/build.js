// `npm run build` (and `prepack`): compiles src/ and generated/ into dist/ (tsconfig.build.json), then
// copies what tsc does not emit: the generator's plain-JS validators and their declarations, the
// inspector's page (plain files, src/inspector/page/, served from beside its server module), and
// checks that the materialised files the package carries are there (below).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
// The package carries the pinned ACTS corpus and the upstream LICENSE (spec/pins.json, materialised
// by `make spec` into spec/upstream/, never committed), so that an installed toolkit runs
// `a2a-toolkit test --acts` offline. Packing without them, or with a file that is not the pinned
// one, would ship a toolkit whose --acts fails: stop here instead.
const pins = JSON.parse(readFileSync(join(root, "spec", "pins.json"), "utf8")).files.filter(
  (p) => p.path.startsWith("acts/") || p.path === "LICENSE",
);
const wrong = pins.filter((p) => {
  const file = join(root, "spec", "upstream", p.path);
  return !existsSync(file) || createHash("sha256").update(readFileSync(file)).digest("hex") !== p.sha256;
});
if (wrong.length) {
  console.error(
    `build: spec/upstream/ lacks the pinned ${wrong.map((p) => p.path).join(", ")}: run \`make spec\` (A2A_SPEC_DIR, else download) first`,
  );
  process.exit(1);
}

rmSync(join(root, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
});
for (const version of ["v1_0", "v0_3"]) {
  const from = join(root, "generated", version);
  for (const f of readdirSync(from).filter((n) => n.endsWith(".js") || n.endsWith(".d.ts")))
    copyFileSync(join(from, f), join(root, "dist", "generated", version, f));
}
// The inspector's page is plain HTML, CSS and JavaScript (no build step): it ships beside the
// compiled server module that serves it (src/inspector/server.ts pageDir).
mkdirSync(join(root, "dist", "src", "inspector", "page"), { recursive: true });
for (const f of readdirSync(join(root, "src", "inspector", "page")))
  copyFileSync(join(root, "src", "inspector", "page", f), join(root, "dist", "src", "inspector", "page", f));
