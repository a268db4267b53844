// SSRF guard for push-notification webhooks (A2A 1.0 §13.2 SHOULD; a2a-wire.md §5.6, rule S-45).
//
// A webhook URL comes from the client, and the server POSTs to it: without a guard, any caller could
// make the server reach its own loopback services, the private network or a cloud metadata endpoint.
// `checkWebhookUrl(url, {allow})` accepts a URL only when
//   - its scheme is http or https, and it has no user:password part;
//   - every address its host resolves to (dns.lookup with `all: true`; an IP literal is its own
//     address) is global unicast. Refused, by ipaddr.js's range names: loopback (127/8, ::1),
//     private (10/8, 172.16/12, 192.168/16), uniqueLocal (fc00::/7, which holds the AWS IPv6
//     metadata address fd00:ec2::254), linkLocal (169.254/16 with the metadata address
//     169.254.169.254, fe80::/10), unspecified (0/8, ::), multicast, broadcast, carrier-grade NAT
//     (100.64/10), the reserved/documentation/benchmarking ranges;
//   - IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it maps (the socket connects
//     to that address over IPv4). Every other IPv6 form that embeds an IPv4 address is refused
//     unless that IPv4 address is allow-listed (or the IPv6 address itself is): IPv4-compatible
//     ::a.b.c.d (::/96, which ipaddr.js calls unicast: `[::127.0.0.1]`, `[::a9fe:a9fe]`), SIIT
//     ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32
//     (server and client address) and ISATAP interface ids (…:0:5efe:a.b.c.d, …:200:5efe:…).
//     Where such a packet ends up is decided by a translator or tunnel the guard cannot see, so a
//     public embedded address does not make it safe (a NAT64-only network allow-lists its prefix);
//   - unless the operator allow-lists it: an `allow` entry is a host name (matched exactly, case-
//     insensitively, before any resolution), an IP address, or a CIDR range (`10.1.0.0/16`,
//     `fd00::/8`) that the resolved addresses may fall in.
// The range tables are ipaddr.js's (a maintained library), not ours; the embedded-IPv4 layouts
// are the RFCs' (4291, 6145, 6052/8215, 3056, 4380, 5214).
//
// Messages: a refusal's `message` names the host, its addresses and the range, for the server log;
// `publicMessage` is what a caller may be told (for an address refusal only that the URL is not
// allowed, so registration cannot be used to probe internal DNS).
// Registration (`checkWebhookRegistration`) accepts a name that does not resolve now: that proves
// nothing about later, and delivery checks again.
//
// DNS rebinding: a name that resolved to a public address at registration can resolve to a private
// one later. The sender therefore checks again at every delivery and connects to exactly the
// addresses it checked (`pinnedLookup`), so no second, unchecked resolution happens in between.
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

export type AddressLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface WebhookUrlPolicy {
  /** Host names, IP addresses or CIDR ranges the operator trusts (e.g. a receiver on 127.0.0.1 in tests). */
  allow?: readonly string[];
  /** Resolver (default dns.lookup, all addresses); tests inject one. */
  lookup?: AddressLookup;
}

export type WebhookRejection = "invalid-url" | "scheme" | "credentials" | "unresolvable" | "blocked-address";

/** What a caller is told when a webhook's address is refused: nothing about what its host resolves to. */
export const NOT_ALLOWED = "webhook URL not allowed";

export class WebhookUrlError extends Error {
  override name = "WebhookUrlError";
  /** The message for the caller (the URL's owner); `message` has the detail for the server log. */
  readonly publicMessage: string;
  constructor(
    readonly reason: WebhookRejection,
    message: string,
  ) {
    super(message);
    this.publicMessage = reason === "blocked-address" || reason === "unresolvable" ? NOT_ALLOWED : message;
  }
}

export interface CheckedWebhook {
  url: URL;
  /** Host as used for connecting (brackets removed from IPv6 literals). */
  host: string;
  /** The checked addresses, in resolver order: connect to these only. */
  addresses: { address: string; family: 4 | 6 }[];
  /** True when the host name itself is allow-listed (no address check was made). */
  allowListedHost: boolean;
}

const METADATA = new Set(["169.254.169.254", "fd00:ec2::254"]);

export const defaultLookup: AddressLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

interface CompiledAllow {
  hosts: Set<string>;
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

const compiledCache = new WeakMap<readonly string[], CompiledAllow>();

function compileAllow(allow: readonly string[]): CompiledAllow {
  const cached = compiledCache.get(allow);
  if (cached) return cached;
  const out: CompiledAllow = { hosts: new Set(), ranges: [] };
  for (const raw of allow) {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, "$1");
    if (!entry) continue;
    if (ipaddr.isValidCIDR(entry)) out.ranges.push(normaliseRange(ipaddr.parseCIDR(entry)));
    else if (ipaddr.isValid(entry)) {
      const a = ipaddr.process(entry);
      out.ranges.push([a, a.kind() === "ipv4" ? 32 : 128]);
    } else out.hosts.add(entry.replace(/\.$/, ""));
  }
  compiledCache.set(allow, out);
  return out;
}

/** An IPv4-mapped IPv6 CIDR (::ffff:10.0.0.0/104) becomes the IPv4 range it maps. */
function normaliseRange([addr, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96)
    return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
  return [addr, bits];
}

function inRanges(a: ipaddr.IPv4 | ipaddr.IPv6, ranges: CompiledAllow["ranges"]): boolean {
  return ranges.some(([r, bits]) => r.kind() === a.kind() && a.match(r, bits));
}

const v4 = (hi: number, lo: number) => ipaddr.fromByteArray([hi >> 8, hi & 255, lo >> 8, lo & 255]) as ipaddr.IPv4;

type IPv6Parts = readonly [number, number, number, number, number, number, number, number];

/** The eight 16-bit parts of an IPv6 address (ipaddr always has eight; the defaults only satisfy the type). */
function partsOf(a: ipaddr.IPv6): IPv6Parts {
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = a.parts;
  return [p0, p1, p2, p3, p4, p5, p6, p7];
}

/**
 * The IPv4 addresses an IPv6 address carries, by the form's name (IPv4-mapped is not listed:
 * ipaddr.process turns it into its IPv4 address).
 */
export function embeddedIPv4(a: ipaddr.IPv6): { form: string; addresses: ipaddr.IPv4[] } | undefined {
  const p = partsOf(a);
  const zero = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zero(0, 6) && !(p[6] === 0 && p[7] <= 1)) return { form: "IPv4-compatible", addresses: [v4(p[6], p[7])] }; // not :: or ::1
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: "SIIT IPv4-translated", addresses: [v4(p[6], p[7])] };
  if (p[0] === 0x64 && p[1] === 0xff9b) {
    if (zero(2, 6)) return { form: "NAT64", addresses: [v4(p[6], p[7])] };
    // 64:ff9b:1::/48 (RFC 8215) with a /48 (RFC 6052 §2.2: bits 48-63, then 72-87) or a /96 layout.
    if (p[2] === 1) return { form: "NAT64 local-use", addresses: [v4(p[3], ((p[4] & 255) << 8) | (p[5] >> 8)), v4(p[6], p[7])] };
  }
  if (p[0] === 0x2002) return { form: "6to4", addresses: [v4(p[1], p[2])] };
  if (p[0] === 0x2001 && p[1] === 0) return { form: "Teredo", addresses: [v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff)] };
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) return { form: "ISATAP", addresses: [v4(p[6], p[7])] };
  return undefined;
}

/**
 * Why an address is not a safe webhook target, or undefined when it may be called: global unicast,
 * or allow-listed by `allow` (addresses and CIDR ranges; an IPv6 form embedding IPv4 addresses:
 * when it, or each of them, is).
 */
export function blockedRange(address: string, allow: readonly string[] = []): string | undefined {
  if (!ipaddr.isValid(address)) return "not an IP address";
  const allowRanges = compileAllow(allow).ranges;
  const a = ipaddr.process(address); // ::ffff:a.b.c.d → a.b.c.d
  if (inRanges(a, allowRanges)) return undefined;
  const embedded = a.kind() === "ipv6" ? embeddedIPv4(a as ipaddr.IPv6) : undefined;
  if (embedded)
    return embedded.addresses.every((e) => inRanges(e, allowRanges))
      ? undefined
      : `${embedded.form}, embeds ${embedded.addresses.join(" and ")}`;
  if (METADATA.has(a.toNormalizedString()) || METADATA.has(a.toString())) return "cloud metadata";
  const range = a.range();
  return range === "unicast" ? undefined : range;
}

function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();
}

/**
 * Resolves and checks a webhook URL; throws WebhookUrlError (with `reason`) when it must not be
 * called. Run it when a config is registered and again before each delivery.
 */
export async function checkWebhookUrl(url: string | URL, policy: WebhookUrlPolicy = {}): Promise<CheckedWebhook> {
  let u: URL;
  try {
    u = typeof url === "string" ? new URL(url) : url;
  } catch {
    throw new WebhookUrlError("invalid-url", `not a URL: ${String(url).slice(0, 200)}`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new WebhookUrlError("scheme", `webhook URLs must be http or https, not ${u.protocol.replace(/:$/, "")}`);
  if (u.username || u.password) throw new WebhookUrlError("credentials", "webhook URLs must not carry a user name or password");
  const host = hostOf(u);
  if (!host) throw new WebhookUrlError("invalid-url", "the webhook URL has no host");
  const allow = compileAllow(policy.allow ?? []);

  let addresses: { address: string; family: number }[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(":") ? 6 : 4 }];
  else {
    if (allow.hosts.has(host)) {
      // Trusted by name: resolve for connecting, but do not judge the addresses.
      const resolved = await resolve(host, policy.lookup ?? defaultLookup);
      return { url: u, host, addresses: resolved, allowListedHost: true };
    }
    addresses = await resolve(host, policy.lookup ?? defaultLookup);
  }

  for (const { address } of addresses) {
    const why = blockedRange(address, policy.allow);
    if (why === undefined) continue;
    throw new WebhookUrlError(
      "blocked-address",
      `webhook host ${host} resolves to ${address} (${why}); only public addresses are called unless the operator allow-lists the host or range`,
    );
  }
  return { url: u, host, addresses: addresses.map(fam), allowListedHost: false };
}

/**
 * The check at registration: checkWebhookUrl, except that a host name that does not resolve now is
 * accepted (undefined is returned): that proves nothing about delivery time, which checks again.
 */
export async function checkWebhookRegistration(url: string | URL, policy: WebhookUrlPolicy = {}): Promise<CheckedWebhook | undefined> {
  try {
    return await checkWebhookUrl(url, policy);
  } catch (e) {
    if (e instanceof WebhookUrlError && e.reason === "unresolvable") return undefined;
    throw e;
  }
}

function fam(a: { address: string; family: number }): { address: string; family: 4 | 6 } {
  return { address: a.address, family: a.family === 6 || a.address.includes(":") ? 6 : 4 };
}

async function resolve(host: string, lookup: AddressLookup): Promise<{ address: string; family: 4 | 6 }[]> {
  let found: { address: string; family: number }[];
  try {
    found = await lookup(host);
  } catch (e) {
    throw new WebhookUrlError("unresolvable", `cannot resolve webhook host ${host}: ${(e as Error).message}`);
  }
  if (!found.length) throw new WebhookUrlError("unresolvable", `webhook host ${host} has no addresses`);
  return found.map(fam);
}

/**
 * A `lookup` for http.request / net.connect that answers with the checked addresses only, so the
 * connection goes where the guard looked (no second DNS answer can slip in).
 */
export function pinnedLookup(checked: CheckedWebhook): LookupFunction {
  return ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const want = options?.family === 4 || options?.family === "IPv4" ? 4 : options?.family === 6 || options?.family === "IPv6" ? 6 : 0;
    const list = checked.addresses.filter((a) => !want || a.family === want);
    const first = list[0];
    if (!first) {
      const err = Object.assign(new Error(`no checked address for ${checked.host}`), { code: "ENOTFOUND" });
      return callback(err);
    }
    if (options?.all) return callback(null, list);
    return callback(null, first.address, first.family);
  }) as LookupFunction;
}
