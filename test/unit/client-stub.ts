// Stubbed HTTP for client unit tests: a fetch that records requests and answers from a handler.
import { urlOf } from "../support/fetch-input.js";

export interface Seen {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

export type Handler = (req: Seen, n: number) => Response | Promise<Response>;

export function stubFetch(handler: Handler): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const f = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const signal = init?.signal;
    if (signal?.aborted) throw signal.reason;
    const req: Seen = {
      method: init?.method ?? "GET",
      url: new URL(urlOf(input)),
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    };
    seen.push(req);
    const res = await new Promise<Response>((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      Promise.resolve(handler(req, seen.length - 1)).then(resolve, reject);
    });
    return echoId(res, (req.body as { id?: unknown } | undefined)?.id);
  };
  return { fetch: f, seen };
}

/** JSON-RPC replies of the stubs say `"id": "$id"`; the request's id is put there, as a server would. */
export const ECHO_ID = "$id";

function echoId(res: Response, id: unknown): Response {
  if (id === undefined || !(res.headers.get("content-type") ?? "").includes("application/json")) return res;
  const body = res.text().then((t) => t.replaceAll(JSON.stringify(ECHO_ID), JSON.stringify(id)));
  return new Response(
    new ReadableStream({
      async start(c) {
        c.enqueue(new TextEncoder().encode(await body));
        c.close();
      },
    }),
    { status: res.status, headers: res.headers },
  );
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** An SSE response from raw text chunks; `fail` errors the body after the chunks (a dropped connection). */
export function sse(chunks: string[], opts: { fail?: boolean } = {}): Response {
  const enc = new TextEncoder();
  let i = 0;
  // Pull-based, so every chunk is read before the error (error() would discard queued chunks).
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) c.enqueue(enc.encode(chunks[i++]));
      else if (opts.fail) c.error(new TypeError("terminated", { cause: { code: "ECONNRESET" } }));
      else c.close();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

export const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

export function card(interfaces: { url: string; protocolBinding: string; protocolVersion: string; tenant?: string }[], extra: object = {}) {
  return {
    name: "stub agent",
    description: "a stub",
    version: "1",
    supportedInterfaces: interfaces,
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s", name: "s", description: "s", tags: ["t"] }],
    ...extra,
  };
}

export const RPC = "http://agent.test/rpc";
export const REST = "http://agent.test/rest";

export function task(id: string, state: string, extra: object = {}) {
  return { id, contextId: "ctx", status: { state }, ...extra };
}
