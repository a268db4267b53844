#!/usr/bin/env node
// In a checkout (src/ present) the TypeScript sources run through tsx's loader, so no build step is
// needed; an installed package has no src/ and runs the compiled dist/ on plain Node.
import { existsSync } from "node:fs";

const sources = new URL("../src/cli/main.ts", import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import("../dist/src/cli/main.js"));
}
process.exitCode = await main(process.argv.slice(2));
