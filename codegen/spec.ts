// Spec pinning: every upstream schema file is pinned by sha256 in spec/pins.json and
// materialised from $A2A_SPEC_DIR (default ../shared/spec) into spec/upstream/, never committed.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface Pin {
  path: string;
  version: string;
  tag: string;
  url: string;
  sha256: string;
}

export interface Pins {
  $comment?: string;
  files: Pin[];
}

export const projectRoot = resolve(dirname(new URL(import.meta.url).pathname), "..");
export const pinsFile = join(projectRoot, "spec", "pins.json");
export const upstreamDir = join(projectRoot, "spec", "upstream");

export function defaultSpecDir(): string {
  return resolve(process.env.A2A_SPEC_DIR ?? join(projectRoot, "..", "shared", "spec"));
}

export function sha256(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function readPins(file = pinsFile): Pins {
  return JSON.parse(readFileSync(file, "utf8")) as Pins;
}

export class SpecPinError extends Error {}

/** Checks every pinned file in `sourceDir`; returns the problems, one sentence each. */
export function verifySpecDir(sourceDir: string, pins: Pins): string[] {
  const problems: string[] = [];
  for (const pin of pins.files) {
    const file = join(sourceDir, pin.path);
    if (!existsSync(file)) {
      problems.push(
        `${pin.path}: missing from ${sourceDir} (expected sha256 ${pin.sha256}). ` +
          `Set A2A_SPEC_DIR to a directory holding the upstream files (${pin.url}).`,
      );
      continue;
    }
    const actual = sha256(readFileSync(file));
    if (actual !== pin.sha256) {
      problems.push(
        `${pin.path}: sha256 mismatch in ${sourceDir}: expected ${pin.sha256}, got ${actual}. ` +
          `Restore the file from ${pin.url}, or run \`make update-spec A2A_SPEC_DIR=${sourceDir}\` to adopt the new revision.`,
      );
    }
  }
  return problems;
}

/** Copies the pinned files from `sourceDir` into `targetDir` after verifying every hash. */
export function materialiseSpec(sourceDir = defaultSpecDir(), targetDir = upstreamDir, pins = readPins()): void {
  const problems = verifySpecDir(sourceDir, pins);
  if (problems.length > 0) throw new SpecPinError(problems.join("\n"));
  for (const pin of pins.files) {
    const target = join(targetDir, pin.path);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(sourceDir, pin.path), target);
  }
}

/**
 * Re-pins every file to the contents found in `sourceDir` (a new upstream revision). Returns new
 * pins and leaves `pins` and the pins file alone: write them with writePins() once generation from
 * the new files has succeeded, so a failed update leaves the old pins and generated/ consistent.
 */
export function repin(sourceDir: string, pins: Pins): { pins: Pins; changed: string[] } {
  const changed: string[] = [];
  const files = pins.files.map((pin) => {
    const path = join(sourceDir, pin.path);
    if (!existsSync(path)) throw new SpecPinError(`${pin.path}: missing from ${sourceDir}; cannot re-pin.`);
    const actual = sha256(readFileSync(path));
    if (actual === pin.sha256) return pin;
    changed.push(`${pin.path}: ${pin.sha256.slice(0, 12)}… → ${actual.slice(0, 12)}…`);
    return { ...pin, sha256: actual };
  });
  return { pins: { ...pins, files }, changed };
}

export function writePins(pins: Pins, file = pinsFile): void {
  writeFileSync(file, JSON.stringify(pins, null, 2) + "\n");
}

export function pinFor(pins: Pins, path: string): Pin {
  const pin = pins.files.find((p) => p.path === path);
  if (!pin) throw new SpecPinError(`spec/pins.json has no pin for ${path}`);
  return pin;
}
