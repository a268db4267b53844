// The webhook SSRF guard: which URLs the server refuses to call, and the operator's allow-list.
import { describe, expect, it } from "vitest";
import ipaddr from "ipaddr.js";
import {
  blockedRange,
  checkWebhookRegistration,
  checkWebhookUrl,
  embeddedIPv4,
  NOT_ALLOWED,
  pinnedLookup,
  WebhookUrlError,
  type AddressLookup,
} from "../../src/push/ssrf.js";

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

  // IPv6 forms that carry an IPv4 address (ipaddr.js calls ::/96 unicast).
  const EMBEDDING: [string, string, string[]][] = [
    ["http://[::127.0.0.1]/", "IPv4-compatible", ["127.0.0.1"]],
    ["http://[::7f00:1]/", "IPv4-compatible", ["127.0.0.1"]],
    ["http://[::a9fe:a9fe]/", "IPv4-compatible", ["169.254.169.254"]],
    ["http://[::10.0.0.1]/", "IPv4-compatible", ["10.0.0.1"]],
    ["http://[::8.8.8.8]/", "IPv4-compatible", ["8.8.8.8"]],
    ["http://[::ffff:0:7f00:1]/", "SIIT IPv4-translated", ["127.0.0.1"]],
    ["http://[64:ff9b::7f00:1]/", "NAT64", ["127.0.0.1"]],
    ["http://[64:ff9b::8.8.8.8]/", "NAT64", ["8.8.8.8"]],
    ["http://[64:ff9b:1:7f00:0:100::]/", "NAT64 local-use", ["127.0.0.1", "0.0.0.0"]],
    ["http://[2002:a9fe:a9fe::1]/", "6to4", ["169.254.169.254"]],
    ["http://[2001:0:808:808::80ff:fffe]/", "Teredo", ["8.8.8.8", "127.0.0.1"]],
    ["http://[2001:4860::200:5efe:a00:1]/", "ISATAP", ["10.0.0.1"]],
  ];

  it.each(EMBEDDING)("refuses %s (%s of %s), whatever the embedded address", async (url, form, v4s) => {
    const err = await checkWebhookUrl(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookUrlError);
    expect((err as WebhookUrlError).reason).toBe("blocked-address");
    expect((err as WebhookUrlError).message).toContain(`${form}, embeds ${v4s.join(" and ")}`);
    expect((err as WebhookUrlError).publicMessage).toBe(NOT_ALLOWED);
    // Also when a name resolves to it.
    const lookup = table({ "hook.example": [new URL(url).hostname.slice(1, -1)] });
    expect(await reason("http://hook.example/", { lookup })).toBe("blocked-address");
  });

  it("admits an embedding form only when its IPv4 addresses (or the IPv6 address) are allow-listed", async () => {
    expect(await reason("http://[::10.0.0.1]/", { allow: ["10.0.0.0/8"] })).toBe("accepted");
    expect(await reason("http://[::7f00:1]/", { allow: ["127.0.0.1"] })).toBe("accepted");
    expect(await reason("http://[::7f00:1]/", { allow: ["10.0.0.0/8"] })).toBe("blocked-address");
    expect(await reason("http://[64:ff9b::8.8.8.8]/", { allow: ["64:ff9b::/96"] })).toBe("accepted");
    // Teredo carries two addresses: both must be allowed.
    expect(await reason("http://[2001:0:808:808::80ff:fffe]/", { allow: ["127.0.0.1"] })).toBe("blocked-address");
    expect(await reason("http://[2001:0:808:808::80ff:fffe]/", { allow: ["127.0.0.1", "8.8.8.8"] })).toBe("accepted");
    // ::1 and :: are loopback and unspecified, not IPv4-compatible; a plain IPv6 address embeds nothing.
    expect(embeddedIPv4(ipaddr.IPv6.parse("::1"))).toBeUndefined();
    expect(embeddedIPv4(ipaddr.IPv6.parse("::"))).toBeUndefined();
    expect(embeddedIPv4(ipaddr.IPv6.parse("2606:2800:220:1:248:1893:25c8:1946"))).toBeUndefined();
  });

  it("tells the caller only that an address is not allowed; the detail is for the log", async () => {
    const lookup = table({ runsc: ["127.0.0.1"] });
    const err = (await checkWebhookUrl("http://runsc/", { lookup }).catch((e: unknown) => e)) as WebhookUrlError;
    expect(err.message).toMatch(/runsc resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(err.publicMessage).toBe("webhook URL not allowed");
    // Refusals about the URL's own form keep their message: they say nothing about the network.
    const scheme = (await checkWebhookUrl("ftp://a.example/").catch((e: unknown) => e)) as WebhookUrlError;
    expect(scheme.publicMessage).toBe(scheme.message);
  });

  it("at registration, a name that does not resolve now is accepted; one that resolves only to private addresses is not", async () => {
    const lookup = table({ "internal.example": ["10.1.2.3"] });
    await expect(checkWebhookRegistration("https://not-yet.example/hook", { lookup })).resolves.toBeUndefined();
    await expect(checkWebhookRegistration("https://internal.example/hook", { lookup })).rejects.toMatchObject({
      reason: "blocked-address",
    });
    await expect(checkWebhookRegistration("http://[::7f00:1]/", { lookup })).rejects.toMatchObject({ reason: "blocked-address" });
    await expect(checkWebhookRegistration("ftp://not-yet.example/", { lookup })).rejects.toMatchObject({ reason: "scheme" });
    // The delivery-time check still refuses it (and delivery retries later).
    expect(await reason("https://not-yet.example/hook", { lookup })).toBe("unresolvable");
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
    expect(blockedRange("2002:7f00:1::1")).toBe("6to4, embeds 127.0.0.1");
    expect(blockedRange("64:ff9b::7f00:1")).toBe("NAT64, embeds 127.0.0.1");
    expect(blockedRange("::7f00:1", ["127.0.0.0/8"])).toBeUndefined();
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
