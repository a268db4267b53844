// The default ClientWire. TEMPORARY: a 1.0-only implementation over the generated 1.0 tables,
// until src/versioning's client seam lands; then this file only adapts that seam.
import type { JsonObject } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decode, encode } from "../runtime/protojson.js";
import { A2AError, fromJsonRpcError, fromRestError } from "../versioning/errors.js";
import { OPERATIONS, type ClientWire, type Operation, type ResponseOf, type Target, type WireEvent, type WireRequest } from "./wire.js";

let nextId = 1;

function encodeRest(target: Target, op: Operation, json: JsonObject, headers: Record<string, string>): WireRequest {
  const info = v1_0.methods.find((m) => m.operation === op)!;
  const withTenant = !!json.tenant;
  const binding = info.http.find((b) => b.pathParams.includes("tenant") === withTenant) ?? info.http[0];
  const rest = { ...json };
  let path = binding.template.replace(/\{([^}=]+)(?:=[^}]*)?\}/g, (_m, name: string) => {
    const key = name.replace(/_([a-z])/g, (_s, c: string) => c.toUpperCase());
    const v = String(rest[key] ?? "");
    delete rest[key];
    return encodeURIComponent(v);
  });
  const base = target.url.replace(/\/+$/, "");
  if (binding.body === "") {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) if (v !== null && typeof v !== "object") q.set(k, String(v));
    const qs = q.toString();
    if (qs) path += `?${qs}`;
    return { method: binding.verb, url: base + path, headers };
  }
  return {
    method: binding.verb,
    url: base + path,
    headers: { ...headers, "content-type": "application/a2a+json" },
    body: JSON.stringify(rest),
  };
}

function unsupported0_3(): never {
  throw new A2AError("UnsupportedOperationError", "A2A 0.3 is not available in this build of the client");
}

export const defaultWire: ClientWire = {
  encode(target, op, request, extensions) {
    if (target.version !== "1.0") unsupported0_3();
    const json = encode(OPERATIONS[op].request, request as never, { alwaysEmit: v1_0.alwaysEmit }) as JsonObject;
    const headers: Record<string, string> = {
      "A2A-Version": "1.0",
      accept: OPERATIONS[op].streaming ? "text/event-stream" : "application/json",
    };
    if (extensions.length) headers["A2A-Extensions"] = extensions.join(",");
    if (target.binding === "HTTP+JSON") return encodeRest(target, op, json, headers);
    return {
      method: "POST",
      url: target.url,
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: op, params: json }),
    };
  },
  decode<O extends Operation>(target: Target, op: O, res: { status: number; json: unknown }): ResponseOf<O> {
    if (target.binding === "JSONRPC") {
      const env = res.json as { result?: unknown; error?: { code: number; message?: string; data?: unknown } };
      if (env?.error) throw fromJsonRpcError(env.error);
      return decode(OPERATIONS[op].response, env?.result ?? {}) as ResponseOf<O>;
    }
    if (res.status >= 400) throw fromRestError(res.status, res.json);
    return decode(OPERATIONS[op].response, res.json ?? {}) as ResponseOf<O>;
  },
  decodeEvent(target, _op, data): WireEvent {
    if (target.binding === "JSONRPC") {
      const env = data as { result?: unknown; error?: { code: number; message?: string; data?: unknown } };
      if (env?.error) return { error: fromJsonRpcError(env.error) };
      return { event: decode(v1_0.StreamResponseSchema, env?.result) };
    }
    const d = data as { error?: unknown };
    if (d && typeof d === "object" && "error" in d) return { error: fromRestError(500, d) };
    return { event: decode(v1_0.StreamResponseSchema, data) };
  },
  parseCard(json) {
    const o = json as Record<string, unknown>;
    if (!o || typeof o !== "object" || !Array.isArray(o.supportedInterfaces)) {
      if (o && typeof o === "object" && typeof o.url === "string") unsupported0_3();
      throw new Error("not an agent card (no supportedInterfaces)");
    }
    return decode(v1_0.AgentCardSchema, json);
  },
};
