// gRPC on the port of the HTTP/1.1 server: the server keeps listening (fastify's, or node:http's)
// and its connections are split before its HTTP/1.1 parser sees them. Cleartext: a connection
// whose first bytes are the HTTP/2 client preface ("PRI * HTTP/2.0\r\n", RFC 9113 §3.4; gRPC
// clients speak HTTP/2 with prior knowledge) goes to an HTTP/2 server running the gRPC handler;
// any other goes to the HTTP/1.1 server as it came. TLS: ALPN decides (h2 → gRPC, http/1.1 or
// none → the HTTP/1.1 server); the server must offer both protocols (`ALPNProtocols`).
//
// Node 20 cannot do this with http2.createServer({ allowHTTP1 }) in cleartext (that needs ALPN);
// httpolyglot-style libraries replace the listening server, which fastify owns, so the split is
// done here on the server's own connection event.
import type * as http from "node:http";
import http2 from "node:http2";
import type { Server } from "node:net";
import type { Socket } from "node:net";
import tls from "node:tls";
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HTTP2_PING_INTERVAL_MS,
  DEFAULT_HTTP2_PING_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_SNIFF_TIMEOUT_MS,
  everyConnection,
  isOverConnectionLimit,
} from "../front/http-limits.js";

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n");

export interface SharedPort {
  /** The HTTP/2 server the gRPC connections are handed to (not listening itself). */
  http2: http2.Http2Server;
  /** Ends the HTTP/2 sessions (the listening server's close() does not reach them). */
  close(): Promise<void>;
}

export interface SharedPortOptions {
  /** A request stream's message must have arrived this long after the stream opened (ms; default 30,000; 0: no limit). */
  bodyTimeoutMs?: number;
  /** A PING is sent on every open HTTP/2 session this often (ms; default 30,000; 0: none). */
  pingIntervalMs?: number;
  /** A session whose client has not answered a PING this long after it was sent is closed (ms; default 10,000). */
  pingTimeoutMs?: number;
}

/**
 * Hands the HTTP/2 connections of `server` (an http.Server or https.Server, listening or about to)
 * to `handler`; HTTP/1.1 connections reach the server's own listeners unchanged. The server's
 * limits (http-limits.ts) hold for both: the per-address connection count, the idle timeout
 * (`keepAliveTimeout`) for HTTP/2 sessions, a sniff timeout capped by `headersTimeout`.
 */
export function shareWithGrpc(
  server: Server,
  handler: (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
  opts: SharedPortOptions = {},
): SharedPort {
  const limits = server as Partial<http.Server>;
  const idleMs = limits.keepAliveTimeout || DEFAULT_IDLE_TIMEOUT_MS;
  const sniffMs = Math.min(DEFAULT_SNIFF_TIMEOUT_MS, limits.headersTimeout || DEFAULT_SNIFF_TIMEOUT_MS);
  const bodyMs = Math.max(0, Math.floor(opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS));
  const pingMs = Math.max(0, Math.floor(opts.pingIntervalMs ?? DEFAULT_HTTP2_PING_INTERVAL_MS));
  const pingTimeoutMs = Math.max(1, Math.floor(opts.pingTimeoutMs ?? DEFAULT_HTTP2_PING_TIMEOUT_MS));
  // At most 100 calls in flight per connection (node's default is 2^32-1), as gRPC servers commonly advertise.
  const h2 = http2.createServer({ settings: { maxConcurrentStreams: 100 } }, handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
    // A session without a frame for the idle timeout and without a call open is closed (GOAWAY).
    // One with a quiet call open (a long task's stream) is kept: its liveness is the pings' to
    // judge, and a session closing after a GOAWAY can send no PING (node cancels them). The idle
    // time starts again when its last call ends.
    let calls = 0;
    s.on("stream", (stream: http2.ServerHttp2Stream) => {
      calls++;
      stream.once("close", () => {
        if (--calls === 0 && !s.closed && !s.destroyed) s.setTimeout(idleMs);
      });
    });
    // Judged after the loop's I/O phase (see sniff): a call whose frames arrived in time is read first.
    s.on("timeout", () => setImmediate(() => calls === 0 && !s.closed && !s.destroyed && s.close()));
    s.setTimeout(idleMs);
    if (pingMs > 0) keepAlive(s, pingMs, pingTimeoutMs);
  });
  // A request message that has not fully arrived within the body timeout is cancelled: a client may
  // not hold a stream's buffered message open for ever.
  if (bodyMs > 0)
    h2.on("stream", (stream: http2.ServerHttp2Stream) => {
      const t = setTimeout(() => {
        if (!stream.readableEnded && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
      }, bodyMs);
      t.unref();
      stream.once("close", () => clearTimeout(t));
      stream.once("end", () => clearTimeout(t));
    });
  const secure = server instanceof tls.Server;
  const event = secure ? "secureConnection" : "connection";
  const listeners = server.listeners(event) as ((socket: Socket) => void)[];
  server.removeAllListeners(event);
  // The per-address count sees every connection; the HTTP/1.1 server only its own.
  const every = listeners.filter((l) => everyConnection.has(l));
  const http1 = listeners.filter((l) => !everyConnection.has(l));
  const toHttp1 = (socket: Socket) => {
    for (const l of http1) l.call(server, socket);
  };
  // The bytes read while sniffing wait in the socket's buffer: resuming hands them to the parser.
  const sniffedToHttp1 = (socket: Socket) => {
    toHttp1(socket);
    socket.resume();
  };
  // Node's HTTP/1.1 server turns Nagle's algorithm off on its sockets; the ones handed to HTTP/2 bypass
  // it, and with Nagle on, small gRPC frames wait for delayed ACKs (tens of ms per call).
  const toHttp2 = (socket: Socket) => {
    // Beyond its address's limit: refused before a session starts (HTTP/1.1 gets a 429 instead).
    if (isOverConnectionLimit(socket)) return socket.destroy();
    socket.setNoDelay(true);
    h2.emit("connection", socket);
  };
  server.on(event, (socket: Socket) => {
    for (const l of every) l.call(server, socket);
    if (secure) {
      if ((socket as tls.TLSSocket).alpnProtocol === "h2") toHttp2(socket);
      else toHttp1(socket);
      return;
    }
    // HTTP/2 sessions read what is already in the socket's buffer themselves (node ≥ 15).
    sniff(socket, sniffMs, (isH2) => (isH2 ? toHttp2(socket) : sniffedToHttp1(socket)));
  });
  return {
    http2: h2,
    close: async () => {
      for (const s of sessions) s.close();
      await new Promise<void>((resolve) => {
        if (!sessions.size) return resolve();
        const t = setTimeout(() => {
          for (const s of sessions) s.destroy();
          resolve();
        }, 1000);
        t.unref();
        h2.once("close", () => resolve());
        for (const s of sessions) s.once("close", () => !sessions.size && resolve());
      });
    },
  };
}

/**
 * Keep-alive pings: every `intervalMs` a PING goes out on the session (RFC 9113 §6.7); a client that
 * has not answered one within `timeoutMs` is gone, or not reading, and its session is destroyed with
 * the streams it holds (their tasks go on). A session open with a quiet stream (a long task's
 * SubscribeToTask) is not idle for the idle timeout's GOAWAY, which waits for its streams: this is
 * what ends it when the client has vanished.
 */
function keepAlive(session: http2.ServerHttp2Session, intervalMs: number, timeoutMs: number): void {
  let unanswered: NodeJS.Timeout | undefined;
  const timer = setInterval(() => {
    // A closing session (server shutdown) cannot send a PING: its calls end, or close() destroys it.
    if (session.destroyed || session.closed || unanswered) return;
    const sent = session.ping((err) => {
      clearTimeout(unanswered);
      unanswered = undefined;
      if (err && !session.destroyed) session.destroy();
    });
    // Too many PINGs awaiting their ACK already (the client answers none): as good as unanswered.
    if (!sent) return session.destroy();
    unanswered = setTimeout(() => session.destroy(), timeoutMs);
    unanswered.unref();
  }, intervalMs);
  timer.unref();
  session.once("close", () => {
    clearInterval(timer);
    clearTimeout(unanswered);
  });
}

/**
 * Reads until the first bytes tell HTTP/2's preface from anything else, puts them back, decides.
 * A connection that sends nothing within `timeoutMs`, or ends its side before a byte (a TCP health
 * check: the server's sockets allow half-open, so no 'close' would follow), is destroyed.
 */
function sniff(socket: Socket, timeoutMs: number, decide: (isH2: boolean) => void): void {
  let seen = Buffer.alloc(0);
  let listening = true;
  const drop = () => {
    stopListening();
    socket.destroy();
  };
  // Node runs expired timers before it reads the sockets: after the process was too busy to read for
  // the whole timeout (a loaded machine), bytes the client sent in time are read first, and only a
  // connection still silent then is dropped.
  const timer = setTimeout(() => setImmediate(() => listening && drop()), timeoutMs);
  timer.unref();
  const stopListening = () => {
    listening = false;
    clearTimeout(timer);
    socket.off("data", onData);
    socket.off("close", onClose);
    socket.off("end", onEnd);
  };
  const done = (isH2: boolean) => {
    stopListening();
    socket.pause();
    socket.unshift(seen);
    decide(isH2);
  };
  const onData = (chunk: Buffer) => {
    seen = Buffer.concat([seen, chunk]);
    const n = Math.min(seen.length, PREFACE.length);
    if (!seen.subarray(0, n).equals(PREFACE.subarray(0, n))) done(false);
    else if (n === PREFACE.length) done(true);
  };
  // A connection that closes before saying anything goes to HTTP/1.1, which cleans it up.
  const onClose = () => done(false);
  // Ended after some bytes: HTTP/1.1 answers what it can; before any: nothing to answer.
  const onEnd = () => (seen.length ? done(false) : drop());
  socket.on("data", onData);
  socket.once("close", onClose);
  socket.once("end", onEnd);
}
