// 0.3 JSON-RPC (dialect D03-RPC, a2a.json) ⇄ 1.0 (ProtoJSON) translators for the data model.
//
// Exported API — every function is pure, works on wire JSON, validates its input with the generated
// validator of the source dialect (bad input → A2AError InvalidParams with a JSON path), checks its
// output with the validator of the target dialect, and returns `Translated<T>` = { value, losses }.
// Losses are rows of the loss register (LOSSY.md); nothing is dropped silently.
//
//   upgradeX:   0.3 D03-RPC → 1.0          downgradeX: 1.0 → 0.3 D03-RPC
//
//   X = Task                 v0_3.Task                        ⇄ v1_0.TaskJson
//       TaskStatus           v0_3.TaskStatus                  ⇄ v1_0.TaskStatusJson
//       Message              v0_3.Message                     ⇄ v1_0.MessageJson
//       Part                 v0_3.Part                        ⇄ v1_0.PartJson
//       Artifact             v0_3.Artifact                    ⇄ v1_0.ArtifactJson
//       StatusUpdate         v0_3.TaskStatusUpdateEvent       ⇄ v1_0.TaskStatusUpdateEventJson
//                            (downgrade takes `final`, decided by the caller; upgrade drops it: L21)
//       ArtifactUpdate       v0_3.TaskArtifactUpdateEvent     ⇄ v1_0.TaskArtifactUpdateEventJson
//       StreamResponse       0.3 stream `result` (by `kind`)  ⇄ v1_0.StreamResponseJson (downgrade takes `{final}`)
//       SendMessageResponse  0.3 `message/send` result        ⇄ v1_0.SendMessageResponseJson
//       SendMessageRequest   v0_3.MessageSendParams           ⇄ v1_0.SendMessageRequestJson
//       GetTaskRequest       v0_3.TaskQueryParams             ⇄ v1_0.GetTaskRequestJson
//       CancelTaskRequest    v0_3.TaskIdParams                ⇄ v1_0.CancelTaskRequestJson
//       SubscribeToTaskRequest v0_3.TaskIdParams              ⇄ v1_0.SubscribeToTaskRequestJson
//       CreatePushConfigParams / CreatePushConfigResult / GetPushConfigResult
//                            v0_3.TaskPushNotificationConfig  ⇄ v1_0.TaskPushNotificationConfigJson
//       PushConfig           (alias of the three above: the config object itself)
//       GetPushConfigParams  v0_3.GetTaskPushNotificationConfigParams | TaskIdParams ⇄ v1_0.GetTaskPushNotificationConfigRequestJson
//       ListPushConfigParams v0_3.ListTaskPushNotificationConfigParams ⇄ v1_0.ListTaskPushNotificationConfigsRequestJson
//       ListPushConfigResult v0_3.TaskPushNotificationConfig[] ⇄ v1_0.ListTaskPushNotificationConfigsResponseJson
//       DeletePushConfigParams v0_3.DeleteTaskPushNotificationConfigParams ⇄ v1_0.DeleteTaskPushNotificationConfigRequestJson
//       DeletePushConfigResult null                           ⇄ {} (google.protobuf.Empty)
//       PushPayload          0.3 webhook body (Task)          ⇄ v1_0.StreamResponseJson
//       AgentCard            v0_3.AgentCard                   ⇄ v1_0.AgentCardJson
import type { ValidateFunction } from "ajv";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { LossLog, type LossDirection, type Translated } from "./loss.js";
import {
  DATA_COMPAT_KEY,
  PART_EXTRAS_KEY,
  STATE_1_0_TO_RPC,
  STATE_RPC_TO_1_0,
  canonicalBase64,
  compact,
  FIELDS,
  isObject,
  oneMember,
  reportUnknown,
  scanPrecision,
  str,
  translate,
  untranslatable,
  validateInput,
  validateOutput,
  type TranslateOptions,
} from "./translate/common.js";
import { RPC_FIELDS } from "./translate/fields.js";
import { walkers } from "./translate/model.js";
import { dropTenant, pushBodyDown as pushDown, pushBodyUp as pushUp } from "./translate/push.js";
import { cardDown, cardUp } from "./translate/card-rpc.js";

const D03 = "A2A 0.3 JSON-RPC";

type Struct = { [k: string]: unknown };
/** One item of a 0.3 `message/stream` or `tasks/resubscribe` stream. */
export type StreamResult0_3 = v0_3.Task | v0_3.Message | v0_3.TaskStatusUpdateEvent | v0_3.TaskArtifactUpdateEvent;
/** The 0.3 `message/send` result. */
export type SendMessageResult0_3 = v0_3.Task | v0_3.Message;
export interface DowngradeEventOptions extends TranslateOptions {
  /** The 0.3 `final` flag for a status update; the caller decides it (a2a-wire.md §5.4, L5/L13). */
  final: boolean;
}

function run<I, O>(
  input: I,
  inV: ValidateFunction,
  outV: ValidateFunction | null,
  direction: LossDirection,
  fn: (x: I, log: LossLog) => O,
  opts?: TranslateOptions,
): Translated<O> {
  return translate(input, inV, outV, direction, D03, fn, opts);
}

const K = RPC_FIELDS;

// ---- Part ----------------------------------------------------------------------------------------

function withoutToolkitKeys(meta: Struct): Struct | undefined {
  const rest: Struct = { ...meta };
  delete rest[PART_EXTRAS_KEY];
  delete rest[DATA_COMPAT_KEY];
  return Object.keys(rest).length ? rest : undefined;
}

export function partDown(p: v1_0.PartJson, path: string, log: LossLog): v0_3.Part {
  reportUnknown(p, FIELDS.part, path, log);
  if (p.metadata) scanPrecision(p.metadata, `${path}/metadata`, log);
  const mediaType = str(p.mediaType);
  const filename = str(p.filename);
  if (p.raw !== undefined || p.url !== undefined) {
    const file =
      p.raw !== undefined
        ? compact({ bytes: canonicalBase64(p.raw, `${path}/raw`), mimeType: p.mediaType, name: p.filename })
        : compact({ uri: p.url as string, mimeType: p.mediaType, name: p.filename });
    return compact({ kind: "file" as const, file, metadata: p.metadata });
  }
  let metadata: Struct | undefined = p.metadata;
  let out: v0_3.TextPart | v0_3.DataPart;
  if (p.text !== undefined) out = { kind: "text", text: p.text };
  else if (p.data !== undefined) {
    scanPrecision(p.data, `${path}/data`, log);
    if (isObject(p.data)) out = { kind: "data", data: p.data };
    else {
      log.add(
        "L4",
        `${path}/data`,
        `non-object data (${p.data === null ? "null" : Array.isArray(p.data) ? "array" : typeof p.data}) wrapped as {"value": …} with metadata.${DATA_COMPAT_KEY}=true`,
      );
      out = { kind: "data", data: { value: p.data } };
      metadata = { ...metadata, [DATA_COMPAT_KEY]: true };
    }
  } else throw untranslatable(path, "a part must set one of text, raw, url, data");
  if (mediaType !== undefined || filename !== undefined) {
    const which = [mediaType !== undefined && "mediaType", filename !== undefined && "filename"].filter(Boolean).join(" and ");
    log.add("L3", path, `${which} of a ${out.kind} part has no 0.3 field; carried in metadata["${PART_EXTRAS_KEY}"]`);
    metadata = { ...metadata, [PART_EXTRAS_KEY]: compact({ mediaType, filename }) };
  }
  if (metadata) out.metadata = metadata;
  return out;
}

export function partUp(p: v0_3.Part, path: string, log: LossLog): v1_0.PartJson {
  const out: v1_0.PartJson = {};
  let meta: Struct | undefined = p.metadata;
  if (meta) scanPrecision(meta, `${path}/metadata`, log);
  switch (p.kind) {
    case "text":
      reportUnknown(p, K.textPart, path, log);
      out.text = p.text;
      break;
    case "file": {
      reportUnknown(p, K.filePart, path, log);
      const f = p.file as Partial<v0_3.FileWithBytes & v0_3.FileWithUri>;
      reportUnknown(f, K.file, `${path}/file`, log);
      if (f.bytes !== undefined) {
        out.raw = canonicalBase64(f.bytes, `${path}/file/bytes`);
        if (f.uri !== undefined) log.add("L24", `${path}/file/uri`, "a file part with both bytes and uri keeps bytes; uri dropped");
      } else out.url = f.uri;
      if (f.mimeType !== undefined) out.mediaType = f.mimeType;
      if (f.name !== undefined) out.filename = f.name;
      break;
    }
    case "data": {
      reportUnknown(p, K.dataPart, path, log);
      scanPrecision(p.data, `${path}/data`, log);
      const d = p.data;
      if (meta?.[DATA_COMPAT_KEY] === true && Object.keys(d).length === 1 && "value" in d) out.data = d.value as v1_0.PartJson["data"];
      else out.data = d as v1_0.PartJson["data"];
      break;
    }
  }
  if (meta && (PART_EXTRAS_KEY in meta || DATA_COMPAT_KEY in meta)) {
    const extras = meta[PART_EXTRAS_KEY];
    if (p.kind !== "file" && isObject(extras)) {
      if (typeof extras.mediaType === "string") out.mediaType = extras.mediaType;
      if (typeof extras.filename === "string") out.filename = extras.filename;
    }
    meta = withoutToolkitKeys(meta);
  }
  if (meta) out.metadata = meta as v1_0.PartJson["metadata"];
  return out;
}

// ---- Message, TaskStatus, Artifact, Task, stream events (translate/model.ts) -------------------------

const ROLE_DOWN = { ROLE_USER: "user", ROLE_AGENT: "agent" } as const;
const ROLE_UP = { user: "ROLE_USER", agent: "ROLE_AGENT" } as const;

interface RpcModel {
  Part: v0_3.Part;
  Message: v0_3.Message;
  TaskStatus: v0_3.TaskStatus;
  Task: v0_3.Task;
  Artifact: v0_3.Artifact;
  StatusUpdate: v0_3.TaskStatusUpdateEvent;
  ArtifactUpdate: v0_3.TaskArtifactUpdateEvent;
  StreamResponse: StreamResult0_3;
  SendMessageResponse: SendMessageResult0_3;
}

const W = walkers<RpcModel>({
  fields: K,
  tagged: true,
  partsKey: "parts",
  referenceTaskIds: true,
  contextIdRequired: true,
  roleUp: (r) => ROLE_UP[r as keyof typeof ROLE_UP],
  roleDown(r, path) {
    const role = ROLE_DOWN[r as keyof typeof ROLE_DOWN];
    if (!role) throw untranslatable(path, `role ${JSON.stringify(r)} has no 0.3 form (0.3 knows "user" and "agent")`);
    return role;
  },
  stateUp: (s) => STATE_RPC_TO_1_0[s as keyof typeof STATE_RPC_TO_1_0],
  stateDown: (s) => STATE_1_0_TO_RPC[s as keyof typeof STATE_1_0_TO_RPC],
  partUp,
  partDown,
});
const { messageUp, messageDown, statusUp, statusDown, artifactUp, artifactDown, taskUp, taskDown } = W;
const { statusUpdateUp, statusUpdateDown, artifactUpdateUp, artifactUpdateDown, streamUp, streamDown } = W;

const V3 = v0_3.validators;
const V1 = v1_0.validators;

/** Validates a 0.3 value whose schema is a union discriminated by `kind`. */
function byKind(table: Record<string, ValidateFunction>): ValidateFunction {
  const f = ((v: unknown) => {
    const k = isObject(v) ? v.kind : undefined;
    const validator = typeof k === "string" ? table[k] : undefined;
    if (!validator) {
      f.errors = [
        {
          instancePath: "/kind",
          keyword: "enum",
          params: { allowedValues: Object.keys(table) },
          schemaPath: "",
          message: "unknown kind",
        },
      ];
      return false;
    }
    const ok = validator(v);
    f.errors = validator.errors;
    return ok;
  }) as ValidateFunction;
  return f;
}
const streamResultValidator = byKind({
  task: V3.Task,
  message: V3.Message,
  "status-update": V3.TaskStatusUpdateEvent,
  "artifact-update": V3.TaskArtifactUpdateEvent,
});
const sendResultValidator = byKind({ task: V3.Task, message: V3.Message });

/** Validates an array with an item validator, reporting the item index in the path. */
function arrayOf(item: ValidateFunction): ValidateFunction {
  const f = ((v: unknown) => {
    if (!Array.isArray(v)) {
      f.errors = [{ instancePath: "", keyword: "type", params: { type: "array" }, schemaPath: "", message: "must be array" }];
      return false;
    }
    for (let i = 0; i < v.length; i++) {
      if (!item(v[i])) {
        f.errors = (item.errors ?? []).map((e) => ({ ...e, instancePath: `/${i}${e.instancePath}` }));
        return false;
      }
    }
    f.errors = null;
    return true;
  }) as ValidateFunction;
  return f;
}

// ---- exported: core objects ----------------------------------------------------------------------------

export const upgradeTask = (t: v0_3.Task): Translated<v1_0.TaskJson> => run(t, V3.Task, V1.Task, "to-1.0", (x, log) => taskUp(x, "", log));
export const downgradeTask = (t: v1_0.TaskJson, o?: TranslateOptions): Translated<v0_3.Task> =>
  run(t, V1.Task, V3.Task, "to-0.3", (x, log) => taskDown(x, "", log), o);

export const upgradeTaskStatus = (s: v0_3.TaskStatus): Translated<v1_0.TaskStatusJson> =>
  run(s, V3.TaskStatus, V1.TaskStatus, "to-1.0", (x, log) => statusUp(x, "", log));
export const downgradeTaskStatus = (s: v1_0.TaskStatusJson, o?: TranslateOptions): Translated<v0_3.TaskStatus> =>
  run(s, V1.TaskStatus, V3.TaskStatus, "to-0.3", (x, log) => statusDown(x, "", log), o);

export const upgradeMessage = (m: v0_3.Message): Translated<v1_0.MessageJson> =>
  run(m, V3.Message, V1.Message, "to-1.0", (x, log) => messageUp(x, "", log));
export const downgradeMessage = (m: v1_0.MessageJson, o?: TranslateOptions): Translated<v0_3.Message> =>
  run(m, V1.Message, V3.Message, "to-0.3", (x, log) => messageDown(x, "", log), o);

export const upgradePart = (p: v0_3.Part): Translated<v1_0.PartJson> => run(p, V3.Part, V1.Part, "to-1.0", (x, log) => partUp(x, "", log));
export const downgradePart = (p: v1_0.PartJson, o?: TranslateOptions): Translated<v0_3.Part> =>
  run(p, V1.Part, V3.Part, "to-0.3", (x, log) => partDown(x, "", log), o);

export const upgradeArtifact = (a: v0_3.Artifact): Translated<v1_0.ArtifactJson> =>
  run(a, V3.Artifact, V1.Artifact, "to-1.0", (x, log) => artifactUp(x, "", log));
export const downgradeArtifact = (a: v1_0.ArtifactJson, o?: TranslateOptions): Translated<v0_3.Artifact> =>
  run(a, V1.Artifact, V3.Artifact, "to-0.3", (x, log) => artifactDown(x, "", log), o);

/** Drops `final` (reported as L21): the caller closes the 1.0 stream after a `final: true` event. */
export const upgradeStatusUpdate = (e: v0_3.TaskStatusUpdateEvent): Translated<v1_0.TaskStatusUpdateEventJson> =>
  run(e, V3.TaskStatusUpdateEvent, V1.TaskStatusUpdateEvent, "to-1.0", (x, log) => statusUpdateUp(x, "", log));
/** `final` is the caller's decision (a2a-wire.md §5.4): 1.0 has no such field. */
export const downgradeStatusUpdate = (
  e: v1_0.TaskStatusUpdateEventJson,
  final: boolean,
  o?: TranslateOptions,
): Translated<v0_3.TaskStatusUpdateEvent> =>
  run(e, V1.TaskStatusUpdateEvent, V3.TaskStatusUpdateEvent, "to-0.3", (x, log) => statusUpdateDown(x, final, "", log), o);

export const upgradeArtifactUpdate = (e: v0_3.TaskArtifactUpdateEvent): Translated<v1_0.TaskArtifactUpdateEventJson> =>
  run(e, V3.TaskArtifactUpdateEvent, V1.TaskArtifactUpdateEvent, "to-1.0", (x, log) => artifactUpdateUp(x, "", log));
export const downgradeArtifactUpdate = (
  e: v1_0.TaskArtifactUpdateEventJson,
  o?: TranslateOptions,
): Translated<v0_3.TaskArtifactUpdateEvent> =>
  run(e, V1.TaskArtifactUpdateEvent, V3.TaskArtifactUpdateEvent, "to-0.3", (x, log) => artifactUpdateDown(x, "", log), o);

export const upgradeStreamResponse = (r: StreamResult0_3): Translated<v1_0.StreamResponseJson> =>
  run(r, streamResultValidator, V1.StreamResponse, "to-1.0", streamUp);
/** `opts.final` is used only when the item is a status update. */
export const downgradeStreamResponse = (r: v1_0.StreamResponseJson, opts: DowngradeEventOptions): Translated<StreamResult0_3> =>
  run(r, V1.StreamResponse, streamResultValidator, "to-0.3", (x, log) => streamDown(x, opts.final, log), opts);

export const upgradeSendMessageResponse = (r: SendMessageResult0_3): Translated<v1_0.SendMessageResponseJson> =>
  run(r, sendResultValidator, V1.SendMessageResponse, "to-1.0", W.sendResponseUp);
export const downgradeSendMessageResponse = (r: v1_0.SendMessageResponseJson, o?: TranslateOptions): Translated<SendMessageResult0_3> =>
  run(r, V1.SendMessageResponse, sendResultValidator, "to-0.3", W.sendResponseDown, o);

// ---- push-notification config bodies --------------------------------------------------------------------

const pushBodyDown = (c: v1_0.TaskPushNotificationConfigJson, path: string, log: LossLog, inSend: boolean) =>
  pushDown(c, path, log, inSend) as v0_3.PushNotificationConfig;
const pushBodyUp = (c: v0_3.PushNotificationConfig, path: string, log: LossLog) => pushUp(c, K, path, log);

function tpncDown(c: v1_0.TaskPushNotificationConfigJson, log: LossLog): v0_3.TaskPushNotificationConfig {
  return { taskId: c.taskId ?? "", pushNotificationConfig: pushBodyDown(c, "", log, false) };
}

function tpncUp(c: v0_3.TaskPushNotificationConfig, path: string, log: LossLog): v1_0.TaskPushNotificationConfigJson {
  reportUnknown(c, K.taskPushConfig, path, log);
  const body = pushBodyUp(c.pushNotificationConfig, `${path}/pushNotificationConfig`, log);
  return compact({ id: body.id, taskId: c.taskId, url: body.url, token: body.token, authentication: body.authentication });
}

function configDown(c: v1_0.SendMessageConfigurationJson | undefined, log: LossLog): v0_3.MessageSendConfiguration {
  if (!c) return { blocking: true };
  const path = "/configuration";
  reportUnknown(c, FIELDS.sendConfig, path, log);
  return compact({
    acceptedOutputModes: c.acceptedOutputModes,
    pushNotificationConfig:
      c.taskPushNotificationConfig && pushBodyDown(c.taskPushNotificationConfig, `${path}/taskPushNotificationConfig`, log, true),
    historyLength: c.historyLength === undefined ? undefined : Number(c.historyLength),
    // Inverted polarity (a2a-wire.md §2.9); always explicit towards 0.3.
    blocking: c.returnImmediately !== true,
  });
}

function configUp(c: v0_3.MessageSendConfiguration | undefined, log: LossLog): v1_0.SendMessageConfigurationJson | undefined {
  if (!c) return undefined;
  const path = "/configuration";
  reportUnknown(c, K.sendConfig, path, log);
  const out = compact({
    acceptedOutputModes: c.acceptedOutputModes,
    taskPushNotificationConfig: c.pushNotificationConfig && pushBodyUp(c.pushNotificationConfig, `${path}/pushNotificationConfig`, log),
    historyLength: c.historyLength,
    // 0.3 `blocking` absent means blocking (reference SDKs); only an explicit false returns immediately.
    returnImmediately: c.blocking === false ? true : undefined,
  });
  return Object.keys(out).length ? out : undefined;
}

/** The 0.3 `message/send` / `message/stream` params. `blocking` ⇄ `returnImmediately` inverted (§2.9). */
export const upgradeSendMessageRequest = (p: v0_3.MessageSendParams): Translated<v1_0.SendMessageRequestJson> =>
  run(p, V3.MessageSendParams, V1.SendMessageRequest, "to-1.0", (x, log) => {
    reportUnknown(x, K.sendParams, "", log);
    if (x.metadata) scanPrecision(x.metadata, "/metadata", log);
    return compact({
      message: messageUp(x.message, "/message", log),
      configuration: configUp(x.configuration, log),
      metadata: x.metadata as v1_0.SendMessageRequestJson["metadata"],
    });
  });
export const downgradeSendMessageRequest = (r: v1_0.SendMessageRequestJson, o?: TranslateOptions): Translated<v0_3.MessageSendParams> =>
  run(
    r,
    V1.SendMessageRequest,
    V3.MessageSendParams,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.sendRequest, "", log);
      dropTenant(x, "", log);
      if (x.metadata) scanPrecision(x.metadata, "/metadata", log);
      return compact({
        message: messageDown(x.message as v1_0.MessageJson, "/message", log),
        configuration: configDown(x.configuration, log),
        metadata: x.metadata,
      });
    },
    o,
  );

// ---- task requests ---------------------------------------------------------------------------------

function dropMetadata(x: { metadata?: Struct }, log: LossLog, what: string): void {
  if (x.metadata && Object.keys(x.metadata).length)
    log.add("L17", "/metadata", `${what} has no metadata field in 1.0; dropped ${JSON.stringify(Object.keys(x.metadata))}`);
}
export const upgradeGetTaskRequest = (p: v0_3.TaskQueryParams): Translated<v1_0.GetTaskRequestJson> =>
  run(p, V3.TaskQueryParams, V1.GetTaskRequest, "to-1.0", (x, log) => {
    reportUnknown(x, K.taskQuery, "", log);
    dropMetadata(x, log, "tasks/get");
    return compact({ id: x.id, historyLength: x.historyLength });
  });
export const downgradeGetTaskRequest = (r: v1_0.GetTaskRequestJson, o?: TranslateOptions): Translated<v0_3.TaskQueryParams> =>
  run(
    r,
    V1.GetTaskRequest,
    V3.TaskQueryParams,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.getTask, "", log);
      dropTenant(x, "", log);
      return compact({ id: x.id as string, historyLength: x.historyLength === undefined ? undefined : Number(x.historyLength) });
    },
    o,
  );

export const upgradeCancelTaskRequest = (p: v0_3.TaskIdParams): Translated<v1_0.CancelTaskRequestJson> =>
  run(p, V3.TaskIdParams, V1.CancelTaskRequest, "to-1.0", (x, log) => {
    reportUnknown(x, K.taskId, "", log);
    return compact({ id: x.id, metadata: x.metadata as v1_0.CancelTaskRequestJson["metadata"] });
  });
export const downgradeCancelTaskRequest = (r: v1_0.CancelTaskRequestJson, o?: TranslateOptions): Translated<v0_3.TaskIdParams> =>
  run(
    r,
    V1.CancelTaskRequest,
    V3.TaskIdParams,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.cancelTask, "", log);
      dropTenant(x, "", log);
      return compact({ id: x.id as string, metadata: x.metadata });
    },
    o,
  );

export const upgradeSubscribeToTaskRequest = (p: v0_3.TaskIdParams): Translated<v1_0.SubscribeToTaskRequestJson> =>
  run(p, V3.TaskIdParams, V1.SubscribeToTaskRequest, "to-1.0", (x, log) => {
    reportUnknown(x, K.taskId, "", log);
    dropMetadata(x, log, "tasks/resubscribe");
    return { id: x.id };
  });
export const downgradeSubscribeToTaskRequest = (r: v1_0.SubscribeToTaskRequestJson, o?: TranslateOptions): Translated<v0_3.TaskIdParams> =>
  run(
    r,
    V1.SubscribeToTaskRequest,
    V3.TaskIdParams,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.subscribe, "", log);
      dropTenant(x, "", log);
      return { id: x.id as string };
    },
    o,
  );

// ---- push-notification config operations --------------------------------------------------------------

/** The config object itself (create params, create result, get result). */
export const upgradePushConfig = (c: v0_3.TaskPushNotificationConfig): Translated<v1_0.TaskPushNotificationConfigJson> =>
  run(c, V3.TaskPushNotificationConfig, V1.TaskPushNotificationConfig, "to-1.0", (x, log) => tpncUp(x, "", log));
export const downgradePushConfig = (
  c: v1_0.TaskPushNotificationConfigJson,
  o?: TranslateOptions,
): Translated<v0_3.TaskPushNotificationConfig> =>
  run(c, V1.TaskPushNotificationConfig, V3.TaskPushNotificationConfig, "to-0.3", tpncDown, o);

/** `tasks/pushNotificationConfig/set` params ⇄ CreateTaskPushNotificationConfig request. */
export const upgradeCreatePushConfigParams = upgradePushConfig;
export const downgradeCreatePushConfigParams = downgradePushConfig;
/** `tasks/pushNotificationConfig/set` result ⇄ CreateTaskPushNotificationConfig response. */
export const upgradeCreatePushConfigResult = upgradePushConfig;
export const downgradeCreatePushConfigResult = downgradePushConfig;
/** `tasks/pushNotificationConfig/get` result ⇄ GetTaskPushNotificationConfig response. */
export const upgradeGetPushConfigResult = upgradePushConfig;
export const downgradeGetPushConfigResult = downgradePushConfig;

/**
 * `tasks/pushNotificationConfig/get` params. 0.3 `id` is the TASK id; the config id is optional
 * there (legacy single-config form, L23): it is then sent as `id: ""` and the L23 loss tells the
 * caller to resolve it to the task's sole/first config.
 */
export const upgradeGetPushConfigParams = (
  p: v0_3.GetTaskPushNotificationConfigParams | v0_3.TaskIdParams,
): Translated<v1_0.GetTaskPushNotificationConfigRequestJson> =>
  run(p, V3.GetTaskPushNotificationConfigParams, V1.GetTaskPushNotificationConfigRequest, "to-1.0", (x, log) => {
    const q = x as v0_3.GetTaskPushNotificationConfigParams;
    reportUnknown(q, K.getPushConfig, "", log);
    dropMetadata(q, log, "tasks/pushNotificationConfig/get");
    if (q.pushNotificationConfigId === undefined)
      log.add(
        "L23",
        "/pushNotificationConfigId",
        'absent (legacy single-config form); sent as id "" — resolve to the sole/first config of the task',
      );
    return { taskId: q.id, id: q.pushNotificationConfigId ?? "" };
  });
export const downgradeGetPushConfigParams = (
  r: v1_0.GetTaskPushNotificationConfigRequestJson,
  o?: TranslateOptions,
): Translated<v0_3.GetTaskPushNotificationConfigParams> =>
  run(
    r,
    V1.GetTaskPushNotificationConfigRequest,
    V3.GetTaskPushNotificationConfigParams,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.getPushConfig, "", log);
      dropTenant(x, "", log);
      return compact({ id: x.taskId as string, pushNotificationConfigId: str(x.id) });
    },
    o,
  );

export const upgradeListPushConfigParams = (
  p: v0_3.ListTaskPushNotificationConfigParams,
): Translated<v1_0.ListTaskPushNotificationConfigsRequestJson> =>
  run(p, V3.ListTaskPushNotificationConfigParams, V1.ListTaskPushNotificationConfigsRequest, "to-1.0", (x, log) => {
    reportUnknown(x, K.taskId, "", log);
    dropMetadata(x, log, "tasks/pushNotificationConfig/list");
    return { taskId: x.id };
  });
export const downgradeListPushConfigParams = (
  r: v1_0.ListTaskPushNotificationConfigsRequestJson,
  o?: TranslateOptions,
): Translated<v0_3.ListTaskPushNotificationConfigParams> =>
  run(
    r,
    V1.ListTaskPushNotificationConfigsRequest,
    V3.ListTaskPushNotificationConfigParams,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.listPushConfigs, "", log);
      dropTenant(x, "", log);
      if (x.pageSize !== undefined || str(x.pageToken))
        log.add("L7", x.pageToken ? "/pageToken" : "/pageSize", "0.3 lists every config at once; paging ignored (return all)");
      return { id: x.taskId as string };
    },
    o,
  );

const configListValidator = arrayOf(V3.TaskPushNotificationConfig);
/** 0.3 list result is a bare array; 1.0 wraps it in `{configs}` (no further page: `nextPageToken` unset; L7). */
export const upgradeListPushConfigResult = (
  r: v0_3.TaskPushNotificationConfig[],
): Translated<v1_0.ListTaskPushNotificationConfigsResponseJson> =>
  run(r, configListValidator, V1.ListTaskPushNotificationConfigsResponse, "to-1.0", (x, log) => ({
    configs: x.map((c, i) => tpncUp(c, `/${i}`, log)),
  }));
export const downgradeListPushConfigResult = (
  r: v1_0.ListTaskPushNotificationConfigsResponseJson,
  o?: TranslateOptions,
): Translated<v0_3.TaskPushNotificationConfig[]> =>
  run(
    r,
    V1.ListTaskPushNotificationConfigsResponse,
    configListValidator,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.listPushConfigsResult, "", log);
      if (str(x.nextPageToken))
        log.add("L7", "/nextPageToken", "0.3 has no paging; further pages are not in this 0.3 result — fetch them all before downgrading");
      return (x.configs ?? []).map((c, i) => {
        const sub = new LossLog("to-0.3");
        const v = tpncDown(c, sub);
        for (const l of sub.losses) log.add(l.id, `/configs/${i}${l.path}`, l.detail);
        return v;
      });
    },
    o,
  );

export const upgradeDeletePushConfigParams = (
  p: v0_3.DeleteTaskPushNotificationConfigParams,
): Translated<v1_0.DeleteTaskPushNotificationConfigRequestJson> =>
  run(p, V3.DeleteTaskPushNotificationConfigParams, V1.DeleteTaskPushNotificationConfigRequest, "to-1.0", (x, log) => {
    reportUnknown(x, K.deletePushConfig, "", log);
    dropMetadata(x, log, "tasks/pushNotificationConfig/delete");
    return { taskId: x.id, id: x.pushNotificationConfigId };
  });
export const downgradeDeletePushConfigParams = (
  r: v1_0.DeleteTaskPushNotificationConfigRequestJson,
  o?: TranslateOptions,
): Translated<v0_3.DeleteTaskPushNotificationConfigParams> =>
  run(
    r,
    V1.DeleteTaskPushNotificationConfigRequest,
    V3.DeleteTaskPushNotificationConfigParams,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.deletePushConfig, "", log);
      dropTenant(x, "", log);
      return { id: x.taskId as string, pushNotificationConfigId: x.id ?? "" };
    },
    o,
  );

/** 0.3 delete result is `null`; 1.0 returns google.protobuf.Empty (`{}`). */
export function upgradeDeletePushConfigResult(r: null): Translated<Record<string, never>> {
  if (r !== null) throw untranslatable("", "the 0.3 delete result must be null");
  return { value: {}, losses: [] };
}
export function downgradeDeletePushConfigResult(r: Record<string, unknown>): Translated<null> {
  if (!isObject(r)) throw untranslatable("", "the 1.0 delete result must be an object (google.protobuf.Empty)");
  const log = new LossLog("to-0.3");
  reportUnknown(r, FIELDS.none, "", log);
  return log.done(null);
}

// ---- push-notification webhook payloads (a2a-wire.md §5.6) -------------------------------------------

/** A 0.3 webhook body (the Task) as the 1.0 body (a StreamResponse carrying the task). */
export const upgradePushPayload = (t: v0_3.Task): Translated<v1_0.StreamResponseJson> =>
  run(t, V3.Task, V1.StreamResponse, "to-1.0", (x, log) => ({ task: taskUp(x, "", log) }));

/**
 * A 1.0 webhook body (StreamResponse) as the 0.3 body, which is always a Task. A `task` payload is
 * downgraded as is; for any other payload pass the task's current snapshot in `snapshot`, which is
 * sent instead (L24 reports the replaced event). Without a snapshot the value is `undefined`: send nothing.
 */
export function downgradePushPayload(r: v1_0.StreamResponseJson, snapshot?: v1_0.TaskJson): Translated<v0_3.Task | undefined> {
  return run(r, V1.StreamResponse, null, "to-0.3", (x, log) => {
    const member = oneMember(x, ["task", "message", "statusUpdate", "artifactUpdate"], "", "StreamResponse");
    if (member === "task") {
      const v = taskDown(x.task!, "/task", log);
      validateOutput(V3.Task, v, D03);
      return v;
    }
    log.add(
      "L24",
      `/${member}`,
      `0.3 webhooks carry a Task; the ${member} event ${snapshot ? "was replaced by the task snapshot" : "was not sent"}`,
    );
    if (!snapshot) return undefined;
    validateInput(V1.Task, snapshot, "/snapshot");
    const v = taskDown(snapshot, "/snapshot", log);
    validateOutput(V3.Task, v, D03);
    return v;
  });
}

// ---- AgentCard (translate/card-rpc.ts) ----------------------------------------------------------------

export const upgradeAgentCard = (c: v0_3.AgentCard): Translated<v1_0.AgentCardJson> => run(c, V3.AgentCard, V1.AgentCard, "to-1.0", cardUp);
/** Shows only the 0.x interfaces (L2); throws InvalidParams when the card has none. */
export const downgradeAgentCard = (c: v1_0.AgentCardJson, o?: TranslateOptions): Translated<v0_3.AgentCard> =>
  run(c, V1.AgentCard, V3.AgentCard, "to-0.3", cardDown, o);
