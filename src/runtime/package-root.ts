// Where the package's own files are (compliance/, generated/*.json, package.json), found from a
// module's URL rather than the working directory: the same in a checkout (src/… run through tsx)
// and in an installed package (dist/src/…), whose directories sit one level deeper.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/** The directory holding the a2a-toolkit package.json: the nearest one above this module. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`a2a-toolkit: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (root = dir);
}

/** A path inside the package: packagePath("compliance", "cases"). */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
