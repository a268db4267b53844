// `npm run build` (and `prepack`): compiles src/ and generated/ into dist/ (tsconfig.build.json), then
// copies what tsc does not emit: the generator's plain-JS validators and their declarations.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
rmSync(join(root, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
});
for (const version of ["v1_0", "v0_3"]) {
  const from = join(root, "generated", version);
  for (const f of readdirSync(from).filter((n) => n.endsWith(".js") || n.endsWith(".d.ts")))
    copyFileSync(join(from, f), join(root, "dist", "generated", version, f));
}
