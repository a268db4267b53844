// Every code block of README.md and docs/*.md is checked: ```ts blocks compile (test/readme-snippets/
// holds each as a module that `make typecheck` compiles, and this test fails when the documents and
// those files differ); ```sh command lines name Makefile targets and the CLI's own commands and
// options; ```yaml and ```json blocks parse. `make test-package` runs the README's blocks for real.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { codeBlocks, committedFiles, documents, shellCommands, snippetFiles } from "../readme-snippets/extract.js";

const blocks = [...documents()].flatMap(([doc, text]) => codeBlocks(doc, text));

// The CLI's commands and option flags, read from its sources (src/cli/): cheaper than building the
// program, and a flag of any command counts.
const cliSource = readdirSync("src/cli")
  .filter((f) => f.endsWith(".ts"))
  .map((f) => readFileSync(join("src/cli", f), "utf8"))
  .join("\n");
const cliCommands = new Set([...cliSource.matchAll(/\.command\("([a-z-]+)/g)].map((m) => m[1]!));
const cliFlags = new Set(
  [...cliSource.matchAll(/[oO]ption\(\s*"([^"]+)"/g)].flatMap((m) => [...m[1]!.matchAll(/--[a-z][a-z0-9-]*/g)].map((f) => f[0])),
);
const makeTargets = new Set([...readFileSync("Makefile", "utf8").matchAll(/^([a-z][a-z0-9-]*):/gm)].map((m) => m[1]!));

/** What is wrong with one command line of a sh block, or undefined. */
async function commandProblem(line: string): Promise<string | undefined> {
  const words = line.split(" ");
  const [first, second] = words;
  if (first === "make") return second === undefined || makeTargets.has(second) ? undefined : `no make target ${second}`;
  if (first === "npm" || first === "echo") return undefined;
  const cli = first === "npx" && second === "a2a-toolkit" ? words.slice(2) : first === "a2a-toolkit" ? words.slice(1) : undefined;
  if (!cli) return `no checker for "${first}" (add one to test/unit/readme-snippets.test.ts)`;
  const command = cli[0] && !cli[0].startsWith("-") ? cli[0] : "";
  if (command && !cliCommands.has(command)) return `a2a-toolkit has no command ${command}`;
  for (const opt of cli.join(" ").matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*)/g))
    if (!cliFlags.has(opt[1]!)) return `a2a-toolkit has no option ${opt[1]}`;
  return undefined;
}

describe("documentation code blocks", () => {
  it("every ```ts block is a module under test/readme-snippets/, as the documents have it (npx tsx test/readme-snippets/extract.ts)", () => {
    const fromDocs = snippetFiles();
    expect([...fromDocs.keys()].filter((f) => f.startsWith("readme-")).length).toBeGreaterThanOrEqual(2);
    expect(Object.fromEntries(committedFiles())).toEqual(Object.fromEntries(fromDocs));
  });

  it("every block is of a kind that is checked, or marked as output (text)", () => {
    expect(
      blocks.filter((b) => !["ts", "sh", "yaml", "json", "text"].includes(b.lang)).map((b) => `${b.doc}:${b.line} ${b.lang || "(none)"}`),
    ).toEqual([]);
  });

  it("every sh command line names a make target, or an a2a-toolkit command and options it has", async () => {
    const problems: string[] = [];
    for (const b of blocks.filter((x) => x.lang === "sh"))
      for (const line of shellCommands(b.code)) {
        const problem = await commandProblem(line);
        if (problem) problems.push(`${b.doc}:${b.line}: ${line}: ${problem}`);
      }
    expect(problems).toEqual([]);
  });

  it("a wrong command or option is caught", async () => {
    expect(await commandProblem("npx a2a-toolkit test http://x --no-such-option")).toMatch(/no option --no-such-option/);
    expect(await commandProblem("a2a-toolkit nosuch")).toMatch(/no command nosuch/);
    expect(await commandProblem("make nosuch")).toMatch(/no make target/);
  });

  it("the README opens for users: make run and make test first (as .ci/run runs them), then Install, test and serve before line 60", () => {
    const readme = documents().get("README.md")!;
    const first = codeBlocks("README.md", readme)[0]!;
    expect(shellCommands(first.code)).toEqual(["make run", "make test"]);
    const ci = readFileSync(".ci/run", "utf8").split("\n");
    const firstCommands = ci.filter((l) => l.startsWith("make ")).slice(0, 2);
    expect(firstCommands).toEqual(first.code.trimEnd().split("\n"));
    const lines = readme.split("\n");
    for (const heading of ["## Install", "## Test my agent", "## Serve my agent"]) {
      const at = lines.indexOf(heading) + 1;
      expect(at, heading).toBeGreaterThan(first.line);
      expect(at, heading).toBeLessThan(60);
    }
  });

  it("yaml and json blocks parse", () => {
    for (const b of blocks.filter((x) => x.lang === "yaml")) expect(() => parseYaml(b.code), `${b.doc}:${b.line}`).not.toThrow();
    for (const b of blocks.filter((x) => x.lang === "json"))
      expect(() => JSON.parse(b.code) as unknown, `${b.doc}:${b.line}`).not.toThrow();
  });
});
