// HTTP+JSON request mapping (google.api.http transcoding, a2a-wire.md §1.2) over the generated
// method tables. Generic: it knows routes, path templates, query parameters and bodies, not
// versions; src/versioning/codec.ts decides which table and which tolerances apply.
//
// API (route tables: compileRoutes in src/runtime/routes.ts)
//   matchRoute(routes, verb, path)           → {route, params} | {allowed: verbs} | undefined
//   requestJsonFromHttp(schema, route, params, query, body)
//                                            → the request message as JSON (path + query + body merged)
//   httpFromRequestJson(bindings, schema, json)
//                                            → {verb, path, query, body?} (client side; picks the binding
//                                              whose path variables are all set, tenant form first)
//   splitUrl(url)                            → {path, query} of a request target ("/a/b?x=1")
import { ScalarType, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import type { HttpBinding, HttpVerb } from "../runtime/methods.js";
import type { RestRoute } from "../runtime/routes.js";
import { A2AError, invalidParams } from "../versioning/errors.js";

export type RouteMatch = { route: RestRoute; params: Record<string, string> } | { allowed: HttpVerb[] };

export function matchRoute(routes: readonly RestRoute[], verb: string, path: string): RouteMatch | undefined {
  const allowed = new Set<HttpVerb>();
  for (const route of routes) {
    const m = route.regex.exec(path);
    if (!m) continue;
    if (route.binding.verb !== verb.toUpperCase()) {
      allowed.add(route.binding.verb);
      continue;
    }
    const params: Record<string, string> = {};
    const resourceNames = multiSegmentVars(route.binding.template);
    // A one-segment variable is a plain value (percent-decoded here); a resource name such as
    // `tasks/{id}` stays encoded, so an id holding "/" survives (the translators decode it).
    for (const [k, v] of Object.entries(m.groups ?? {})) params[k] = resourceNames.has(k) ? v : safeDecode(v);
    return { route, params };
  }
  return allowed.size ? { allowed: [...allowed] } : undefined;
}

/** Variables whose pattern spans several segments (`{name=tasks/*}`). */
function multiSegmentVars(template: string): Set<string> {
  const out = new Set<string>();
  for (const [, name, pattern] of template.matchAll(/\{([^}=]+)=([^}]*)\}/g)) if (name && pattern?.includes("/")) out.add(name);
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf("?");
  const raw = q < 0 ? url : url.slice(0, q);
  // Absolute URLs are allowed too; only the path matters.
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? new URL(raw).pathname : raw;
  return { path, query: new URLSearchParams(q < 0 ? "" : url.slice(q + 1)) };
}

function fieldNamed(schema: DescMessage, name: string): DescField | undefined {
  return schema.fields.find((f) => f.name === name || f.jsonName === name);
}

const NUMERIC = new Set([
  ScalarType.INT32,
  ScalarType.SINT32,
  ScalarType.SFIXED32,
  ScalarType.UINT32,
  ScalarType.FIXED32,
  ScalarType.DOUBLE,
  ScalarType.FLOAT,
]);

function queryValue(field: DescField, values: string[]): JsonValue {
  const one = (v: string): JsonValue => {
    if (field.fieldKind !== "scalar" && field.fieldKind !== "list") return v;
    const scalar = field.fieldKind === "scalar" ? field.scalar : field.listKind === "scalar" ? field.scalar : undefined;
    if (scalar === ScalarType.BOOL) return v === "true" ? true : v === "false" ? false : v;
    if (scalar !== undefined && NUMERIC.has(scalar) && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
    return v;
  };
  if (field.fieldKind === "list") return values.flatMap((v) => v.split(",")).map(one);
  // The key is in the query, so it has a value: the last one counts.
  return one(values.at(-1) ?? "");
}

/** Query keys that carry service parameters, never request fields. */
const SERVICE_PARAMS = new Set(["a2a-version", "a2a-extensions"]);

/**
 * Builds the request message JSON from an HTTP request (server side). `body` is the parsed JSON
 * body (undefined when empty). Throws InvalidParams when the body is not an object where one is
 * required.
 */
export function requestJsonFromHttp(
  schema: DescMessage,
  route: RestRoute,
  params: Record<string, string>,
  query: URLSearchParams,
  body: unknown,
): JsonObject {
  const b = route.binding;
  let json: JsonObject = {};
  if (b.body === "*") {
    if (body !== undefined && body !== null) {
      if (typeof body !== "object" || Array.isArray(body)) throw invalidParams("", "the request body must be a JSON object");
      json = { ...(body as JsonObject) };
    }
  } else if (b.body) {
    if (body !== undefined && body !== null) json[fieldNamed(schema, b.body)?.jsonName ?? b.body] = body as JsonValue;
  }
  for (const key of new Set(query.keys())) {
    if (SERVICE_PARAMS.has(key.toLowerCase())) continue;
    const field = fieldNamed(schema, key);
    if (!field) continue; // unknown parameters are ignored, like unknown fields (A2A 1.0 §5.7)
    if (b.body === "*" || b.pathParams.includes(field.name)) continue;
    json[field.jsonName] = queryValue(field, query.getAll(key));
  }
  for (const [name, value] of Object.entries(params)) json[fieldNamed(schema, name)?.jsonName ?? name] = value;
  return json;
}

export interface HttpRequestParts {
  verb: HttpVerb;
  /** Path with variables filled in, relative to the interface URL. */
  path: string;
  query: URLSearchParams;
  /** JSON body, undefined for body-less bindings. */
  body?: JsonValue;
}

/** A resource name keeps its slashes and existing %-escapes; anything else unsafe in a path is escaped. */
function encodeResourceName(v: string): string {
  return v.replace(/[^A-Za-z0-9\-._~%!$&'()*+,;=:@/]/g, (c) => encodeURIComponent(c));
}

/**
 * Maps a request message JSON onto one of `bindings` (client side): the binding with the most
 * path variables that are all set wins, so a tenant selects the `/{tenant}/…` form.
 */
export function httpFromRequestJson(bindings: readonly HttpBinding[], schema: DescMessage, json: JsonObject): HttpRequestParts {
  const jsonOf = (name: string) => fieldNamed(schema, name)?.jsonName ?? name;
  const usable = bindings
    .filter((b) => b.pathParams.every((p) => typeof json[jsonOf(p)] === "string" && json[jsonOf(p)] !== ""))
    .sort((a, b) => b.pathParams.length - a.pathParams.length);
  const b = usable[0];
  if (!b) throw new A2AError("InvalidParamsError", `missing path field(s) for ${bindings[0]?.template ?? "this route"}`);
  const rest: JsonObject = { ...json };
  const resourceNames = multiSegmentVars(b.template);
  const path = b.template.replace(/\{([^}=]+)(?:=[^}]*)?\}/g, (_m, name: string) => {
    const v = json[jsonOf(name)];
    // `usable` holds only bindings whose path fields are all non-empty strings.
    if (typeof v !== "string") throw new A2AError("InvalidParamsError", `missing path field ${name}`);
    delete rest[jsonOf(name)];
    return resourceNames.has(name) ? encodeResourceName(v) : encodeURIComponent(v);
  });
  const query = new URLSearchParams();
  if (b.body === "*") return { verb: b.verb, path, query, body: rest };
  let body: JsonValue | undefined;
  if (b.body) {
    body = rest[jsonOf(b.body)] ?? {};
    delete rest[jsonOf(b.body)];
  }
  // Every field that is neither in the path nor the body travels as a query parameter.
  for (const [k, v] of Object.entries(rest)) {
    if (v === null || v === undefined || (typeof v === "object" && !Array.isArray(v))) continue;
    // A list item that is itself an object (no A2A query field has one) is sent as its JSON.
    if (Array.isArray(v)) for (const item of v) query.append(k, typeof item === "object" ? JSON.stringify(item) : String(item));
    else query.append(k, String(v));
  }
  return body === undefined ? { verb: b.verb, path, query } : { verb: b.verb, path, query, body };
}
