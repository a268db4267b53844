// Gateway configuration: the backends the gateway routes to, from a YAML or JSON file, from the
// command line (`--backend name=<url>[,name=<url>...]`), or given directly to the library.
//
//   name: My gateway                      # optional, the gateway card's name
//   description: Routes to two agents     # optional
//   default: weather                      # backend for messages without metadata.agent_id
//   timeoutMs: 300000                     # default per-turn deadline of every backend
//   store: postgres://gw@127.0.0.1:5432/gw  # optional: memory (default) | sqlite:<file> | postgres://… (--store wins)
//   leaseMs: 10000                        # optional, postgres store: a followed task's lease (--lease wins)
//   backends:
//     - name: weather                     # the agent_id callers route by (unique)
//       url: http://127.0.0.1:9001        # base URL (the card is at /.well-known/agent-card.json) or the card URL
//       version: "0.3"                    # optional: 1.0 | 0.3; default: discovered from the card
//       binding: JSONRPC                  # optional: JSONRPC | HTTP+JSON | GRPC; default: the card's first usable one
//       description: Forecasts            # optional: overrides the backend card's description
//       keywords: [weather, forecast]     # optional: tags on the published skills
//       skill: forecast                   # optional: the id of the skill published when the backend card has none
//       timeoutMs: 60000                  # optional: this backend's per-turn deadline
//       requestTimeoutMs: 10000           # optional: one HTTP request to the backend (default 30000)
//       headers: { Authorization: "Bearer …" }   # optional: sent with every request to this backend
import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { SUPPORTED_VERSIONS, type ProtocolVersion } from "../versioning/negotiate.js";

export type BackendBinding = "JSONRPC" | "HTTP+JSON" | "GRPC";
export type BackendVersion = ProtocolVersion;

export interface BackendConfig {
  /** The agent_id this backend is addressed by; unique within the gateway. */
  name: string;
  url: string;
  version?: BackendVersion;
  binding?: BackendBinding;
  description?: string;
  keywords?: string[];
  /** Id of the skill the gateway publishes for this backend when its card lists none (default: the name). */
  skill?: string;
  /** Longest time one turn on this backend may take, in ms (default: the gateway's timeoutMs). */
  timeoutMs?: number;
  /** Longest time one HTTP request to this backend may take before its first byte, in ms (default 30,000). */
  requestTimeoutMs?: number;
  headers?: Record<string, string>;
}

export interface GatewayConfig {
  name?: string;
  description?: string;
  /** Backend name used when a message names no agent_id (default: the only backend, if there is one). */
  default?: string;
  /** Per-turn deadline for backends that set none, in ms (default 300,000). */
  timeoutMs?: number;
  /** Task store: memory (default), sqlite:<file>, or postgres://… (several replicas act as one). */
  store?: string;
  /** With a postgres store: how long a followed task's lease lasts unless renewed, in ms (default 10,000). */
  leaseMs?: number;
  backends: BackendConfig[];
}

export class GatewayConfigError extends Error {
  override readonly name = "GatewayConfigError";
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Checks a configuration object (parsed JSON or YAML, or built in code); throws GatewayConfigError. */
export function checkConfig(raw: unknown): GatewayConfig {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new GatewayConfigError("the gateway configuration must be an object");
  const c = raw as Record<string, unknown>;
  const known = new Set(["name", "description", "default", "timeoutMs", "store", "leaseMs", "backends"]);
  for (const k of Object.keys(c)) if (!known.has(k)) throw new GatewayConfigError(`unknown configuration key "${k}"`);
  if (!Array.isArray(c.backends) || c.backends.length === 0) throw new GatewayConfigError('"backends" must list at least one backend');
  const backends = c.backends.map((b, i) => checkBackend(b, `backends[${i}]`));
  const names = new Set<string>();
  for (const b of backends) {
    if (names.has(b.name)) throw new GatewayConfigError(`backend name "${b.name}" is used twice`);
    names.add(b.name);
  }
  const config: GatewayConfig = { backends };
  for (const k of ["name", "description", "default", "store"] as const) {
    if (c[k] === undefined) continue;
    if (typeof c[k] !== "string") throw new GatewayConfigError(`"${k}" must be a string`);
    config[k] = c[k];
  }
  if (config.default !== undefined && !names.has(config.default))
    throw new GatewayConfigError(`"default" names no backend: "${config.default}" (backends: ${[...names].join(", ")})`);
  if (config.store !== undefined && !/^(memory$|sqlite:.|postgres(ql)?:\/\/)/.test(config.store))
    throw new GatewayConfigError(`"store" must be memory, sqlite:<file> or postgres://user@host:port/db`);
  if (c.timeoutMs !== undefined) config.timeoutMs = positive(c.timeoutMs, "timeoutMs");
  if (c.leaseMs !== undefined) config.leaseMs = positive(c.leaseMs, "leaseMs");
  return config;
}

function checkBackend(raw: unknown, where: string): BackendConfig {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new GatewayConfigError(`${where} must be an object`);
  const b = raw as Record<string, unknown>;
  const known = new Set([
    "name",
    "url",
    "version",
    "binding",
    "description",
    "keywords",
    "skill",
    "timeoutMs",
    "requestTimeoutMs",
    "headers",
  ]);
  for (const k of Object.keys(b)) if (!known.has(k)) throw new GatewayConfigError(`${where}: unknown key "${k}"`);
  if (typeof b.name !== "string" || !NAME.test(b.name))
    throw new GatewayConfigError(`${where}.name must be letters, digits, "_", "." or "-" (it is the agent_id callers route by)`);
  if (typeof b.url !== "string") throw new GatewayConfigError(`${where}.url must be a string`);
  try {
    const u = new URL(b.url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new GatewayConfigError(`${where}.url is not an http(s) URL: ${b.url}`);
  }
  const out: BackendConfig = { name: b.name, url: b.url };
  if (b.version !== undefined) {
    // YAML reads an unquoted 1.0 as the number 1.
    const v = typeof b.version === "number" ? b.version.toFixed(1) : b.version;
    const version = SUPPORTED_VERSIONS.find((s) => s === v);
    if (!version) throw new GatewayConfigError(`${where}.version must be ${SUPPORTED_VERSIONS.map((s) => `"${s}"`).join(" or ")}`);
    out.version = version;
  }
  if (b.binding !== undefined) {
    const v = typeof b.binding === "string" ? b.binding.toUpperCase() : undefined;
    const binding =
      v === "JSONRPC" || v === "JSON-RPC" ? "JSONRPC" : v === "HTTP+JSON" || v === "REST" ? "HTTP+JSON" : v === "GRPC" ? "GRPC" : undefined;
    if (!binding) throw new GatewayConfigError(`${where}.binding must be JSONRPC, HTTP+JSON or GRPC`);
    out.binding = binding;
  }
  for (const k of ["description", "skill"] as const) {
    if (b[k] === undefined) continue;
    if (typeof b[k] !== "string") throw new GatewayConfigError(`${where}.${k} must be a string`);
    out[k] = b[k];
  }
  if (b.keywords !== undefined) {
    if (!Array.isArray(b.keywords) || b.keywords.some((k) => typeof k !== "string"))
      throw new GatewayConfigError(`${where}.keywords must be a list of strings`);
    out.keywords = b.keywords as string[];
  }
  if (b.timeoutMs !== undefined) out.timeoutMs = positive(b.timeoutMs, `${where}.timeoutMs`);
  if (b.requestTimeoutMs !== undefined) out.requestTimeoutMs = positive(b.requestTimeoutMs, `${where}.requestTimeoutMs`);
  if (b.headers !== undefined) {
    if (!b.headers || typeof b.headers !== "object" || Object.values(b.headers).some((v) => typeof v !== "string"))
      throw new GatewayConfigError(`${where}.headers must map header names to strings`);
    out.headers = b.headers as Record<string, string>;
  }
  return out;
}

function positive(v: unknown, where: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v <= 0) throw new GatewayConfigError(`${where} must be a positive integer (ms)`);
  return v;
}

/** Parses a configuration file's text: JSON when it starts with "{", else YAML (a superset of JSON). */
export function parseConfigText(text: string, source = "configuration"): GatewayConfig {
  let raw: unknown;
  try {
    raw = text.trimStart().startsWith("{") ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new GatewayConfigError(`${source} is not valid YAML or JSON: ${(e as Error).message}`);
  }
  return checkConfig(raw);
}

export async function loadConfigFile(path: string): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new GatewayConfigError(`cannot read ${path}: ${(e as Error).message}`);
  }
  return parseConfigText(text, path);
}

/** `name=url[,name=url...]` from the command line. */
export function parseBackendList(spec: string): BackendConfig[] {
  return spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const eq = entry.indexOf("=");
      if (eq <= 0) throw new GatewayConfigError(`--backend wants name=<url>, got "${entry}"`);
      return { name: entry.slice(0, eq), url: entry.slice(eq + 1) };
    });
}
