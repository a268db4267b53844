// The message a run sends to the agent: `--message`, `--follow-up` and `--message-file` turned into
// the variables the case templates use ({{message}}, {{followUp}}, "{{parts:message}}",
// "{{parts:followUp}}", "{{metadata:message}}"), with the parts in the dialect of the case's
// version and binding. The 0.3 spelling is written out here rather than taken from
// src/versioning, so the judge does not share the translator of the server it judges.
import { readFileSync } from "node:fs";
import type * as v1_0 from "../../generated/v1_0/index.js";
import { check } from "../runtime/validation.js";
import type { Version } from "./cases.js";
import { isPlainObject } from "./match.js";
import { resolveValidator } from "./validators.js";

export const DEFAULT_MESSAGE = "hello";
export const DEFAULT_FOLLOW_UP = "yes";

/** What the run sends: the texts and, from a --message-file, 1.0 ProtoJSON parts and metadata. */
export interface RunMessage {
  message?: string;
  followUp?: string;
  messageParts?: v1_0.PartJson[];
  messageMetadata?: Record<string, unknown>;
}

/** A --message-file that cannot be used (the CLI reports it as a usage error, exit code 2). */
export class MessageFileError extends Error {
  constructor(file: string, problem: string) {
    super(`--message-file ${file}: ${problem}`);
    this.name = "MessageFileError";
  }
}

/** Reads `{"parts": [1.0 ProtoJSON parts], "metadata"?: {...}}`; each part must be a valid 1.0 Part. */
export function loadMessageFile(file: string): Required<Pick<RunMessage, "messageParts">> & Pick<RunMessage, "messageMetadata"> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new MessageFileError(
      file,
      (e as NodeJS.ErrnoException).code ? `cannot read: ${(e as Error).message}` : `not valid JSON: ${(e as Error).message}`,
    );
  }
  if (!isPlainObject(data)) throw new MessageFileError(file, 'expected an object {"parts": [...], "metadata"?: {...}}');
  const unknown = Object.keys(data).filter((k) => k !== "parts" && k !== "metadata");
  if (unknown.length) throw new MessageFileError(file, `unknown member "${unknown[0]}" (expected parts and optionally metadata)`);
  const { parts, metadata } = data;
  if (!Array.isArray(parts) || parts.length === 0)
    throw new MessageFileError(file, "/parts: expected a non-empty array of 1.0 ProtoJSON parts");
  const validPart = resolveValidator("v1_0.Part")!;
  parts.forEach((p, i) => {
    const issue = check(validPart, p);
    if (issue) throw new MessageFileError(file, `/parts/${i}${issue.path}: not a valid 1.0 Part: ${issue.message}`);
  });
  const badData = parts.findIndex((p: v1_0.PartJson) => p.data !== undefined && !isPlainObject(p.data));
  if (badData >= 0)
    throw new MessageFileError(
      file,
      `/parts/${badData}/data: must be an object (a 0.3 DataPart carries an object, and the message goes to 0.3 interfaces too)`,
    );
  if (metadata !== undefined && !isPlainObject(metadata)) throw new MessageFileError(file, "/metadata: expected an object");
  return { messageParts: parts as v1_0.PartJson[], ...(metadata !== undefined ? { messageMetadata: metadata } : {}) };
}

/** 1.0 parts in the dialect of a case: 1.0 ProtoJSON, 0.3 JSON-RPC (`kind`) or 0.3 HTTP+JSON (proto). */
export function partsFor(parts: v1_0.PartJson[], version: Version, binding: "json-rpc" | "rest" | "grpc"): unknown[] {
  if (version === "1.0") return parts;
  // 0.3 HTTP+JSON and 0.3 gRPC share the 0.3 proto (its ProtoJSON form).
  return parts.map((p) => (binding === "json-rpc" ? rpcPart(p) : restPart(p)));
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** 0.3 JSON-RPC (0.3.0 §6.5): TextPart / FilePart (FileWithUri | FileWithBytes) / DataPart, each with `kind`. */
function rpcPart(p: v1_0.PartJson): unknown {
  const file = p.url !== undefined ? { uri: p.url } : p.raw !== undefined ? { bytes: p.raw } : undefined;
  if (file) return defined({ kind: "file", file: defined({ ...file, mimeType: p.mediaType, name: p.filename }), metadata: p.metadata });
  if (p.data !== undefined) return defined({ kind: "data", data: p.data, metadata: p.metadata });
  return defined({ kind: "text", text: p.text, metadata: p.metadata });
}

/** 0.3 HTTP+JSON (the 0.3 proto): Part is text | file | data; FilePart has no name and Part no metadata. */
function restPart(p: v1_0.PartJson): unknown {
  const file = p.url !== undefined ? { fileWithUri: p.url } : p.raw !== undefined ? { fileWithBytes: p.raw } : undefined;
  if (file) return { file: defined({ ...file, mimeType: p.mediaType }) };
  if (p.data !== undefined) return { data: { data: p.data } };
  return { text: p.text };
}

/** The template variables of the run message for a case of this version and binding. */
export function messageVars(m: RunMessage, version: Version, binding: "json-rpc" | "rest" | "grpc"): [string, unknown][] {
  const firstText = m.messageParts?.find((p) => typeof p.text === "string")?.text;
  const message = m.message ?? firstText ?? DEFAULT_MESSAGE;
  const followUp = m.followUp ?? DEFAULT_FOLLOW_UP;
  return [
    ["message", message],
    ["followUp", followUp],
    ["parts:message", partsFor(m.messageParts ?? [{ text: message }], version, binding)],
    ["parts:followUp", partsFor([{ text: followUp }], version, binding)],
    ["metadata:message", m.messageMetadata ?? {}],
  ];
}
