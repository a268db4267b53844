// gRPC framing for clients: one call of an operation to a `host:port` (or http(s):// URL) over
// @connectrpc/connect-node's gRPC transport (HTTP/2, binary protobuf). Messages and errors are
// src/versioning/grpc.ts's: this module only knows channels, metadata, deadlines and statuses.
//
//   grpcUnary(target, op, request, call)   → the 1.0 response; A2A errors thrown as A2AError
//   grpcStream(target, op, request, call)  → 1.0 events (`final`: a 0.3 stream ends after it)
//   GrpcStatusError                        a status that is no A2A error (UNAUTHENTICATED,
//                                          UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED …)
import type { DescMethod, Message } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type * as v1_0 from "../../generated/v1_0/index.js";
import type { Operation, RequestOf, ResponseOf } from "../versioning/codec.js";
import {
  decodeGrpcEvent,
  decodeGrpcResponse,
  encodeGrpcRequest,
  errorFromGrpcStatus,
  grpcMethodOf,
  GRPC_SERVICES,
  GRPC_VERSION_KEY,
  type GrpcDetail,
} from "../versioning/grpc.js";
import { listTasksUnsupported } from "../versioning/codec.js";
import { extensionsHeaderName, type ProtocolVersion } from "../versioning/negotiate.js";

export interface GrpcTarget {
  /** `host:port` as cards list it, or an http:// / https:// URL. */
  url: string;
  version: ProtocolVersion;
}

export interface GrpcChannelOptions {
  /** TLS for a bare `host:port` (an https:// URL always is; default false: cleartext HTTP/2). */
  tls?: boolean;
  /** PEM CA certificate(s) trusted for TLS (implies `tls`). */
  ca?: string | Buffer;
}

export interface GrpcCallOptions extends GrpcChannelOptions {
  /** Metadata (Authorization …); `a2a-version` and the extensions key are set from the target. */
  headers?: Record<string, string>;
  extensions?: readonly string[];
  signal?: AbortSignal;
  /** Deadline of the call (grpc-timeout), in ms. */
  timeoutMs?: number;
}

/** A gRPC status that is no A2A error: the call failed below A2A. */
export class GrpcStatusError extends Error {
  override readonly name = "GrpcStatusError";
  constructor(
    readonly code: number,
    message: string,
    readonly codeName: string,
  ) {
    super(message);
  }
}

/** `http(s)://host:port` for a target URL. */
export function grpcBaseUrl(url: string, opts: GrpcChannelOptions = {}): string {
  if (/^https?:\/\//i.test(url)) return url.replace(/\/+$/, "");
  if (!/^(\[[^\]]+\]|[^/:\s]+):\d+$/.test(url)) throw new Error(`not a gRPC address (host:port): ${JSON.stringify(url)}`);
  return `${opts.tls || opts.ca ? "https" : "http"}://${url}`;
}

// One transport (and so one HTTP/2 connection, reused) per base URL and CA.
const transports = new Map<string, Transport>();

function transportFor(url: string, opts: GrpcChannelOptions): Transport {
  const baseUrl = grpcBaseUrl(url, opts);
  const ca = opts.ca === undefined ? "" : opts.ca.toString();
  const key = `${baseUrl} ${ca}`;
  let t = transports.get(key);
  if (!t) {
    t = createGrpcTransport({ baseUrl, ...(ca ? { nodeOptions: { ca } } : {}) });
    if (transports.size > 32) transports.clear();
    transports.set(key, t);
  }
  return t;
}

function methodOf(version: ProtocolVersion, op: Operation): DescMethod {
  const info = grpcMethodOf(version, op);
  if (!info) throw listTasksUnsupported();
  return GRPC_SERVICES[version].methods.find((m) => m.name === info.rpc)!;
}

function metadata(target: GrpcTarget, call: GrpcCallOptions): Headers {
  const h = new Headers(call.headers);
  if (!h.has(GRPC_VERSION_KEY)) h.set(GRPC_VERSION_KEY, target.version);
  if (call.extensions?.length) h.set(extensionsHeaderName(target.version).toLowerCase(), call.extensions.join(","));
  return h;
}

/** A ConnectError as the A2AError it carries, or a GrpcStatusError. */
export function fromConnectError(e: unknown): unknown {
  if (!(e instanceof ConnectError)) return e;
  const below = new GrpcStatusError(e.code, e.rawMessage, Code[e.code] ?? String(e.code));
  // A failure on our side (TLS, a reset connection …) carries its cause; a status the server sent does not.
  if (e.cause instanceof Error) return below;
  const details = e.details.filter((d): d is GrpcDetail => "type" in d && d.value instanceof Uint8Array);
  return errorFromGrpcStatus(e.code, e.rawMessage, details) ?? below;
}

export async function grpcUnary<O extends Operation>(
  target: GrpcTarget,
  op: O,
  request: RequestOf<O>,
  call: GrpcCallOptions = {},
): Promise<ResponseOf<O>> {
  const method = methodOf(target.version, op);
  const input = encodeGrpcRequest(target.version, op, request).value;
  try {
    const res = await transportFor(target.url, call).unary(
      method as DescMethod & { methodKind: "unary" },
      call.signal,
      call.timeoutMs,
      metadata(target, call),
      input as never,
    );
    return decodeGrpcResponse(target.version, op, res.message as Message).value;
  } catch (e) {
    throw fromConnectError(e);
  }
}

export async function* grpcStream(
  target: GrpcTarget,
  op: "SendStreamingMessage" | "SubscribeToTask",
  request: RequestOf<typeof op>,
  call: GrpcCallOptions = {},
): AsyncGenerator<{ event: v1_0.StreamResponse; final: boolean }> {
  const method = methodOf(target.version, op);
  const input = encodeGrpcRequest(target.version, op, request).value;
  try {
    const res = await transportFor(target.url, call).stream(
      method as DescMethod & { methodKind: "server_streaming" },
      call.signal,
      call.timeoutMs,
      metadata(target, call),
      (async function* () {
        yield input as never;
      })(),
    );
    for await (const m of res.message) {
      const d = decodeGrpcEvent(target.version, m as Message);
      yield { event: d.value, final: d.final };
      if (d.final) return;
    }
  } catch (e) {
    throw fromConnectError(e);
  }
}
