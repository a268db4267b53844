// The one typed contract both 0.3 dialects satisfy: D03-RPC (rpc0_3.ts, 0.3 JSON-RPC) and
// D03-PB (rest0_3.ts, 0.3 HTTP+JSON). codec.ts joins each module to the operations through this
// interface, so a dialect that lacks a translator, or one whose translator takes or returns the
// wrong 1.0 message, does not compile (test/unit/dialect-contract.test.ts).
import type * as v0_3 from "../../generated/v0_3/index.js";
import type * as v1_0 from "../../generated/v1_0/index.js";
import type { Translated } from "./loss.js";
import type { TranslateOptions } from "./translate/common.js";
import type { UpgradeSendOptions } from "./rest0_3.js";
import type { DowngradeEventOptions, SendMessageResult0_3, StreamResult0_3 } from "./rpc0_3.js";

/** The wire type of each 0.3 message a dialect translates. */
export interface Wire0_3 {
  SendMessageRequest: unknown;
  SendMessageResponse: unknown;
  StreamResponse: unknown;
  GetTaskRequest: unknown;
  Task: unknown;
  CancelTaskRequest: unknown;
  SubscribeToTaskRequest: unknown;
  CreatePushConfigParams: unknown;
  PushConfig: unknown;
  GetPushConfigParams: unknown;
  ListPushConfigParams: unknown;
  ListPushConfigResult: unknown;
  DeletePushConfigParams: unknown;
  DeletePushConfigResult: unknown;
  AgentCard: unknown;
}

/**
 * Translators of one direction pair: `upgrade` 0.3 wire → 1.0 ProtoJSON, `downgrade` back
 * (`opts.validate: false` for 1.0 JSON the toolkit encoded itself, translate/common.ts).
 */
export interface Dialect0_3<W extends Wire0_3> {
  upgradeSendMessageRequest: (w: W["SendMessageRequest"], opts?: UpgradeSendOptions) => Translated<v1_0.SendMessageRequestJson>;
  downgradeSendMessageRequest: (r: v1_0.SendMessageRequestJson, opts?: TranslateOptions) => Translated<W["SendMessageRequest"]>;
  upgradeSendMessageResponse: (w: W["SendMessageResponse"]) => Translated<v1_0.SendMessageResponseJson>;
  downgradeSendMessageResponse: (r: v1_0.SendMessageResponseJson, opts?: TranslateOptions) => Translated<W["SendMessageResponse"]>;
  upgradeStreamResponse: (w: W["StreamResponse"]) => Translated<v1_0.StreamResponseJson>;
  downgradeStreamResponse: (r: v1_0.StreamResponseJson, opts: DowngradeEventOptions) => Translated<W["StreamResponse"]>;
  upgradeGetTaskRequest: (w: W["GetTaskRequest"]) => Translated<v1_0.GetTaskRequestJson>;
  downgradeGetTaskRequest: (r: v1_0.GetTaskRequestJson, opts?: TranslateOptions) => Translated<W["GetTaskRequest"]>;
  upgradeTask: (w: W["Task"]) => Translated<v1_0.TaskJson>;
  downgradeTask: (r: v1_0.TaskJson, opts?: TranslateOptions) => Translated<W["Task"]>;
  upgradeCancelTaskRequest: (w: W["CancelTaskRequest"]) => Translated<v1_0.CancelTaskRequestJson>;
  downgradeCancelTaskRequest: (r: v1_0.CancelTaskRequestJson, opts?: TranslateOptions) => Translated<W["CancelTaskRequest"]>;
  upgradeSubscribeToTaskRequest: (w: W["SubscribeToTaskRequest"]) => Translated<v1_0.SubscribeToTaskRequestJson>;
  downgradeSubscribeToTaskRequest: (r: v1_0.SubscribeToTaskRequestJson, opts?: TranslateOptions) => Translated<W["SubscribeToTaskRequest"]>;
  upgradeCreatePushConfigParams: (w: W["CreatePushConfigParams"]) => Translated<v1_0.TaskPushNotificationConfigJson>;
  downgradeCreatePushConfigParams: (
    r: v1_0.TaskPushNotificationConfigJson,
    opts?: TranslateOptions,
  ) => Translated<W["CreatePushConfigParams"]>;
  upgradeCreatePushConfigResult: (w: W["PushConfig"]) => Translated<v1_0.TaskPushNotificationConfigJson>;
  downgradeCreatePushConfigResult: (r: v1_0.TaskPushNotificationConfigJson, opts?: TranslateOptions) => Translated<W["PushConfig"]>;
  upgradeGetPushConfigParams: (w: W["GetPushConfigParams"]) => Translated<v1_0.GetTaskPushNotificationConfigRequestJson>;
  downgradeGetPushConfigParams: (
    r: v1_0.GetTaskPushNotificationConfigRequestJson,
    opts?: TranslateOptions,
  ) => Translated<W["GetPushConfigParams"]>;
  upgradeGetPushConfigResult: (w: W["PushConfig"]) => Translated<v1_0.TaskPushNotificationConfigJson>;
  downgradeGetPushConfigResult: (r: v1_0.TaskPushNotificationConfigJson, opts?: TranslateOptions) => Translated<W["PushConfig"]>;
  upgradeListPushConfigParams: (w: W["ListPushConfigParams"]) => Translated<v1_0.ListTaskPushNotificationConfigsRequestJson>;
  downgradeListPushConfigParams: (
    r: v1_0.ListTaskPushNotificationConfigsRequestJson,
    opts?: TranslateOptions,
  ) => Translated<W["ListPushConfigParams"]>;
  upgradeListPushConfigResult: (w: W["ListPushConfigResult"]) => Translated<v1_0.ListTaskPushNotificationConfigsResponseJson>;
  downgradeListPushConfigResult: (
    r: v1_0.ListTaskPushNotificationConfigsResponseJson,
    opts?: TranslateOptions,
  ) => Translated<W["ListPushConfigResult"]>;
  upgradeDeletePushConfigParams: (w: W["DeletePushConfigParams"]) => Translated<v1_0.DeleteTaskPushNotificationConfigRequestJson>;
  downgradeDeletePushConfigParams: (
    r: v1_0.DeleteTaskPushNotificationConfigRequestJson,
    opts?: TranslateOptions,
  ) => Translated<W["DeletePushConfigParams"]>;
  upgradeDeletePushConfigResult: (w: W["DeletePushConfigResult"]) => Translated<Record<string, never>>;
  downgradeDeletePushConfigResult: (r: Record<string, unknown>, opts?: TranslateOptions) => Translated<W["DeletePushConfigResult"]>;
  upgradeAgentCard: (w: W["AgentCard"]) => Translated<v1_0.AgentCardJson>;
  downgradeAgentCard: (r: v1_0.AgentCardJson, opts?: TranslateOptions) => Translated<W["AgentCard"]>;
}

/** D03-RPC: the 0.3 JSON-RPC params and results (0.3 a2a.json). */
export interface RpcWire0_3 extends Wire0_3 {
  SendMessageRequest: v0_3.MessageSendParams;
  SendMessageResponse: SendMessageResult0_3;
  StreamResponse: StreamResult0_3;
  GetTaskRequest: v0_3.TaskQueryParams;
  Task: v0_3.Task;
  CancelTaskRequest: v0_3.TaskIdParams;
  SubscribeToTaskRequest: v0_3.TaskIdParams;
  CreatePushConfigParams: v0_3.TaskPushNotificationConfig;
  PushConfig: v0_3.TaskPushNotificationConfig;
  GetPushConfigParams: v0_3.GetTaskPushNotificationConfigParams | v0_3.TaskIdParams;
  ListPushConfigParams: v0_3.ListTaskPushNotificationConfigParams;
  ListPushConfigResult: v0_3.TaskPushNotificationConfig[];
  DeletePushConfigParams: v0_3.DeleteTaskPushNotificationConfigParams;
  DeletePushConfigResult: null;
  AgentCard: v0_3.AgentCard;
}

/**
 * D03-PB: the 0.3 HTTP+JSON messages (0.3 a2a.proto, ProtoJSON). The 0.3 gRPC service carries the
 * same messages in binary; grpc.ts reads them as their ProtoJSON through this dialect.
 */
export interface RestWire0_3 extends Wire0_3 {
  SendMessageRequest: v0_3.pb.SendMessageRequestJson;
  SendMessageResponse: v0_3.pb.SendMessageResponseJson;
  StreamResponse: v0_3.pb.StreamResponseJson;
  GetTaskRequest: v0_3.pb.GetTaskRequestJson;
  Task: v0_3.pb.TaskJson;
  CancelTaskRequest: v0_3.pb.CancelTaskRequestJson;
  SubscribeToTaskRequest: v0_3.pb.TaskSubscriptionRequestJson;
  CreatePushConfigParams: v0_3.pb.CreateTaskPushNotificationConfigRequestJson;
  PushConfig: v0_3.pb.TaskPushNotificationConfigJson;
  GetPushConfigParams: v0_3.pb.GetTaskPushNotificationConfigRequestJson;
  ListPushConfigParams: v0_3.pb.ListTaskPushNotificationConfigRequestJson;
  ListPushConfigResult: v0_3.pb.ListTaskPushNotificationConfigResponseJson;
  DeletePushConfigParams: v0_3.pb.DeleteTaskPushNotificationConfigRequestJson;
  DeletePushConfigResult: Record<string, unknown>;
  AgentCard: v0_3.pb.AgentCardJson;
}
