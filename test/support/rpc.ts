// One JSON-RPC 2.0 call over HTTP, for tests and benchmarks that talk to a server directly.
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
