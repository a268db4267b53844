// gRPC for the compliance suite, over node:http2 with the gRPC framing written out (no gRPC client
// library in between, so the runner sees what a library would hide: the HTTP/2 status, the
// content-type, trailers-only answers, a missing grpc-status, a stream that never ends, the raw
// grpc-status-details-bin). Requests and responses are ProtoJSON in the cases and binary protobuf
// on the wire (@bufbuild/protobuf with the generated schemas of each version); the method path is
// `/${service.typeName}/${method.name}` of the generated service descriptor.
import { readFileSync } from "node:fs";
import http2 from "node:http2";
import {
  fromBinary,
  fromJson,
  getOption,
  isFieldSet,
  toBinary,
  toJson,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
  type Message,
} from "@bufbuild/protobuf";
import { base64Decode, base64Encode, BinaryReader, BinaryWriter } from "@bufbuild/protobuf/wire";
import { A2AService as Service1_0 } from "../../generated/v1_0/a2a_pb.js";
import { A2AService as Service0_3 } from "../../generated/v0_3/a2a_pb.js";
import { FieldBehavior, field_behavior } from "../../generated/v1_0/google/api/field_behavior_pb.js";
import type { Version } from "./cases.js";
import type { SseEventRecord, WireResponse } from "./http.js";
import { CLOSE_GRACE_MS, closingEvent } from "./stream-end.js";
import { packagePath } from "../runtime/package-root.js";

/** google.rpc.Code names by number (the gRPC status codes). */
export const GRPC_CODES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;
export type GrpcCodeName = (typeof GRPC_CODES)[number];

export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

export const SERVICES: Record<Version, DescService> = { "1.0": Service1_0, "0.3": Service0_3 };

/** The method of a version's A2AService by its proto name (SendMessage, GetTask …). */
export function grpcMethod(version: Version, name: string): DescMethod | undefined {
  return SERVICES[version].methods.find((m) => m.name === name);
}

export function grpcPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** The method a request path names, in either version's service. */
export function methodOfPath(path: string): { version: Version; method: DescMethod } | undefined {
  for (const version of ["1.0", "0.3"] as const) {
    const method = SERVICES[version].methods.find((m) => grpcPath(m) === path);
    if (method) return { version, method };
  }
  return undefined;
}

// ---- google.rpc.Status / Any / ErrorInfo / BadRequest (fields from google/rpc/*.proto) ----

export interface AnyDetail {
  typeUrl: string;
  value: Uint8Array;
}

export interface RpcStatus {
  code: number;
  message: string;
  details: AnyDetail[];
}

export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

export function decodeStatus(bytes: Uint8Array): RpcStatus {
  const r = new BinaryReader(bytes);
  const out: RpcStatus = { code: 0, message: "", details: [] };
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no === 1) out.code = r.int32();
    else if (no === 2) out.message = r.string();
    else if (no === 3) out.details.push(decodeAny(r.bytes()));
    else r.skip(wt);
  }
  return out;
}

function decodeAny(bytes: Uint8Array): AnyDetail {
  const r = new BinaryReader(bytes);
  const out: AnyDetail = { typeUrl: "", value: new Uint8Array() };
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no === 1) out.typeUrl = r.string();
    else if (no === 2) out.value = r.bytes();
    else r.skip(wt);
  }
  return out;
}

export function decodeErrorInfo(bytes: Uint8Array): ErrorInfo {
  const r = new BinaryReader(bytes);
  const out: ErrorInfo = { reason: "", domain: "", metadata: {} };
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no === 1) out.reason = r.string();
    else if (no === 2) out.domain = r.string();
    else if (no === 3) {
      const e = new BinaryReader(r.bytes());
      let k = "";
      let v = "";
      while (e.pos < e.len) {
        const [n, w] = e.tag();
        if (n === 1) k = e.string();
        else if (n === 2) v = e.string();
        else e.skip(w);
      }
      out.metadata[k] = v;
    } else r.skip(wt);
  }
  return out;
}

function decodeBadRequest(bytes: Uint8Array): { field: string; description: string }[] {
  const r = new BinaryReader(bytes);
  const out: { field: string; description: string }[] = [];
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no !== 1) {
      r.skip(wt);
      continue;
    }
    const v = new BinaryReader(r.bytes());
    const fv = { field: "", description: "" };
    while (v.pos < v.len) {
      const [n, w] = v.tag();
      if (n === 1) fv.field = v.string();
      else if (n === 2) fv.description = v.string();
      else v.skip(w);
    }
    out.push(fv);
  }
  return out;
}

export function encodeErrorInfo(e: ErrorInfo): Uint8Array {
  const w = new BinaryWriter().uint32(10).string(e.reason).uint32(18).string(e.domain);
  for (const [k, v] of Object.entries(e.metadata)) w.uint32(26).fork().uint32(10).string(k).uint32(18).string(v).join();
  return w.finish();
}

export function encodeStatus(s: RpcStatus): Uint8Array {
  const w = new BinaryWriter();
  if (s.code) w.uint32(8).int32(s.code);
  if (s.message) w.uint32(18).string(s.message);
  for (const d of s.details) w.uint32(26).fork().uint32(10).string(d.typeUrl).uint32(18).bytes(d.value).join();
  return w.finish();
}

/** A detail as the JSON the cases match: ErrorInfo and BadRequest decoded, anything else as base64. */
export function detailJson(d: AnyDetail): Record<string, unknown> {
  try {
    if (d.typeUrl === ERROR_INFO_TYPE) return { "@type": d.typeUrl, ...decodeErrorInfo(d.value) };
    if (d.typeUrl === BAD_REQUEST_TYPE) return { "@type": d.typeUrl, fieldViolations: decodeBadRequest(d.value) };
  } catch (e) {
    return { "@type": d.typeUrl, decodeError: (e as Error).message };
  }
  return { "@type": d.typeUrl, value: base64Encode(d.value) };
}

// ---- framing (gRPC over HTTP/2: 1 byte compressed flag, 4 bytes big-endian length, the message) ----

export function frame(message: Uint8Array, compressed = false): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** Splits length-prefixed messages off a growing buffer; `rest` is what is not a whole message yet. */
export function unframe(buf: Buffer): { messages: { compressed: boolean; data: Buffer }[]; rest: Buffer } {
  const messages: { compressed: boolean; data: Buffer }[] = [];
  let at = 0;
  while (buf.length - at >= 5) {
    const len = buf.readUInt32BE(at + 1);
    if (buf.length - at - 5 < len) break;
    messages.push({ compressed: buf[at] === 1, data: buf.subarray(at + 5, at + 5 + len) });
    at += 5 + len;
  }
  return { messages, rest: buf.subarray(at) };
}

/** grpc-message is percent-encoded (gRPC over HTTP/2). */
export function decodeGrpcMessage(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

// ---- the exchange ----

/** What the runner records of a gRPC call beside headers, body and events (WireResponse.grpc). */
export interface GrpcOutcome {
  /** The status name (grpc-status as a google.rpc.Code name); undefined when no grpc-status came. */
  status?: string;
  code?: number;
  message?: string;
  /** The decoded grpc-status-details-bin: its details (ErrorInfo, BadRequest decoded). */
  details?: Record<string, unknown>[];
  /** The first ErrorInfo of the details. */
  errorInfo?: Record<string, unknown>;
  /** Set when grpc-status-details-bin is there but is no google.rpc.Status, or disagrees with grpc-status. */
  detailsProblem?: string;
  /** The status came in the response headers (no message, no separate trailers). */
  trailersOnly: boolean;
  /** The trailers (or, trailers-only, the headers carrying the status), lower-case names. */
  trailers: Record<string, string>;
}

export interface GrpcCall {
  /** host:port (cleartext HTTP/2), http://host:port, or https://host:port (TLS). */
  target: string;
  version: Version;
  method: DescMethod;
  metadata: Record<string, string>;
  /** The request message as ProtoJSON (encoded with the method's input schema). */
  body?: unknown;
  /** Or the message bytes as given (base64), for requests no schema can spell. */
  rawBody?: string;
}

const MAX_BYTES = 4 * 1024 * 1024;

/** The origin http2.connect takes for an interface URL: host:port is cleartext HTTP/2. */
export function grpcOrigin(target: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    const u = new URL(target);
    return `${u.protocol === "https:" || u.protocol === "grpcs:" ? "https:" : "http:"}//${u.host}`;
  }
  return `http://${target}`;
}

/** The request message bytes of a call (throws with the ProtoJSON problem). */
export function requestBytes(call: Pick<GrpcCall, "method" | "body" | "rawBody">): Uint8Array {
  if (call.rawBody !== undefined) return base64Decode(call.rawBody);
  return toBinary(call.method.input, fromJson(call.method.input, (call.body ?? {}) as never));
}

/**
 * A response message as ProtoJSON. On the binary wire a field without presence at its zero value
 * (an empty string, 0, false, the first enum value, an empty list) is the same as no field. Lists,
 * maps and REQUIRED scalars are written all the same, so a REQUIRED `nextPageToken` that is "" or a
 * `tasks` list that is empty reads as the JSON bindings spell them; any other scalar at its zero
 * value is left out, as absent: a Task without `context_id` (1.0.1 does not mark it REQUIRED) is
 * one without `contextId`, not one whose `contextId` is "".
 */
export function messageJson(schema: DescMessage, bytes: Uint8Array): unknown {
  const message = fromBinary(schema, bytes);
  const json = toJson(schema, message, { alwaysEmitImplicit: true });
  dropUnsetScalars(schema, message, json);
  return json;
}

let restRequired0_3: Record<string, unknown> | undefined;

/** REQUIRED: google.api.field_behavior on the proto field; in 0.3 also the 0.3 JSON Schema's `required` (rest-required.json). */
function isRequired(field: DescField): boolean {
  if (getOption(field, field_behavior).includes(FieldBehavior.REQUIRED)) return true;
  const parent = field.parent;
  if (parent.file.proto.package !== "a2a.v1") return false;
  restRequired0_3 ??= JSON.parse(readFileSync(packagePath("generated", "v0_3", "rest-required.json"), "utf8")) as Record<string, unknown>;
  const names = restRequired0_3[parent.typeName.slice("a2a.v1.".length).replace(/\./g, "_")];
  return Array.isArray(names) && names.includes(field.jsonName);
}

function dropUnsetScalars(schema: DescMessage, message: Message, json: unknown): void {
  if (typeof json !== "object" || json === null || schema.typeName.startsWith("google.protobuf.")) return;
  const out = json as Record<string, unknown>;
  const fields = message as unknown as Record<string, unknown>;
  for (const field of schema.fields) {
    const value = field.oneof ? undefined : fields[field.localName];
    switch (field.fieldKind) {
      case "scalar":
      case "enum":
        if (!field.oneof && !isFieldSet(message, field) && !isRequired(field)) delete out[field.jsonName];
        break;
      case "message":
        if (!field.oneof) dropUnsetScalars(field.message, value as Message, out[field.jsonName]);
        else {
          const o = fields[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
          if (o?.case === field.localName) dropUnsetScalars(field.message, o.value as Message, out[field.jsonName]);
        }
        break;
      case "list":
        if (field.listKind === "message" && Array.isArray(value) && Array.isArray(out[field.jsonName]))
          value.forEach((m, i) => dropUnsetScalars(field.message, m as Message, (out[field.jsonName] as unknown[])[i]));
        break;
      case "map":
        if (field.mapKind === "message" && value && typeof out[field.jsonName] === "object")
          for (const [k, m] of Object.entries(value))
            dropUnsetScalars(field.message, m as Message, (out[field.jsonName] as Record<string, unknown>)[k]);
        break;
    }
  }
}

/**
 * One received message as the runner records it: its bytes (base64) and the ProtoJSON written from
 * it, or why it is no message of `schema` (compressed unasked, bytes that do not decode, a value
 * ProtoJSON cannot spell, such as a Timestamp outside its range).
 */
export function receivedMessage(schema: DescMessage, m: { compressed: boolean; data: Uint8Array }): SseEventRecord {
  const ev: SseEventRecord = { data: base64Encode(m.data) };
  if (m.compressed) ev.parseError = "a compressed message although the request offered no grpc-accept-encoding";
  else
    try {
      ev.json = messageJson(schema, m.data);
      ev.data = JSON.stringify(ev.json);
    } catch (e) {
      ev.parseError = `not a ${schema.typeName}: ${(e as Error).message}`;
    }
  return ev;
}

function headerRecord(h: http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined && !k.startsWith(":")) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/** The status part of a response: grpc-status, grpc-message, grpc-status-details-bin. */
export function outcomeOf(trailers: Record<string, string>, trailersOnly: boolean): GrpcOutcome {
  const out: GrpcOutcome = { trailersOnly, trailers };
  const raw = trailers["grpc-status"];
  if (raw !== undefined) {
    out.code = Number(raw);
    out.status = /^\d+$/.test(raw) ? (GRPC_CODES[out.code] ?? raw) : raw;
  }
  const message = decodeGrpcMessage(trailers["grpc-message"]);
  if (message !== undefined) out.message = message;
  const bin = trailers["grpc-status-details-bin"];
  if (bin !== undefined) {
    try {
      const st = decodeStatus(base64Decode(bin));
      out.details = st.details.map(detailJson);
      const info = out.details.find((d) => d["@type"] === ERROR_INFO_TYPE);
      if (info) out.errorInfo = info;
      if (out.code !== undefined && st.code !== out.code)
        out.detailsProblem = `grpc-status-details-bin holds code ${st.code}, grpc-status says ${out.code}`;
    } catch (e) {
      out.detailsProblem = `grpc-status-details-bin is no google.rpc.Status: ${(e as Error).message}`;
    }
  }
  return out;
}

export interface GrpcExchangeOptions {
  timeoutMs: number;
  streamTimeoutMs: number;
  stopAfter?: number;
}

/**
 * One gRPC call: the response as a WireResponse (status = the HTTP/2 :status; headers = the
 * response headers; json = the one response message of a unary call; events = the messages of a
 * server-streaming call; closed = the server ended the stream) with `grpc` holding the status.
 */
export async function grpcExchange(call: GrpcCall, opts: GrpcExchangeOptions): Promise<WireResponse> {
  let bytes: Uint8Array;
  try {
    bytes = requestBytes(call);
  } catch (e) {
    return { status: 0, headers: {}, error: `the case's request is no ${call.method.input.typeName}: ${(e as Error).message}` };
  }
  const streaming = call.method.methodKind === "server_streaming";
  return new Promise<WireResponse>((resolve) => {
    let session: http2.ClientHttp2Session;
    try {
      session = http2.connect(grpcOrigin(call.target));
    } catch (e) {
      resolve({ status: 0, headers: {}, error: (e as Error).message });
      return;
    }
    const res: WireResponse = { status: 0, headers: {}, decoded: true };
    const events: SseEventRecord[] = [];
    let pending: Buffer = Buffer.alloc(0);
    let total = 0;
    let done = false;
    let trailers: Record<string, string> | undefined;
    let trailersOnly = false;
    const finish = (extra: Partial<WireResponse> = {}) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      Object.assign(res, extra);
      if (pending.length && !res.error) res.error = `${pending.length} byte(s) after the last whole message (broken gRPC framing)`;
      // A call the server ended without trailers still has an outcome: no grpc-status. One the
      // client stopped (stopAfter) or gave up on (timeout) has none.
      if (trailers || res.closed) res.grpc = outcomeOf(trailers ?? {}, trailersOnly);
      if (streaming) res.events = events;
      else if (events.length > 1 && !res.error) res.error = `a unary call answered with ${events.length} messages`;
      else if (events.length === 1 && events[0]) {
        const [only] = events;
        res.json = only.json;
        res.text = only.data;
        if (only.parseError && !res.error) res.error = only.parseError;
      }
      session.close();
      session.destroy();
      resolve(res);
    };
    const timeoutFor = () => (res.status && streaming ? opts.streamTimeoutMs : opts.timeoutMs);
    let timer = setTimeout(() => onTimeout(), opts.timeoutMs);
    const onTimeout = () => {
      if (!res.status) finish({ status: 0, error: `no response within ${opts.timeoutMs} ms`, timedOut: true });
      else if (streaming) finish({ closed: false, timedOut: true });
      else finish({ error: `the call did not end within ${opts.timeoutMs} ms`, timedOut: true });
      stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    session.on("error", (e: Error) => finish(res.status ? { error: e.message } : { status: 0, error: e.message }));
    const stream = session.request({
      ":method": "POST",
      ":path": grpcPath(call.method),
      "content-type": "application/grpc+proto",
      te: "trailers",
      ...Object.fromEntries(Object.entries(call.metadata).map(([k, v]) => [k.toLowerCase(), v])),
    });
    stream.on("response", (headers, flags) => {
      res.status = Number(headers[":status"]);
      res.headers = headerRecord(headers);
      if ((flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0 || res.headers["grpc-status"] !== undefined) {
        trailersOnly = true;
        trailers = res.headers;
      }
      clearTimeout(timer);
      timer = setTimeout(() => onTimeout(), timeoutFor());
    });
    stream.on("trailers", (t: http2.IncomingHttpHeaders) => {
      trailers = headerRecord(t);
    });
    stream.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > MAX_BYTES) {
        finish({ error: `more than ${MAX_BYTES} bytes` });
        stream.close(http2.constants.NGHTTP2_CANCEL);
        return;
      }
      const got = unframe(Buffer.concat([pending, chunk]));
      pending = got.rest;
      for (const m of got.messages) {
        const ev = receivedMessage(call.method.output, m);
        events.push(ev);
        const closing = streaming && res.closingAt === undefined ? closingEvent(ev.json) : undefined;
        if (closing) {
          // The stream must end now: wait a little for it, not the whole stream bound.
          res.closingAt = events.length - 1;
          res.closing = closing;
          clearTimeout(timer);
          timer = setTimeout(() => onTimeout(), Math.min(CLOSE_GRACE_MS, opts.streamTimeoutMs));
        }
        if (opts.stopAfter !== undefined && events.length >= opts.stopAfter) {
          finish({ closed: false });
          stream.close(http2.constants.NGHTTP2_CANCEL);
          return;
        }
      }
    });
    stream.on("end", () => finish({ closed: true }));
    stream.on("close", () => finish(res.status ? { closed: true } : { status: 0, error: "the stream closed before any response" }));
    stream.on("error", (e: Error) => finish(res.status ? { error: e.message } : { status: 0, error: e.message }));
    stream.end(frame(bytes));
  });
}
