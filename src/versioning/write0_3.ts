// The 0.3 text (D03-RPC for JSON-RPC, D03-PB for HTTP+JSON) of a 1.0 Task, Message or
// SendMessageResponse, written from the protobuf-es message in one pass: the text the tree path
// (the 1.0 ProtoJSON tree, the downgrade walkers of translate/model.ts, then JSON.stringify) gives,
// without either tree.
//
// Only the common shape is written here, the one the translation loses nothing on: text parts
// without media type, filename or metadata, no metadata anywhere, a known role and state; for
// D03-RPC a task with a contextId, for D03-PB a message without referenceTaskIds. Anything else
// (every message a loss could be reported for, or that the tree path refuses with an error) makes
// the writer answer undefined, and the codec takes the tree path, which reports the losses (or
// raises the error) as before. test/contract/write0_3.test.ts holds the two paths equal over
// schema-drawn messages.
import * as v1_0 from "../../generated/v1_0/index.js";
import { timestampJson } from "../runtime/json-writer.js";
import { STATE_1_0_TO_RPC, state1_0ToPb } from "./translate/common.js";

type Msg = Record<string, unknown> & { $typeName?: string };

/** Written by the tree path instead (a loss to report, an error to raise, or a shape not covered). */
const TREE = undefined;

const quote = (s: string) => JSON.stringify(s);

/**
 * How a dialect spells what these writers write: the same choices as the walkers' Shape
 * (translate/model.ts, rpc0_3.ts, rest0_3.ts), as JSON text.
 */
interface Dialect {
  /** D03-RPC: `kind` on Task and Message, the send result bare; D03-PB: no `kind`, `{"task":…}`. */
  tagged: boolean;
  partsKey: "parts" | "content";
  /** D03-PB has no referenceTaskIds (L11). */
  referenceTaskIds: boolean;
  /** D03-RPC requires a task's contextId (L26 when 1.0 has none). */
  contextIdRequired: boolean;
  /** Role and TaskState numbers → the JSON text; the zero (UNSPECIFIED) is left out. */
  roles: ReadonlyMap<number, string>;
  states: ReadonlyMap<number, string>;
  /** A text part's text → the part's JSON text. */
  textPart: (text: string) => string;
}

const enumTexts = (values: readonly { number: number; name: string }[], spell: (name: string) => string | undefined) =>
  new Map(
    values.flatMap((v) => {
      const spelled = v.number === 0 ? undefined : spell(v.name);
      return spelled === undefined ? [] : [[v.number, quote(spelled)] as const];
    }),
  );

const RPC: Dialect = {
  tagged: true,
  partsKey: "parts",
  referenceTaskIds: true,
  contextIdRequired: true,
  roles: enumTexts(v1_0.RoleSchema.values, (n) => ({ ROLE_USER: "user", ROLE_AGENT: "agent" })[n]),
  states: enumTexts(v1_0.TaskStateSchema.values, (n) => STATE_1_0_TO_RPC[n as keyof typeof STATE_1_0_TO_RPC]),
  textPart: (text) => `{"kind":"text","text":${quote(text)}}`,
};
const PB: Dialect = {
  tagged: false,
  partsKey: "content",
  referenceTaskIds: false,
  contextIdRequired: false,
  roles: enumTexts(v1_0.RoleSchema.values, (n) => n),
  states: enumTexts(v1_0.TaskStateSchema.values, state1_0ToPb),
  textPart: (text) => `{"text":${quote(text)}}`,
};

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

/** `[…]` of messages written by `write`. */
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

/** The writers of one dialect; each answers TREE for what it leaves to the tree path. */
class Writers {
  constructor(private readonly d: Dialect) {}

  private readonly part = (p: Msg): string | undefined => {
    if (p.$typeName !== "lf.a2a.v1.Part" || p.metadata !== undefined || p.mediaType !== "" || p.filename !== "") return TREE;
    const content = p.content as { case?: string; value?: unknown };
    if (content.case !== "text" || typeof content.value !== "string") return TREE;
    return this.d.textPart(content.value);
  };

  readonly message = (m: Msg): string | undefined => {
    if (m.$typeName !== "lf.a2a.v1.Message" || m.metadata !== undefined || typeof m.messageId !== "string") return TREE;
    const d = this.d;
    const role = m.role === 0 ? "" : d.roles.get(m.role as number);
    const contextId = optionalString("contextId", m.contextId);
    const taskId = optionalString("taskId", m.taskId);
    const parts = messageList(m.parts, this.part);
    const extensions = stringList("extensions", m.extensions);
    const refs = stringList("referenceTaskIds", m.referenceTaskIds);
    if (role === TREE || contextId === TREE || taskId === TREE || parts === TREE || extensions === TREE || refs === TREE) return TREE;
    // A 1.0 message without role has no 0.3 form in D03-RPC (an error); D03-PB leaves it out.
    if (role === "" && d.tagged) return TREE;
    if (refs !== "" && !d.referenceTaskIds) return TREE;
    const kind = d.tagged ? `"kind":"message",` : "";
    const roleText = role === "" ? "" : `,"role":${role}`;
    return `{${kind}"messageId":${quote(m.messageId)}${contextId}${taskId}${roleText},"${d.partsKey}":${parts}${extensions}${refs}}`;
  };

  private readonly status = (s: Msg): string | undefined => {
    if (s.$typeName !== "lf.a2a.v1.TaskStatus") return TREE;
    let out = "";
    if (s.state !== 0) {
      const state = this.d.states.get(s.state as number);
      if (state === TREE) return TREE;
      out = `"state":${state}`;
    }
    if (s.message !== undefined) {
      const text = this.message(s.message as Msg);
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
  };

  private readonly artifact = (a: Msg): string | undefined => {
    if (a.$typeName !== "lf.a2a.v1.Artifact" || a.metadata !== undefined || typeof a.artifactId !== "string") return TREE;
    const name = optionalString("name", a.name);
    const description = optionalString("description", a.description);
    const parts = messageList(a.parts, this.part);
    const extensions = stringList("extensions", a.extensions);
    if (name === TREE || description === TREE || parts === TREE || extensions === TREE) return TREE;
    return `{"artifactId":${quote(a.artifactId)}${name}${description},"parts":${parts}${extensions}}`;
  };

  readonly task = (t: Msg): string | undefined => {
    if (t.$typeName !== "lf.a2a.v1.Task" || t.metadata !== undefined || typeof t.id !== "string") return TREE;
    // D03-RPC sends a task without contextId with "" (L26): a loss, so the tree path.
    const contextId = optionalString("contextId", t.contextId);
    if (contextId === TREE || (contextId === "" && this.d.contextIdRequired)) return TREE;
    let out = `{${this.d.tagged ? `"kind":"task",` : ""}"id":${quote(t.id)}${contextId}`;
    if (t.status !== undefined) {
      const text = this.status(t.status as Msg);
      if (text === TREE) return TREE;
      out += `,"status":${text}`;
    }
    for (const [key, list, write] of [
      ["artifacts", t.artifacts, this.artifact],
      ["history", t.history, this.message],
    ] as const) {
      if (!Array.isArray(list)) return TREE;
      if (list.length === 0) continue;
      const text = messageList(list, write);
      if (text === TREE) return TREE;
      out += `,"${key}":${text}`;
    }
    return `${out}}`;
  };

  /** A SendMessageResponse: D03-RPC the bare Task or Message (told apart by `kind`), D03-PB `{"task":…}` or `{"message":…}`. */
  readonly sendResponse = (r: Msg): string | undefined => {
    if (r.$typeName !== "lf.a2a.v1.SendMessageResponse") return TREE;
    const payload = r.payload as { case?: string; value?: unknown };
    const member = payload.case;
    const text = member === "task" ? this.task(payload.value as Msg) : member === "message" ? this.message(payload.value as Msg) : TREE;
    return text === TREE || this.d.tagged ? text : `{"${member}":${text}}`;
  };
}

/** D03-RPC (0.3 JSON-RPC) and D03-PB (0.3 HTTP+JSON). */
export const rpcText0_3 = new Writers(RPC);
export const restText0_3 = new Writers(PB);
