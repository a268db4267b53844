// The node:http adapter of the reference server: a `(req, res)` listener for http.createServer (or
// any server emitting node's 'request' event) that carries requests into the front (front.ts) and
// its replies and SSE streams out. `createA2AHttpServer` is the node:http twin of buildServer: the
// listener on a server with the same timeouts, per-address connection limit and A2A-shaped answers
// to malformed HTTP (http-limits.ts). The writing helpers are shared with the fastify adapter.
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { HttpReply } from "../../transport/server.js";
import { createFront, type A2AHandlerServeOptions, type A2AServeOptions, type Front, type FrontStream } from "../front/front.js";
import {
  a2aNodeServerOptions,
  a2aClientErrorHandler,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  endSocket,
  isOverConnectionLimit,
  limitConnectionsPerAddress,
  type HttpLimitOptions,
} from "../front/http-limits.js";
import type { Logger } from "../engine/runtime.js";
import type { BudgetHold } from "../front/stream-budget.js";

interface ListenerMount {
  /** Mount point of the A2A routes (default: the root); other paths get MethodNotFound. */
  prefix?: string;
  /** Where unexpected errors are logged (default: the console). */
  logger?: Logger;
}

export interface A2ARequestListenerOptions extends A2AServeOptions<IncomingMessage>, ListenerMount {}
/** The listener's options for serving an A2AHandler rather than an agent. */
export interface A2AHandlerListenerOptions extends A2AHandlerServeOptions<IncomingMessage>, ListenerMount {}

export type A2ARequestListener = RequestListener & {
  /** Ends the runtime's tasks and open streams (the one it built; a given `runtime` is the caller's). */
  close(): Promise<void>;
};

/** A node:http request listener serving `agent` over A2A 1.0 and 0.3, JSON-RPC and HTTP+JSON. */
export function a2aRequestListener(options: A2ARequestListenerOptions | A2AHandlerListenerOptions): A2ARequestListener {
  const front = createFront<IncomingMessage>(options);
  const turnEnd = new TurnEnd();
  // serve() answers every failure itself; a throw from writing (a socket gone mid-write) ends the response.
  const listener: RequestListener = (req, res) => void serve(front, turnEnd, req, res).catch(() => res.destroy());
  return Object.assign(listener, { close: () => front.close() });
}

/** A node:http server with the A2A listener and the limits of http-limits.ts; `close()` also ends the runtime. */
export function createA2AHttpServer(options: (A2ARequestListenerOptions | A2AHandlerListenerOptions) & HttpLimitOptions): http.Server {
  const listener = a2aRequestListener(options);
  const server = http.createServer(a2aNodeServerOptions(options), listener);
  server.on("clientError", a2aClientErrorHandler({ prefix: options.prefix, versions: options.versions }));
  limitConnectionsPerAddress(server, Math.max(1, Math.floor(options.maxConnectionsPerAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS)));
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    // Like fastify's preClose: open streams end before the connections are closed.
    void listener.close().finally(() => {
      close(cb);
      server.closeAllConnections();
    });
    return server;
  };
  return server;
}

async function serve(front: Front<IncomingMessage>, turnEnd: TurnEnd, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  const request = { url, headers: req.headers };
  if (!guard(front, req, res, request)) return;
  let body: Buffer | undefined;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const hold = front.streamBudget.hold();
    const read = await readBody(req, front.bodyLimit, hold);
    if (read === "too large" || read === "over budget") {
      hold.release();
      const r = read === "too large" ? front.tooLarge(request) : front.overBudget(request);
      return sendReply(res, { ...r, headers: { ...r.headers, connection: "close" } }, () => endSocket(req.socket));
    }
    // The body's bytes stay counted until the answer is under way (a stream counts its own).
    res.once("close", () => hold.release());
    res.once("finish", () => hold.release());
    if (read === "aborted") return;
    body = read;
  }
  const encrypted = (req.socket as TLSSocket).encrypted === true;
  const closed = new CloseSignal(res);
  const turnOver = turnEnd.wait();
  const r = await front.handle({
    method: req.method ?? "GET",
    url,
    headers: req.headers,
    body,
    origin: `${encrypted ? "https" : "http"}://${req.headers.host ?? "localhost"}`,
    clientAddress: req.socket.remoteAddress ?? "",
    // A getter: the signal is made only if something reads it (CloseSignal).
    get signal() {
      return closed.signal;
    },
    raw: req,
  });
  if (r.kind === "reply") await turnOver;
  await send(res, r);
}

/**
 * Refuses a connection beyond its address's limit (429) and times the body (408, `bodyTimeoutMs`
 * after the headers); false when the request was answered. `takeOver` runs before the adapter
 * writes to `res` itself (fastify: reply.hijack()).
 */
export function guard<Req>(
  front: Front<Req>,
  req: IncomingMessage,
  res: ServerResponse,
  request: { url: string; headers: IncomingMessage["headers"] },
  takeOver: () => void = () => {},
): boolean {
  if (isOverConnectionLimit(req.socket)) {
    takeOver();
    const r = front.tooManyConnections(request);
    sendReply(res, { ...r, headers: { ...r.headers, connection: "close" } });
    return false;
  }
  if (front.bodyTimeoutMs > 0 && !req.complete) timeBody({ front, req, res, request, takeOver });
  return true;
}

/** The request a connection's body timer judges: its latest (the ones before it are complete). */
interface TimedBody {
  front: Front<unknown>;
  req: IncomingMessage;
  res: ServerResponse;
  request: { url: string; headers: IncomingMessage["headers"] };
  takeOver: () => void;
}

const bodyTimers = new WeakMap<Socket, { timer: NodeJS.Timeout; current: TimedBody }>();

/**
 * One body timer per HTTP/1.1 connection, re-armed (refresh) for each request on it rather than a
 * timer and two listeners made per request: requests on such a connection come one after another,
 * and when the timer fires it answers 408 only if the latest one's body is still incomplete and
 * nothing was sent. It never holds the process open, and ends with the connection. HTTP/2 streams
 * (a fastify app with `http2`) run side by side on one connection, but node gives each its own
 * `req.socket` (a proxy of the stream), so each has its own timer (tested).
 */
function timeBody(body: TimedBody): void {
  const socket = body.req.socket;
  const held = bodyTimers.get(socket);
  if (held && held.current.front === body.front) {
    held.current = body;
    held.timer.refresh();
    return;
  }
  if (held) clearTimeout(held.timer);
  const entry = {
    current: body,
    timer: setTimeout(() => bodyTimedOut(entry.current), body.front.bodyTimeoutMs).unref(),
  };
  bodyTimers.set(socket, entry);
  if (!held) socket.once("close", () => clearTimeout(bodyTimers.get(socket)?.timer));
}

/** 408 for a body still incomplete when its time is up, unless the request was answered meanwhile. */
function bodyTimedOut({ front, req, res, request, takeOver }: TimedBody): void {
  if (req.complete || res.headersSent || res.destroyed) return;
  takeOver();
  const r = front.bodyTimedOut(request);
  sendReply(res, { ...r, headers: { ...r.headers, connection: "close" } }, () => endSocket(req.socket));
}

/**
 * The AbortSignal of a response, aborted when it closes before it finished (the client went away).
 * Made when first read, and only then listening: only streams read it, and an AbortController (or
 * a 'close' listener) per blocking request costs CPU under load (3 % for the controller in a CPU
 * profile of bench/server.ts --stores).
 */
export class CloseSignal {
  private controller: AbortController | undefined;

  constructor(private readonly res: ServerResponse) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      const res = this.res;
      const gone = () => !res.writableFinished;
      if (res.destroyed) {
        if (gone()) controller.abort();
      } else res.once("close", () => gone() && controller.abort());
    }
    return this.controller.signal;
  }
}

/**
 * Time a stream's last bytes have to be taken by the client after its end (a stream cut by the
 * budget, stream-budget.ts, ends behind what the client has not read); then the connection is closed.
 */
export const STREAM_END_GRACE_MS = 10_000;

/**
 * Resolves in the check phase of this event-loop turn (setImmediate), once for all the requests
 * handed to the front in the turn. Both adapters ask for it as they hand a request over and write
 * the reply when both are there: a reply ready within the turn (the memory store's) waits for its
 * end, so the replies to the requests one poll read leave back to back; a reply ready later (after
 * the SQLite store's group commit, itself at the end of the turn, or after an agent's own I/O) goes
 * at once. Written one by one, between the handling of one request and the next, each reply woke a
 * client that had gone back to waiting: over loopback at 50 connections that wake-up was most of
 * the 16 µs a reply's writev took, a third of the server's time per blocking send. Written together,
 * one wake-up serves many replies (bench/README.md, "Replies written at the end of the turn").
 */
export class TurnEnd {
  private pending: Promise<void> | undefined;

  wait(): Promise<void> {
    return (this.pending ??= new Promise((resolve) =>
      setImmediate(() => {
        this.pending = undefined;
        resolve();
      }),
    ));
  }
}

/**
 * Writes a reply or a stream (after its headers, each frame, waiting for the socket to drain; what
 * waits meanwhile is the front's, measured with the response's writableLength).
 */
export async function send(res: ServerResponse, r: HttpReply | FrontStream): Promise<void> {
  if (r.kind === "reply") return sendReply(res, r);
  r.measure?.(() => res.writableLength);
  res.writeHead(r.status, r.headers);
  for await (const frames of r.frames) if (!res.write(frames) && !res.destroyed) await drained(res);
  res.end();
  if (res.writableFinished || res.destroyed) return;
  const timer = setTimeout(() => res.destroy(), STREAM_END_GRACE_MS);
  timer.unref();
  res.once("close", () => clearTimeout(timer));
}

function sendReply(res: ServerResponse, r: HttpReply, then?: () => void): void {
  if (res.headersSent) return;
  res.writeHead(r.status, { ...r.headers, "content-length": Buffer.byteLength(r.body) });
  res.end(r.body, then);
}

/** The body, its bytes counted in `hold` (the memory budget) as they arrive. */
function readBody(req: IncomingMessage, limit: number, hold: BudgetHold): Promise<Buffer | "too large" | "over budget" | "aborted"> {
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) return Promise.resolve("too large");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      const refused = size > limit ? "too large" : hold.grow(chunk.length) ? undefined : "over budget";
      if (refused) {
        req.removeAllListeners("data");
        req.pause();
        resolve(refused);
      } else chunks.push(chunk);
    });
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", () => resolve("aborted"));
    req.once("close", () => resolve(req.complete ? Buffer.concat(chunks) : "aborted"));
  });
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
