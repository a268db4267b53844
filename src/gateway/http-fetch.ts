// A small `fetch` over node:http(s) with keep-alive agents, for the gateway's calls to its
// backends. Node 20's built-in fetch (undici behind WHATWG streams) costs about a millisecond of
// CPU per request, which under load is most of the gateway's own cost; this one hands the reference
// client a `Response`: a real one with a stream for `text/event-stream`, else a BufferedResponse
// (the answer read whole, with the Response members the client uses).
//
// It covers what the reference client uses: method, headers, a string body, an AbortSignal. Not
// redirects, not credentials modes, not request streams.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

export interface HttpFetchOptions {
  /** Keep-alive sockets per backend origin (default: unlimited). */
  maxSockets?: number;
  /** Bytes of one answer read whole (not a stream); more ends the read (default 16 MiB). */
  maxAnswerBytes?: number;
  /** Bytes of one SSE event (between blank lines); more ends the stream (default 16 MiB). */
  maxEventBytes?: number;
  /** Bytes of one SSE stream in all; more ends it (default 256 MiB). */
  maxStreamBytes?: number;
}

export const DEFAULT_BACKEND_LIMITS = { maxAnswerBytes: 16 * 2 ** 20, maxEventBytes: 16 * 2 ** 20, maxStreamBytes: 256 * 2 ** 20 };

/** A backend's answer passed one of the byte limits above: the read was stopped, nothing of it kept. */
export class BackendAnswerTooLargeError extends Error {
  constructor(what: string, limit: number, option: keyof HttpFetchOptions) {
    super(`The backend's ${what} exceeded this gateway's limit of ${limit} bytes (${option}); the rest was not read.`);
    this.name = "BackendAnswerTooLargeError";
  }
}

/** The BackendAnswerTooLargeError behind `e` (the client wraps what fetch throws), if any. */
export function answerTooLarge(e: unknown): BackendAnswerTooLargeError | undefined {
  for (let x = e, i = 0; x instanceof Error && i < 5; x = x.cause, i++) if (x instanceof BackendAnswerTooLargeError) return x;
  return undefined;
}

/** `res` with its bytes counted: past `maxStreamBytes`, or an event (text between blank lines) past `maxEventBytes`, it is destroyed with the error. */
function boundedStream(res: IncomingMessage, maxEventBytes: number, maxStreamBytes: number): Readable {
  let total = 0;
  // The open event's bytes so far, and its last bytes (a blank line may span two chunks).
  let open = 0;
  let tail = "";
  res.on("data", (c: Buffer) => {
    total += c.length;
    const events = (tail + c.toString("latin1")).split(/\r?\n\r?\n/);
    const longest = Math.max(open + events[0]!.length - tail.length, ...events.slice(1).map((e) => e.length));
    open = events.length > 1 ? events.at(-1)!.length : open + c.length;
    tail = events.at(-1)!.slice(-3);
    if (total > maxStreamBytes) res.destroy(new BackendAnswerTooLargeError("stream", maxStreamBytes, "maxStreamBytes"));
    else if (longest > maxEventBytes) res.destroy(new BackendAnswerTooLargeError("stream event", maxEventBytes, "maxEventBytes"));
  });
  return res;
}

export function createHttpFetch(opts: HttpFetchOptions = {}): typeof fetch & { close(): void } {
  const maxAnswerBytes = opts.maxAnswerBytes ?? DEFAULT_BACKEND_LIMITS.maxAnswerBytes;
  const maxEventBytes = opts.maxEventBytes ?? DEFAULT_BACKEND_LIMITS.maxEventBytes;
  const maxStreamBytes = opts.maxStreamBytes ?? DEFAULT_BACKEND_LIMITS.maxStreamBytes;
  const agentOptions = { keepAlive: true, maxSockets: opts.maxSockets ?? Infinity, scheduling: "lifo" as const };
  const http = new HttpAgent(agentOptions);
  const https = new HttpsAgent(agentOptions);

  const impl = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (typeof input !== "string" && !(input instanceof URL)) return fetch(input, init);
    const url = typeof input === "string" ? new URL(input) : input;
    const secure = url.protocol === "https:";
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== "string") return fetch(input, init);
    if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
    const signal = init.signal ?? undefined;
    const attempt = (retry: boolean): Promise<Response> =>
      new Promise<Response>((resolve, reject) => {
        if (signal?.aborted) return reject(abortError(signal));
        const req = (secure ? httpsRequest : httpRequest)(url, { method: init.method ?? "GET", headers, agent: secure ? https : http });
        const onAbort = () => req.destroy(abortError(signal!) as Error);
        signal?.addEventListener("abort", onAbort, { once: true });
        const done = () => signal?.removeEventListener("abort", onAbort);
        let answered = false;
        req.on("error", (e: NodeJS.ErrnoException) => {
          done();
          // A kept-alive socket the server closed just as it was reused: the request never reached
          // the server, so one retry on a fresh socket is safe (node:http documents this race).
          if (retry && !answered && req.reusedSocket && (e.code === "ECONNRESET" || e.code === "EPIPE")) return resolve(attempt(false));
          reject(e instanceof TypeError || signal?.aborted ? e : new TypeError("fetch failed", { cause: e }));
        });
        req.on("response", (res: IncomingMessage) => {
          answered = true;
          const status = res.statusCode ?? 0;
          const responseHeaders = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v === undefined) continue;
            for (const x of Array.isArray(v) ? v : [v]) responseHeaders.append(k, x);
          }
          const nullBody = status === 204 || status === 304 || init.method === "HEAD";
          if (nullBody) {
            res.resume();
            done();
            return resolve(new Response(null, { status, headers: responseHeaders }));
          }
          if ((res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
            res.on("close", done);
            const body = Readable.toWeb(boundedStream(res, maxEventBytes, maxStreamBytes)) as ReadableStream;
            return resolve(new Response(body, { status, headers: responseHeaders }));
          }
          const chunks: Buffer[] = [];
          let bytes = 0;
          res.on("data", (c: Buffer) => {
            bytes += c.length;
            if (bytes <= maxAnswerBytes) return void chunks.push(c);
            chunks.length = 0;
            res.destroy(new BackendAnswerTooLargeError("answer", maxAnswerBytes, "maxAnswerBytes"));
          });
          res.on("error", (e) => {
            done();
            reject(e);
          });
          res.on("end", () => {
            done();
            resolve(new BufferedResponse(Buffer.concat(chunks), status, res.statusMessage ?? "", responseHeaders) as unknown as Response);
          });
        });
        req.end(body ?? undefined);
      });
    return attempt(true);
  };
  return Object.assign(impl, {
    close() {
      http.destroy();
      https.destroy();
    },
  });
}

/**
 * An answer already read whole: the parts of `Response` the reference client reads (status, ok,
 * statusText, headers, text, json, arrayBuffer, a null body), without a web stream per answer.
 */
class BufferedResponse {
  readonly body = null;
  readonly bodyUsed = false;
  readonly redirected = false;
  readonly type = "basic";
  constructor(
    private readonly buf: Buffer,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
  ) {}
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }
  async text(): Promise<string> {
    return this.buf.toString("utf8");
  }
  async json(): Promise<unknown> {
    return JSON.parse(this.buf.toString("utf8"));
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.buf.buffer.slice(this.buf.byteOffset, this.buf.byteOffset + this.buf.byteLength) as ArrayBuffer;
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
