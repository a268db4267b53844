// The gRPC side of the client fixture server: an HTTP/2 cleartext server that takes each call the
// client makes, decodes its request message to ProtoJSON (the generated schema of the method the
// path names) and hands it to the fixture's exchange matching, then answers with the exchange's
// response encoded as binary protobuf: `body` (one message), `events` (server-streaming messages),
// then status OK in the trailers; or `grpc` (an error status, trailers-only, with its ErrorInfo in
// grpc-status-details-bin). `end: "drop"` resets the stream after the events.
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { fromJson, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import type { Version } from "../cases.js";
import { encodeErrorInfo, encodeStatus, ERROR_INFO_TYPE, frame, GRPC_CODES, messageJson, methodOfPath, unframe } from "../grpc.js";
import { render } from "../match.js";
import type { ClientExchange } from "./cases.js";
import type { ExchangeOutcome, RecordedRequest } from "./fixture-server.js";

export interface GrpcFixture {
  address: string;
  close(): Promise<void>;
}

/** The gRPC error of a response: status name, message, ErrorInfo. */
export interface GrpcErrorResponse {
  status: string;
  message?: string;
  errorInfo?: { reason: string; domain?: string; metadata?: Record<string, string> };
}

function errorTrailers(e: GrpcErrorResponse): Record<string, string> {
  const code = GRPC_CODES.indexOf(e.status as never);
  const message = e.message ?? e.status;
  const details = e.errorInfo
    ? [
        {
          typeUrl: ERROR_INFO_TYPE,
          value: encodeErrorInfo({
            reason: e.errorInfo.reason,
            domain: e.errorInfo.domain ?? "a2a-protocol.org",
            metadata: e.errorInfo.metadata ?? {},
          }),
        },
      ]
    : [];
  return {
    "grpc-status": String(code < 0 ? 2 : code),
    "grpc-message": encodeURIComponent(message),
    ...(details.length ? { "grpc-status-details-bin": base64Encode(encodeStatus({ code, message, details })) } : {}),
  };
}

function encoded(schema: DescMessage, json: unknown): Buffer {
  return frame(toBinary(schema, fromJson(schema, json as never)));
}

/** Writes an exchange's response on a gRPC stream; returns the HTTP status. */
function answer(stream: http2.ServerHttp2Stream, schema: DescMessage, r: ClientExchange["response"], vars: Map<string, unknown>): number {
  const rendered = render(r, vars) as ClientExchange["response"];
  const head = { ":status": 200, "content-type": "application/grpc+proto", ...(rendered.headers ?? {}) };
  if (rendered.grpc && rendered.grpc.status !== "OK") {
    stream.respond({ ...head, ...errorTrailers(rendered.grpc) }, { endStream: true });
    return 200;
  }
  let messages: Buffer[];
  try {
    messages = (rendered.events ?? (rendered.body !== undefined ? [rendered.body] : [])).map((m) => encoded(schema, m));
  } catch (e) {
    stream.respond(
      { ...head, ...errorTrailers({ status: "INTERNAL", message: `fixture server: ${(e as Error).message}` }) },
      { endStream: true },
    );
    return 200;
  }
  stream.respond(head, { waitForTrailers: true });
  for (const m of messages) stream.write(m);
  if (rendered.end === "drop") {
    stream.write(Buffer.alloc(0), () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    return 200;
  }
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  stream.end();
  return 200;
}

export async function startGrpcFixture(
  version: Version,
  host: string,
  take: (rec: RecordedRequest) => { outcome: ExchangeOutcome } | undefined,
  vars: Map<string, unknown>,
): Promise<GrpcFixture> {
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  server.on("stream", (stream, headers) => {
    const path = String(headers[":path"] ?? "");
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const rec: RecordedRequest = { method: String(headers[":method"] ?? "POST"), url: path, headers: {} };
      for (const [k, v] of Object.entries(headers))
        if (!k.startsWith(":") && v !== undefined) rec.headers[k] = Array.isArray(v) ? v.join(", ") : v;
      const found = methodOfPath(path);
      const { messages } = unframe(Buffer.concat(chunks));
      const [only] = messages;
      if (found && found.version === version && only && messages.length === 1) {
        try {
          rec.json = messageJson(found.method.input, only.data);
          rec.body = JSON.stringify(rec.json);
        } catch (e) {
          rec.body = `not a ${found.method.input.typeName}: ${(e as Error).message}`;
        }
      } else rec.body = `${messages.length} message(s) to ${path}${found ? "" : " (no method of either A2AService)"}`;
      const taken = take(rec);
      if (!taken || !found) {
        stream.respond(
          {
            ":status": 200,
            "content-type": "application/grpc+proto",
            ...errorTrailers({ status: found ? "INTERNAL" : "UNIMPLEMENTED", message: `fixture server: unexpected call ${path}` }),
          },
          { endStream: true },
        );
        return;
      }
      taken.outcome.responseStatus = answer(stream, found.method.output, taken.outcome.exchange.response, vars);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    address: `${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}
