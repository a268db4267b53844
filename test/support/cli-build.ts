// The command the CLI tests spawn, compiled once per test run. `bin/a2a-toolkit.js` in a checkout
// loads src/ through tsx's loader hooks: every spawn resolves and transforms ~200 modules across
// the hooks thread (about 2.5 s to `listening` on a loaded 2-core machine). The tests run the same
// bin file as an installed package runs it instead: beside a dist/ of plain JavaScript (esbuild,
// the transform tsx applies, with the same tsconfig), where it starts in about half that time.
//
// The client-compliance drivers (compliance/drivers/*.ts, one process per case) are compiled with it.
//
// Layout: <root>/.cache/cli-<pid>/bin/a2a-toolkit.js (a copy) and .../dist/{src,generated,compliance}, one
// per run (two runs in one checkout never share or delete each other's), removed after the run.
// The copy finds no ../src/cli/main.ts, so it takes its dist/ branch; packageRoot() walks up to the
// checkout's package.json (compliance/, generated/*.json, spec/), and bare imports resolve in the
// checkout's node_modules, as they do for src/ run through tsx.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** The environment variable naming the compiled bin for the test files (`serve-child.ts`). */
export const CLI_BIN_ENV = "A2A_TEST_CLI_BIN";

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Compiles src/, generated/ and the client drivers into `dir`; returns the path of its bin. */
export async function buildCli(dir: string): Promise<string> {
  rmSync(dir, { recursive: true, force: true });
  const dist = join(dir, "dist");
  const sources = ["src", "generated", "compliance/drivers"].flatMap((d) =>
    files(join(root, d), (n) => n.endsWith(".ts") && !n.endsWith(".d.ts") && !n.endsWith(".test.ts")),
  );
  await build({
    entryPoints: sources,
    outbase: root,
    outdir: dist,
    bundle: false,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "inline",
    tsconfig: join(root, "tsconfig.json"),
    logLevel: "error",
  });
  // The generator's plain-JS validators are imported as they are (scripts/build.js copies them too).
  for (const f of files(join(root, "generated"), (n) => n.endsWith(".js"))) {
    const to = join(dist, relative(root, f));
    mkdirSync(join(to, ".."), { recursive: true });
    copyFileSync(f, to);
  }
  const bin = join(dir, "bin", "a2a-toolkit.js");
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(join(root, "bin", "a2a-toolkit.js"), bin);
  return bin;
}

/** vitest globalSetup: once before any test file; the workers inherit the variable. */
export default async function setup(): Promise<() => void> {
  const dir = join(root, ".cache", `cli-${process.pid}`);
  process.env[CLI_BIN_ENV] = await buildCli(dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
