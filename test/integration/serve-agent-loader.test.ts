// `serve --agent` loads a TypeScript agent from a default (CommonJS) npm project, and a module
// that fails to load gets one clear line instead of a stack trace.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { spawnCli } from "../support/serve-child.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-agent-loader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = pathToFileURL(join(import.meta.dirname, "../../src/server/fixture/fixture-agent.ts")).href;
writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "cjs-project", type: "commonjs" }));
writeFileSync(
  join(dir, "my-agent.ts"),
  `import { createFixtureAgent } from ${JSON.stringify(fixture)};\nexport const agent = createFixtureAgent({});\n`,
);
writeFileSync(join(dir, "broken.ts"), `import "./does-not-exist.js";\nexport default {};\n`);

describe("serve --agent", () => {
  it("serves a .ts agent from a CommonJS project; a broken module exits with one line", async () => {
    const good = spawnCli(["serve", "--port", "0", "--host", "127.0.0.1", "--agent", join(dir, "my-agent.ts")], { cwd: dir });
    const bad = spawnCli(["serve", "--port", "0", "--host", "127.0.0.1", "--agent", join(dir, "broken.ts")], { cwd: dir });
    try {
      const url = await good.url;
      const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { name: string };
      expect(card.name).toBe("a2a-toolkit fixture agent");
      const code = await new Promise<number | null>((ok) =>
        bad.child.exitCode !== null ? ok(bad.child.exitCode) : bad.child.once("exit", (c) => ok(c)),
      );
      expect(code).not.toBe(0);
      const lines = bad.stderr().trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/cannot load agent module .*broken\.ts: .*does-not-exist/);
    } finally {
      good.child.kill("SIGKILL");
      bad.child.kill("SIGKILL");
    }
  }, 60_000);
});
