// `make spec` for a user without ../shared/spec: with an A2A_SPEC_DIR that holds no spec file, every
// pinned file is downloaded (A2A files: raw files of the upstream repository at the pinned tag; the
// googleapis protos: members of the google-proto-files@5.0.3 npm tarball) and verified. The network
// is a loopback server laid out like raw.githubusercontent.com/a2aproject/A2A and the npm registry,
// filled from ../shared/spec; the paths below are the upstream ones of ../shared/spec/SOURCES.md.
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../codegen/main.js";
import { defaultSpecDir, pinSource, readPins, sha256 } from "../../codegen/spec.js";
import { listenHttp } from "../support/servers.js";

const shared = defaultSpecDir();
const pins = readPins();
const pinOf = (path: string) => pins.files.find((p) => p.path === path)!;

/** Upstream path at its tag → file in ../shared/spec (SOURCES.md). */
const A2A_FILES: Record<string, string> = {
  "v1.0.1/specification/a2a.proto": "v1.0/a2a.proto",
  "v0.3.0/specification/json/a2a.json": "v0.3/a2a.json",
  "v0.3.0/specification/grpc/a2a.proto": "v0.3/a2a.proto",
  "v0.3.0/docs/specification.md": "text/specification-v0.3.0.md",
  "v1.0.0/docs/specification.md": "text/specification-v1.0.0.md",
  "v1.0.1/docs/specification.md": "text/specification-v1.0.1.md",
  "v1.0.1/LICENSE": "LICENSE",
};
/** The ACTS draft (acts/), pinned at a commit of the same repository: its upstream path is in the pin's URL. */
const ACTS_FILES: Record<string, string> = Object.fromEntries(
  pins.files.filter((p) => p.path.startsWith("acts/")).map((p) => [/\/blob\/(.+)$/.exec(p.url)![1]!, p.path]),
);
const TARBALL = "/npm/google-proto-files/-/google-proto-files-5.0.3.tgz";

/** The npm tarball's layout: every file under `package/`, the protos at `package/google/...`. */
async function protoTarball(): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name: "package/package.json" }, '{"name":"google-proto-files","version":"5.0.3"}');
  const root = join(shared, "third_party");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".proto")) pack.entry({ name: `package/${relative(root, p)}` }, readFileSync(p));
    }
  };
  walk(root);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

let server: Server;
let origin: string;
let root: string;
let n = 0;
const requests: string[] = [];
/** Replaces what the server sends for a path (tests of a corrupted download). */
const overrides = new Map<string, Buffer>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "a2a-spec-download-"));
  const routes = new Map<string, Buffer>(Object.entries(A2A_FILES).map(([url, file]) => [`/a2a/${url}`, readFileSync(join(shared, file))]));
  for (const [url, file] of Object.entries(ACTS_FILES)) routes.set(`/a2a/${url}`, readFileSync(join(shared, file)));
  routes.set(TARBALL, await protoTarball());
  server = createServer((req, res) => {
    const path = req.url ?? "";
    requests.push(path);
    const body = overrides.get(path) ?? routes.get(path);
    res.writeHead(body ? 200 : 404).end(body ?? "not found");
  });
  origin = await listenHttp(server);
});
afterAll(async () => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
  overrides.clear();
  requests.length = 0;
});

function useMirror(base = origin) {
  vi.stubEnv("A2A_SPEC_BASE_URL", `${base}/a2a`);
  vi.stubEnv("A2A_SPEC_NPM_REGISTRY", `${base}/npm`);
}

/** `make spec` with an empty A2A_SPEC_DIR: the recipe's command, with its output captured. */
async function makeSpec(upstream: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const empty = join(root, `empty-${++n}`);
  mkdirSync(empty);
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  const e = vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  try {
    const code = await main(["--materialise-only", "--spec-dir", empty, "--upstream", upstream]);
    return { code, stdout: out.join("\n"), stderr: err.join("\n") };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe("make spec without ../shared/spec", () => {
  it("derives the real download URLs from spec/pins.json", () => {
    for (const pin of pins.files) expect(() => pinSource(pin), pin.path).not.toThrow();
    expect(pinSource(pinOf("v0.3/a2a.json"))).toEqual({
      kind: "git",
      url: "https://raw.githubusercontent.com/a2aproject/A2A/v0.3.0/specification/json/a2a.json",
    });
    // the tarball URL is what `npm view google-proto-files@5.0.3 dist.tarball` prints
    expect(pinSource(pinOf("third_party/google/api/http.proto"))).toEqual({
      kind: "npm",
      tarball: "https://registry.npmjs.org/google-proto-files/-/google-proto-files-5.0.3.tgz",
      member: "package/google/api/http.proto",
    });
  });

  it("downloads and verifies every pinned file, and downloads nothing once they are in place", async () => {
    useMirror();
    const up = join(root, "up-ok");
    const first = await makeSpec(up);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`downloaded ${pins.files.length} file(s)`);
    for (const pin of pins.files) expect(sha256(readFileSync(join(up, pin.path))), pin.path).toBe(pin.sha256);
    // one request per A2A file (ACTS included) and one for the whole npm tarball
    const a2aFiles = [...Object.keys(A2A_FILES), ...Object.keys(ACTS_FILES)];
    expect(requests.sort()).toEqual([...a2aFiles.map((u) => `/a2a/${u}`), TARBALL].sort());

    requests.length = 0;
    const again = await makeSpec(up);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`downloaded 0 file(s), ${pins.files.length} already in place`);
    expect(requests).toEqual([]);
  });

  it("a corrupted download is refused with both hashes, not written, and the offline way out is named", async () => {
    useMirror();
    const bad = Buffer.from('{"definitions": {}}\n');
    overrides.set("/a2a/v0.3.0/specification/json/a2a.json", bad);
    const up = join(root, "up-bad");
    const r = await makeSpec(up);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `v0.3/a2a.json: sha256 mismatch in the download from ${origin}/a2a/v0.3.0/specification/json/a2a.json: ` +
        `expected ${pinOf("v0.3/a2a.json").sha256}, got ${sha256(bad)}.`,
    );
    expect(r.stderr).toContain("Offline, set A2A_SPEC_DIR");
    expect(r.stderr).toContain("make spec A2A_SPEC_DIR=/path/to/spec");
    expect(existsSync(join(up, "v0.3/a2a.json"))).toBe(false);
    expect(sha256(readFileSync(join(up, "v1.0/a2a.proto")))).toBe(pinOf("v1.0/a2a.proto").sha256);
  });

  it("a server that is down: every file is named with the URL that failed, and what to do", async () => {
    const down = createServer();
    down.listen(0, "127.0.0.1");
    await once(down, "listening");
    const port = (down.address() as AddressInfo).port;
    down.close();
    await once(down, "close");
    useMirror(`http://127.0.0.1:${port}`);
    const up = join(root, "up-down");
    const r = await makeSpec(up);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`v1.0/a2a.proto: download from http://127.0.0.1:${port}/a2a/v1.0.1/specification/a2a.proto failed`);
    expect(r.stderr).toContain(`third_party/google/api/http.proto: download of http://127.0.0.1:${port}${TARBALL} failed`);
    for (const pin of pins.files) expect(r.stderr).toContain(`${pin.path}: download`);
    expect(r.stderr).toContain("ECONNREFUSED");
    expect(r.stderr).toContain("Offline, set A2A_SPEC_DIR");
    expect(existsSync(up)).toBe(false);
  });

  it("a missing upstream file (HTTP 404) is reported with its status", async () => {
    useMirror(`${origin}/elsewhere`);
    const r = await makeSpec(join(root, "up-404"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `text/specification-v1.0.1.md: download from ${origin}/elsewhere/a2a/v1.0.1/docs/specification.md failed: HTTP 404`,
    );
  });
});
