// The unary calls of the gRPC adapter, served straight on the HTTP/2 stream: read the one
// length-prefixed message, decode it, call the method, write headers, the one response message and
// the trailers. A CPU profile of blocking SendMessage (bench/README.md, "gRPC") put about two
// thirds of the server's time per call in connect-node's general machinery (async iterables per
// call, web Headers, linked AbortControllers and the DOMException each aborts with); a unary call
// needs none of it. What this path does not handle goes to connect-node unchanged: streaming
// methods, gRPC+JSON, compressed requests (grpc-encoding other than identity), anything but POST
// over HTTP/2.
// Responses are never compressed (a server may always answer with identity).
//
// The statuses are connect-node's for the same faults (its messages, its codes and its
// grpc-status-details-bin encoding, setTrailerStatus), so a client cannot tell the two paths apart.
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse, OutgoingHttpHeaders } from "node:http2";
import { fromBinary, toBinary, type DescMethod, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { BudgetHold } from "../front/stream-budget.js";

/** One call as the adapter's methods see it, whichever path it came by. */
export interface GrpcCall {
  /** Request metadata without HTTP/2 pseudo-headers (lower-case names; repeated values joined). */
  headers: Record<string, string>;
  /** The method path (`/lf.a2a.v1.A2AService/SendMessage`). */
  path: string;
  /** Aborted when the client goes away or its deadline passes. */
  signal: AbortSignal;
  /** Sets a response header (before the response is written). */
  setHeader(name: string, value: string): void;
  /** The request the call came in (handed to `authenticate`). */
  raw: Http2ServerRequest | IncomingMessage | undefined;
}

export type UnaryImpl = (msg: Message, call: GrpcCall) => Promise<Message>;

/**
 * Where a request's bytes are counted while they arrive (the process's memory budget,
 * stream-budget.ts): a hold per request, and the error (by method path) of one that does not fit.
 */
export interface RequestBudget {
  hold(): BudgetHold;
  refusal(path: string): ConnectError;
}

const PROTO = /^application\/grpc(?:\+proto)?$/i;

/**
 * A `(req, res)` handler that serves the `methods` (by path) itself and passes every other request
 * to `fallback` (connect-node's handler).
 */
export function unaryFastPath(
  methods: ReadonlyMap<string, { method: DescMethod; impl: UnaryImpl }>,
  readMaxBytes: number,
  fallback: (req: Http2ServerRequest, res: Http2ServerResponse) => void,
  budget: RequestBudget,
): (req: Http2ServerRequest, res: Http2ServerResponse) => void {
  return (req, res) => {
    const m = methods.get(req.url);
    const h = req.headers;
    const encoding = h["grpc-encoding"];
    if (
      !m ||
      req.httpVersionMajor !== 2 ||
      req.method !== "POST" ||
      !PROTO.test(h["content-type"] ?? "") ||
      (encoding !== undefined && encoding !== "identity")
    )
      return fallback(req, res);
    serveUnary(req, res, m.method, m.impl, readMaxBytes, budget);
  };
}

function serveUnary(
  req: Http2ServerRequest,
  res: Http2ServerResponse,
  method: DescMethod,
  impl: UnaryImpl,
  readMaxBytes: number,
  budget: RequestBudget,
): void {
  const stream = res.stream;
  // The message's bytes count in the memory budget until it is decoded (or the call ends).
  const hold = budget.hold();
  const responseHeaders: OutgoingHttpHeaders = { "content-type": "application/grpc+proto" };
  let done = false;
  let controller: AbortController | undefined;
  let timer: NodeJS.Timeout | undefined;
  const abort = (reason?: unknown) => {
    controller ??= new AbortController();
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const finish = (body: Uint8Array | undefined, error: ConnectError | undefined) => {
    if (done) return;
    done = true;
    hold.release();
    clearTimeout(timer);
    if (stream.destroyed || stream.closed) return;
    const trailers = error ? headersObject(setTrailerStatus(new Headers(), error)) : { "grpc-status": "0" };
    // Through the compatibility response: it owns the stream's trailers (wantTrailers).
    res.writeHead(200, responseHeaders);
    res.addTrailers(trailers);
    if (body) res.end(body);
    else res.end();
  };
  const fail = (e: unknown) =>
    finish(undefined, e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e));
  stream.once("close", () => {
    hold.release();
    clearTimeout(timer);
    if (!done) {
      done = true;
      abort(new ConnectError("the operation was aborted", Code.Canceled));
    }
  });
  const timeout = parseTimeout((req.headers["grpc-timeout"] as string | undefined) ?? null, Number.MAX_SAFE_INTEGER);
  if (timeout.error) return fail(timeout.error);
  if (timeout.timeoutMs !== undefined)
    timer = setTimeout(() => {
      const e = new ConnectError("the operation timed out", Code.DeadlineExceeded);
      abort(e);
      fail(e);
    }, timeout.timeoutMs);

  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (c: Buffer) => {
    if (done) return;
    size += c.length;
    // One message of at most readMaxBytes, and its 5-byte prefix.
    if (size > readMaxBytes + 5) {
      fail(new ConnectError(`message size ${size - 5} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted));
      req.resume();
      return;
    }
    if (!hold.grow(c.length)) {
      chunks.length = 0;
      fail(budget.refusal(req.url));
      req.resume();
      return;
    }
    chunks.push(c);
  });
  req.once("end", () => {
    if (done) return;
    let input: Message;
    try {
      input = decodeOne(method, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), readMaxBytes);
    } catch (e) {
      return fail(e);
    } finally {
      chunks.length = 0;
      hold.release();
    }
    const call: GrpcCall = {
      headers: metadata(req.headers),
      path: req.url,
      get signal() {
        controller ??= new AbortController();
        return controller.signal;
      },
      setHeader: (k, v) => (responseHeaders[k] = v),
      raw: req,
    };
    impl(input, call).then((out) => {
      let body: Uint8Array;
      try {
        body = frame(toBinary(method.output, out));
      } catch (e) {
        return fail(new ConnectError(`serialize binary: ${(e as Error).message}`, Code.Internal));
      }
      finish(body, undefined);
    }, fail);
  });
}

/** The one message of a unary request body, as connect-node would read it. */
function decodeOne(method: DescMethod, body: Buffer, readMaxBytes: number): Message {
  if (body.length === 0) throw new ConnectError("protocol error: missing input message for unary method", Code.Unimplemented);
  if (body.length < 5) throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  const flags = body[0]!;
  const len = body.readUInt32BE(1);
  if (len > readMaxBytes)
    throw new ConnectError(`message size ${len} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted);
  if (body.length < 5 + len) throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  if (body.length > 5 + len) throw new ConnectError("protocol error: received extra input message for unary method", Code.Unimplemented);
  if (flags & 1) throw new ConnectError("received compressed envelope, but do not know how to decompress", Code.Internal);
  try {
    return fromBinary(method.input, body.subarray(5));
  } catch (e) {
    throw new ConnectError(`parse binary: ${(e as Error).message}`, Code.Internal);
  }
}

function frame(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + bytes.length);
  out[0] = 0;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
}

function metadata(h: Http2ServerRequest["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in h) {
    if (k.charCodeAt(0) === 58 /* ":" */) continue;
    const v = h[k];
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

function headersObject(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => (out[k] = v));
  return out;
}
