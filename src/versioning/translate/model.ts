// The walkers both 0.3 dialects share: Message, TaskStatus, Task, Artifact, the two stream
// events, StreamResponse and the SendMessage result. What differs between D03-RPC and D03-PB
// (member names, `kind` tags, enum spellings, oneof shapes, the parts) is a `Shape` each dialect
// module describes; the walkers read it. Losses are rows of the loss register (LOSSY.md).
import type * as v1_0 from "../../../generated/v1_0/index.js";
import type { LossLog } from "../loss.js";
import { compact, FIELDS, oneMember, reportUnknown, scanPrecision, timestampTo1_0, translateArtifact, untranslatable } from "./common.js";
import type { Fields } from "./fields.js";

type Struct = { [k: string]: unknown };
/** A walker's output as the dialect's wire type (the Shape guarantees the members). */
const as = <T>(v: object): T => v as unknown as T;

/** The 0.3 wire types of one dialect the walkers produce and read. */
export interface ModelWire {
  Part: object;
  Message: object;
  TaskStatus: object;
  Task: object;
  Artifact: object;
  StatusUpdate: object;
  ArtifactUpdate: object;
  StreamResponse: object;
  SendMessageResponse: object;
}

/** How a 0.3 dialect spells the shared messages. */
export interface Shape<W extends ModelWire> {
  /** The 0.3 fields of each message (the 1.0 ones are FIELDS); others are reported (L24). */
  fields: { message: Fields; status: Fields; task: Fields; statusUpdate: Fields; artifactUpdate: Fields };
  /**
   * D03-RPC: every object carries `kind` and a union is the bare object, told apart by `kind`.
   * D03-PB: no `kind`; a union is a oneof wrapper (`{task: …}`) as in 1.0.
   */
  tagged: boolean;
  /** The member holding a message's parts (`parts`, D03-PB `content`). */
  partsKey: "parts" | "content";
  /** Whether the 0.3 Message has `referenceTaskIds` (else dropped: L11). */
  referenceTaskIds: boolean;
  /** Whether the 0.3 Task requires `contextId` (else sent as "": L26). */
  contextIdRequired: boolean;
  roleUp: (role: string | undefined) => v1_0.MessageJson["role"];
  /** Throws when the role has no 0.3 form. */
  roleDown: (role: v1_0.MessageJson["role"], path: string) => string | undefined;
  stateUp: (state: string | undefined) => v1_0.TaskStateJson | undefined;
  stateDown: (state: v1_0.TaskStateJson | undefined) => string | undefined;
  partUp: (p: W["Part"], path: string, log: LossLog) => v1_0.PartJson;
  partDown: (p: v1_0.PartJson, path: string, log: LossLog) => W["Part"];
}

type Member = "task" | "message" | "statusUpdate" | "artifactUpdate";
/** A 1.0 oneof the dialects spell as a union (D03-RPC, by `kind`) or the same oneof (D03-PB). */
interface Union {
  what: string;
  members: readonly Member[];
  fields: Fields;
}
const STREAM: Union = {
  what: "StreamResponse",
  members: ["task", "message", "statusUpdate", "artifactUpdate"],
  fields: FIELDS.streamResponse,
};
const SEND: Union = { what: "SendMessageResponse", members: ["task", "message"], fields: FIELDS.sendResponse };
const KIND: Record<Member, string> = { task: "task", message: "message", statusUpdate: "status-update", artifactUpdate: "artifact-update" };
const MEMBER_OF_KIND = Object.fromEntries(Object.entries(KIND).map(([m, k]) => [k, m])) as Record<string, Member>;

/**
 * The shared walkers of one dialect. Each is a bound arrow, so that the dialect modules can take
 * them apart (`const { taskUp } = W`).
 */
class Walkers<W extends ModelWire> {
  constructor(private readonly d: Shape<W>) {}

  /**
   * `compact(members)` after the dialect's `kind` tag (if any). Built by adding members in order
   * rather than by spread and computed keys, so V8 keeps one object shape per dialect (fast).
   */
  private readonly tagged = <T>(kind: string, members: Struct): T => {
    const out: Struct = this.d.tagged ? { kind } : {};
    for (const k in members) if (members[k] !== undefined) out[k] = members[k];
    return out as T;
  };

  partsUp = (parts: W["Part"][] | undefined, path: string, log: LossLog): v1_0.PartJson[] => {
    if (!parts || parts.length === 0)
      throw untranslatable(path, "1.0 requires at least one part; an empty 0.3 parts array cannot be upgraded (L27)", "L27");
    return parts.map((p, i) => this.d.partUp(p, `${path}/${i}`, log));
  };
  partsDown = (parts: v1_0.PartJson[] | undefined, path: string, log: LossLog): W["Part"][] =>
    (parts ?? []).map((p, i) => this.d.partDown(p, `${path}/${i}`, log));

  messageDown = (m: v1_0.MessageJson, path: string, log: LossLog): W["Message"] => {
    reportUnknown(m, FIELDS.message, path, log);
    if (!this.d.referenceTaskIds && m.referenceTaskIds?.length)
      log.add("L11", `${path}/referenceTaskIds`, "the v0.3.0 proto Message has no referenceTaskIds; dropped");
    const role = this.d.roleDown(m.role, `${path}/role`);
    if (m.metadata) scanPrecision(m.metadata, `${path}/metadata`, log);
    const parts = this.partsDown(m.parts, `${path}/parts`, log);
    return this.tagged("message", {
      messageId: m.messageId,
      contextId: m.contextId,
      taskId: m.taskId,
      role,
      parts: this.d.partsKey === "parts" ? parts : undefined,
      content: this.d.partsKey === "content" ? parts : undefined,
      metadata: m.metadata,
      extensions: m.extensions,
      referenceTaskIds: this.d.referenceTaskIds ? m.referenceTaskIds : undefined,
    });
  };

  messageUp = (w: W["Message"], path: string, log: LossLog): v1_0.MessageJson => {
    const m = w as Struct & Partial<v1_0.MessageJson>;
    reportUnknown(m, this.d.fields.message, path, log);
    if (m.metadata) scanPrecision(m.metadata, `${path}/metadata`, log);
    return compact({
      messageId: m.messageId,
      contextId: m.contextId,
      taskId: m.taskId,
      role: this.d.roleUp(m.role),
      parts: this.partsUp(m[this.d.partsKey] as W["Part"][] | undefined, `${path}/${this.d.partsKey}`, log),
      metadata: m.metadata,
      extensions: m.extensions,
      referenceTaskIds: this.d.referenceTaskIds ? m.referenceTaskIds : undefined,
    });
  };

  statusDown = (s: v1_0.TaskStatusJson, path: string, log: LossLog): W["TaskStatus"] => {
    reportUnknown(s, FIELDS.status, path, log);
    return as<W["TaskStatus"]>(
      compact({
        state: this.d.stateDown(s.state),
        message: s.message && this.messageDown(s.message, `${path}/message`, log),
        timestamp: s.timestamp,
      }),
    );
  };

  statusUp = (w: W["TaskStatus"], path: string, log: LossLog): v1_0.TaskStatusJson => {
    const s = w as { state?: string; message?: W["Message"]; timestamp?: string };
    reportUnknown(s, this.d.fields.status, path, log);
    return compact({
      state: this.d.stateUp(s.state),
      message: s.message && this.messageUp(s.message, `${path}/message`, log),
      timestamp: s.timestamp === undefined ? undefined : timestampTo1_0(s.timestamp, `${path}/timestamp`, log),
    });
  };

  artifactDown = (a: v1_0.ArtifactJson, path: string, log: LossLog) => as<W["Artifact"]>(translateArtifact(a, path, log, this.partsDown));
  artifactUp = (a: W["Artifact"], path: string, log: LossLog) =>
    translateArtifact(a as { parts?: W["Part"][] }, path, log, this.partsUp) as v1_0.ArtifactJson;

  taskDown = (t: v1_0.TaskJson, path: string, log: LossLog): W["Task"] => {
    reportUnknown(t, FIELDS.task, path, log);
    if (t.metadata) scanPrecision(t.metadata, `${path}/metadata`, log);
    let contextId = t.contextId;
    if (contextId === undefined && this.d.contextIdRequired) {
      log.add("L26", `${path}/contextId`, 'contextId is optional in 1.0 but required in 0.3; sent as ""');
      contextId = "";
    }
    return this.tagged("task", {
      id: t.id,
      contextId,
      status: t.status && this.statusDown(t.status, `${path}/status`, log),
      artifacts: t.artifacts?.map((a, i) => this.artifactDown(a, `${path}/artifacts/${i}`, log)),
      history: t.history?.map((m, i) => this.messageDown(m, `${path}/history/${i}`, log)),
      metadata: t.metadata,
    });
  };

  taskUp = (w: W["Task"], path: string, log: LossLog): v1_0.TaskJson => {
    const t = w as Partial<Record<"id" | "contextId", string>> & { status?: W["TaskStatus"]; artifacts?: W["Artifact"][] } & {
      history?: W["Message"][];
      metadata?: v1_0.TaskJson["metadata"];
    };
    reportUnknown(t, this.d.fields.task, path, log);
    if (t.metadata) scanPrecision(t.metadata, `${path}/metadata`, log);
    return compact({
      id: t.id,
      contextId: t.contextId,
      status: this.statusUp(t.status ?? {}, `${path}/status`, log),
      artifacts: t.artifacts?.map((a, i) => this.artifactUp(a, `${path}/artifacts/${i}`, log)),
      history: t.history?.map((m, i) => this.messageUp(m, `${path}/history/${i}`, log)),
      metadata: t.metadata,
    });
  };

  statusUpdateDown = (e: v1_0.TaskStatusUpdateEventJson, final: boolean, path: string, log: LossLog): W["StatusUpdate"] => {
    reportUnknown(e, FIELDS.statusUpdate, path, log);
    if (e.metadata) scanPrecision(e.metadata, `${path}/metadata`, log);
    return this.tagged("status-update", {
      taskId: e.taskId,
      contextId: e.contextId,
      status: e.status && this.statusDown(e.status, `${path}/status`, log),
      final,
      metadata: e.metadata,
    });
  };

  statusUpdateUp = (w: W["StatusUpdate"], path: string, log: LossLog): v1_0.TaskStatusUpdateEventJson => {
    const e = w as Partial<Record<"taskId" | "contextId", string>> & { status?: W["TaskStatus"]; final?: boolean } & {
      metadata?: v1_0.TaskJson["metadata"];
    };
    reportUnknown(e, this.d.fields.statusUpdate, path, log);
    if (e.metadata) scanPrecision(e.metadata, `${path}/metadata`, log);
    log.add(
      "L21",
      `${path}/final`,
      `final=${e.final === true} has no 1.0 field; the stream end carries it (close the 1.0 stream after a final event)`,
    );
    return compact({
      taskId: e.taskId,
      contextId: e.contextId,
      status: this.statusUp(e.status ?? {}, `${path}/status`, log),
      metadata: e.metadata,
    });
  };

  artifactUpdateDown = (e: v1_0.TaskArtifactUpdateEventJson, path: string, log: LossLog): W["ArtifactUpdate"] => {
    reportUnknown(e, FIELDS.artifactUpdate, path, log);
    if (e.metadata) scanPrecision(e.metadata, `${path}/metadata`, log);
    return this.tagged("artifact-update", {
      taskId: e.taskId,
      contextId: e.contextId,
      artifact: e.artifact && this.artifactDown(e.artifact, `${path}/artifact`, log),
      append: e.append,
      lastChunk: e.lastChunk,
      metadata: e.metadata,
    });
  };

  artifactUpdateUp = (w: W["ArtifactUpdate"], path: string, log: LossLog): v1_0.TaskArtifactUpdateEventJson => {
    const e = w as Omit<v1_0.TaskArtifactUpdateEventJson, "artifact"> & { artifact?: W["Artifact"] };
    reportUnknown(e, this.d.fields.artifactUpdate, path, log);
    if (e.metadata) scanPrecision(e.metadata, `${path}/metadata`, log);
    if (!e.artifact) throw untranslatable(`${path}/artifact`, "1.0 requires the artifact of an artifact update");
    return compact({
      taskId: e.taskId,
      contextId: e.contextId,
      artifact: this.artifactUp(e.artifact, `${path}/artifact`, log),
      append: e.append,
      lastChunk: e.lastChunk,
      metadata: e.metadata,
    });
  };

  private readonly up = {
    task: this.taskUp,
    message: this.messageUp,
    statusUpdate: this.statusUpdateUp,
    artifactUpdate: this.artifactUpdateUp,
  } as Record<Member, (x: unknown, path: string, log: LossLog) => unknown>;

  /** A 1.0 union (StreamResponse, SendMessageResponse) as the dialect's: by `kind` or a oneof wrapper. */
  private readonly unionDown = (r: object, u: Union, final: boolean, log: LossLog): unknown => {
    reportUnknown(r, u.fields, "", log);
    const member = oneMember(r, u.members, "", u.what);
    const x = (r as Struct)[member];
    const path = `/${member}`;
    const v =
      member === "task"
        ? this.taskDown(x as v1_0.TaskJson, path, log)
        : member === "message"
          ? this.messageDown(x as v1_0.MessageJson, path, log)
          : member === "statusUpdate"
            ? this.statusUpdateDown(x as v1_0.TaskStatusUpdateEventJson, final, path, log)
            : this.artifactUpdateDown(x as v1_0.TaskArtifactUpdateEventJson, path, log);
    return this.d.tagged ? v : { [member]: v };
  };

  /** The dialect's union as the 1.0 oneof. */
  private readonly unionUp = (r: object, u: Union, log: LossLog): unknown => {
    if (this.d.tagged) {
      const member = MEMBER_OF_KIND[(r as Struct).kind as string];
      if (!member || !u.members.includes(member))
        throw untranslatable("/kind", `a ${u.what} must be one of kind ${u.members.map((m) => KIND[m]).join(", ")}`);
      return { [member]: this.up[member](r, "", log) };
    }
    reportUnknown(r, u.fields, "", log);
    const member = oneMember(r, u.members, "", u.what);
    return { [member]: this.up[member]((r as Struct)[member], `/${member}`, log) };
  };

  streamUp = (r: W["StreamResponse"], log: LossLog) => this.unionUp(r, STREAM, log) as v1_0.StreamResponseJson;
  streamDown = (r: v1_0.StreamResponseJson, final: boolean, log: LossLog) => this.unionDown(r, STREAM, final, log) as W["StreamResponse"];
  sendResponseUp = (r: W["SendMessageResponse"], log: LossLog) => this.unionUp(r, SEND, log) as v1_0.SendMessageResponseJson;
  sendResponseDown = (r: v1_0.SendMessageResponseJson, log: LossLog) => this.unionDown(r, SEND, false, log) as W["SendMessageResponse"];
}

/** The shared walkers of one dialect. */
export const walkers = <W extends ModelWire>(d: Shape<W>) => new Walkers(d);
