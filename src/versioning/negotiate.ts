// Version negotiation (A2A 1.0 §3.6; a2a-wire.md §4) and the service-parameter headers.
//
// API
//   SUPPORTED_VERSIONS                       ["1.0", "0.3"], the versions this toolkit speaks
//   normalizeVersion(raw)                    "1.0.3" → "1.0", "" / undefined → "0.3", garbage kept as sent
//   requestedVersion(headers, query?)        the A2A-Version header, else the query parameter, normalised
//   negotiate(headers, query, supported)     → {ok: true, version} | {ok: false, requested, error: VersionNotSupported}
//   readHeader(headers, name)                case-insensitive single value (repeats joined with ",")
//   readExtensions(headers, version)         A2A-Extensions (1.0) / X-A2A-Extensions (0.3) → URIs
//   extensionsHeaderName(version)            the header name of that version
//   versionNotSupported(requested, supported) the error, ErrorInfo metadata listing the supported versions
//
// Rules (docs/policies.md has the reasons):
//   * the header wins over the query parameter; only Major.Minor counts;
//   * absent or empty = 0.3 (§3.6.2), so a header-less request to a 1.0-only server gets
//     VersionNotSupported (the strict reading of a2a-wire.md §4.2);
//   * anything not in `supported` (including "garbage") gets VersionNotSupported.
import { A2AError } from "./errors.js";

export type ProtocolVersion = "1.0" | "0.3";
export const SUPPORTED_VERSIONS: readonly ProtocolVersion[] = ["1.0", "0.3"];

export type HeadersLike = Record<string, string | string[] | undefined> | Headers;

export const VERSION_HEADER = "A2A-Version";
export const EXTENSIONS_HEADER_1_0 = "A2A-Extensions";
export const EXTENSIONS_HEADER_0_3 = "X-A2A-Extensions";

export function readHeader(headers: HeadersLike | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const lower = name.toLowerCase();
  // Node's IncomingHttpHeaders are lower-case already: one lookup in the common case.
  let v = record[lower];
  if (v === undefined)
    for (const k in record) {
      if (k.length !== lower.length || k === lower || k.toLowerCase() !== lower || record[k] === undefined) continue;
      v = record[k];
      break;
    }
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(",") : v;
}

/** Major.Minor of a version string; empty or absent means 0.3 (A2A 1.0 §3.6.2). */
export function normalizeVersion(raw: string | undefined | null): string {
  const v = (raw ?? "").trim();
  if (v === "") return "0.3";
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(v);
  return m ? `${Number(m[1])}.${Number(m[2])}` : v;
}

function queryParam(query: URLSearchParams | Record<string, unknown> | undefined, name: string): string | undefined {
  if (!query) return undefined;
  if (query instanceof URLSearchParams) {
    for (const [k, v] of query) if (k.toLowerCase() === name.toLowerCase()) return v;
    return undefined;
  }
  for (const [k, v] of Object.entries(query))
    if (k.toLowerCase() === name.toLowerCase()) return Array.isArray(v) ? String(v[0]) : String(v);
  return undefined;
}

/** The version a request asks for: header, else query parameter, normalised. */
export function requestedVersion(headers: HeadersLike | undefined, query?: URLSearchParams | Record<string, unknown>): string {
  // A repeated header counts by its first value.
  const header = readHeader(headers, VERSION_HEADER)?.split(",")[0];
  if (header !== undefined && header.trim() !== "") return normalizeVersion(header);
  return normalizeVersion(queryParam(query, VERSION_HEADER));
}

export function versionNotSupported(requested: string, supported: readonly ProtocolVersion[]): A2AError {
  const shown = requested === "" ? "(none)" : requested;
  return new A2AError(
    "VersionNotSupportedError",
    `A2A protocol version ${shown} is not supported by this interface; supported: ${supported.join(", ")}` +
      (requested === "0.3" && !supported.includes("0.3") ? ` (a request without ${VERSION_HEADER} is treated as 0.3)` : ""),
    { requestedVersion: requested, supportedVersions: supported.join(",") },
  );
}

export type Negotiated = { ok: true; version: ProtocolVersion } | { ok: false; requested: string; error: A2AError };

export function negotiate(
  headers: HeadersLike | undefined,
  query: URLSearchParams | Record<string, unknown> | undefined,
  supported: readonly ProtocolVersion[] = SUPPORTED_VERSIONS,
): Negotiated {
  const requested = requestedVersion(headers, query);
  if ((supported as readonly string[]).includes(requested)) return { ok: true, version: requested as ProtocolVersion };
  return { ok: false, requested, error: versionNotSupported(requested, supported) };
}

export function extensionsHeaderName(version: ProtocolVersion): string {
  return version === "1.0" ? EXTENSIONS_HEADER_1_0 : EXTENSIONS_HEADER_0_3;
}

/** Comma-separated extension URIs of the request's own dialect; duplicates and blanks removed. */
export function readExtensions(headers: HeadersLike | undefined, version: ProtocolVersion): string[] {
  return parseExtensionList(readHeader(headers, extensionsHeaderName(version)));
}

export function parseExtensionList(value: string | undefined): string[] {
  if (!value) return [];
  return [
    ...new Set(
      value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

/** The response (or request) header announcing `uris`, in `version`'s dialect; {} when none. */
export function extensionsHeader(version: ProtocolVersion, uris: readonly string[] | undefined): Record<string, string> {
  return uris && uris.length ? { [extensionsHeaderName(version)]: uris.join(", ") } : {};
}
