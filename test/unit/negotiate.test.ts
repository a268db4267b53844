import { describe, expect, it } from "vitest";
import { extensionsHeader, negotiate, normalizeVersion, readExtensions, requestedVersion } from "../../src/versioning/negotiate.js";

describe("version negotiation (A2A 1.0 §3.6)", () => {
  it("reads the A2A-Version header, case-insensitively", () => {
    expect(negotiate({ "a2a-version": "1.0" }, undefined)).toEqual({ ok: true, version: "1.0" });
    expect(negotiate({ "A2A-Version": "0.3" }, undefined)).toEqual({ ok: true, version: "0.3" });
  });

  it("falls back to the A2A-Version query parameter when there is no header", () => {
    expect(negotiate({}, new URLSearchParams("A2A-Version=1.0"))).toEqual({ ok: true, version: "1.0" });
  });

  it("prefers the header over the query parameter", () => {
    expect(requestedVersion({ "A2A-Version": "0.3" }, new URLSearchParams("A2A-Version=1.0"))).toBe("0.3");
  });

  it("treats an absent or empty version as 0.3", () => {
    expect(negotiate({}, undefined)).toEqual({ ok: true, version: "0.3" });
    expect(negotiate({ "A2A-Version": "" }, undefined)).toEqual({ ok: true, version: "0.3" });
    expect(negotiate({ "A2A-Version": "  " }, new URLSearchParams(""))).toEqual({ ok: true, version: "0.3" });
  });

  it("ignores the patch level", () => {
    expect(normalizeVersion("1.0.3")).toBe("1.0");
    expect(normalizeVersion("0.3.0")).toBe("0.3");
    expect(negotiate({ "A2A-Version": "1.0.7" }, undefined)).toEqual({ ok: true, version: "1.0" });
  });

  it("answers an unsupported version with VersionNotSupportedError listing the supported versions", () => {
    const r = negotiate({ "A2A-Version": "0.5" }, undefined);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe(-32009);
    expect(r.error.metadata).toEqual({ requestedVersion: "0.5", supportedVersions: "1.0,0.3" });
  });

  it("refuses a header-less request on a 1.0-only interface (§4.2)", () => {
    const r = negotiate({}, undefined, ["1.0"]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.type).toBe("VersionNotSupportedError");
      expect(r.error.message).toMatch(/treated as 0\.3/);
    }
  });

  it("honours the configured supported set", () => {
    expect(negotiate({ "A2A-Version": "1.0" }, undefined, ["0.3"]).ok).toBe(false);
    expect(negotiate({ "A2A-Version": "0.3" }, undefined, ["0.3"]).ok).toBe(true);
  });

  it("keeps garbage as sent so the error names it", () => {
    const r = negotiate({ "A2A-Version": "banana" }, undefined);
    expect(r.ok ? "" : r.error.metadata.requestedVersion).toBe("banana");
  });
});

describe("extensions headers", () => {
  it("reads A2A-Extensions for 1.0 and X-A2A-Extensions for 0.3", () => {
    const headers = { "a2a-extensions": "https://e/1, https://e/2", "x-a2a-extensions": "https://old/1" };
    expect(readExtensions(headers, "1.0")).toEqual(["https://e/1", "https://e/2"]);
    expect(readExtensions(headers, "0.3")).toEqual(["https://old/1"]);
  });

  it("drops blanks and duplicates and joins repeated headers", () => {
    expect(readExtensions({ "A2A-Extensions": ["a, ,b", "a,c"] }, "1.0")).toEqual(["a", "b", "c"]);
  });

  it("writes the response header in the request's dialect", () => {
    expect(extensionsHeader("1.0", ["u1", "u2"])).toEqual({ "A2A-Extensions": "u1, u2" });
    expect(extensionsHeader("0.3", ["u1"])).toEqual({ "X-A2A-Extensions": "u1" });
    expect(extensionsHeader("1.0", [])).toEqual({});
  });
});

describe("edge cases", () => {
  it("takes the first value of a repeated A2A-Version header", () => {
    expect(negotiate({ "a2a-version": ["1.0", "0.3"] }, undefined)).toEqual({ ok: true, version: "1.0" });
  });
});
