// `make test-package`: the packed tarball as a user gets it. `npm pack` (prepack builds dist/), then an
// empty CommonJS project and an empty ES module project each install it (`npm install --prefer-offline`:
// the npm cache, else the registry) and:
//   - type-check a file importing every entry point of package.json's exports, under nodenext and bundler;
//   - import every entry point on plain node (no TypeScript loader);
//   - run `npx a2a-toolkit --version`;
//   - serve the README's "Serve my agent" .ts agent with the README's command (on port 0);
//   - run `npx a2a-toolkit test <its url>`: exit 0, 0 failures, 0 warnings;
//   - (ES module project) run `npx a2a-toolkit test --only-acts` against the embedded server with
//     no spec directory anywhere (A2A_SPEC_DIR names one that does not exist): the corpus and the
//     upstream LICENSE come from the package; 103 server tests per binding, 0 failures.
// The tarball's size, file count and each install's time are printed. Skipped unless A2A_PACKAGE=1.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeBlocks, shellCommands } from "../readme-snippets/extract.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, unknown>;
  devDependencies: Record<string, string>;
};
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The README's blocks under one "## " heading. */
function section(heading: string) {
  const start = README.indexOf(`\n## ${heading}\n`);
  const end = README.indexOf("\n## ", start + 1);
  expect(start, `README section "${heading}"`).toBeGreaterThan(0);
  return codeBlocks("README.md", README.slice(start, end < 0 ? undefined : end));
}

const entryPoints = Object.keys(pkg.exports)
  .filter((k) => k !== "./package.json")
  .map((k) => `a2a-toolkit${k.slice(1)}`);

const MINUTE = 60_000;
let tmp: string;
let tarball: string;
const children: ChildProcess[] = [];

describe.skipIf(!process.env.A2A_PACKAGE)("the packed package", () => {
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), "a2a-package-"));
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", tmp], { cwd: ROOT, maxBuffer: 64 << 20 });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as {
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string }[];
    }[];
    tarball = join(tmp, packed!.filename);
    console.log(
      `tarball ${packed!.filename}: ${(packed!.size / 1024).toFixed(0)} KiB packed, ${(packed!.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${packed!.files.length} files`,
    );
    const shipped = packed!.files.map((f) => f.path);
    // Of spec/, only the materialised ACTS corpus and the upstream LICENSE (spec/pins.json) are carried.
    const carried = (p: string) => p.startsWith("spec/upstream/acts/") || p === "spec/upstream/LICENSE";
    expect(shipped.filter((p) => (/^(test|bench|codegen|src|examples|spec)\//.test(p) && !carried(p)) || p.endsWith(".test.js"))).toEqual(
      [],
    );
    expect(shipped).toContain("dist/src/cli/main.js");
    expect(shipped).toContain("spec/upstream/LICENSE");
    expect(shipped.filter((p) => /^spec\/upstream\/acts\/.+\.acts\.yaml$/.test(p)).length).toBeGreaterThanOrEqual(14);
  }, 5 * MINUTE);

  afterAll(async () => {
    for (const c of children)
      try {
        process.kill(-c.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    // Two installed projects are tens of thousands of files: removed without blocking, given time.
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, 5 * MINUTE);

  describe.each(["commonjs", "module"])("in an empty %s project", (type) => {
    let dir: string;

    it(
      "installs without an engine warning",
      async () => {
        dir = join(tmp, type);
        mkdirSync(dir);
        writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `try-${type}`, version: "1.0.0", private: true, type }, null, 2));
        // The README's install line, with this tarball; TypeScript and Node's types as the README says.
        const install = section("Install")
          .flatMap((b) => shellCommands(b.code))
          .find((l) => l.startsWith("npm install "));
        expect(install).toBeDefined();
        const started = Date.now();
        const { stderr } = await run(
          "npm",
          [
            "install",
            "--prefer-offline",
            "--no-audit",
            "--no-fund",
            tarball,
            `typescript@${pkg.devDependencies.typescript}`,
            `@types/node@${pkg.devDependencies["@types/node"]}`,
          ],
          { cwd: dir, maxBuffer: 64 << 20 },
        );
        console.log(`${type}: npm install of the tarball, typescript and @types/node took ${((Date.now() - started) / 1000).toFixed(1)} s`);
        expect(stderr).not.toMatch(/EBADENGINE/);
      },
      15 * MINUTE,
    );

    it.each([
      ["nodenext", { module: "nodenext", moduleResolution: "nodenext" }],
      ["node16", { module: "node16", moduleResolution: "node16" }],
      ["bundler", { module: "preserve", moduleResolution: "bundler" }],
    ])(
      "type-checks every entry point under %s",
      async (name, options) => {
        // node16 models a Node that cannot require() an ES module: a CommonJS project's .ts file cannot
        // import the package under it (nodenext can, TypeScript 5.8+), so there it is checked as .mts.
        const file = `entries-${name}.${name === "node16" && type === "commonjs" ? "mts" : "ts"}`;
        const lines = entryPoints.map((e, i) => `import * as m${i} from "${e}";`);
        lines.push(`export const all = [${entryPoints.map((_, i) => `m${i}`).join(", ")}];`);
        lines.push(`export const build: typeof m0.buildServer = m0.buildServer;`);
        writeFileSync(join(dir, file), `${lines.join("\n")}\n`);
        writeFileSync(
          join(dir, `tsconfig.${name}.json`),
          JSON.stringify({ compilerOptions: { ...options, target: "es2022", strict: true, noEmit: true, types: ["node"] }, files: [file] }),
        );
        const r = await run(join(dir, "node_modules/.bin/tsc"), ["-p", `tsconfig.${name}.json`], { cwd: dir }).catch(
          (e: { stdout: string }) => e,
        );
        expect(r.stdout).toBe("");
      },
      5 * MINUTE,
    );

    it(
      "imports every entry point on plain node, and npx a2a-toolkit --version",
      async () => {
        const script = entryPoints.map((e) => `await import("${e}");`).join(" ");
        await run(process.execPath, ["--input-type=module", "-e", script], { cwd: dir });
        const { stdout } = await run("npx", ["a2a-toolkit", "--version"], { cwd: dir });
        expect(stdout.trim()).toBe(pkg.version);
      },
      5 * MINUTE,
    );

    it(
      "serves the README's agent, which the suite then passes with 0 failures and 0 warnings",
      async () => {
        const blocks = section("Serve my agent");
        const agent = blocks.find((b) => b.lang === "ts")!;
        const name = /^\/\/ (\S+\.ts)$/m.exec(agent.code)![1]!;
        writeFileSync(join(dir, name), agent.code);
        const serveLine = blocks.flatMap((b) => (b.lang === "sh" ? shellCommands(b.code) : [])).find((l) => l.includes(" serve "))!;
        const args = serveLine.replace(/--port \d+/, "--port 0").split(" ");
        const child = spawn(args[0]!, args.slice(1), { cwd: dir, detached: true, stdio: ["ignore", "pipe", "pipe"] });
        children.push(child);
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.stderr.on("data", (d: Buffer) => (out += d.toString()));
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on("data", () => {
            const m = /listening on (http:\/\/\S+)/.exec(out);
            if (m) resolve(m[1]!);
          });
          child.on("exit", (code) => reject(new Error(`serve exited (${code}): ${out}`)));
        });
        const report = join(dir, "report.json");
        const test = await run("npx", ["a2a-toolkit", "test", url, "--report", `json=${report}`], { cwd: dir, maxBuffer: 64 << 20 }).catch(
          (e: { code: number; stdout: string }) => e,
        );
        // No report: the run never got to judge (say what it printed).
        expect(existsSync(report), JSON.stringify(test).slice(0, 4000)).toBe(true);
        const summary = (JSON.parse(readFileSync(report, "utf8")) as { summary: { passed: number; failed: number; warnings: number } })
          .summary;
        console.log(`${type}: ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warnings`);
        expect({ exit: "code" in test ? test.code : 0, failed: summary.failed, warnings: summary.warnings }).toEqual({
          exit: 0,
          failed: 0,
          warnings: 0,
        });
        expect(summary.passed).toBeGreaterThan(100);
      },
      5 * MINUTE,
    );

    it.runIf(type === "module")(
      "serves the inspector's page from the installed package: `a2a-toolkit inspect`",
      async () => {
        const child = spawn("npx", ["a2a-toolkit", "inspect", "--port", "0"], {
          cwd: dir,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        });
        children.push(child);
        let out = "";
        const url = await new Promise<string>((resolve, reject) => {
          const seen = (d: Buffer) => {
            out += d.toString();
            const m = /open (http:\/\/\S+)/.exec(out);
            if (m) resolve(m[1]!);
          };
          child.stdout.on("data", seen);
          child.stderr.on("data", seen);
          child.on("exit", (code) => reject(new Error(`inspect exited (${code}): ${out}`)));
        });
        for (const [path, type] of [
          ["", "text/html"],
          ["app.js", "text/javascript"],
          ["app.css", "text/css"],
        ]) {
          const res = await fetch(`${url}${path}`);
          expect({ path, status: res.status, type: res.headers.get("content-type")?.split(";")[0] }).toEqual({ path, status: 200, type });
        }
      },
      5 * MINUTE,
    );

    it.runIf(type === "module")(
      "runs the pinned ACTS corpus offline from the package: no spec directory, 0 failures",
      async () => {
        const installed = join(dir, "node_modules", "a2a-toolkit");
        expect(existsSync(join(installed, "spec", "upstream", "LICENSE"))).toBe(true);
        const reports = join(dir, "acts-reports");
        const env = { ...process.env, A2A_SPEC_DIR: join(dir, "no-such-spec-dir") };
        const knownFailing = join(installed, "compliance", "known-failing", "reference-server-acts.json");
        const started = Date.now();
        const test = await run(
          "npx",
          [
            "a2a-toolkit",
            "test",
            "--only-acts",
            "--known-failing",
            knownFailing,
            "--report",
            `acts=${reports},json=${join(reports, "all.json")}`,
          ],
          { cwd: dir, env, maxBuffer: 64 << 20 },
        ).catch((e: { code: number; stdout: string; stderr: string }) => e);
        console.log(`${type}: test --only-acts from the package took ${((Date.now() - started) / 1000).toFixed(1)} s`);
        expect(existsSync(join(reports, "all.json")), JSON.stringify(test).slice(0, 4000)).toBe(true);
        const all = JSON.parse(readFileSync(join(reports, "all.json"), "utf8")) as {
          summary: { failed: number };
          results: { id: string }[];
        };
        expect({ exit: "code" in test ? test.code : 0, failed: all.summary.failed }).toEqual({ exit: 0, failed: 0 });
        for (const binding of ["jsonrpc", "rest", "grpc"]) {
          const doc = JSON.parse(readFileSync(join(reports, `1.0-${binding}.json`), "utf8")) as { summary: { total: number } };
          expect(doc.summary.total, binding).toBe(103);
        }
      },
      10 * MINUTE,
    );
  });
});
