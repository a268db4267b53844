// The common 0.3 requests (D03-RPC for JSON-RPC, D03-PB for HTTP+JSON) read in one pass: the wire
// JSON straight to the 1.0 protobuf-es request message, the message the tree path (validate the 0.3
// input, upgrade it to a 1.0 JSON tree with rpc0_3.ts / rest0_3.ts, validate that, ProtoJSON decode)
// gives, without the tree.
//
// Only the common shape is read here, the one the tree path accepts without a loss: SendMessage and
// SendStreamingMessage params with text, data and file parts, GetTask and CancelTask; every member
// one the dialect knows and of the type its schema says; no toolkit keys in part metadata, no
// integer outside ±2^53 in metadata or data (L25), no push config in the send configuration; D03-RPC
// tasks/get without metadata (L17); D03-PB sends with `blocking: true` (else L22), plain task names.
// Anything else (a loss to report, an error to raise, a shape not covered) makes the reader answer
// undefined and the codec takes the tree path, which validates with path-precise InvalidParams and
// reports the losses as before. test/contract/read0_3.test.ts holds the two paths equal over
// schema-drawn requests.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Value } from "@bufbuild/protobuf/wkt";
import { base64Decode } from "@bufbuild/protobuf/wire";
import * as v1_0 from "../../generated/v1_0/index.js";
import { canonicalBase64, DATA_COMPAT_KEY, PART_EXTRAS_KEY } from "./translate/common.js";

type Wire = { [k: string]: unknown };

/** Read by the tree path instead (a loss to report, an error to raise, or a shape not covered). */
const TREE = undefined;

const isPlain = (v: unknown): v is Wire => typeof v === "object" && v !== null && !Array.isArray(v);
/** A string protobuf-es takes for a string field: no lone surrogate (not UTF-8, refused by the tree path's decode). */
const LONE_SURROGATE = /\p{Cs}/u;
const isText = (v: unknown): v is string => typeof v === "string" && !LONE_SURROGATE.test(v);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const isInt32 = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;

/** A copy of a list of strings, TREE when `v` is not one. */
function strings(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return TREE;
  for (const s of v) if (!isText(s)) return TREE;
  return v.slice() as string[];
}

/**
 * Free-form JSON (Struct, Value) nested deeper than this is left to the tree path: protobuf-es
 * refuses a value nested past its recursion limit (100), which the transport's own limit
 * (src/runtime/json-limits.ts, 100 JSON levels) nears.
 */
const MAX_FREE_DEPTH = 32;

/**
 * A copy of free-form JSON as protobuf-es keeps a Struct field (plain JSON, own keys); TREE for an
 * integer outside ±2^53, which the tree path reports (L25), or past MAX_FREE_DEPTH.
 */
function jsonCopy(v: unknown, depth: number): JsonValue | undefined {
  if (typeof v === "number") return Number.isInteger(v) && !Number.isSafeInteger(v) ? TREE : v;
  if (typeof v !== "object" || v === null) return v as JsonValue;
  if (Array.isArray(v)) {
    if (depth > MAX_FREE_DEPTH) return TREE;
    const out: JsonValue[] = [];
    for (const item of v) {
      const c = jsonCopy(item, depth + 1);
      if (c === TREE) return TREE;
      out.push(c);
    }
    return out;
  }
  return structCopy(v as Wire, depth);
}
function structCopy(o: Wire, depth: number): JsonObject | undefined {
  if (depth > MAX_FREE_DEPTH) return TREE;
  const out: JsonObject = {};
  for (const k of Object.keys(o)) {
    const c = jsonCopy(o[k], depth + 1);
    if (c === TREE) return TREE;
    setOwn(out, k, c);
  }
  return out;
}
/** `o[k] = v`, also for `__proto__` (as protobuf-es does). */
function setOwn(o: object, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else (o as Wire)[k] = v;
}

/** Metadata (google.protobuf.Struct): absent, or a plain object copied; TREE otherwise. */
const NO_METADATA = {};
function metadataOf(v: unknown): JsonObject | typeof NO_METADATA | undefined {
  if (v === undefined) return NO_METADATA;
  return isPlain(v) ? structCopy(v, 0) : TREE;
}
const withMetadata = <T extends object>(o: T, metadata: JsonObject | typeof NO_METADATA): T => {
  if (metadata !== NO_METADATA) (o as Wire).metadata = metadata;
  return o;
};

/** A google.protobuf.Value message of JSON, as protobuf-es fromJson builds it; TREE past ±2^53 or MAX_FREE_DEPTH. */
function valueOf(v: unknown, depth: number): Value | undefined {
  let kind: { case: string; value: unknown };
  switch (typeof v) {
    case "number":
      if (Number.isInteger(v) && !Number.isSafeInteger(v)) return TREE;
      kind = { case: "numberValue", value: v };
      break;
    case "string":
      kind = { case: "stringValue", value: v };
      break;
    case "boolean":
      kind = { case: "boolValue", value: v };
      break;
    case "object": {
      if (v === null) {
        kind = { case: "nullValue", value: 0 };
        break;
      }
      if (depth > MAX_FREE_DEPTH) return TREE;
      if (Array.isArray(v)) {
        const values: unknown[] = [];
        for (const item of v) {
          const value = valueOf(item, depth + 1);
          if (value === TREE) return TREE;
          values.push(value);
        }
        kind = { case: "listValue", value: { $typeName: "google.protobuf.ListValue", values } };
        break;
      }
      const fields = {};
      for (const k of Object.keys(v)) {
        const value = valueOf((v as Wire)[k], depth + 1);
        if (value === TREE) return TREE;
        setOwn(fields, k, value);
      }
      kind = { case: "structValue", value: { $typeName: "google.protobuf.Struct", fields } };
      break;
    }
    default:
      return TREE;
  }
  return { $typeName: "google.protobuf.Value", kind } as Value;
}

/** Standard base64 bytes of a (possibly URL-safe or unpadded) base64 string; TREE when it is not base64. */
function bytesOf(s: unknown): Uint8Array | undefined {
  if (typeof s !== "string") return TREE;
  try {
    return base64Decode(canonicalBase64(s, ""));
  } catch {
    return TREE;
  }
}

type Content = v1_0.Part["content"];
const part = (content: Content, filename: string, mediaType: string, metadata: JsonObject | typeof NO_METADATA): v1_0.Part =>
  withMetadata({ $typeName: "lf.a2a.v1.Part", content, filename, mediaType }, metadata);

/** A file part of either dialect: exactly one of bytes and uri; a media type and a name, "" when absent. */
function filePart(bytes: unknown, uri: unknown, mimeType: unknown = "", name: unknown = "", metadata: JsonObject | typeof NO_METADATA) {
  if ((bytes === undefined) === (uri === undefined) || !isText(mimeType) || !isText(name)) return TREE;
  if (uri !== undefined) return isText(uri) ? part({ case: "url", value: uri }, name, mimeType, metadata) : TREE;
  const raw = bytesOf(bytes);
  return raw === TREE ? TREE : part({ case: "raw", value: raw }, name, mimeType, metadata);
}

/** How a dialect spells what the readers read. */
interface Dialect {
  partsKey: "parts" | "content";
  /** Every member of a 0.3 Message the reader reads (others: TREE). */
  messageKeys: ReadonlySet<string>;
  role(v: unknown): number | undefined;
  part(p: unknown): v1_0.Part | undefined;
  /** The send configuration as 1.0 (null: none), TREE when not common. */
  configuration(c: unknown): v1_0.SendMessageConfiguration | null | undefined;
  getTask(w: Wire): v1_0.GetTaskRequest | undefined;
  cancelTask(w: Wire): v1_0.CancelTaskRequest | undefined;
}

const keysWithin = (o: Wire, known: ReadonlySet<string>): boolean => {
  for (const k in o) if (!known.has(k)) return false;
  return true;
};

/** Part metadata (D03-RPC; D03-PB's post-v0.3.0 member): plain, without the toolkit's own keys (L3, L4). */
function partMetadata(v: unknown): JsonObject | typeof NO_METADATA | undefined {
  if (isPlain(v) && (PART_EXTRAS_KEY in v || DATA_COMPAT_KEY in v)) return TREE;
  return metadataOf(v);
}

const configuration = (acceptedOutputModes: string[], returnImmediately: boolean, historyLength: number | undefined) => {
  const c = { $typeName: "lf.a2a.v1.SendMessageConfiguration", acceptedOutputModes, returnImmediately } as v1_0.SendMessageConfiguration;
  if (historyLength !== undefined) c.historyLength = historyLength;
  return c;
};

const RPC_KEYS = {
  text: new Set(["kind", "text", "metadata"]),
  data: new Set(["kind", "data", "metadata"]),
  file: new Set(["kind", "file", "metadata"]),
  fileBody: new Set(["bytes", "uri", "mimeType", "name"]),
  config: new Set(["acceptedOutputModes", "blocking", "historyLength"]),
  getTask: new Set(["id", "historyLength", "metadata"]),
  cancelTask: new Set(["id", "metadata"]),
};

const RPC: Dialect = {
  partsKey: "parts",
  messageKeys: new Set(["kind", "messageId", "contextId", "taskId", "role", "parts", "metadata", "extensions", "referenceTaskIds"]),
  role: (r) => (r === "user" ? v1_0.Role.USER : r === "agent" ? v1_0.Role.AGENT : TREE),
  part(w) {
    if (!isPlain(w)) return TREE;
    const metadata = partMetadata(w.metadata);
    if (metadata === TREE) return TREE;
    switch (w.kind) {
      case "text":
        if (!keysWithin(w, RPC_KEYS.text) || !isText(w.text)) return TREE;
        return part({ case: "text", value: w.text }, "", "", metadata);
      case "data": {
        if (!keysWithin(w, RPC_KEYS.data) || !isPlain(w.data)) return TREE;
        const value = valueOf(w.data, 0);
        return value === TREE ? TREE : part({ case: "data", value }, "", "", metadata);
      }
      case "file": {
        const f = w.file;
        if (!keysWithin(w, RPC_KEYS.file) || !isPlain(f) || !keysWithin(f, RPC_KEYS.fileBody)) return TREE;
        // Both bytes and uri: the uri is dropped (L24).
        return filePart(f.bytes, f.uri, f.mimeType, f.name, metadata);
      }
      default:
        return TREE;
    }
  },
  configuration(c) {
    if (c === undefined) return null;
    if (!isPlain(c) || !keysWithin(c, RPC_KEYS.config)) return TREE;
    const { acceptedOutputModes, blocking, historyLength } = c;
    if (blocking !== undefined && typeof blocking !== "boolean") return TREE;
    if (historyLength !== undefined && !isInt32(historyLength)) return TREE;
    const modes = acceptedOutputModes === undefined ? [] : strings(acceptedOutputModes);
    if (modes === TREE) return TREE;
    // 0.3 `blocking` absent means blocking; an empty configuration is none.
    if (acceptedOutputModes === undefined && historyLength === undefined && blocking !== false) return null;
    return configuration(modes, blocking === false, historyLength);
  },
  getTask(w) {
    if (!keysWithin(w, RPC_KEYS.getTask) || !isText(w.id)) return TREE;
    // Metadata has no 1.0 field in GetTaskRequest (L17 when there is any).
    if (w.metadata !== undefined && !(isPlain(w.metadata) && Object.keys(w.metadata).length === 0)) return TREE;
    return getTaskRequest(w.id, w.historyLength);
  },
  cancelTask(w) {
    if (!keysWithin(w, RPC_KEYS.cancelTask) || !isText(w.id)) return TREE;
    const metadata = metadataOf(w.metadata);
    if (metadata === TREE) return TREE;
    const r: v1_0.CancelTaskRequest = { $typeName: "lf.a2a.v1.CancelTaskRequest", tenant: "", id: w.id };
    return withMetadata(r, metadata);
  },
};

/** GetTask by either dialect: TREE when historyLength is not an int32. */
function getTaskRequest(id: string, historyLength: unknown): v1_0.GetTaskRequest | undefined {
  if (historyLength !== undefined && !isInt32(historyLength)) return TREE;
  const r = { $typeName: "lf.a2a.v1.GetTaskRequest", tenant: "", id } as v1_0.GetTaskRequest;
  if (historyLength !== undefined) r.historyLength = historyLength;
  return r;
}

const PB_KEYS = {
  part: new Set(["text", "file", "data", "metadata"]),
  file: new Set(["fileWithUri", "fileWithBytes", "mimeType", "name"]),
  data: new Set(["data"]),
  config: new Set(["acceptedOutputModes", "historyLength", "blocking"]),
  getTask: new Set(["name", "historyLength"]),
  cancelTask: new Set(["name"]),
};

/** The id in a plain task resource name (`tasks/{id}`, nothing to percent-decode); TREE otherwise. */
function taskIdOf(name: unknown): string | undefined {
  if (!isText(name) || !name.startsWith("tasks/")) return TREE;
  const id = name.slice(6);
  return id === "" || id.includes("/") || id.includes("%") ? TREE : id;
}

const PB: Dialect = {
  partsKey: "content",
  messageKeys: new Set(["messageId", "contextId", "taskId", "role", "content", "metadata", "extensions"]),
  role: (r) => (r === "ROLE_USER" ? v1_0.Role.USER : r === "ROLE_AGENT" ? v1_0.Role.AGENT : TREE),
  part(w) {
    if (!isPlain(w) || !keysWithin(w, PB_KEYS.part)) return TREE;
    const metadata = partMetadata(w.metadata);
    if (metadata === TREE) return TREE;
    const { text, file, data } = w;
    if ((text !== undefined ? 1 : 0) + (file !== undefined ? 1 : 0) + (data !== undefined ? 1 : 0) !== 1) return TREE;
    if (text !== undefined) return isText(text) ? part({ case: "text", value: text }, "", "", metadata) : TREE;
    if (data !== undefined) {
      if (!isPlain(data) || !keysWithin(data, PB_KEYS.data) || !isPlain(data.data)) return TREE;
      const value = valueOf(data.data, 0);
      return value === TREE ? TREE : part({ case: "data", value }, "", "", metadata);
    }
    if (!isPlain(file) || !keysWithin(file, PB_KEYS.file)) return TREE;
    return filePart(file.fileWithBytes, file.fileWithUri, file.mimeType, file.name, metadata);
  },
  configuration(c) {
    // `blocking` false and absent are the same in D03-PB (L22): only an explicit true is common.
    if (!isPlain(c) || !keysWithin(c, PB_KEYS.config) || c.blocking !== true) return TREE;
    const { acceptedOutputModes, historyLength } = c;
    if (historyLength !== undefined && !isInt32(historyLength)) return TREE;
    const modes = acceptedOutputModes === undefined ? [] : strings(acceptedOutputModes);
    if (modes === TREE) return TREE;
    // historyLength 0 is "unlimited" in the v0.3.0 proto: left unset.
    const history = historyLength === 0 ? undefined : historyLength;
    if (acceptedOutputModes === undefined && history === undefined) return null;
    return configuration(modes, false, history);
  },
  getTask(w) {
    const id = taskIdOf(w.name);
    if (!keysWithin(w, PB_KEYS.getTask) || id === TREE) return TREE;
    return getTaskRequest(id, w.historyLength);
  },
  cancelTask(w) {
    const id = taskIdOf(w.name);
    if (!keysWithin(w, PB_KEYS.cancelTask) || id === TREE) return TREE;
    return { $typeName: "lf.a2a.v1.CancelTaskRequest", tenant: "", id };
  },
};

const SEND_KEYS = new Set(["message", "configuration", "metadata"]);

/** The readers of one dialect; each answers TREE for what it leaves to the tree path. */
class Readers {
  constructor(private readonly d: Dialect) {}

  private message(w: unknown): v1_0.Message | undefined {
    const d = this.d;
    if (!isPlain(w) || !keysWithin(w, d.messageKeys)) return TREE;
    if (d.partsKey === "parts" && w.kind !== "message") return TREE;
    const { messageId, contextId = "", taskId = "" } = w;
    const role = d.role(w.role);
    if (!isText(messageId) || !isText(contextId) || !isText(taskId) || role === TREE) return TREE;
    const wireParts = w[d.partsKey];
    // No parts: 1.0 requires at least one (L27), an error of the tree path.
    if (!Array.isArray(wireParts) || wireParts.length === 0) return TREE;
    const parts: v1_0.Part[] = [];
    for (const p of wireParts) {
      const read = d.part(p);
      if (read === TREE) return TREE;
      parts.push(read);
    }
    const extensions = w.extensions === undefined ? [] : strings(w.extensions);
    const referenceTaskIds = w.referenceTaskIds === undefined ? [] : strings(w.referenceTaskIds);
    const metadata = metadataOf(w.metadata);
    if (extensions === TREE || referenceTaskIds === TREE || metadata === TREE) return TREE;
    const m = { $typeName: "lf.a2a.v1.Message", messageId, contextId, taskId, role, parts, extensions, referenceTaskIds };
    return withMetadata(m as v1_0.Message, metadata);
  }

  /** SendMessage and SendStreamingMessage params (D03-RPC) or request message (D03-PB). */
  readonly send = (w: unknown): v1_0.SendMessageRequest | undefined => {
    if (!isPlain(w) || !keysWithin(w, SEND_KEYS)) return TREE;
    const message = this.message(w.message);
    const config = this.d.configuration(w.configuration);
    const metadata = metadataOf(w.metadata);
    if (message === TREE || config === TREE || metadata === TREE) return TREE;
    const r = { $typeName: "lf.a2a.v1.SendMessageRequest", tenant: "", message } as v1_0.SendMessageRequest;
    if (config !== null) r.configuration = config;
    return withMetadata(r, metadata);
  };

  readonly getTask = (w: unknown): v1_0.GetTaskRequest | undefined => (isPlain(w) ? this.d.getTask(w) : TREE);
  readonly cancelTask = (w: unknown): v1_0.CancelTaskRequest | undefined => (isPlain(w) ? this.d.cancelTask(w) : TREE);
}

/** D03-RPC (0.3 JSON-RPC `params`) and D03-PB (0.3 HTTP+JSON request message, path and query merged). */
export const rpcRead0_3 = new Readers(RPC);
export const restRead0_3 = new Readers(PB);
