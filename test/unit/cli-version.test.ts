import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

describe("program-level --version", () => {
  afterEach(() => vi.restoreAllMocks());

  it("prints the package version and exits 0", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    expect(await main(["--version"])).toBe(0);
    expect(out.mock.calls.map((c) => String(c[0])).join("")).toBe(`${pkg.version}\n`);
  });

  it("leaves `test --version <v>` to the test command (protocol version)", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    // An unknown protocol version is rejected by the test command, not answered with the program version.
    const code = await main(["test", "--version", "9.9", "http://127.0.0.1:1"]);
    expect(code).toBe(2);
    expect(out.mock.calls.map((c) => String(c[0])).join("")).not.toContain(pkg.version);
    expect(err.mock.calls.map((c) => String(c[0])).join("")).toMatch(/9\.9/);
  });
});
