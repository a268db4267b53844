// 0.3 HTTP+JSON / gRPC (dialect D03-PB: ProtoJSON of the v0.3.0 a2a.proto) ⇄ 1.0 (ProtoJSON)
// translators for the data model.
//
// Exported API — every function is pure, works on wire JSON, validates its input with the generated
// validator of the source dialect (bad input → A2AError InvalidParams with a JSON path), checks its
// output with the validator of the target dialect, and returns `Translated<T>` = { value, losses }.
// Losses are rows of the loss register (LOSSY.md).
//
//   upgradeX:   0.3 D03-PB → 1.0           downgradeX: 1.0 → 0.3 D03-PB        (pb = v0_3.pb)
//
//   X = Task                 pb.TaskJson                     ⇄ v1_0.TaskJson
//       TaskStatus           pb.TaskStatusJson               ⇄ v1_0.TaskStatusJson   (TASK_STATE_CANCELLED ⇄ _CANCELED)
//       Message              pb.MessageJson (`content`)      ⇄ v1_0.MessageJson (`parts`)
//       Part                 pb.PartJson                     ⇄ v1_0.PartJson
//       Artifact             pb.ArtifactJson                 ⇄ v1_0.ArtifactJson
//       StatusUpdate         pb.TaskStatusUpdateEventJson    ⇄ v1_0.TaskStatusUpdateEventJson (downgrade takes `final`)
//       ArtifactUpdate       pb.TaskArtifactUpdateEventJson  ⇄ v1_0.TaskArtifactUpdateEventJson
//       StreamResponse       pb.StreamResponseJson           ⇄ v1_0.StreamResponseJson (downgrade takes `{final}`)
//       SendMessageResponse  pb.SendMessageResponseJson      ⇄ v1_0.SendMessageResponseJson
//       SendMessageRequest   pb.SendMessageRequestJson       ⇄ v1_0.SendMessageRequestJson (upgrade takes `{blockingDefault}`, L22)
//       GetTaskRequest       pb.GetTaskRequestJson           ⇄ v1_0.GetTaskRequestJson
//       CancelTaskRequest    pb.CancelTaskRequestJson        ⇄ v1_0.CancelTaskRequestJson
//       SubscribeToTaskRequest pb.TaskSubscriptionRequestJson ⇄ v1_0.SubscribeToTaskRequestJson
//       PushConfig           pb.TaskPushNotificationConfigJson ⇄ v1_0.TaskPushNotificationConfigJson
//       CreatePushConfigParams pb.CreateTaskPushNotificationConfigRequestJson ⇄ v1_0.TaskPushNotificationConfigJson
//       CreatePushConfigResult / GetPushConfigResult  (= PushConfig)
//       GetPushConfigParams  pb.GetTaskPushNotificationConfigRequestJson ⇄ v1_0.GetTaskPushNotificationConfigRequestJson
//       ListPushConfigParams pb.ListTaskPushNotificationConfigRequestJson ⇄ v1_0.ListTaskPushNotificationConfigsRequestJson
//       ListPushConfigResult pb.ListTaskPushNotificationConfigResponseJson ⇄ v1_0.ListTaskPushNotificationConfigsResponseJson
//       DeletePushConfigParams pb.DeleteTaskPushNotificationConfigRequestJson ⇄ v1_0.DeleteTaskPushNotificationConfigRequestJson
//       DeletePushConfigResult {} ⇄ {}
//       AgentCard            pb.AgentCardJson                ⇄ v1_0.AgentCardJson
//
// Resource names: a task is "tasks/{id}", a push config "tasks/{taskId}/pushNotificationConfigs/{id}"
// (the v0.3.0 create route also used "task/{id}", accepted on input).
import type { DescMessage } from "@bufbuild/protobuf";
import type { ValidateFunction } from "ajv";
import { decode, encode } from "../runtime/protojson.js";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { LossLog, type LossDirection, type Translated } from "./loss.js";
import { cardDown, cardUp } from "./translate/card-rest.js";
import {
  canonicalBase64,
  compact,
  FIELDS,
  isObject,
  reportUnknown,
  scanPrecision,
  state1_0ToPb,
  statePbTo1_0,
  str,
  translate,
  untranslatable,
  type TranslateOptions,
} from "./translate/common.js";
import { invalidParams } from "./errors.js";
import { PB_FIELDS } from "./translate/fields.js";
import { walkers } from "./translate/model.js";
import { dropTenant, pushBodyDown as pushDown, pushBodyUp as pushUp } from "./translate/push.js";

import pb = v0_3.pb;

const D03 = "A2A 0.3 HTTP+JSON";
const V1 = v1_0.validators;
const VP = v0_3.restValidators;

export interface DowngradeEventOptions extends TranslateOptions {
  /** The 0.3 `final` flag for a status update; the caller decides it (a2a-wire.md §5.4, L5/L13). */
  final: boolean;
}
export interface UpgradeSendOptions {
  /**
   * What a D03-PB `blocking` that is false or absent (indistinguishable in ProtoJSON, L22) means.
   * Default `false`: non-blocking, i.e. `returnImmediately: true` (the v0.3.0 proto comment).
   */
  blockingDefault?: boolean;
}

function run<I, O>(
  input: I,
  inV: ValidateFunction,
  outV: ValidateFunction | null,
  direction: LossDirection,
  fn: (x: I, log: LossLog) => O,
  opts?: TranslateOptions,
): Translated<O> {
  return translate(direction === "to-1.0" ? canonicalPb(input, inV) : input, inV, outV, direction, D03, fn, opts);
}

/** The D03-PB message schema behind each generated REST validator. */
const PB_SCHEMAS = new Map<ValidateFunction, DescMessage>(
  Object.entries(VP).flatMap(([name, validate]) => {
    const schema = (pb as unknown as Record<string, DescMessage | undefined>)[`${name}Schema`];
    return schema ? [[validate, schema] as const] : [];
  }),
);

/**
 * D03-PB is ProtoJSON, whose readers accept enum numbers, proto field names and null for unset
 * fields (client rule C-08). Input the strict validator refuses is first put in its canonical
 * form through the 0.3 proto; anything still wrong is refused by the validator as before.
 */
function canonicalPb<I>(input: I, validate: ValidateFunction): I {
  const schema = PB_SCHEMAS.get(validate);
  if (!schema || validate(input)) return input;
  try {
    return encode(schema, decode(schema, input)) as I;
  } catch {
    return input;
  }
}

const KP = PB_FIELDS;

// ---- resource names ----------------------------------------------------------------------------

const TASK_NAME = /^tasks?\/([^/]+)$/;
const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/;

/** One percent-encoded segment of a resource name; a malformed escape (`%b`) is InvalidParams. */
function segmentOf(segment: string, name: string, path: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalidParams(path, `"${name}" has a malformed percent-escape`);
  }
}
function taskIdOf(name: string | undefined, path: string): string {
  const id = TASK_NAME.exec(name ?? "")?.[1];
  if (id === undefined) throw invalidParams(path, `"${name ?? ""}" is not a task resource name (tasks/{id})`);
  return segmentOf(id, name!, path);
}
function configIdsOf(name: string | undefined, path: string): { taskId: string; id: string } {
  const [, taskId, id] = CONFIG_NAME.exec(name ?? "") ?? [];
  if (taskId === undefined || id === undefined)
    throw invalidParams(path, `"${name ?? ""}" is not a push config resource name (tasks/{taskId}/pushNotificationConfigs/{id})`);
  return { taskId: segmentOf(taskId, name!, path), id: segmentOf(id, name!, path) };
}
const taskName = (id: string) => `tasks/${encodeURIComponent(id)}`;
const configName = (taskId: string, id: string) => `tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs/${encodeURIComponent(id)}`;

// ---- Part ----------------------------------------------------------------------------------------

function partDown(p: v1_0.PartJson, path: string, log: LossLog): pb.PartJson {
  reportUnknown(p, FIELDS.part, path, log);
  if (p.metadata && Object.keys(p.metadata).length) log.add("L11", `${path}/metadata`, "the v0.3.0 proto Part has no metadata; dropped");
  const mediaType = str(p.mediaType);
  const filename = str(p.filename);
  if (p.raw !== undefined || p.url !== undefined) {
    if (filename !== undefined) log.add("L11", `${path}/filename`, "the v0.3.0 proto FilePart has no name; dropped");
    return {
      file: compact(
        p.raw !== undefined
          ? { fileWithBytes: canonicalBase64(p.raw, `${path}/raw`), mimeType: mediaType }
          : { fileWithUri: p.url as string, mimeType: mediaType },
      ),
    };
  }
  let out: pb.PartJson;
  if (p.text !== undefined) out = { text: p.text };
  else if (p.data !== undefined) {
    scanPrecision(p.data, `${path}/data`, log);
    if (isObject(p.data)) out = { data: { data: p.data } };
    else {
      log.add(
        "L4",
        `${path}/data`,
        'non-object data wrapped as {"value": …}; D03-PB has no part metadata to mark the wrap, so it is not undone',
      );
      out = { data: { data: { value: p.data } } };
    }
  } else throw untranslatable(path, "a part must set one of text, raw, url, data");
  if (mediaType !== undefined || filename !== undefined)
    log.add("L3", path, "mediaType/filename of a text or data part have no D03-PB field and no part metadata to carry them; dropped");
  return out;
}

/** Fields SDKs added to the 0.3 proto after v0.3.0 (a2a-wire.md §2.14): accepted on input, never sent. */
type Pb03x = { metadata?: { [k: string]: unknown } };

function partUp(p: pb.PartJson, path: string, log: LossLog): v1_0.PartJson {
  reportUnknown(p, KP.part, path, log);
  const out = partBodyUp(p, path, log);
  const meta = (p as Pb03x).metadata;
  if (isObject(meta)) {
    scanPrecision(meta, `${path}/metadata`, log);
    out.metadata = meta as v1_0.PartJson["metadata"];
  }
  return out;
}

function partBodyUp(p: pb.PartJson, path: string, log: LossLog): v1_0.PartJson {
  if (p.text !== undefined) return { text: p.text };
  if (p.file) {
    const f = p.file as pb.FilePartJson & { name?: string };
    reportUnknown(f, KP.file, `${path}/file`, log);
    const out: v1_0.PartJson =
      f.fileWithBytes !== undefined
        ? { raw: canonicalBase64(f.fileWithBytes, `${path}/file/fileWithBytes`) }
        : f.fileWithUri !== undefined
          ? { url: f.fileWithUri }
          : (() => {
              throw untranslatable(`${path}/file`, "a file part must set fileWithUri or fileWithBytes");
            })();
    if (str(f.mimeType)) out.mediaType = f.mimeType;
    if (typeof f.name === "string" && f.name !== "") out.filename = f.name;
    return out;
  }
  if (p.data) {
    reportUnknown(p.data, KP.dataPart, `${path}/data`, log);
    const d = p.data.data ?? {};
    scanPrecision(d, `${path}/data/data`, log);
    return { data: d };
  }
  throw untranslatable(path, "a part must set one of text, file, data");
}

// ---- Message, TaskStatus, Artifact, Task, stream events (translate/model.ts) -------------------------

interface PbModel {
  Part: pb.PartJson;
  Message: pb.MessageJson;
  TaskStatus: pb.TaskStatusJson;
  Task: pb.TaskJson;
  Artifact: pb.ArtifactJson;
  StatusUpdate: pb.TaskStatusUpdateEventJson;
  ArtifactUpdate: pb.TaskArtifactUpdateEventJson;
  StreamResponse: pb.StreamResponseJson;
  SendMessageResponse: pb.SendMessageResponseJson;
}

const W = walkers<PbModel>({
  fields: KP,
  tagged: false,
  partsKey: "content",
  referenceTaskIds: false,
  contextIdRequired: false,
  roleUp: (r) => r as v1_0.MessageJson["role"],
  roleDown: (r) => r,
  stateUp: (s) => (s === undefined ? "TASK_STATE_UNSPECIFIED" : statePbTo1_0(s)) as v1_0.TaskStateJson,
  stateDown: (s) => (s === undefined ? undefined : state1_0ToPb(s)),
  partUp,
  partDown,
});
const { messageUp, messageDown, statusUp, statusDown, artifactUp, artifactDown, taskUp, taskDown } = W;
const { statusUpdateUp, statusUpdateDown, artifactUpdateUp, artifactUpdateDown, streamUp, streamDown } = W;

// ---- exported: core objects ----------------------------------------------------------------------------

export const upgradeTask = (t: pb.TaskJson): Translated<v1_0.TaskJson> =>
  run(t, VP.Task, V1.Task, "to-1.0", (x, log) => taskUp(x, "", log));
export const downgradeTask = (t: v1_0.TaskJson, o?: TranslateOptions): Translated<pb.TaskJson> =>
  run(t, V1.Task, VP.Task, "to-0.3", (x, log) => taskDown(x, "", log), o);

export const upgradeTaskStatus = (s: pb.TaskStatusJson): Translated<v1_0.TaskStatusJson> =>
  run(s, VP.TaskStatus, V1.TaskStatus, "to-1.0", (x, log) => statusUp(x, "", log));
export const downgradeTaskStatus = (s: v1_0.TaskStatusJson, o?: TranslateOptions): Translated<pb.TaskStatusJson> =>
  run(s, V1.TaskStatus, VP.TaskStatus, "to-0.3", (x, log) => statusDown(x, "", log), o);

export const upgradeMessage = (m: pb.MessageJson): Translated<v1_0.MessageJson> =>
  run(m, VP.Message, V1.Message, "to-1.0", (x, log) => messageUp(x, "", log));
export const downgradeMessage = (m: v1_0.MessageJson, o?: TranslateOptions): Translated<pb.MessageJson> =>
  run(m, V1.Message, VP.Message, "to-0.3", (x, log) => messageDown(x, "", log), o);

export const upgradePart = (p: pb.PartJson): Translated<v1_0.PartJson> =>
  run(p, VP.Part, V1.Part, "to-1.0", (x, log) => partUp(x, "", log));
export const downgradePart = (p: v1_0.PartJson, o?: TranslateOptions): Translated<pb.PartJson> =>
  run(p, V1.Part, VP.Part, "to-0.3", (x, log) => partDown(x, "", log), o);

export const upgradeArtifact = (a: pb.ArtifactJson): Translated<v1_0.ArtifactJson> =>
  run(a, VP.Artifact, V1.Artifact, "to-1.0", (x, log) => artifactUp(x, "", log));
export const downgradeArtifact = (a: v1_0.ArtifactJson, o?: TranslateOptions): Translated<pb.ArtifactJson> =>
  run(a, V1.Artifact, VP.Artifact, "to-0.3", (x, log) => artifactDown(x, "", log), o);

/** Drops `final` (reported as L21): the caller closes the 1.0 stream after a `final: true` event. */
export const upgradeStatusUpdate = (e: pb.TaskStatusUpdateEventJson): Translated<v1_0.TaskStatusUpdateEventJson> =>
  run(e, VP.TaskStatusUpdateEvent, V1.TaskStatusUpdateEvent, "to-1.0", (x, log) => statusUpdateUp(x, "", log));
/** `final` is the caller's decision (a2a-wire.md §5.4): 1.0 has no such field. */
export const downgradeStatusUpdate = (
  e: v1_0.TaskStatusUpdateEventJson,
  final: boolean,
  o?: TranslateOptions,
): Translated<pb.TaskStatusUpdateEventJson> =>
  run(e, V1.TaskStatusUpdateEvent, VP.TaskStatusUpdateEvent, "to-0.3", (x, log) => statusUpdateDown(x, final, "", log), o);

export const upgradeArtifactUpdate = (e: pb.TaskArtifactUpdateEventJson): Translated<v1_0.TaskArtifactUpdateEventJson> =>
  run(e, VP.TaskArtifactUpdateEvent, V1.TaskArtifactUpdateEvent, "to-1.0", (x, log) => artifactUpdateUp(x, "", log));
export const downgradeArtifactUpdate = (
  e: v1_0.TaskArtifactUpdateEventJson,
  o?: TranslateOptions,
): Translated<pb.TaskArtifactUpdateEventJson> =>
  run(e, V1.TaskArtifactUpdateEvent, VP.TaskArtifactUpdateEvent, "to-0.3", (x, log) => artifactUpdateDown(x, "", log), o);

export const upgradeStreamResponse = (r: pb.StreamResponseJson): Translated<v1_0.StreamResponseJson> =>
  run(r, VP.StreamResponse, V1.StreamResponse, "to-1.0", streamUp);
/** `opts.final` is used only when the item is a status update. */
export const downgradeStreamResponse = (r: v1_0.StreamResponseJson, opts: DowngradeEventOptions): Translated<pb.StreamResponseJson> =>
  run(r, V1.StreamResponse, VP.StreamResponse, "to-0.3", (x, log) => streamDown(x, opts.final, log), opts);

export const upgradeSendMessageResponse = (r: pb.SendMessageResponseJson): Translated<v1_0.SendMessageResponseJson> =>
  run(r, VP.SendMessageResponse, V1.SendMessageResponse, "to-1.0", W.sendResponseUp);
export const downgradeSendMessageResponse = (
  r: v1_0.SendMessageResponseJson,
  o?: TranslateOptions,
): Translated<pb.SendMessageResponseJson> => run(r, V1.SendMessageResponse, VP.SendMessageResponse, "to-0.3", W.sendResponseDown, o);

// ---- SendMessageRequest ------------------------------------------------------------------------------

const pushBodyDown = (c: v1_0.TaskPushNotificationConfigJson, path: string, log: LossLog, inSend: boolean) =>
  pushDown(c, path, log, inSend);
const pushBodyUp = (c: pb.PushNotificationConfigJson, path: string, log: LossLog) => pushUp(c, KP, path, log);

function historyDown(n: number | string | undefined, path: string, log: LossLog): number | undefined {
  if (n === undefined) return undefined;
  const v = Number(n);
  if (v === 0) {
    log.add(
      "L10",
      path,
      "1.0 historyLength 0 (no history) is not sent: D03-PB readers differ on 0 (the proto comment says unlimited); requested unlimited — trim the history to none",
    );
    return undefined;
  }
  return v;
}

export const upgradeSendMessageRequest = (
  r: pb.SendMessageRequestJson,
  opts: UpgradeSendOptions = {},
): Translated<v1_0.SendMessageRequestJson> =>
  run(r, VP.SendMessageRequest, V1.SendMessageRequest, "to-1.0", (x, log) => {
    reportUnknown(x, KP.sendRequest, "", log);
    if (x.metadata) scanPrecision(x.metadata, "/metadata", log);
    const c = x.configuration ?? {};
    if (x.configuration) reportUnknown(c, KP.sendConfig, "/configuration", log);
    let returnImmediately: boolean | undefined;
    if (c.blocking !== true) {
      const blocking = opts.blockingDefault ?? false;
      log.add(
        "L22",
        "/configuration/blocking",
        `false and absent are the same in D03-PB; read as ${blocking ? "blocking" : "non-blocking (returnImmediately)"}`,
      );
      returnImmediately = blocking ? undefined : true;
    }
    const historyLength = c.historyLength === undefined || Number(c.historyLength) === 0 ? undefined : Number(c.historyLength);
    const configuration = compact({
      acceptedOutputModes: c.acceptedOutputModes,
      taskPushNotificationConfig: c.pushNotification && pushBodyUp(c.pushNotification, "/configuration/pushNotification", log),
      historyLength,
      returnImmediately,
    });
    return compact({
      message: x.message ? messageUp(x.message, "/message", log) : undefined,
      configuration: Object.keys(configuration).length ? configuration : undefined,
      metadata: x.metadata,
    });
  });

export const downgradeSendMessageRequest = (r: v1_0.SendMessageRequestJson, o?: TranslateOptions): Translated<pb.SendMessageRequestJson> =>
  run(
    r,
    V1.SendMessageRequest,
    VP.SendMessageRequest,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.sendRequest, "", log);
      dropTenant(x, "", log);
      if (x.metadata) scanPrecision(x.metadata, "/metadata", log);
      const c = x.configuration ?? {};
      if (x.configuration) reportUnknown(c, FIELDS.sendConfig, "/configuration", log);
      return compact({
        message: messageDown(x.message as v1_0.MessageJson, "/message", log),
        configuration: compact({
          acceptedOutputModes: c.acceptedOutputModes,
          pushNotification:
            c.taskPushNotificationConfig &&
            pushBodyDown(c.taskPushNotificationConfig, "/configuration/taskPushNotificationConfig", log, true),
          historyLength: historyDown(c.historyLength, "/configuration/historyLength", log),
          blocking: c.returnImmediately !== true,
        }),
        metadata: x.metadata,
      });
    },
    o,
  );

// ---- task requests ---------------------------------------------------------------------------------

export const upgradeGetTaskRequest = (r: pb.GetTaskRequestJson): Translated<v1_0.GetTaskRequestJson> =>
  run(r, VP.GetTaskRequest, V1.GetTaskRequest, "to-1.0", (x, log) => {
    reportUnknown(x, KP.getTask, "", log);
    // An explicit `historyLength=0` asks for no history (the official SDK's 0.3 REST client and
    // server; 1.0 §3.2.4); absent means all of it (docs/policies.md).
    return compact({ id: taskIdOf(x.name, "/name"), historyLength: x.historyLength === undefined ? undefined : Number(x.historyLength) });
  });
export const downgradeGetTaskRequest = (r: v1_0.GetTaskRequestJson, o?: TranslateOptions): Translated<pb.GetTaskRequestJson> =>
  run(
    r,
    V1.GetTaskRequest,
    VP.GetTaskRequest,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.getTask, "", log);
      dropTenant(x, "", log);
      return compact({ name: taskName(x.id as string), historyLength: historyDown(x.historyLength, "/historyLength", log) });
    },
    o,
  );

export const upgradeCancelTaskRequest = (r: pb.CancelTaskRequestJson): Translated<v1_0.CancelTaskRequestJson> =>
  run(r, VP.CancelTaskRequest, V1.CancelTaskRequest, "to-1.0", (x, log) => {
    reportUnknown(x, KP.cancelTask, "", log);
    return { id: taskIdOf(x.name, "/name") };
  });
export const downgradeCancelTaskRequest = (r: v1_0.CancelTaskRequestJson, o?: TranslateOptions): Translated<pb.CancelTaskRequestJson> =>
  run(
    r,
    V1.CancelTaskRequest,
    VP.CancelTaskRequest,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.cancelTask, "", log);
      dropTenant(x, "", log);
      if (x.metadata && Object.keys(x.metadata).length)
        log.add("L11", "/metadata", "the v0.3.0 proto CancelTaskRequest has no metadata; dropped");
      return { name: taskName(x.id as string) };
    },
    o,
  );

export const upgradeSubscribeToTaskRequest = (r: pb.TaskSubscriptionRequestJson): Translated<v1_0.SubscribeToTaskRequestJson> =>
  run(r, VP.TaskSubscriptionRequest, V1.SubscribeToTaskRequest, "to-1.0", (x, log) => {
    reportUnknown(x, KP.subscribe, "", log);
    return { id: taskIdOf(x.name, "/name") };
  });
export const downgradeSubscribeToTaskRequest = (
  r: v1_0.SubscribeToTaskRequestJson,
  o?: TranslateOptions,
): Translated<pb.TaskSubscriptionRequestJson> =>
  run(
    r,
    V1.SubscribeToTaskRequest,
    VP.TaskSubscriptionRequest,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.subscribe, "", log);
      dropTenant(x, "", log);
      return { name: taskName(x.id as string) };
    },
    o,
  );

// ---- push-notification config operations -----------------------------------------------------------

function tpncUp(c: pb.TaskPushNotificationConfigJson, path: string, log: LossLog): v1_0.TaskPushNotificationConfigJson {
  reportUnknown(c, KP.taskPushConfig, path, log);
  const { taskId, id } = configIdsOf(c.name, `${path}/name`);
  const body = pushBodyUp(c.pushNotificationConfig ?? {}, `${path}/pushNotificationConfig`, log);
  return compact({ id: body.id ?? id, taskId, url: body.url, token: body.token, authentication: body.authentication });
}

function tpncDown(c: v1_0.TaskPushNotificationConfigJson, path: string, log: LossLog): pb.TaskPushNotificationConfigJson {
  const body = pushBodyDown(c, path, log, false);
  return { name: configName(c.taskId ?? "", c.id ?? ""), pushNotificationConfig: body };
}

/** The config object itself (create result, get result). */
export const upgradePushConfig = (c: pb.TaskPushNotificationConfigJson): Translated<v1_0.TaskPushNotificationConfigJson> =>
  run(c, VP.TaskPushNotificationConfig, V1.TaskPushNotificationConfig, "to-1.0", (x, log) => tpncUp(x, "", log));
export const downgradePushConfig = (
  c: v1_0.TaskPushNotificationConfigJson,
  o?: TranslateOptions,
): Translated<pb.TaskPushNotificationConfigJson> =>
  run(c, V1.TaskPushNotificationConfig, VP.TaskPushNotificationConfig, "to-0.3", (x, log) => tpncDown(x, "", log), o);
export const upgradeCreatePushConfigResult = upgradePushConfig;
export const downgradeCreatePushConfigResult = downgradePushConfig;
export const upgradeGetPushConfigResult = upgradePushConfig;
export const downgradeGetPushConfigResult = downgradePushConfig;

/** CreateTaskPushNotificationConfigRequest {parent, configId, config} ⇄ the 1.0 config (the create request body). */
export const upgradeCreatePushConfigParams = (
  r: pb.CreateTaskPushNotificationConfigRequestJson,
): Translated<v1_0.TaskPushNotificationConfigJson> =>
  run(r, VP.CreateTaskPushNotificationConfigRequest, V1.TaskPushNotificationConfig, "to-1.0", (x, log) => {
    reportUnknown(x, KP.createPushConfig, "", log);
    const taskId = taskIdOf(x.parent, "/parent");
    const cfg = x.config ?? {};
    reportUnknown(cfg, KP.taskPushConfig, "/config", log);
    const body = pushBodyUp(cfg.pushNotificationConfig ?? {}, "/config/pushNotificationConfig", log);
    return compact({ id: str(x.configId) ?? body.id, taskId, url: body.url, token: body.token, authentication: body.authentication });
  });
export const downgradeCreatePushConfigParams = (
  c: v1_0.TaskPushNotificationConfigJson,
  o?: TranslateOptions,
): Translated<pb.CreateTaskPushNotificationConfigRequestJson> =>
  run(
    c,
    V1.TaskPushNotificationConfig,
    VP.CreateTaskPushNotificationConfigRequest,
    "to-0.3",
    (x, log) => ({
      parent: taskName(x.taskId ?? ""),
      configId: x.id ?? "",
      config: tpncDown(x, "", log),
    }),
    o,
  );

export const upgradeGetPushConfigParams = (
  r: pb.GetTaskPushNotificationConfigRequestJson,
): Translated<v1_0.GetTaskPushNotificationConfigRequestJson> =>
  run(r, VP.GetTaskPushNotificationConfigRequest, V1.GetTaskPushNotificationConfigRequest, "to-1.0", (x, log) => {
    reportUnknown(x, KP.getPushConfig, "", log);
    return configIdsOf(x.name, "/name");
  });
export const downgradeGetPushConfigParams = (
  r: v1_0.GetTaskPushNotificationConfigRequestJson,
  o?: TranslateOptions,
): Translated<pb.GetTaskPushNotificationConfigRequestJson> =>
  run(
    r,
    V1.GetTaskPushNotificationConfigRequest,
    VP.GetTaskPushNotificationConfigRequest,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.getPushConfig, "", log);
      dropTenant(x, "", log);
      return { name: configName(x.taskId as string, x.id as string) };
    },
    o,
  );

export const upgradeListPushConfigParams = (
  r: pb.ListTaskPushNotificationConfigRequestJson,
): Translated<v1_0.ListTaskPushNotificationConfigsRequestJson> =>
  run(r, VP.ListTaskPushNotificationConfigRequest, V1.ListTaskPushNotificationConfigsRequest, "to-1.0", (x, log) => {
    reportUnknown(x, KP.listPushConfigs, "", log);
    return compact({
      taskId: taskIdOf(x.parent, "/parent"),
      pageSize: x.pageSize === undefined || Number(x.pageSize) === 0 ? undefined : Number(x.pageSize),
      pageToken: x.pageToken,
    });
  });
export const downgradeListPushConfigParams = (
  r: v1_0.ListTaskPushNotificationConfigsRequestJson,
  o?: TranslateOptions,
): Translated<pb.ListTaskPushNotificationConfigRequestJson> =>
  run(
    r,
    V1.ListTaskPushNotificationConfigsRequest,
    VP.ListTaskPushNotificationConfigRequest,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.listPushConfigs, "", log);
      dropTenant(x, "", log);
      return compact({
        parent: taskName(x.taskId as string),
        pageSize: x.pageSize === undefined ? undefined : Number(x.pageSize),
        pageToken: x.pageToken,
      });
    },
    o,
  );

export const upgradeListPushConfigResult = (
  r: pb.ListTaskPushNotificationConfigResponseJson,
): Translated<v1_0.ListTaskPushNotificationConfigsResponseJson> =>
  run(r, VP.ListTaskPushNotificationConfigResponse, V1.ListTaskPushNotificationConfigsResponse, "to-1.0", (x, log) => {
    reportUnknown(x, FIELDS.listPushConfigsResult, "", log);
    return compact({ configs: x.configs?.map((c, i) => tpncUp(c, `/configs/${i}`, log)), nextPageToken: x.nextPageToken });
  });
export const downgradeListPushConfigResult = (
  r: v1_0.ListTaskPushNotificationConfigsResponseJson,
  o?: TranslateOptions,
): Translated<pb.ListTaskPushNotificationConfigResponseJson> =>
  run(
    r,
    V1.ListTaskPushNotificationConfigsResponse,
    VP.ListTaskPushNotificationConfigResponse,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.listPushConfigsResult, "", log);
      return compact({ configs: x.configs?.map((c, i) => tpncDown(c, `/configs/${i}`, log)), nextPageToken: x.nextPageToken });
    },
    o,
  );

export const upgradeDeletePushConfigParams = (
  r: pb.DeleteTaskPushNotificationConfigRequestJson,
): Translated<v1_0.DeleteTaskPushNotificationConfigRequestJson> =>
  run(r, VP.DeleteTaskPushNotificationConfigRequest, V1.DeleteTaskPushNotificationConfigRequest, "to-1.0", (x, log) => {
    reportUnknown(x, KP.deletePushConfig, "", log);
    return configIdsOf(x.name, "/name");
  });
export const downgradeDeletePushConfigParams = (
  r: v1_0.DeleteTaskPushNotificationConfigRequestJson,
  o?: TranslateOptions,
): Translated<pb.DeleteTaskPushNotificationConfigRequestJson> =>
  run(
    r,
    V1.DeleteTaskPushNotificationConfigRequest,
    VP.DeleteTaskPushNotificationConfigRequest,
    "to-0.3",
    (x, log) => {
      reportUnknown(x, FIELDS.deletePushConfig, "", log);
      dropTenant(x, "", log);
      return { name: configName(x.taskId as string, x.id as string) };
    },
    o,
  );

/** google.protobuf.Empty in both. */
export function upgradeDeletePushConfigResult(r: Record<string, unknown>): Translated<Record<string, never>> {
  if (!isObject(r)) throw untranslatable("", "the delete result must be an object (google.protobuf.Empty)");
  const log = new LossLog("to-1.0");
  reportUnknown(r, FIELDS.none, "", log);
  return log.done({});
}
export function downgradeDeletePushConfigResult(r: Record<string, unknown>): Translated<Record<string, never>> {
  if (!isObject(r)) throw untranslatable("", "the delete result must be an object (google.protobuf.Empty)");
  const log = new LossLog("to-0.3");
  reportUnknown(r, FIELDS.none, "", log);
  return log.done({});
}

// ---- AgentCard (translate/card-rest.ts) ----------------------------------------------------------------

export const upgradeAgentCard = (c: pb.AgentCardJson): Translated<v1_0.AgentCardJson> =>
  run(c, VP.AgentCard, V1.AgentCard, "to-1.0", cardUp);
/** Shows only the 0.x interfaces (L2); throws InvalidParams when the card has none. */
export const downgradeAgentCard = (c: v1_0.AgentCardJson, o?: TranslateOptions): Translated<pb.AgentCardJson> =>
  run(c, V1.AgentCard, VP.AgentCard, "to-0.3", cardDown, o);
