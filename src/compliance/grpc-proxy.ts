// The rewriting proxy's h2c side: relays gRPC calls (cleartext HTTP/2) to an agent's gRPC server
// and applies the gRPC faults of grpc-rewrites.ts, message by message as they arrive (a stream is
// never buffered whole). startProxy (proxy.ts) starts it beside the HTTP/1.1 proxy when given
// the agent's gRPC address, and points the card's GRPC interfaces at it.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { grpcOrigin, methodOfPath, unframe, frame } from "./grpc.js";
import { grpcAppliesTo, selectGrpcRewrites, type GrpcExchange, type GrpcHeaders, type GrpcRewrite } from "./grpc-rewrites.js";

export interface GrpcProxy {
  /** host:port, the form a GRPC interface URL takes. */
  address: string;
  rewrites: GrpcRewrite[];
  changes(): Record<string, number>;
  close(): Promise<void>;
}

function plain(h: http2.IncomingHttpHeaders): GrpcHeaders {
  const out: GrpcHeaders = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !k.startsWith(":")) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export async function startGrpcProxy(opts: { target: string; faults?: string[]; host?: string; port?: number }): Promise<GrpcProxy> {
  const rewrites = selectGrpcRewrites(opts.faults);
  const changed = new Map(rewrites.map((r) => [r.name, 0]));
  const bump = (r: GrpcRewrite) => changed.set(r.name, (changed.get(r.name) ?? 0) + 1);
  const origin = grpcOrigin(opts.target);
  let upstreamSession: http2.ClientHttp2Session | undefined;
  const session = () => {
    if (!upstreamSession || upstreamSession.closed || upstreamSession.destroyed) {
      upstreamSession = http2.connect(origin);
      upstreamSession.on("error", () => undefined); // each call reports its own failure
    }
    return upstreamSession;
  };
  /** Applies `hook` of each active rewrite, counting the ones that changed something. */
  const apply = <T>(active: GrpcRewrite[], value: T, hook: (r: GrpcRewrite, v: T) => T | undefined): T =>
    active.reduce((v, r) => {
      const out = hook(r, v);
      if (out === undefined || JSON.stringify(out) === JSON.stringify(v)) return v;
      bump(r);
      return out;
    }, value);

  const server = http2.createServer();
  server.on("stream", (down, headers) => {
    const path = String(headers[":path"] ?? "");
    const found = methodOfPath(path);
    const ex: GrpcExchange | undefined = found && {
      version: found.version,
      method: found.method.name,
      streaming: found.method.methodKind === "server_streaming",
    };
    const active = ex ? rewrites.filter((r) => grpcAppliesTo(r, ex)) : [];
    const trailersOf = (t: GrpcHeaders) => apply(active, t, (r, v) => r.trailers?.(v, ex!));
    const up = session().request({ ...plain(headers), ":method": "POST", ":path": path });
    down.pipe(up);
    down.on("close", () => up.close(http2.constants.NGHTTP2_CANCEL));
    up.on("error", () => {
      if (!down.headersSent)
        down.respond(
          {
            ":status": 200,
            "content-type": "application/grpc",
            "grpc-status": "14",
            "grpc-message": "a2a-toolkit proxy: the agent's gRPC server is unreachable",
          },
          { endStream: true },
        );
      else down.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
    const collapse = active.find((r) => r.trailersOnly);
    const holding = active.find((r) => r.holdOpen);
    let head: GrpcHeaders = {};
    let status = 200;
    let pending: Buffer = Buffer.alloc(0);
    let index = 0;
    let messages = 0;
    let answered = false;
    up.on("response", (h, flags) => {
      status = Number(h[":status"] ?? 200);
      head = plain(h);
      if ((flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0 || head["grpc-status"] !== undefined) {
        answered = true; // trailers-only: the status came with the headers, nothing follows
        down.respond({ ":status": status, ...trailersOf(head) }, { endStream: true });
        return;
      }
      if (!collapse) down.respond({ ":status": status, ...apply(active, head, (r, v) => r.head?.(v, ex!)) }, { waitForTrailers: true });
    });
    up.on("data", (chunk: Buffer) => {
      const got = unframe(Buffer.concat([pending, chunk]));
      pending = got.rest;
      for (const m of got.messages) {
        messages++;
        if (collapse) continue;
        const original = frame(m.data, m.compressed);
        const out = active.reduce((bytes, r) => {
          if (!r.message) return bytes;
          const next = r.message(m.data, ex!, index);
          if (!next.equals(original)) bump(r);
          return next;
        }, original);
        index++;
        down.write(out);
      }
    });
    let trailers: GrpcHeaders = {};
    up.on("trailers", (t: http2.IncomingHttpHeaders) => {
      trailers = plain(t);
    });
    up.on("end", () => {
      if (answered || down.destroyed || down.closed) return;
      if (collapse && !down.headersSent) {
        if (trailers["grpc-status"] === "0" && messages) bump(collapse);
        down.respond({ ":status": status, ...head, ...trailersOf(trailers) }, { endStream: true });
        return;
      }
      if (!down.headersSent) return;
      if (holding) {
        bump(holding); // the client is never told the call ended; it hangs up, or the proxy closes
        return;
      }
      down.once("wantTrailers", () => down.sendTrailers(trailersOf(trailers)));
      down.end();
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
  const port = (server.address() as AddressInfo).port;
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  return {
    address: `${host.includes(":") ? `[${host}]` : host}:${port}`,
    rewrites,
    changes: () => Object.fromEntries(changed),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        upstreamSession?.destroy();
        server.close(() => resolve());
      }),
  };
}
