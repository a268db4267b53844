// One JSON-RPC 2.0 call, for tests and benchmarks that talk to a server directly: over HTTP
// (postRpc), or through fastify's inject without a socket (injectRpc).
import type { FastifyInstance } from "fastify";

let rpcId = 0;

/** POSTs one JSON-RPC request (a fresh numeric id) to `url` and reads the answer as JSON. */
export async function postRpc<T = unknown>(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: T }> {
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** The call through `app.inject` (no socket); content-type JSON and A2A-Version 1.0 unless `headers` say otherwise. */
export async function injectRpc(app: FastifyInstance, method: string, params: unknown, headers: Record<string, string> = {}, url = "/") {
  const res = await app.inject({
    method: "POST",
    url,
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    payload: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  // JSON.parse's any: the unit tests read into the reply freely.
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) };
}
