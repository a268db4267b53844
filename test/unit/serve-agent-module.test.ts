// `serve --agent <file>` in CommonJS and ES module projects (src/cli/agent-module.ts): TypeScript and
// JavaScript agents load whatever "type" the project declares, and a broken one gets one line.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { isCommonJsScope, loadAgentModule } from "../../src/cli/agent-module.js";

// Inside the checkout (tmp/ is ignored by git), so the agents resolve the checkout's packages.
mkdirSync(fileURLToPath(new URL("../../tmp/", import.meta.url)), { recursive: true });
const root = mkdtempSync(fileURLToPath(new URL("../../tmp/agent-module-", import.meta.url)));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function project(type: "commonjs" | "module", files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, `${type}-`));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

// canonicalize is an ES-only package (its exports have no "require"): what a2a-toolkit/server is to
// a user's agent. tsx in a CommonJS scope would require() it and fail.
const AGENT_TS = `import canonicalize from "canonicalize";
import { NAME } from "./name";
const card: { name: string; description: string; version: string } = { name: NAME + canonicalize({ b: 1, a: 2 }), description: "d", version: "1" };
export default { card, handleMessage: (m: unknown) => ({ kind: "reply", parts: [String(m)] }) };
`;

describe("serve --agent module loading", () => {
  it("a .ts agent with ES imports in a CommonJS project (npm init -y) loads, and leaves no file behind", async () => {
    const dir = project("commonjs", { "agent.ts": AGENT_TS, "name.ts": 'export const NAME: string = "cjs-ts";\n' });
    expect(isCommonJsScope(join(dir, "agent.ts"))).toBe(true);
    expect((await loadAgentModule(join(dir, "agent.ts"))).card.name).toBe('cjs-ts{"a":2,"b":1}');
    expect(readdirSync(dir).sort()).toEqual(["agent.ts", "name.ts", "package.json"]);
  });

  it("module.exports = { agent } in a CommonJS .js file, and a .ts agent in an ES module project", async () => {
    const cjs = project("commonjs", {
      "agent.js": 'module.exports = { agent: { card: { name: "cjs-js" }, handleMessage() { return { kind: "reply", parts: [] }; } } };\n',
    });
    expect((await loadAgentModule(join(cjs, "agent.js"))).card.name).toBe("cjs-js");
    const esm = project("module", { "agent.ts": AGENT_TS, "name.ts": 'export const NAME: string = "esm-ts";\n' });
    expect(isCommonJsScope(join(esm, "agent.ts"))).toBe(false);
    expect((await loadAgentModule(join(esm, "agent.ts"))).card.name).toBe('esm-ts{"a":2,"b":1}');
  });

  it("a module that does not load, or exports no agent, is one line saying why", async () => {
    const dir = project("commonjs", { "broken.cts": "export default {\n", "empty.ts": "export const x = 1;\n" });
    const broken = await loadAgentModule(join(dir, "broken.cts")).catch((e: Error) => e.message);
    expect(broken).toMatch(/^cannot load agent module .*broken\.cts: .*broken\.cts:\d+: .+\(check the path/);
    expect(broken).not.toContain("\n");
    await expect(loadAgentModule(join(dir, "empty.ts"))).rejects.toThrow(/does not export an agent: export default/);
    await expect(loadAgentModule(join(dir, "missing.ts"))).rejects.toThrow(/no such file/);
  });
});
