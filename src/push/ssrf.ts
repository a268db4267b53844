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
//     (100.64/10), the reserved/documentation/benchmarking ranges, and the IPv6 ranges that embed or
//     tunnel to IPv4 (6to4, Teredo, NAT64) since their target cannot be judged. IPv4-mapped IPv6
//     (::ffff:a.b.c.d) is judged as the IPv4 address it maps;
//   - unless the operator allow-lists it: an `allow` entry is a host name (matched exactly, case-
//     insensitively, before any resolution), an IP address, or a CIDR range (`10.1.0.0/16`,
//     `fd00::/8`) that the resolved addresses may fall in.
// The range tables are ipaddr.js's (a maintained library), not ours.
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

export class WebhookUrlError extends Error {
  override name = "WebhookUrlError";
  constructor(
    readonly reason: WebhookRejection,
    message: string,
  ) {
    super(message);
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

function compileAllow(allow: readonly string[] = []): CompiledAllow {
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

/** Why an address is not a safe webhook target, or undefined when it is global unicast. */
export function blockedRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return "not an IP address";
  const a = ipaddr.process(address); // ::ffff:a.b.c.d → a.b.c.d
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
  const allow = compileAllow(policy.allow);

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
    const why = blockedRange(address);
    if (why === undefined) continue;
    if (ipaddr.isValid(address) && inRanges(ipaddr.process(address), allow.ranges)) continue;
    throw new WebhookUrlError(
      "blocked-address",
      `webhook host ${host} resolves to ${address} (${why}); only public addresses are called unless the operator allow-lists the host or range`,
    );
  }
  return { url: u, host, addresses: addresses.map(fam), allowListedHost: false };
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
    if (!list.length) {
      const err = Object.assign(new Error(`no checked address for ${checked.host}`), { code: "ENOTFOUND" });
      return callback(err);
    }
    if (options?.all) return callback(null, list);
    return callback(null, list[0].address, list[0].family);
  }) as LookupFunction;
}
