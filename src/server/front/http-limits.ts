// HTTP-level limits of the reference server and the gateway, and the A2A shape of the errors that
// happen before a request reaches the plugin's routes:
//
// - headers timeout: node's `requestTimeout`: a connection must deliver a request's headers
//   within `headersTimeoutMs` (default 30 s); else HTTP 408 and the connection is closed.
// - body timeout: the plugin (adapters/node-http.ts, guard) times the body itself: `bodyTimeoutMs`
//   (default 30 s) after the headers, answered in the binding's shape. Node's own `requestTimeout`
//   (whole request) is set a second beyond headers + body, a backstop that never answers first.
// - idle timeout: node's `keepAliveTimeout`: a keep-alive connection without a request for
//   `idleTimeoutMs` (default 5 s) is closed (the `Keep-Alive: timeout=5` header says so).
// - connections per client address: `maxConnectionsPerAddress` (default 256), HTTP/1.1 and HTTP/2
//   (gRPC) counted together: an HTTP/1.1 connection beyond it gets HTTP 429 for its first request,
//   with `Connection: close`; an HTTP/2 one is closed before its session starts.
// - sniff timeout (cleartext, gRPC served on the port): a connection must send its first bytes
//   within DEFAULT_SNIFF_TIMEOUT_MS (5 s, at most the headers timeout); one that sends nothing, or
//   half-closes without a byte (a TCP health check), is closed (adapters/shared-port.ts).
// - HTTP/2 sessions: closed after `idleTimeoutMs` without a frame; at most 100 concurrent streams
//   each; a request stream whose message has not fully arrived within `bodyTimeoutMs` is cancelled;
//   a PING every `http2PingIntervalMs` (default 30 s), and a session whose client does not answer
//   within `http2PingTimeoutMs` (default 10 s) is closed with its streams.
// - malformed HTTP (node's 'clientError': bad chunk framing, duplicate Content-Length, a NUL in a
//   header, oversized headers, the headers timeout) and a path that is not valid percent-encoding
//   (fastify's FST_ERR_BAD_URL) get the error body of the binding the request was meant for,
//   chosen the way the plugin routes: `<prefix>/` is JSON-RPC, every other path HTTP+JSON; the
//   version from A2A-Version (none: 0.3 when it is served, as negotiation decides). Node closes
//   the connection after a client error, so those replies say `Connection: close`.
import type * as http from "node:http";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { FastifyHttpOptions, FastifyReply, FastifyRequest } from "fastify";
import { encodeError, type CallContext, type HttpReply } from "../../transport/server.js";
import type { Binding } from "../../versioning/codec.js";
import { A2AError } from "../../versioning/errors.js";
import { knownVersion } from "../../versioning/policy.js";
import { negotiate, SUPPORTED_VERSIONS, type ProtocolVersion } from "../../versioning/negotiate.js";
import { splitUrl } from "../../transport/rest.js";

export const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** Interval of keep-alive PINGs on HTTP/2 sessions (adapters/shared-port.ts). */
export const DEFAULT_HTTP2_PING_INTERVAL_MS = 30_000;
/** Time an HTTP/2 client has to answer a PING before its session is closed. */
export const DEFAULT_HTTP2_PING_TIMEOUT_MS = 10_000;
/** Time a cleartext connection has to send its first bytes (HTTP/1.1 or the HTTP/2 preface), capped by the headers timeout. */
export const DEFAULT_SNIFF_TIMEOUT_MS = 5_000;

export interface HttpLimitOptions {
  /** Time a connection has to deliver a request's headers, in ms (default 30,000; then HTTP 408). */
  headersTimeoutMs?: number;
  /**
   * The body timeout the routes enforce (front.ts; default 30,000). Node's `requestTimeout` is set
   * beyond headers + body, so that a slow body is always answered by the routes, in the shape of the
   * request's own binding and version, and never by node first.
   */
  bodyTimeoutMs?: number;
  /** Time a keep-alive connection may stay without a request, in ms (default 5,000; then it is closed). */
  idleTimeoutMs?: number;
  /** Open connections one client address may have (default 256; the next gets HTTP 429). */
  maxConnectionsPerAddress?: number;
  /** gRPC served on the port: a PING on every HTTP/2 session this often, in ms (default 30,000; 0: none). */
  http2PingIntervalMs?: number;
  /** gRPC served on the port: time a client has to answer a PING, in ms (default 10,000; then its session is closed). */
  http2PingTimeoutMs?: number;
}

/** Where the A2A routes are and which versions they serve: what an error's shape depends on. */
export interface RouteScope {
  prefix?: string;
  versions?: readonly ProtocolVersion[];
}

const overLimit = new WeakSet<Socket>();

/** Whether `socket` is beyond its address's connection limit (its request is refused with 429). */
export function isOverConnectionLimit(socket: Socket): boolean {
  return overLimit.has(socket);
}

/** 'connection' listeners that must see every connection, whatever protocol it turns out to speak (shared-port.ts). */
export const everyConnection = new WeakSet<(socket: Socket) => void>();

/** Counts the open connections of each client address (HTTP/1.1 and HTTP/2 alike) and marks those beyond `max`. */
export function limitConnectionsPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>();
  const count = (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const n = (open.get(address) ?? 0) + 1;
    open.set(address, n);
    if (n > max) overLimit.add(socket);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  };
  everyConnection.add(count);
  server.on("connection", count);
}

/** The version and binding an error is answered in, for a request outside (or before) the routes. */
export function errorScope(
  url: string,
  headers: Record<string, string | string[] | undefined>,
  scope: RouteScope,
): { version: ProtocolVersion; binding: Binding } {
  const versions = scope.versions?.length ? [...scope.versions] : [...SUPPORTED_VERSIONS];
  const prefix = (scope.prefix ?? "").replace(/\/+$/, "");
  let split: { path: string; query: URLSearchParams };
  try {
    split = splitUrl(url);
  } catch {
    split = { path: url, query: new URLSearchParams() };
  }
  // The plugin's routes: `<prefix>/` (and `<prefix>`) for every method is JSON-RPC, the rest HTTP+JSON.
  const binding: Binding = split.path === `${prefix}/` || split.path === prefix ? "JSONRPC" : "HTTP+JSON";
  return { version: versionOf(headers, split.query, versions), binding };
}

/** The negotiated version, else the one the caller asked for when served, else 1.0. */
export function versionOf(
  headers: Record<string, string | string[] | undefined>,
  query: URLSearchParams,
  versions: readonly ProtocolVersion[],
): ProtocolVersion {
  const n = negotiate(headers, query, [...versions]);
  return n.ok ? n.version : knownVersion(n.requested);
}

/**
 * An A2A error in `ctx`'s binding with HTTP status `status`: JSON-RPC keeps its envelope (id null),
 * HTTP+JSON's AIP-193 body carries the status as its `code` (and `grpcStatus` when given).
 */
export function errorWithStatus(ctx: CallContext, err: A2AError, status: number, grpcStatus?: string): HttpReply {
  return encodeError({ rpcId: null, ...ctx }, err, {}, { status, grpcStatus });
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
};

/** The request line and A2A-Version header node had read before it gave up, if any. */
function readPacket(raw: unknown): { url: string; headers: Record<string, string> } {
  const text = Buffer.isBuffer(raw) ? raw.toString("latin1") : "";
  const lines = text.split("\r\n");
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? "");
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const h = /^(a2a-version|x-a2a-version):[ \t]*([^\r\n\0]*?)[ \t]*$/i.exec(line);
    if (h) headers[h[1]!.toLowerCase()] = h[2]!;
  }
  return { url: m ? m[2]! : "/-", headers };
}

/** What a client error (node's 'clientError') is answered with: status and message. */
function clientErrorOf(code: string | undefined): { status: number; message: string } {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return { status: 408, message: "The request did not arrive in time" };
  if (code === "HPE_HEADER_OVERFLOW") return { status: 431, message: "The request headers are too large" };
  return { status: 400, message: "The request is not valid HTTP/1.1" };
}

/** The raw HTTP/1.1 response for `r`, closing the connection. */
export function rawResponse(r: HttpReply): string {
  const head = [`HTTP/1.1 ${r.status} ${STATUS_TEXT[r.status] ?? "Error"}`, "Connection: close"];
  for (const [k, v] of Object.entries(r.headers)) head.push(`${k}: ${v}`);
  head.push(`Content-Length: ${Buffer.byteLength(r.body)}`);
  return `${head.join("\r\n")}\r\n\r\n${r.body}`;
}

/** Ends `socket` after `data` is written; destroyed soon after if the client does not close its side. */
export function endSocket(socket: Socket, data?: string): void {
  if (socket.destroyed) return;
  if (data && socket.writable) socket.end(data);
  else socket.end();
  // Unread input left when a socket is destroyed makes the kernel send RST: give the client a moment.
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** node:http server options for the A2A routes: the headers and idle timeouts above (buildServer, createA2AHttpServer). */
export function a2aNodeServerOptions(opts: HttpLimitOptions): http.ServerOptions {
  const headersTimeout = Math.max(1, Math.floor(opts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS));
  const bodyTimeout = Math.max(0, Math.floor(opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS));
  return {
    // Node counts the whole request from its first byte; the routes count the body from the headers.
    requestTimeout: headersTimeout + (bodyTimeout && bodyTimeout + 1000),
    keepAliveTimeout: Math.max(1, Math.floor(opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS)),
    headersTimeout,
    // node checks request deadlines every connectionsCheckingInterval (default 30 s).
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

/** node's 'clientError' (malformed HTTP, the headers timeout …) answered in the binding's shape, then the connection closed. */
export function a2aClientErrorHandler(scope: RouteScope): (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    const { url, headers } = readPacket(err.rawPacket);
    const { status, message } = clientErrorOf(err.code);
    const r = errorWithStatus(errorScope(url, headers, scope), new A2AError("InvalidRequestError", message), status);
    endSocket(socket, rawResponse(r));
  };
}

/**
 * fastify server options for an app serving the A2A routes: the timeouts above, the client-error
 * and bad-URL answers in the A2A shape. `buildServer` and `buildGateway` use them; an application
 * mounting `a2aPlugin` itself can spread them into its own `Fastify({...})` call.
 */
export function a2aServerOptions(opts: HttpLimitOptions & RouteScope & { bodyLimit?: number }): FastifyHttpOptions<Server> {
  const { requestTimeout, keepAliveTimeout, headersTimeout, connectionsCheckingInterval } = a2aNodeServerOptions(opts);
  const scope: RouteScope = { prefix: opts.prefix, versions: opts.versions };
  return {
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    forceCloseConnections: true,
    requestTimeout,
    keepAliveTimeout,
    http: { headersTimeout, connectionsCheckingInterval },
    clientErrorHandler: a2aClientErrorHandler(scope),
    frameworkErrors(err: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) {
      const message = err.code === "FST_ERR_BAD_URL" ? "The request path is not valid percent-encoding" : "The request cannot be routed";
      const r = errorWithStatus(errorScope(request.url, request.headers, scope), new A2AError("InvalidRequestError", message), 400);
      void reply.code(r.status).headers(r.headers).send(r.body);
    },
  };
}
