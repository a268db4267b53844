// Stream clients that do not read: the subscribers of the stream buffer budget's tests
// (server-stream-budget.test.ts, memory-probe.test.ts). Each opens a 1.0 SendStreamingMessage and
// leaves the answer unread (beyond node's own buffer of 16 KiB), until the test reads it to its end.
import http2 from "node:http2";
import net from "node:net";
import { fromBinary, fromJson, toBinary } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";

let ids = 0;
/** SendMessageRequest params (ProtoJSON) with one text part. */
export const textRequest = (text: string) => ({ message: { messageId: `slow-${++ids}`, role: "ROLE_USER", parts: [{ text }] } });

/** A JSON-RPC SendStreamingMessage to 127.0.0.1:`port` on a raw socket that is not read. */
export function sseNonReader(port: number, text: string): net.Socket {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: textRequest(text) });
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.write(
    `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.pause();
  socket.once("close", () => Object.assign(socket, { gone: true }));
  return socket;
}

/**
 * Everything the socket gives until the server ends the response (the last chunk of chunked
 * encoding) or the connection (also when it did so before this call).
 */
export function readSse(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    // Chunks joined once at the end: a stream may be megabytes.
    const chunks: Buffer[] = [];
    const text = () => Buffer.concat(chunks).toString();
    if ((socket as net.Socket & { gone?: boolean }).gone) setTimeout(() => resolve(text()), 200);
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      if (d.toString("latin1").endsWith("\r\n0\r\n\r\n")) {
        socket.destroy();
        resolve(text());
      }
    });
    socket.once("close", () => resolve(text()));
    socket.resume();
  });
}

/** The JSON of the last `data:` line of an SSE text (without parsing the others). */
export function lastSseData(text: string): { error?: { message: string }; result?: unknown } | undefined {
  const at = text.lastIndexOf("\ndata: ");
  const start = at < 0 ? (text.startsWith("data: ") ? 0 : -1) : at + 1;
  if (start < 0) return undefined;
  const end = text.indexOf("\n", start);
  return JSON.parse(text.slice(start + 6, end < 0 ? undefined : end)) as { error?: { message: string }; result?: unknown };
}

/** The JSON of every `data:` line of an SSE text. */
export function sseData(text: string): { error?: { message: string }; result?: unknown }[] {
  return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { error?: { message: string }; result?: unknown });
}

export type SlowGrpcStream = http2.ClientHttp2Stream & { trailers?: http2.IncomingHttpHeaders };

/** A gRPC SendStreamingMessage (1.0) whose response stream is not read (its trailers are noted as they come). */
export function grpcNonReader(session: http2.ClientHttp2Session, text: string): SlowGrpcStream {
  const msg = toBinary(v1_0.SendMessageRequestSchema, fromJson(v1_0.SendMessageRequestSchema, textRequest(text)));
  const frame = Buffer.alloc(5 + msg.length);
  frame.writeUInt32BE(msg.length, 1);
  frame.set(msg, 5);
  const stream = session.request({
    ":method": "POST",
    ":path": "/lf.a2a.v1.A2AService/SendStreamingMessage",
    "content-type": "application/grpc",
    te: "trailers",
  });
  stream.on("error", () => {});
  stream.end(frame);
  stream.pause();
  stream.once("trailers", (t) => Object.assign(stream, { trailers: t }));
  return stream;
}

/**
 * The gRPC stream read to its end: how many messages it gave, the last one (1.0 StreamResponse; the
 * others are not decoded), grpc-status and grpc-message.
 */
export function readGrpc(
  stream: SlowGrpcStream,
): Promise<{ count: number; last: v1_0.StreamResponse | undefined; status: string; message: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on("data", (d: Buffer) => chunks.push(d));
    // Destroyed before this call (its session was closed: keep-alive pings it did not answer).
    const gone = stream.destroyed;
    const finish = () => {
      const buf = Buffer.concat(chunks);
      let count = 0;
      let last: Buffer | undefined;
      for (let at = 0; at + 5 <= buf.length; count++) {
        const n = buf.readUInt32BE(at + 1);
        last = buf.subarray(at + 5, at + 5 + n);
        at += 5 + n;
      }
      const t = stream.trailers ?? {};
      resolve({
        count,
        last: last && fromBinary(v1_0.StreamResponseSchema, last),
        status: String(t["grpc-status"]),
        message: decodeURIComponent(String(t["grpc-message"] ?? "")),
      });
    };
    if (gone) return finish();
    stream.once("close", finish);
    stream.resume();
  });
}
