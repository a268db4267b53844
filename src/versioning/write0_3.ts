// The 0.3 JSON-RPC (D03-RPC) text of a 1.0 Task, Message or SendMessageResponse, written from the
// protobuf-es message in one pass: the text the tree path (the 1.0 ProtoJSON tree, the downgrade
// walkers of translate/model.ts, then JSON.stringify) gives, without either tree.
//
// Only the common shape is written here, the one the translation loses nothing on: text parts
// without media type, filename or metadata, no metadata anywhere, a known role and state, a task
// with a contextId. Anything else (every message a loss could be reported for, or that the tree
// path refuses with an error) makes the writer answer undefined, and the codec takes the tree path,
// which reports the losses (or the error) as before. test/contract/write0_3.test.ts holds the two
// paths equal over schema-drawn messages.
import * as v1_0 from "../../generated/v1_0/index.js";
import { timestampJson } from "../runtime/json-writer.js";
import { STATE_1_0_TO_RPC } from "./translate/common.js";

type Msg = Record<string, unknown> & { $typeName?: string };

/** Written by the tree path instead (a loss to report, an error to raise, or a shape not covered). */
const TREE = undefined;

const quote = (s: string) => JSON.stringify(s);

/** TaskState number → the 0.3 state's JSON text (UNSPECIFIED, the zero, is not written in 1.0). */
const STATES = new Map(
  v1_0.TaskStateSchema.values.flatMap((v) => {
    const rpc = STATE_1_0_TO_RPC[v.name as keyof typeof STATE_1_0_TO_RPC];
    return v.number !== 0 && rpc ? [[v.number, quote(rpc)] as const] : [];
  }),
);
const ROLES = new Map([
  [v1_0.Role.USER, quote("user")],
  [v1_0.Role.AGENT, quote("agent")],
]);

/** `,"key":"value"` when the implicit-presence string is set (1.0 omits ""), "" when not, TREE when not a string. */
function optionalString(key: string, v: unknown): string | undefined {
  if (typeof v !== "string") return TREE;
  return v === "" ? "" : `,"${key}":${quote(v)}`;
}

/** `,"key":[…]` for a non-empty string list, "" for an empty one. */
function stringList(key: string, list: unknown): string | undefined {
  if (!Array.isArray(list)) return TREE;
  if (list.length === 0) return "";
  let out = "";
  for (const s of list) {
    if (typeof s !== "string") return TREE;
    out += out === "" ? quote(s) : `,${quote(s)}`;
  }
  return `,"${key}":[${out}]`;
}

/** `"key":[…]` of messages written by `write` (always written: the 1.0 `parts` is always emitted). */
function messageList(list: unknown, write: (m: Msg) => string | undefined): string | undefined {
  if (!Array.isArray(list)) return TREE;
  let out = "";
  for (const item of list) {
    const text = write(item as Msg);
    if (text === TREE) return TREE;
    out += out === "" ? text : `,${text}`;
  }
  return `[${out}]`;
}

function part(p: Msg): string | undefined {
  if (p.$typeName !== "lf.a2a.v1.Part" || p.metadata !== undefined || p.mediaType !== "" || p.filename !== "") return TREE;
  const content = p.content as { case?: string; value?: unknown };
  if (content.case !== "text" || typeof content.value !== "string") return TREE;
  return `{"kind":"text","text":${quote(content.value)}}`;
}

export function message0_3(m: Msg): string | undefined {
  if (m.$typeName !== "lf.a2a.v1.Message" || m.metadata !== undefined || typeof m.messageId !== "string") return TREE;
  const role = ROLES.get(m.role as v1_0.Role);
  const contextId = optionalString("contextId", m.contextId);
  const taskId = optionalString("taskId", m.taskId);
  const parts = messageList(m.parts, part);
  const extensions = stringList("extensions", m.extensions);
  const refs = stringList("referenceTaskIds", m.referenceTaskIds);
  if (role === TREE || contextId === TREE || taskId === TREE || parts === TREE || extensions === TREE || refs === TREE) return TREE;
  return `{"kind":"message","messageId":${quote(m.messageId)}${contextId}${taskId},"role":${role},"parts":${parts}${extensions}${refs}}`;
}

function status(s: Msg): string | undefined {
  if (s.$typeName !== "lf.a2a.v1.TaskStatus") return TREE;
  let out = "";
  if (s.state !== 0) {
    const state = STATES.get(s.state as number);
    if (state === TREE) return TREE;
    out = `"state":${state}`;
  }
  if (s.message !== undefined) {
    const text = message0_3(s.message as Msg);
    if (text === TREE) return TREE;
    out += `${out === "" ? "" : ","}"message":${text}`;
  }
  if (s.timestamp !== undefined) {
    const t = s.timestamp as { $typeName: string; seconds: bigint; nanos: number };
    if (t.$typeName !== "google.protobuf.Timestamp") return TREE;
    // Refused (out of range) timestamps throw here as in the tree path, with the same error.
    out += `${out === "" ? "" : ","}"timestamp":"${timestampJson(t)}"`;
  }
  return `{${out}}`;
}

function artifact(a: Msg): string | undefined {
  if (a.$typeName !== "lf.a2a.v1.Artifact" || a.metadata !== undefined || typeof a.artifactId !== "string") return TREE;
  const name = optionalString("name", a.name);
  const description = optionalString("description", a.description);
  const parts = messageList(a.parts, part);
  const extensions = stringList("extensions", a.extensions);
  if (name === TREE || description === TREE || parts === TREE || extensions === TREE) return TREE;
  return `{"artifactId":${quote(a.artifactId)}${name}${description},"parts":${parts}${extensions}}`;
}

export function task0_3(t: Msg): string | undefined {
  if (t.$typeName !== "lf.a2a.v1.Task" || t.metadata !== undefined || typeof t.id !== "string") return TREE;
  // A task without contextId is sent with "" (L26): a loss, so the tree path.
  if (typeof t.contextId !== "string" || t.contextId === "") return TREE;
  let out = `{"kind":"task","id":${quote(t.id)},"contextId":${quote(t.contextId)}`;
  if (t.status !== undefined) {
    const text = status(t.status as Msg);
    if (text === TREE) return TREE;
    out += `,"status":${text}`;
  }
  for (const [key, list, write] of [
    ["artifacts", t.artifacts, artifact],
    ["history", t.history, message0_3],
  ] as const) {
    if (!Array.isArray(list)) return TREE;
    if (list.length === 0) continue;
    const text = messageList(list, write);
    if (text === TREE) return TREE;
    out += `,"${key}":${text}`;
  }
  return `${out}}`;
}

/** The D03-RPC result text of a SendMessageResponse: the bare Task or Message (told apart by `kind`). */
export function sendResponse0_3(r: Msg): string | undefined {
  if (r.$typeName !== "lf.a2a.v1.SendMessageResponse") return TREE;
  const payload = r.payload as { case?: string; value?: unknown };
  if (payload.case === "task") return task0_3(payload.value as Msg);
  if (payload.case === "message") return message0_3(payload.value as Msg);
  return TREE;
}
