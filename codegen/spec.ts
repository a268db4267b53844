// Spec pinning: every upstream file (schemas and the specification texts) is pinned by sha256 in
// spec/pins.json and materialised into spec/upstream/, never committed: copied from $A2A_SPEC_DIR
// (default ../shared/spec) when that directory holds any pinned file, otherwise downloaded from
// where each pin says it comes from (obtainSpec) and verified the same way.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import tar from "tar-stream";

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

// ---- Downloading the pinned files (no $A2A_SPEC_DIR)

/** Where a pinned file is downloaded from. */
export type PinSource = { kind: "git"; url: string } | { kind: "npm"; tarball: string; member: string };

export interface DownloadOptions {
  /** Replaces `https://raw.githubusercontent.com/<owner>/<repo>` of GitHub pins (env A2A_SPEC_BASE_URL). */
  baseUrl?: string;
  /** npm registry of the npm pins (env A2A_SPEC_NPM_REGISTRY, default https://registry.npmjs.org). */
  npmRegistry?: string;
  /** Per request, in ms (default 60 s). */
  timeoutMs?: number;
}

const GITHUB_BLOB = /^https:\/\/github\.com\/([^/]+\/[^/]+)\/blob\/([^/]+)\/(.+)$/;
const NPM_PAGE = /^https:\/\/www\.npmjs\.com\/package\/((?:@[^/]+\/)?[^/]+)\/v\/([^/ ]+) \((.+)\)$/;

/**
 * The download URL of a pin, derived from its `url`: a GitHub blob URL at the pin's tag becomes the
 * raw file at that tag; an npm page URL naming the file in parentheses becomes that member of the
 * package tarball (the registry's standard tarball path).
 */
export function pinSource(pin: Pin, opts: DownloadOptions = {}): PinSource {
  const git = GITHUB_BLOB.exec(pin.url);
  if (git && git[2] === pin.tag) {
    const base = (opts.baseUrl ?? `https://raw.githubusercontent.com/${git[1]}`).replace(/\/+$/, "");
    return { kind: "git", url: `${base}/${git[2]}/${git[3]}` };
  }
  const [, pkg = "", version, member] = NPM_PAGE.exec(pin.url) ?? [];
  if (version && pin.tag === `${pkg}@${version}`) {
    const registry = (opts.npmRegistry ?? "https://registry.npmjs.org").replace(/\/+$/, "");
    const unscoped = pkg.split("/").at(-1);
    return { kind: "npm", tarball: `${registry}/${pkg}/-/${unscoped}-${version}.tgz`, member: `package/${member}` };
  }
  throw new SpecPinError(
    `${pin.path}: cannot tell where to download it from: its url (${pin.url}) is neither ` +
      `https://github.com/<owner>/<repo>/blob/${pin.tag}/<path> nor https://www.npmjs.com/package/<name>/v/<version> (<path>) matching its tag ${pin.tag}.`,
  );
}

export function downloadOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DownloadOptions {
  return { baseUrl: env.A2A_SPEC_BASE_URL || undefined, npmRegistry: env.A2A_SPEC_NPM_REGISTRY || undefined };
}

async function download(url: string, timeoutMs: number): Promise<Buffer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`.trim());
  return Buffer.from(await res.arrayBuffer());
}

/** The regular files of a .tgz whose names are in `wanted`. */
async function tarMembers(tgz: Buffer, wanted: ReadonlySet<string>): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  const extract = tar.extract();
  await new Promise<void>((resolveDone, reject) => {
    extract.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (header.type === "file" && wanted.has(header.name)) found.set(header.name, Buffer.concat(chunks));
        next();
      });
      stream.resume();
    });
    extract.on("finish", resolveDone);
    extract.on("error", reject);
    extract.end(gunzipSync(tgz));
  });
  return found;
}

const offlineAdvice = (sourceDir: string) =>
  `${sourceDir} holds no spec files, so they were downloaded (A2A_SPEC_BASE_URL and A2A_SPEC_NPM_REGISTRY change from where). ` +
  `Offline, set A2A_SPEC_DIR to a directory holding the upstream files at the paths of spec/pins.json ` +
  `(v1.0/a2a.proto, v0.3/a2a.json, v0.3/a2a.proto, third_party/google/..., text/..., acts/...): \`make spec A2A_SPEC_DIR=/path/to/spec\`.`;

/**
 * Materialises every pinned file into `targetDir` from the network: files already there with the
 * pinned hash are kept; the others are downloaded (one request per file or npm tarball), verified
 * and written. Nothing unverified is written. Throws SpecPinError listing every file that could not
 * be obtained, with what to do. Returns the paths downloaded.
 */
export async function downloadSpec(targetDir: string, pins: Pins, sourceDir: string, opts: DownloadOptions = {}): Promise<string[]> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const problems: string[] = [];
  const obtained: string[] = [];
  const missing = pins.files.filter((pin) => {
    const file = join(targetDir, pin.path);
    return !existsSync(file) || sha256(readFileSync(file)) !== pin.sha256;
  });
  const accept = (pin: Pin, bytes: Buffer | undefined, from: string) => {
    if (!bytes) return void problems.push(`${pin.path}: not found in ${from}.`);
    const actual = sha256(bytes);
    if (actual !== pin.sha256)
      return void problems.push(`${pin.path}: sha256 mismatch in the download from ${from}: expected ${pin.sha256}, got ${actual}.`);
    const target = join(targetDir, pin.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
    obtained.push(pin.path);
  };
  const tarballs = new Map<string, { pin: Pin; member: string }[]>();
  for (const pin of missing) {
    const src = pinSource(pin, opts);
    if (src.kind === "npm") tarballs.set(src.tarball, [...(tarballs.get(src.tarball) ?? []), { pin, member: src.member }]);
    else
      await download(src.url, timeoutMs).then(
        (bytes) => accept(pin, bytes, src.url),
        (e: unknown) => void problems.push(`${pin.path}: download from ${src.url} failed: ${errorText(e)}.`),
      );
  }
  for (const [url, entries] of tarballs) {
    let members: Map<string, Buffer>;
    try {
      members = await tarMembers(await download(url, timeoutMs), new Set(entries.map((e) => e.member)));
    } catch (e) {
      for (const { pin } of entries) problems.push(`${pin.path}: download of ${url} failed: ${errorText(e)}.`);
      continue;
    }
    for (const { pin, member } of entries) accept(pin, members.get(member), `${url} (${member})`);
  }
  if (problems.length > 0) throw new SpecPinError([...problems, offlineAdvice(sourceDir)].join("\n"));
  return obtained;
}

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
}

/** True when `dir` holds at least one of the pinned files. */
export function holdsSpecFiles(dir: string, pins: Pins): boolean {
  return pins.files.some((pin) => existsSync(join(dir, pin.path)));
}

/**
 * What `make spec` does: copy and verify from `sourceDir` when it holds any pinned file (a partial
 * or altered directory is an error, as before), else download every file into `targetDir`.
 * Returns one line saying which happened.
 */
export async function obtainSpec(
  sourceDir = defaultSpecDir(),
  targetDir = upstreamDir,
  pins = readPins(),
  opts: DownloadOptions = downloadOptionsFromEnv(),
): Promise<string> {
  if (holdsSpecFiles(sourceDir, pins)) {
    materialiseSpec(sourceDir, targetDir, pins);
    return `copied from ${sourceDir}`;
  }
  const got = await downloadSpec(targetDir, pins, sourceDir, opts);
  return `${sourceDir} holds no spec files: downloaded ${got.length} file(s), ${pins.files.length - got.length} already in place`;
}
