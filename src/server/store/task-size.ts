// Estimated sizes of tasks and their pieces, for the byte limits of the runtime and the memory store
// (README "Limits and timeouts").
//
// The estimate is close to what the object costs on the JavaScript heap, not to its JSON: the
// content (text, url and string lengths, raw bytes, data values, metadata) plus a fixed OBJECT_BYTES
// per part, message and artifact. A protobuf-es text Part of 15 characters measures about 185 heap
// bytes, so counting content alone would let 100,000 tiny chunks (1.5 MB of text, 18 MB of heap)
// pass as small. It is computed from lengths already at hand, without serialising anything.
import type { JsonValue } from "@bufbuild/protobuf";
import type { Value } from "@bufbuild/protobuf/wkt";
import type * as v1_0 from "../../../generated/v1_0/index.js";

/** Counted for each part, message and artifact on top of its content. */
export const OBJECT_BYTES = 160;

function valueBytes(v: Value | undefined): number {
  if (!v) return 0;
  switch (v.kind.case) {
    case "stringValue":
      return 16 + v.kind.value.length;
    case "structValue": {
      let n = 16;
      for (const [k, x] of Object.entries(v.kind.value.fields)) n += 16 + k.length + valueBytes(x);
      return n;
    }
    case "listValue": {
      let n = 16;
      for (const x of v.kind.value.values) n += valueBytes(x);
      return n;
    }
    default:
      return 16;
  }
}

/** Estimated size of a JSON value (metadata): its string lengths plus 16 bytes per value. */
export function jsonBytes(v: JsonValue | undefined): number {
  if (v === null || v === undefined || typeof v !== "object") return typeof v === "string" ? 16 + v.length : 16;
  let n = 16;
  if (Array.isArray(v)) for (const x of v) n += jsonBytes(x);
  else for (const k in v) n += 16 + k.length + jsonBytes(v[k]);
  return n;
}

export function partBytes(p: v1_0.Part): number {
  let n = OBJECT_BYTES + p.mediaType.length + p.filename.length;
  if (p.metadata) n += jsonBytes(p.metadata);
  const c = p.content;
  if (c.case === "text" || c.case === "url") n += c.value.length;
  else if (c.case === "raw") n += c.value.byteLength;
  else if (c.case === "data") n += valueBytes(c.value);
  return n;
}

/** The sum of `bytes` over `items`. */
function sum<T>(items: readonly T[], bytes: (item: T) => number): number {
  let n = 0;
  for (const x of items) n += bytes(x);
  return n;
}

export function partsBytes(parts: readonly v1_0.Part[]): number {
  return sum(parts, partBytes);
}

export function messageBytes(m: v1_0.Message): number {
  let n = OBJECT_BYTES + m.messageId.length + m.contextId.length + m.taskId.length + partsBytes(m.parts);
  if (m.metadata) n += jsonBytes(m.metadata);
  for (const e of m.extensions) n += e.length;
  for (const r of m.referenceTaskIds) n += r.length;
  return n;
}

export function historyBytes(history: readonly v1_0.Message[]): number {
  return sum(history, messageBytes);
}

export function artifactBytes(a: v1_0.Artifact): number {
  let n = OBJECT_BYTES + a.artifactId.length + a.name.length + a.description.length + partsBytes(a.parts);
  if (a.metadata) n += jsonBytes(a.metadata);
  for (const e of a.extensions) n += e.length;
  return n;
}

export function artifactsBytes(artifacts: readonly v1_0.Artifact[]): number {
  return sum(artifacts, artifactBytes);
}

/**
 * Estimated size of a task: history, artifacts, metadata and the status message when it is not the
 * last history entry (the runtime appends status messages to the history, so it is counted once).
 */
export function taskBytes(t: v1_0.Task, artifacts = artifactsBytes(t.artifacts)): number {
  let n = OBJECT_BYTES + t.id.length + t.contextId.length + historyBytes(t.history) + artifacts;
  if (t.metadata) n += jsonBytes(t.metadata);
  const status = t.status?.message;
  if (status && t.history[t.history.length - 1] !== status) n += messageBytes(status);
  return n;
}

/** Estimated size of a stream event, for the subscriber buffers' byte limit (channel.ts). */
export function eventBytes(e: v1_0.StreamResponse): number {
  const p = e.payload;
  switch (p.case) {
    case "task":
      return taskBytes(p.value);
    case "message":
      return messageBytes(p.value);
    case "artifactUpdate":
      return OBJECT_BYTES + (p.value.artifact ? artifactBytes(p.value.artifact) : 0);
    case "statusUpdate":
      return OBJECT_BYTES + (p.value.status?.message ? messageBytes(p.value.status.message) : 0);
    default:
      return OBJECT_BYTES;
  }
}
