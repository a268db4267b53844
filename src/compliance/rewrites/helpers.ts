// Helpers the rewrites of more than one file of the table use: over parsed JSON, over the payload
// of a reply or SSE event, and the spec sentences several rewrites quote. All return new values.
import { isPlainObject } from "../match.js";
import type { Citation, Exchange, Json, JsonObject, Rewrite } from "./types.js";

/** Rebuilds `v` with `f` applied to every object, children first. */
export function mapObjects(v: Json, f: (o: JsonObject) => JsonObject): Json {
  if (Array.isArray(v)) {
    const out = v.map((x) => mapObjects(x, f));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (!isPlainObject(v)) return v;
  const entries = Object.entries(v);
  const mapped = entries.map(([k, x]) => [k, mapObjects(x, f)] as const);
  return f(mapped.some(([, x], i) => x !== entries[i]?.[1]) ? Object.fromEntries(mapped) : v);
}

export const isObj = (v: unknown): v is JsonObject => isPlainObject(v);

/** The error object of a JSON-RPC envelope or a google.rpc.Status body ({error: …}). */
export function errorOf(body: Json | undefined): JsonObject | undefined {
  return isObj(body) && isObj(body.error) ? body.error : undefined;
}

/** The ErrorInfo reason of an error (REST `details`, JSON-RPC `data`). */
export function reasonOf(error: JsonObject): string | undefined {
  const list = Array.isArray(error.details) ? error.details : Array.isArray(error.data) ? error.data : [];
  const info = list.find((d) => isObj(d) && d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");
  return isObj(info) && typeof info.reason === "string" ? info.reason : undefined;
}

export const withError = (body: JsonObject, error: JsonObject): JsonObject => ({ ...body, error });

/** One rewrite of every JSON body: non-streaming replies and each SSE event's JSON. */
export function bodies(f: (json: Json, ex: Exchange) => Json): Pick<Rewrite, "reply" | "event"> {
  return {
    reply: (r, ex) => (r.body === undefined ? r : { ...r, body: f(r.body, ex) }),
    event: (e, ex) => {
      if (e.json === undefined) return [e];
      const json = f(e.json, ex);
      return [json === e.json ? e : { ...e, json, data: JSON.stringify(json) }];
    },
  };
}

export function setQuery(query: string, name: string, value: string): string {
  const q = new URLSearchParams(query);
  q.set(name, value);
  return q.toString();
}

export const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,3}))?Z$/;

/** The protocol object of a reply or event: a JSON-RPC result, else a REST body that is no error. */
export function onPayload(f: (payload: JsonObject, ex: Exchange) => JsonObject): Pick<Rewrite, "reply" | "event"> {
  return bodies((j, ex) => {
    if (!isObj(j)) return j;
    if (ex.binding === "json-rpc") {
      if (!isObj(j.result)) return j;
      const result = f(j.result, ex);
      return result === j.result ? j : { ...j, result };
    }
    return errorOf(j) ? j : f(j, ex);
  });
}

const WRAPPERS = ["task", "message", "statusUpdate", "artifactUpdate"] as const;

/** The Task, Message or event a payload carries: under its 1.0 (and 0.3 HTTP+JSON) wrapper member, else the payload itself. */
export function inner(payload: JsonObject): { key?: string; obj: JsonObject } {
  const key = WRAPPERS.find((k) => isObj(payload[k]));
  return key ? { key, obj: payload[key] as JsonObject } : { obj: payload };
}

/** A Task object: the only objects with `id`, `contextId` and `status`. */
export const isTask = (o: JsonObject) => typeof o.id === "string" && isObj(o.status) && "contextId" in o;

// ---- sentences several rewrites quote ----

export const V100_5_4 = (row: string): Citation => ({ version: "1.0.0", section: "5.4", quote: row });
export const PATCH: Citation = {
  version: "1.0.1",
  section: "3.6",
  quote: "Patch version numbers used by the specification, do not affect protocol compatibility.",
};
export const V03_DATA: Citation = {
  version: "0.3.0",
  section: "11.1.5",
  quote: "A2A data objects: MUST use the data structures defined in [Section 6](#6-protocol-data-objects) for all protocol entities.",
};
export const V1_REQUIRED: Citation = {
  version: "1.0.1",
  section: "5.7",
  quote: "Fields marked with [(google.api.field_behavior) = REQUIRED] indicate that the field MUST be present and set in valid messages.",
};
/** spec/a2a.proto is normative for 1.0: its messages (which have no `kind` member), its HTTP annotations. */
export const A2A_PROTO: Citation = {
  version: "1.0.1",
  section: "1.4",
  quote:
    "In addition to the protocol requirements defined in this document, the file spec/a2a.proto is the single authoritative normative definition of all protocol data objects and request/response messages.",
};
