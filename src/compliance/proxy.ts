// The rewriting proxy: sits in front of any A2A agent and rewrites its answers with the named
// rewrites of rewrites.ts (variants the spec allows, faults that break it), so a client or the
// compliance suite can be tried against another agent's choices or mistakes.
//
//   const proxy = await startProxy({ target: "http://agent:8080", variants: ["sse-crlf"] });
//   // point the client (or `a2a-toolkit test`) at proxy.url
//   await proxy.close();
//
// Requests are forwarded unchanged (only hop-by-hop headers and Accept-Encoding are not, so the
// proxy can read what comes back), unless a rewrite changes what is forwarded or answers in the
// agent's place. Non-streaming replies are read whole (bounded), rewritten and sent; SSE streams
// are rewritten event by event as they arrive (eventsource-parser), never buffered whole; an
// exchange no rewrite touches is relayed byte for byte. The agent card (and the extended card)
// always has its interface URLs pointed at the proxy, so clients stay behind it: that is not a
// rewrite, and it invalidates card signatures.
import { request as httpRequest, createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { createParser } from "eventsource-parser";
import { isPlainObject } from "./match.js";
import { HOP_BY_HOP } from "./http.js";
import { startGrpcProxy, type GrpcProxy } from "./grpc-proxy.js";
import { grpcRewriteNames } from "./grpc-rewrites.js";
import {
  appliesTo,
  selectRewrites,
  type Exchange,
  type Json,
  type Operation,
  type ProxyRequest,
  type ProxyVersion,
  type Reply,
  type Rewrite,
  type SseEvent,
} from "./rewrites.js";

export interface ProxyOptions {
  /** The agent's base URL (where its card is). */
  target: string;
  port?: number;
  host?: string;
  /** Variant names (rewrites.ts), applied in table order. */
  variants?: string[];
  /** Fault names (rewrites.ts), applied in table order. */
  faults?: string[];
  /** Largest request or non-streaming reply body read (default 16 MiB). */
  maxBodyBytes?: number;
  /** Things worth telling the user (a card interface the proxy cannot stand in front of …). */
  onNote?: (note: string) => void;
  /**
   * The agent's gRPC server (host:port, as its card's GRPC interfaces name it): an h2c proxy
   * (grpc-proxy.ts) stands in front of it, with the gRPC faults among `faults`, and the card's
   * interfaces at that address point at it.
   */
  grpcTarget?: string;
}

export interface RewritingProxy {
  url: string;
  /** host:port of the h2c proxy in front of `grpcTarget`. */
  grpcAddress?: string;
  rewrites: Rewrite[];
  /** How many requests, replies, stream heads and events each rewrite has changed so far. */
  changes(): Record<string, number>;
  close(): Promise<void>;
}

const CARD_PATH = /\/\.well-known\/agent(-card)?\.json$/;

const RPC_METHODS: Record<string, Operation> = {
  "message/send": "SendMessage",
  "message/stream": "SendStreamingMessage",
  "tasks/get": "GetTask",
  "tasks/cancel": "CancelTask",
  "tasks/resubscribe": "SubscribeToTask",
  "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs",
  "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
  "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
};
const OPERATIONS = new Set<string>([
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
]);

/** REST routes of both versions (0.3 under /v1, 1.0 with or without a tenant), matched on the path's end. */
const REST_ROUTES: [RegExp, RegExp, Operation][] = [
  [/^POST$/, /\/message:send$/, "SendMessage"],
  [/^POST$/, /\/message:stream$/, "SendStreamingMessage"],
  [/^POST$/, /\/tasks\/[^/]+:cancel$/, "CancelTask"],
  [/^(GET|POST)$/, /\/tasks\/[^/]+:subscribe$/, "SubscribeToTask"],
  [/^POST$/, /\/tasks\/[^/]+\/pushNotificationConfigs$/, "CreateTaskPushNotificationConfig"],
  [/^GET$/, /\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, "GetTaskPushNotificationConfig"],
  [/^GET$/, /\/tasks\/[^/]+\/pushNotificationConfigs$/, "ListTaskPushNotificationConfigs"],
  [/^DELETE$/, /\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, "DeleteTaskPushNotificationConfig"],
  [/^GET$/, /\/tasks\/[^/:]+$/, "GetTask"],
  [/^GET$/, /\/tasks$/, "ListTasks"],
  [/^GET$/, /\/(extendedAgentCard|card)$/, "GetExtendedAgentCard"],
];

/** A2A-Version of a request: header, else query; empty means 0.3; only Major.Minor counts. */
export function versionOf(headers: Record<string, string>, query: string): ProxyVersion | undefined {
  const raw = (headers["a2a-version"] ?? new URLSearchParams(query).get("A2A-Version") ?? "").trim();
  if (raw === "") return "0.3";
  const m = /^(\d+)\.(\d+)(\.\d+)?$/.exec(raw);
  const mm = m ? `${Number(m[1])}.${Number(m[2])}` : "";
  return mm === "1.0" || mm === "0.3" ? mm : undefined;
}

/**
 * Which binding and operation a request is. JSON-RPC: a POSTed 2.0 envelope, or any POST that is
 * no HTTP+JSON route (a malformed JSON-RPC request is still answered the JSON-RPC way).
 */
export function classify(req: ProxyRequest): Exchange {
  const version = versionOf(req.headers, req.query);
  const j = req.json;
  const route = REST_ROUTES.find(([method, path]) => method.test(req.method) && path.test(req.path));
  if (req.method === "POST" && ((isPlainObject(j) && j.jsonrpc === "2.0") || !route)) {
    const m = isPlainObject(j) && typeof j.method === "string" ? j.method : "";
    const operation = RPC_METHODS[m] ?? (OPERATIONS.has(m) ? (m as Operation) : undefined);
    return { version, binding: "json-rpc", operation, request: req };
  }
  if (req.method === "GET" && CARD_PATH.test(req.path)) return { version, binding: "card", operation: "AgentCard", request: req };
  return { version, binding: "rest", operation: route?.[2], request: req };
}

function flat(h: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function parseJson(text: string): Json | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** One SSE event as text: comments, event, id, data lines, then the blank line. */
export function serializeEvent(e: SseEvent): string {
  const lines = (e.comments ?? []).map((c) => `:${c}`);
  if (e.event !== undefined) lines.push(`event: ${e.event}`);
  if (e.id !== undefined) lines.push(`id: ${e.id}`);
  for (const d of e.data.split("\n")) lines.push(`data: ${d}`);
  const eol = e.eol ?? "\n";
  return lines.join(eol) + eol + eol;
}

/** Reads an SSE body incrementally: each complete event is passed through `rewrite` and written. */
class EventRewriter {
  private index = 0;
  private eol = "\n";
  private out: string[] = [];
  private readonly decoder = new TextDecoder();
  private readonly parser = createParser({
    onEvent: (m) => {
      const json = parseJson(m.data);
      const first: SseEvent = {
        data: m.data,
        ...(json !== undefined ? { json } : {}),
        ...(m.event ? { event: m.event } : {}),
        ...(m.id !== undefined ? { id: m.id } : {}),
      };
      for (const e of this.rewrite(first, this.index++)) {
        this.eol = e.eol ?? "\n";
        this.out.push(serializeEvent(e));
      }
    },
    // Comments and retry hints of the agent are relayed as they come (keep-alives keep their timing).
    onComment: (c) => this.out.push(`: ${c}${this.eol}`),
    onRetry: (ms) => this.out.push(`retry: ${ms}${this.eol}`),
  });

  constructor(private readonly rewrite: (e: SseEvent, index: number) => SseEvent[]) {}

  feed(chunk: Buffer): string {
    this.parser.feed(this.decoder.decode(chunk, { stream: true }));
    return this.out.splice(0).join("");
  }

  /** End of the agent's stream: an event it did not terminate with a blank line is still passed on. */
  end(): string {
    this.parser.feed(this.decoder.decode());
    this.parser.reset({ consume: true });
    return this.out.splice(0).join("");
  }
}

/** The card's interface URLs under the target's base URL, moved to the proxy's. */
export function pointCardAtProxy(
  card: Json,
  targetBase: string,
  proxyBase: string,
  note: (s: string) => void,
  grpc?: { target: string; address: string },
): Json {
  if (!isPlainObject(card)) return card;
  const move = (url: Json): Json => {
    if (typeof url !== "string") return url;
    if (grpc && url === grpc.target) return grpc.address;
    const u = url.replace(/\/+$/, "");
    if (u === targetBase || u.startsWith(`${targetBase}/`) || u.startsWith(`${targetBase}?`))
      return proxyBase + url.slice(targetBase.length);
    note(`the card declares ${url}, which is not under --target ${targetBase}: clients using it bypass the proxy`);
    return url;
  };
  const moveAll = (list: Json | undefined) =>
    Array.isArray(list) ? list.map((i) => (isPlainObject(i) && "url" in i ? { ...i, url: move(i.url) } : i)) : list;
  const out: { [k: string]: Json } = { ...card };
  if (Array.isArray(out.supportedInterfaces)) out.supportedInterfaces = moveAll(out.supportedInterfaces) as Json[];
  if (typeof out.url === "string") out.url = move(out.url);
  if (Array.isArray(out.additionalInterfaces)) out.additionalInterfaces = moveAll(out.additionalInterfaces) as Json[];
  return out;
}

function errorReply(ex: Exchange | undefined, status: number, message: string): Reply {
  const j = ex?.request.json;
  if (ex?.binding === "json-rpc" && isPlainObject(j))
    return {
      status,
      headers: { "content-type": "application/json" },
      body: { jsonrpc: "2.0", id: j.id ?? null, error: { code: -32603, message } },
    };
  const grpc = status === 502 ? "UNAVAILABLE" : "INVALID_ARGUMENT";
  return { status, headers: { "content-type": "application/json" }, body: { error: { code: status, status: grpc, message } } };
}

class TooLarge extends Error {}

async function readBody(stream: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    size += c.length;
    if (size > limit) throw new TooLarge(`body larger than ${limit} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

export async function startProxy(opts: ProxyOptions): Promise<RewritingProxy> {
  const grpcNames = new Set(grpcRewriteNames());
  const grpcFaults = (opts.faults ?? []).filter((f) => grpcNames.has(f));
  if (grpcFaults.length && !opts.grpcTarget)
    throw new Error(`${grpcFaults.join(", ")}: gRPC faults need the agent's gRPC address (grpcTarget)`);
  const rewrites = selectRewrites(
    opts.variants,
    opts.faults?.filter((f) => !grpcNames.has(f)),
  );
  const target = new URL(opts.target);
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new Error(`--target must be an http(s) URL, got "${opts.target}"`);
  const targetBase = target.toString().replace(/\/+$/, "");
  const targetPath = target.pathname.replace(/\/+$/, "");
  const limit = opts.maxBodyBytes ?? 16 * 1024 * 1024;
  const notes = new Set<string>();
  const note = (s: string) => {
    if (notes.has(s)) return;
    notes.add(s);
    opts.onNote?.(s);
  };
  let proxyBase = "";
  const grpc: GrpcProxy | undefined = opts.grpcTarget
    ? await startGrpcProxy({ target: opts.grpcTarget, faults: grpcFaults, host: opts.host ?? "127.0.0.1" })
    : undefined;
  const session = new Map<string, string>();
  const changed = new Map(rewrites.map((r) => [r.name, 0]));
  /** Counts what each rewrite actually changed (a rewrite returns its input when it has nothing to do). */
  const bump = (r: Rewrite) => changed.set(r.name, (changed.get(r.name) ?? 0) + 1);
  const tally = <T>(r: Rewrite, before: T, after: T): T => {
    if (after !== before) bump(r);
    return after;
  };

  const send = (res: ServerResponse, reply: Reply, original?: { body: Json | undefined; text: string }) => {
    const text =
      original && reply.body === original.body ? original.text : reply.body !== undefined ? JSON.stringify(reply.body) : (reply.text ?? "");
    const headers = { ...reply.headers };
    delete headers["content-length"];
    res.writeHead(reply.status, { ...headers, "content-length": String(Buffer.byteLength(text)) });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const [path, query = ""] = (req.url ?? "/").split(/\?(.*)/s, 2) as [string, string?];
    const headers = flat(req.headers);
    if (!path.startsWith("/"))
      return send(res, errorReply(undefined, 400, "a2a-toolkit proxy: only origin-form request targets (/path) are relayed"));
    let bodyText: string;
    try {
      bodyText = (await readBody(req, limit)).toString("utf8");
    } catch (e) {
      if (!(e instanceof TooLarge)) throw e;
      return send(res, errorReply(undefined, 413, `a2a-toolkit proxy: request ${e.message}`));
    }
    const json = parseJson(bodyText);
    const received: ProxyRequest = {
      method: req.method ?? "GET",
      path,
      query,
      headers,
      body: bodyText,
      ...(json !== undefined ? { json } : {}),
    };
    const asked: Exchange = { ...classify(received), session };
    const active = rewrites.filter((r) => appliesTo(r, asked));
    // A rewrite may answer in the agent's place; otherwise the request rewrites shape what is forwarded.
    const answering = active.find((r) => r.answer?.(asked));
    let forward = received;
    if (!answering) for (const r of active) if (r.request) forward = tally(r, forward, r.request(forward, asked));
    const ex: Exchange = { ...asked, request: forward };
    const finish = (reply: Reply, original?: { body: Json | undefined; text: string }) => {
      let out = reply;
      for (const r of active) if (r.reply) out = tally(r, out, r.reply(out, ex));
      if ((ex.binding === "card" || ex.operation === "GetExtendedAgentCard") && out.status === 200 && out.body !== undefined) {
        const rpc = ex.binding === "json-rpc" && isPlainObject(out.body);
        const card = rpc ? (out.body as { [k: string]: Json }).result : out.body;
        const moved =
          card === undefined
            ? card
            : pointCardAtProxy(
                card,
                targetBase,
                proxyBase,
                note,
                grpc && opts.grpcTarget ? { target: opts.grpcTarget, address: grpc.address } : undefined,
              );
        if (moved !== undefined && moved !== card)
          out = { ...out, body: rpc ? { ...(out.body as { [k: string]: Json }), result: moved } : moved };
      }
      send(res, out, original);
    };

    if (answering) {
      bump(answering);
      return finish(answering.answer!(asked)!);
    }

    const outHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(forward.headers)) if (!HOP_BY_HOP.has(k) && k !== "accept-encoding") outHeaders[k] = v;
    if (forward.body) outHeaders["content-length"] = String(Buffer.byteLength(forward.body));
    // Built as text: a path such as "//elsewhere/x" must stay a path on the target, never name another host.
    const upstreamUrl = new URL(`${target.origin}${targetPath}${forward.path}${forward.query ? `?${forward.query}` : ""}`);
    let upstream: IncomingMessage;
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    try {
      upstream = await new Promise<IncomingMessage>((resolve, reject) => {
        const call = (upstreamUrl.protocol === "https:" ? httpsRequest : httpRequest)(upstreamUrl, {
          method: forward.method,
          headers: outHeaders,
          signal: controller.signal,
        });
        call.on("response", resolve).on("error", reject);
        call.end(forward.body || undefined);
      });
    } catch (e) {
      if (controller.signal.aborted) return;
      return finish(errorReply(ex, 502, `a2a-toolkit proxy: could not reach ${targetBase}: ${(e as Error).message}`));
    }
    const upHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(flat(upstream.headers))) if (!HOP_BY_HOP.has(k)) upHeaders[k] = v;
    const status = upstream.statusCode ?? 502;

    if ((upHeaders["content-type"] ?? "").toLowerCase().startsWith("text/event-stream")) {
      let head = { status, headers: upHeaders };
      for (const r of active) if (r.streamHead) head = tally(r, head, r.streamHead(head, ex));
      res.writeHead(head.status, head.headers);
      const eventRewrites = active.filter((r) => r.event);
      const cutting = active.find((r) => r.endsAfter);
      let cut = false;
      const rewriter =
        eventRewrites.length || cutting
          ? new EventRewriter((first, index) => {
              if (cut) return [];
              const events = eventRewrites.reduce<SseEvent[]>(
                (list, r) =>
                  list.flatMap((e) => {
                    const out = r.event!(e, ex, index);
                    if (out.length !== 1 || out[0] !== e) bump(r);
                    return out;
                  }),
                [first],
              );
              const at = cutting ? events.findIndex((e) => cutting.endsAfter!(e, ex)) : -1;
              if (at < 0) return events;
              cut = true;
              bump(cutting!);
              return events.slice(0, at + 1);
            })
          : undefined;
      try {
        for await (const chunk of upstream as AsyncIterable<Buffer>) {
          const text = rewriter ? rewriter.feed(chunk) : chunk;
          if (text.length && !res.write(text)) await new Promise<void>((r) => res.once("drain", r).once("close", r));
          if (res.destroyed) return;
          if (cut) {
            // The stream ends here for the client; what the agent sends later is not read.
            upstream.destroy();
            return void res.end();
          }
        }
        const tail = rewriter?.end();
        const holding = active.find((r) => r.holdOpen);
        if (!holding) return void res.end(tail || undefined);
        // The agent has ended the stream; the client is never told (it hangs up, or the proxy closes).
        if (tail) res.write(tail);
        bump(holding);
      } catch {
        res.destroy(); // the agent cut the stream: so does the proxy
      }
      return;
    }

    let raw: Buffer;
    try {
      raw = await readBody(upstream as AsyncIterable<Buffer>, limit);
    } catch (e) {
      if (e instanceof TooLarge) return finish(errorReply(ex, 502, `a2a-toolkit proxy: the agent's reply is a ${e.message}`));
      throw e;
    }
    const text = raw.toString("utf8");
    const body = parseJson(text);
    if (body === undefined && !active.some((r) => r.reply)) {
      res.writeHead(status, { ...upHeaders, "content-length": String(raw.length) });
      return res.end(raw);
    }
    finish({ status, headers: upHeaders, ...(body !== undefined ? { body } : { text }) }, { body, text });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) return res.destroy();
      send(res, errorReply(undefined, 502, `a2a-toolkit proxy: ${(e as Error).message}`));
    });
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  proxyBase = `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
  return {
    url: proxyBase,
    ...(grpc ? { grpcAddress: grpc.address } : {}),
    rewrites,
    changes: () => ({ ...Object.fromEntries(changed), ...grpc?.changes() }),
    close: async () => {
      await grpc?.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
