// The webhook SSRF guard: which URLs the server refuses to call, and the operator's allow-list.
import { describe, expect, it } from "vitest";
import { blockedRange, checkWebhookUrl, pinnedLookup, WebhookUrlError, type AddressLookup } from "../../src/push/ssrf.js";

/** A resolver answering from a table, so no test depends on real DNS (except `localhost`). */
const table =
  (t: Record<string, string[]>): AddressLookup =>
  async (host) => {
    const a = t[host];
    if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

async function reason(url: string, policy: Parameters<typeof checkWebhookUrl>[1] = {}): Promise<string> {
  try {
    await checkWebhookUrl(url, policy);
    return "accepted";
  } catch (e) {
    if (e instanceof WebhookUrlError) return e.reason;
    throw e;
  }
}

describe("checkWebhookUrl", () => {
  it.each([
    ["http://127.0.0.1:8080/hook", "loopback"],
    ["http://127.5.6.7/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://10.0.0.1/", "private"],
    ["http://172.16.4.2/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://169.254.169.254/latest/meta-data/", "metadata"],
    ["http://169.254.10.1/", "linkLocal"],
    ["http://[fe80::1]/", "linkLocal"],
    ["http://[fd00:ec2::254]/", "metadata"],
    ["http://[fc00::5]/", "uniqueLocal"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://[::]/", "unspecified"],
    ["http://224.0.0.1/", "multicast"],
    ["http://[ff02::1]/", "multicast"],
    ["http://100.64.0.1/", "carrierGradeNat"],
    ["http://[::ffff:127.0.0.1]/", "IPv4-mapped loopback"],
    ["http://[::ffff:a9fe:a9fe]/", "IPv4-mapped metadata"],
    ["http://2130706433/", "decimal form of 127.0.0.1"],
    ["http://0x7f.1/", "hex form of 127.0.0.1"],
  ])("refuses %s (%s)", async (url) => {
    expect(await reason(url)).toBe("blocked-address");
  });

  it("names the range in the message", async () => {
    await expect(checkWebhookUrl("http://169.254.169.254/")).rejects.toThrow(/169\.254\.169\.254 \(cloud metadata\)/);
    await expect(checkWebhookUrl("http://10.0.0.1/")).rejects.toThrow(/\(private\)/);
  });

  it("refuses a host name that resolves to loopback (localhost, through the real resolver)", async () => {
    expect(await reason("http://localhost:9/")).toBe("blocked-address");
  });

  it("refuses a name when any one of its addresses is private", async () => {
    const lookup = table({ "mixed.example": ["93.184.216.34", "10.1.2.3"] });
    expect(await reason("https://mixed.example/", { lookup })).toBe("blocked-address");
  });

  it("accepts public addresses and names that resolve only to them", async () => {
    expect(await reason("https://93.184.216.34/hook")).toBe("accepted");
    expect(await reason("https://[2606:2800:220:1:248:1893:25c8:1946]/")).toBe("accepted");
    const lookup = table({ "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"] });
    const ok = await checkWebhookUrl("https://hooks.example.com/a2a", { lookup });
    expect(ok.addresses).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 },
    ]);
  });

  it("refuses other schemes, user:password URLs, garbage and unresolvable hosts", async () => {
    expect(await reason("ftp://93.184.216.34/")).toBe("scheme");
    expect(await reason("file:///etc/passwd")).toBe("scheme");
    expect(await reason("https://user:pw@93.184.216.34/")).toBe("credentials");
    expect(await reason("not a url")).toBe("invalid-url");
    expect(await reason("https://nowhere.invalid/", { lookup: table({}) })).toBe("unresolvable");
  });

  it("the allow-list admits a host name, an address or a CIDR range, and nothing more", async () => {
    expect(await reason("http://127.0.0.1:8080/", { allow: ["127.0.0.1"] })).toBe("accepted");
    expect(await reason("http://127.0.0.2:8080/", { allow: ["127.0.0.1"] })).toBe("blocked-address");
    expect(await reason("http://127.9.9.9/", { allow: ["127.0.0.0/8"] })).toBe("accepted");
    expect(await reason("http://10.0.0.1/", { allow: ["127.0.0.0/8"] })).toBe("blocked-address");
    expect(await reason("http://[::1]/", { allow: ["::1"] })).toBe("accepted");
    expect(await reason("http://[fd12::1]/", { allow: ["fd00::/8"] })).toBe("accepted");
    expect(await reason("http://[::ffff:10.0.0.7]/", { allow: ["10.0.0.0/24"] })).toBe("accepted");
    expect(await reason("http://localhost:9/", { allow: ["LOCALHOST"] })).toBe("accepted");
    const lookup = table({ "internal.corp": ["10.20.0.5"] });
    expect(await reason("http://internal.corp/", { allow: ["internal.corp"], lookup })).toBe("accepted");
    expect(await reason("http://internal.corp/", { allow: ["10.20.0.0/16"], lookup })).toBe("accepted");
    expect(await reason("http://internal.corp/", { allow: ["other.corp"], lookup })).toBe("blocked-address");
  });

  it("checks again on every call: a name rebound to a private address is refused the second time", async () => {
    let answer = "93.184.216.34";
    const lookup: AddressLookup = async () => [{ address: answer, family: 4 }];
    expect(await reason("https://rebind.example/", { lookup })).toBe("accepted");
    answer = "127.0.0.1";
    expect(await reason("https://rebind.example/", { lookup })).toBe("blocked-address");
  });
});

describe("blockedRange", () => {
  it("is undefined for global unicast only", () => {
    expect(blockedRange("8.8.8.8")).toBeUndefined();
    expect(blockedRange("192.0.2.1")).toBe("reserved");
    expect(blockedRange("2002:7f00:1::1")).toBe("6to4");
    expect(blockedRange("64:ff9b::7f00:1")).toBe("rfc6052");
    expect(blockedRange("banana")).toBe("not an IP address");
  });
});

describe("pinnedLookup", () => {
  it("answers with the checked addresses only, in both callback forms", async () => {
    const checked = await checkWebhookUrl("https://h.example/", {
      lookup: table({ "h.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"] }),
    });
    const lookup = pinnedLookup(checked) as unknown as (h: string, o: object, cb: (...a: unknown[]) => void) => void;
    const all = await new Promise((r) => lookup("h.example", { all: true }, (_e, a) => r(a)));
    expect(all).toEqual(checked.addresses);
    const one = await new Promise((r) => lookup("h.example", { family: 6 }, (_e, a, f) => r([a, f])));
    expect(one).toEqual(["2606:2800:220:1:248:1893:25c8:1946", 6]);
  });
});
