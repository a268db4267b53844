// `serve --agent <file>`: the agent's module loaded whatever its extension (.ts, .mts, .cts, .js,
// .mjs) and whatever "type" its project declares.
//
// ES module scopes (.mts, .mjs, or .ts/.js under "type": "module") go through tsx's tsImport. In a
// CommonJS scope (`npm init -y` writes "type": "commonjs") tsx would turn the agent's imports into
// require() calls, and on Node 20 requiring an ES module such as a2a-toolkit/server through a loader
// hook fails ("Cannot require() ES Module ... in a cycle", "request for 'fastify' is not in cache").
// There the agent is bundled with esbuild into one ES module (its own files inlined, packages left
// as imports), written beside it for the moment of the import so its packages resolve from its
// project, and removed again.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Agent } from "../server/engine/agent.js";

function isAgent(x: unknown): x is Agent {
  return typeof x === "object" && x !== null && typeof (x as Agent).handleMessage === "function" && typeof (x as Agent).card === "object";
}

/** True when Node would load `file` as CommonJS: .cts/.cjs, or .ts/.js whose nearest package.json is not "type": "module". */
export function isCommonJsScope(file: string): boolean {
  const ext = extname(file);
  if (ext === ".mts" || ext === ".mjs") return false;
  if (ext === ".cts" || ext === ".cjs") return true;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, "utf8")) as { type?: unknown }).type !== "module";
      } catch {
        return true; // Node reads an unreadable package.json's scope as CommonJS too
      }
    }
    if (dirname(dir) === dir) return true;
  }
}

async function importCommonJsScope(file: string): Promise<Record<string, unknown>> {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [file],
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    sourcemap: "inline",
    logLevel: "silent",
    // CommonJS code in the bundle keeps a working require() for the packages it names.
    banner: {
      js: 'import { createRequire as __a2aCreateRequire } from "node:module"; const require = __a2aCreateRequire(import.meta.url);',
    },
  });
  const temp = join(dirname(file), `.${basename(file)}.a2a-toolkit-${process.pid}.mjs`);
  writeFileSync(temp, result.outputFiles[0]!.contents);
  try {
    return (await import(pathToFileURL(temp).href)) as Record<string, unknown>;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The first error line of a load failure, esbuild's located messages included. */
function why(e: unknown): string {
  const errors = (e as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors;
  const first = errors?.[0];
  if (first) return first.location ? `${first.location.file}:${first.location.line}: ${first.text}` : first.text;
  return ((e as Error).message ?? String(e)).split("\n")[0]!;
}

/** A module whose default export (or `agent` export) is an Agent or a function returning one. */
export async function loadAgentModule(spec: string): Promise<Agent> {
  const file = resolve(spec);
  if (!existsSync(file))
    throw new Error(`cannot load agent module ${spec}: no such file (give the path of a .ts, .mts, .cts, .js or .mjs file)`);
  let mod: Record<string, unknown>;
  try {
    if (isCommonJsScope(file)) mod = await importCommonJsScope(file);
    else {
      const { tsImport } = await import("tsx/esm/api");
      mod = (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
    }
  } catch (e) {
    throw new Error(`cannot load agent module ${spec}: ${why(e)} (check the path, and that the module and its imports load with node)`);
  }
  // A CommonJS module's exports arrive as the default export: module.exports = agent, or { agent }.
  const cjs = typeof mod.default === "object" && mod.default !== null ? (mod.default as Record<string, unknown>) : {};
  for (const candidate of [mod.default, mod.agent, mod.createAgent, cjs.default, cjs.agent, cjs.createAgent]) {
    const value = typeof candidate === "function" ? await (candidate as () => unknown)() : candidate;
    if (isAgent(value)) return value;
  }
  throw new Error(
    `${spec} does not export an agent: export default (or export const agent) an object with "card" and "handleMessage", or a function returning one`,
  );
}
