// The gRPC adapter of the reference server: both A2A services over one A2AHandler, as a node
// `(req, res)` handler for an HTTP/2 server (http2.createServer / createSecureServer, or the
// connection-preface sniffer of serve.ts). Framing, grpc-timeout and trailers are
// @connectrpc/connect-node's (gRPC protocol only: no Connect, no gRPC-web); what happens between
// a decoded message and the handler is the front's (front.ts `invoke`: authentication,
// extensions, stream quotas, the HandlerContext, dispatch), and the version work is
// src/versioning/grpc.ts's. The service tells the version: lf.a2a.v1.A2AService is 1.0,
// a2a.v1.A2AService 0.3 (docs/policies.md, "gRPC versions").
//
// A client's deadline or cancellation aborts the call's signal: it ends the wait or the stream,
// never the task (no implicit CancelTask).
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import type { TLSSocket } from "node:tls";
import { fromBinary, toBinary, type DescMessage, type DescMethod, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextKey, createContextValues, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Operation, RequestOf } from "../../versioning/codec.js";
import { A2AError } from "../../versioning/errors.js";
import {
  checkGrpcVersion,
  decodeGrpcRequest,
  encodeGrpcResponse,
  grpcEventEncoder,
  grpcMethods,
  grpcStatusOf,
  GRPC_SERVICES,
  GRPC_VERSION_KEY,
} from "../../versioning/grpc.js";
import { extensionsHeader, readExtensions, SUPPORTED_VERSIONS, type ProtocolVersion } from "../../versioning/negotiate.js";
import { toA2AError } from "../../transport/server.js";
import { createFront, type A2AServeInput, type DirectResult, type Front } from "../front/front.js";
import { consoleLogger, type Logger } from "../engine/runtime.js";
import { unaryFastPath, type GrpcCall, type RequestBudget, type UnaryImpl } from "./grpc-unary.js";
import { budgetFull, EventWait, fellBehind, StreamQueue, type Packing } from "../front/stream-budget.js";

const GONE = Symbol("client gone");

/** The request a gRPC call came in (handed to `authenticate`). */
export type GrpcRequest = Http2ServerRequest | IncomingMessage;

export type A2AGrpcHandlerOptions = A2AServeInput<GrpcRequest> & {
  /** Where unexpected errors are logged (default: the console). */
  logger?: Logger;
  /** Mount point of the HTTP interfaces (the URLs of the extended card); gRPC paths are always at the root. */
  prefix?: string;
};

export type A2AGrpcHandler = ((req: GrpcRequest, res: unknown) => void) & {
  /** Ends the runtime's tasks and open streams (the one it built; a given `runtime` is the caller's). */
  close(): Promise<void>;
};

const RAW = createContextKey<GrpcRequest | undefined>(undefined, { description: "a2a raw request" });

/**
 * A handler serving A2A over gRPC for `versions` (default 1.0 and 0.3): mount it on an HTTP/2
 * server (`http2.createServer(a2aGrpcHandler(opts))`). Pass `front` to share one front (and so one
 * handler, stream quota and card) with the JSON-RPC and HTTP+JSON routes.
 */
export function a2aGrpcHandler(options: A2AGrpcHandlerOptions & { front?: Front<GrpcRequest> }): A2AGrpcHandler {
  const front = options.front ?? createFront<GrpcRequest>(options);
  const log = options.logger ?? consoleLogger;
  const versions = options.versions?.length ? [...options.versions] : [...SUPPORTED_VERSIONS];
  const readMaxBytes = options.bodyLimit ?? 1024 * 1024;
  // Unary calls by path, served by grpc-unary.ts; streams (and what that path passes on) by connect-node.
  const unaryByPath = new Map<string, { method: DescMethod; impl: UnaryImpl }>();
  const routes = (router: ConnectRouter) => {
    for (const version of versions) {
      const service = GRPC_SERVICES[version];
      for (const info of grpcMethods(version)) {
        const method = service.methods.find((m) => m.name === info.rpc)!;
        const op = info.operation as Operation;
        if (info.streaming)
          router.rpc(method as DescMethod & { methodKind: "server_streaming" }, streaming(front, version, op, log, method.output) as never);
        else {
          const impl = unary(front, version, op, log);
          unaryByPath.set(`/${service.typeName}/${method.name}`, { method, impl });
          router.rpc(method as DescMethod & { methodKind: "unary" }, (msg: Message, ctx: HandlerContext) => impl(msg, callOf(ctx)));
        }
      }
    }
  };
  const connect = connectNodeAdapter({
    routes,
    grpc: true,
    grpcWeb: false,
    connect: false,
    readMaxBytes,
    contextValues: (req) => createContextValues().set(RAW, req),
  });
  // Request messages count in the process's memory budget while they arrive (stream-budget.ts); one
  // that does not fit is refused UNAVAILABLE (retryable), as the HTTP bindings answer 503.
  const budget: RequestBudget = {
    hold: () => front.streamBudget.hold(),
    refusal: (path) => {
      const version = versions.find((v) => path.startsWith(`/${GRPC_SERVICES[v].typeName}/`)) ?? versions[0]!;
      return toConnectError(version, budgetFull(front.streamBudget.maxBytes), log);
    },
  };
  const handler = unaryFastPath(unaryByPath, readMaxBytes, (req, res) => connect(countedRequest(req, budget), res), budget);
  return Object.assign((req: GrpcRequest, res: unknown) => handler(req as Http2ServerRequest, res as never), {
    close: () => front.close(),
  });
}

/**
 * `req` with its body counted in the budget as connect-node reads it (it reads a request by async
 * iteration): a chunk that does not fit ends the read with the budget's refusal, which connect-node
 * answers as the call's status; the rest of the body is discarded. The bytes are released once read
 * (the message is decoded from them at once) or refused.
 */
function countedRequest(req: Http2ServerRequest, budget: RequestBudget): Http2ServerRequest {
  const hold = budget.hold();
  const body = req.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>;
  async function* counted(): AsyncGenerator<Buffer> {
    let refused = false;
    try {
      for await (const chunk of body) {
        if (!hold.grow(chunk.length)) {
          refused = true;
          break;
        }
        yield chunk;
      }
    } finally {
      hold.release();
    }
    if (refused) {
      req.resume();
      throw budget.refusal(req.url);
    }
  }
  return Object.defineProperty(req, Symbol.asyncIterator, { value: counted });
}

/** A call that came through connect-node (streams, and what grpc-unary.ts passes on) as a GrpcCall. */
function callOf(ctx: HandlerContext): GrpcCall {
  const headers: Record<string, string> = {};
  ctx.requestHeader.forEach((v, k) => (headers[k] = v));
  return {
    headers,
    path: new URL(ctx.url).pathname,
    signal: ctx.signal,
    setHeader: (k, v) => ctx.responseHeader.set(k, v),
    raw: ctx.values.get(RAW),
  };
}

async function invoke(
  front: Front<GrpcRequest>,
  version: ProtocolVersion,
  op: Operation,
  msg: Message,
  call: GrpcCall,
): Promise<DirectResult> {
  const { headers } = call;
  checkGrpcVersion(version, headers[GRPC_VERSION_KEY] ?? null);
  const request = decodeGrpcRequest(version, op, msg).value as RequestOf<Operation>;
  const raw = call.raw;
  const encrypted = (raw?.socket as TLSSocket | undefined)?.encrypted === true;
  const authority = headers[":authority"] ?? headers.host ?? raw?.headers[":authority"] ?? raw?.headers.host ?? "localhost";
  const r = await front.invoke({
    operation: op,
    request,
    version,
    headers,
    url: call.path,
    origin: `${encrypted ? "https" : "http"}://${String(authority)}`,
    clientAddress: raw?.socket?.remoteAddress ?? "",
    extensions: readExtensions(headers, version),
    tenant: (request as { tenant?: string }).tenant ?? "",
    signal: call.signal,
    raw: raw as GrpcRequest,
  });
  if (r.kind === "refused")
    throw new ConnectError(r.message, r.status === "UNAUTHENTICATED" ? Code.Unauthenticated : Code.ResourceExhausted);
  for (const [k, v] of Object.entries(extensionsHeader(version, r.extensions))) call.setHeader(k, v);
  return r;
}

function unary(front: Front<GrpcRequest>, version: ProtocolVersion, op: Operation, log: Logger): UnaryImpl {
  return async (msg, call) => {
    try {
      const r = await invoke(front, version, op, msg, call);
      if (r.kind !== "unary") throw new A2AError("InternalError");
      return encodeGrpcResponse(version, op, r.response as never).value;
    } catch (e) {
      throw toConnectError(version, e, log);
    }
  };
}

function streaming(front: Front<GrpcRequest>, version: ProtocolVersion, op: Operation, log: Logger, schema: DescMessage) {
  const packing: Packing<Message> = {
    pack: (m) => toBinary(schema, m),
    unpack: (b) => fromBinary(schema, b),
  };
  return async function* (msg: Message, ctx: HandlerContext): AsyncGenerator<Message> {
    let r: DirectResult;
    try {
      r = await invoke(front, version, op, msg, callOf(ctx));
    } catch (e) {
      throw toConnectError(version, e, log);
    }
    if (r.kind !== "stream") throw new ConnectError("not a stream", Code.Internal);
    const { events, release } = r;
    // The client going away (or its deadline) ends the wait for the next event, even when the
    // handler's iterator does not settle a pending next() on return().
    const waiting = new EventWait();
    const stop = () => waiting.stop(GONE);
    // Events are taken as they come; what the client has not read waits as bytes, counted against
    // the stream budget with what the HTTP/2 stream holds (stream-budget.ts). Over its share, the
    // stream ends with RESOURCE_EXHAUSTED after what the transport already holds.
    const queue = new StreamQueue<Message>(
      front.streamBudget,
      packing,
      (limit) => {
        queue.fail(new ConnectError(fellBehind(limit).message, Code.ResourceExhausted));
        stop();
      },
      () => stop(),
    );
    const h2 = (ctx.values.get(RAW) as Http2ServerRequest | undefined)?.stream;
    if (h2) queue.measure(() => h2.writableLength);
    const produce = async () => {
      if (ctx.signal.aborted) stop();
      else ctx.signal.addEventListener("abort", stop, { once: true });
      const encoder = grpcEventEncoder(version);
      try {
        for (;;) {
          const pending = events.next();
          pending.catch(() => {});
          const next = await waiting.wait(pending);
          if (typeof next === "symbol" || next.done) break;
          const { messages, close } = encoder.push(next.value);
          for (const m of messages) queue.push(m);
          if (close) return;
        }
        if (!ctx.signal.aborted) for (const m of encoder.end()) queue.push(m);
      } catch (e) {
        queue.fail(toConnectError(version, e, log));
      } finally {
        ctx.signal.removeEventListener("abort", stop);
        void events.return?.();
        release();
        queue.end();
      }
    };
    void produce();
    yield* queue;
  };
}

/** An A2AError (or anything thrown, logged) as the ConnectError whose status the adapter writes. */
function toConnectError(version: ProtocolVersion, e: unknown, log: Logger): ConnectError {
  if (e instanceof ConnectError) return e;
  if (!(e instanceof A2AError)) log.error({ err: e }, "unexpected error in an A2A gRPC call");
  const err = toA2AError(e);
  const s = grpcStatusOf(version, err);
  const out = new ConnectError(s.message, s.code);
  out.details.push(...s.details);
  return out;
}
