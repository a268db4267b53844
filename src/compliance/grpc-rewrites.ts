// The gRPC faults of the rewriting proxy (its h2c side, grpc-proxy.ts): the same table shape as
// rewrites.ts (name, kind, description, the sentence broken, where it applies) with hooks over a
// gRPC exchange instead of JSON: the response headers, each length-prefixed message, the trailers
// (the status), and whether the stream is held open or a reply collapsed into trailers-only.
import type { Citation } from "./citations.js";
import type { Version } from "./cases.js";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { decodeErrorInfo, decodeStatus, encodeErrorInfo, encodeStatus, ERROR_INFO_TYPE, frame, GRPC_CODES, grpcMethod } from "./grpc.js";

/** One gRPC call through the proxy. */
export interface GrpcExchange {
  version: Version;
  /** The A2AService method name (SendMessage, TaskSubscription …). */
  method: string;
  streaming: boolean;
}

/** Lower-case header names; values as strings. */
export type GrpcHeaders = Record<string, string>;

export interface GrpcRewrite {
  name: string;
  kind: "fault";
  description: string;
  spec: Citation[];
  applies: { versions?: Version[]; streaming?: boolean };
  /** Rewrites the response headers (not the trailers-only ones: those go through `trailers`). */
  head?(h: GrpcHeaders, ex: GrpcExchange): GrpcHeaders;
  /** Rewrites one response message (the payload, without its prefix) into the bytes written instead (framing included). */
  message?(payload: Buffer, ex: GrpcExchange, index: number): Buffer;
  /** Rewrites the status trailers (or the headers of a trailers-only answer). */
  trailers?(t: GrpcHeaders, ex: GrpcExchange): GrpcHeaders;
  /** Keeps a stream open after the agent has ended it (no trailers), until the client goes away. */
  holdOpen?: boolean;
  /** Answers a successful call trailers-only (status in the headers, the messages dropped). */
  trailersOnly?: boolean;
}

const V1_0_ERRORS: Citation = {
  version: "1.0.1",
  section: "10.6",
  quote: "For A2A-specific errors, implementations **MUST** include a `google.rpc.ErrorInfo` message in the `status.details` array with:",
};
const V1_0_MAPPING: Citation = {
  version: "1.0.1",
  section: "5.4",
  quote:
    "All A2A-specific errors defined in [Section 3.3.2](#332-error-handling) **MUST** be mapped to binding-specific error representations.",
};
const V0_3_ERRORS: Citation = {
  version: "0.3.0",
  section: "3.2.2",
  quote: "**Error Handling**: **MUST** map A2A error codes to appropriate gRPC status codes as defined in the proto annotations.",
};
const V0_3_SERIALISATION: Citation = {
  version: "0.3.0",
  section: "3.2.2",
  quote: "**Message Serialization**: **MUST** use Protocol Buffers version 3 for message serialization.",
};
const V1_0_PROTOCOL: Citation = { version: "1.0.1", section: "10.1", quote: "**Protocol:** gRPC over HTTP/2 with TLS" };
const V1_0_STREAMING: Citation = {
  version: "1.0.1",
  section: "10.7",
  quote: "gRPC streaming uses server streaming RPCs for real-time updates.",
};

const V1_0_REQUIRED: Citation = {
  version: "1.0.1",
  section: "5.7",
  quote:
    "Fields marked with `[(google.api.field_behavior) = REQUIRED]` indicate that the field **MUST** be present and set in valid messages.",
};
const V1_0_PROTO: Citation = {
  version: "1.0.1",
  section: "1.4",
  quote:
    "In addition to the protocol requirements defined in this document, the file `spec/a2a.proto` is the single authoritative normative definition of all protocol data objects and request/response messages.",
};
const V0_3_DATA: Citation = {
  version: "0.3.0",
  section: "11.1.5",
  quote:
    "**A2A data objects**: **MUST** use the data structures defined in [Section 6](#6-protocol-data-objects) for all protocol entities.",
};

/**
 * A response message decoded with its method's output schema, `edit` applied to every message
 * of type `typeName` (short name: Task, TaskStatus) inside it, and encoded again (framing
 * included). The message as it was when it does not decode.
 */
function editMessages(payload: Buffer, ex: GrpcExchange, typeName: string, edit: (m: Record<string, unknown>) => void): Buffer {
  const method = grpcMethod(ex.version, ex.method);
  if (!method) return frame(payload);
  let msg;
  try {
    msg = fromBinary(method.output, payload);
  } catch {
    return frame(payload);
  }
  const seen = new Set<unknown>();
  const walk = (v: unknown) => {
    if (typeof v !== "object" || v === null || seen.has(v) || v instanceof Uint8Array) return;
    seen.add(v);
    if (Array.isArray(v)) return v.forEach(walk);
    const o = v as Record<string, unknown>;
    if (typeof o.$typeName === "string" && o.$typeName.endsWith(`.${typeName}`)) edit(o);
    for (const x of Object.values(o)) walk(x);
  };
  walk(msg);
  return frame(Buffer.from(toBinary(method.output, msg)));
}

const isError = (t: GrpcHeaders) => t["grpc-status"] !== undefined && t["grpc-status"] !== "0";

/** grpc-status-details-bin with each ErrorInfo rewritten (the other details kept). */
function mapErrorInfo(t: GrpcHeaders, f: (reason: string) => string): GrpcHeaders {
  const bin = t["grpc-status-details-bin"];
  if (bin === undefined) return t;
  const st = decodeStatus(base64Decode(bin));
  const details = st.details.map((d) => {
    if (d.typeUrl !== ERROR_INFO_TYPE) return d;
    const info = decodeErrorInfo(d.value);
    return { ...d, value: encodeErrorInfo({ ...info, reason: f(info.reason) }) };
  });
  return { ...t, "grpc-status-details-bin": base64Encode(encodeStatus({ ...st, details })) };
}

export const GRPC_REWRITES: GrpcRewrite[] = [
  {
    name: "grpc-error-status-unknown",
    kind: "fault",
    description: "every gRPC error status becomes UNKNOWN (grpc-status-details-bin keeps its code)",
    spec: [V1_0_MAPPING, V0_3_ERRORS],
    applies: {},
    trailers: (t) => (isError(t) ? { ...t, "grpc-status": String(GRPC_CODES.indexOf("UNKNOWN")) } : t),
  },
  {
    name: "grpc-error-info-missing",
    kind: "fault",
    description: "gRPC errors carry no grpc-status-details-bin, so no google.rpc.ErrorInfo",
    spec: [V1_0_ERRORS],
    applies: { versions: ["1.0"] },
    trailers: (t) => {
      if (!isError(t) || t["grpc-status-details-bin"] === undefined) return t;
      const { "grpc-status-details-bin": _gone, ...rest } = t;
      return rest;
    },
  },
  {
    name: "grpc-error-info-reason-renamed",
    kind: "fault",
    description: "the ErrorInfo reason keeps the type's name (TaskNotFoundError for TASK_NOT_FOUND)",
    spec: [V1_0_ERRORS],
    applies: { versions: ["1.0"] },
    trailers: (t) =>
      isError(t) ? mapErrorInfo(t, (r) => `${r.toLowerCase().replace(/(?:^|_)([a-z])/g, (_m, c: string) => c.toUpperCase())}Error`) : t,
  },
  {
    name: "grpc-error-as-ok",
    kind: "fault",
    description: "a gRPC error is answered with status OK and no message",
    spec: [V1_0_MAPPING, V0_3_ERRORS],
    applies: {},
    trailers: (t) => {
      if (!isError(t)) return t;
      const { "grpc-message": _m, "grpc-status-details-bin": _d, ...rest } = t;
      return { ...rest, "grpc-status": "0" };
    },
  },
  {
    name: "grpc-status-missing",
    kind: "fault",
    description: "the trailers (or a trailers-only answer) carry no grpc-status",
    spec: [V1_0_PROTOCOL, V0_3_ERRORS],
    applies: {},
    trailers: (t) => {
      const { "grpc-status": _s, ...rest } = t;
      return { ...rest, "x-a2a-toolkit-fault": "grpc-status-missing" };
    },
  },
  {
    name: "grpc-stream-not-ended",
    kind: "fault",
    description: "a server-streaming call is held open after its last message (no trailers, no end of stream)",
    spec: [
      V1_0_STREAMING,
      {
        version: "0.3.0",
        section: "3.3.2",
        quote: "gRPC transport uses **server streaming RPCs** for streaming operations as defined in the Protocol Buffers specification.",
      },
    ],
    applies: { streaming: true },
    holdOpen: true,
  },
  {
    name: "grpc-trailers-only-success",
    kind: "fault",
    description: "a successful unary call is answered trailers-only: status OK in the headers, the response message dropped",
    spec: [V1_0_PROTOCOL, V0_3_SERIALISATION],
    applies: { streaming: false },
    trailersOnly: true,
  },
  {
    name: "grpc-content-type-json",
    kind: "fault",
    description: "gRPC answers say content-type application/json",
    spec: [
      V1_0_PROTOCOL,
      {
        version: "0.3.0",
        section: "3.2.2",
        quote: "**Service Definition**: **MUST** implement the `A2AService` gRPC service as defined in the proto file.",
      },
    ],
    applies: {},
    head: (h) => ({ ...h, "content-type": "application/json" }),
    trailers: (t) => (t["content-type"] !== undefined ? { ...t, "content-type": "application/json" } : t),
  },
  {
    name: "grpc-length-prefix-too-long",
    kind: "fault",
    description: "each message's length prefix claims one byte more than the message has (broken gRPC framing)",
    spec: [V1_0_PROTOCOL, V0_3_SERIALISATION],
    applies: {},
    message: (payload) => {
      const out = frame(payload);
      out.writeUInt32BE(payload.length + 1, 1);
      return out;
    },
  },
  {
    name: "grpc-compressed-flag-without-encoding",
    kind: "fault",
    description: "messages are flagged compressed although no grpc-encoding was negotiated",
    spec: [V1_0_PROTOCOL, V0_3_SERIALISATION],
    applies: {},
    message: (payload) => frame(payload, true),
  },
  // What a received message can get wrong, now that gRPC answers are judged as the protobuf they
  // are (not as the JSON the runner writes from them): a REQUIRED field unset, an enum number
  // outside its enum, a Timestamp outside its range.
  {
    name: "grpc-task-id-unset",
    kind: "fault",
    description: "every Task in an answer has its id unset (empty)",
    spec: [V1_0_REQUIRED, V0_3_DATA],
    applies: {},
    message: (payload, ex) =>
      editMessages(payload, ex, "Task", (t) => {
        t.id = "";
      }),
  },
  {
    name: "grpc-task-state-out-of-enum",
    kind: "fault",
    description: "every TaskStatus in an answer has state 99, a number outside the TaskState enum",
    spec: [V1_0_PROTO, V0_3_DATA],
    applies: {},
    message: (payload, ex) =>
      editMessages(payload, ex, "TaskStatus", (s) => {
        s.state = 99;
      }),
  },
  {
    name: "grpc-status-timestamp-out-of-range",
    kind: "fault",
    description: "every TaskStatus timestamp is in the year 10000, outside google.protobuf.Timestamp's range",
    spec: [V1_0_PROTO, V0_3_DATA],
    applies: {},
    message: (payload, ex) =>
      editMessages(payload, ex, "TaskStatus", (s) => {
        if (s.timestamp) (s.timestamp as { seconds: bigint }).seconds = 253_402_300_800n;
      }),
  },
];

export function grpcRewriteNames(): string[] {
  return GRPC_REWRITES.map((r) => r.name);
}

export function selectGrpcRewrites(faults: string[] = []): GrpcRewrite[] {
  return GRPC_REWRITES.filter((r) => faults.includes(r.name));
}

export function grpcAppliesTo(r: GrpcRewrite, ex: GrpcExchange): boolean {
  return (
    (!r.applies.versions || r.applies.versions.includes(ex.version)) &&
    (r.applies.streaming === undefined || r.applies.streaming === ex.streaming)
  );
}
