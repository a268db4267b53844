// The field names the translators know, per message and dialect, derived from the generated code:
// 1.0 and D03-PB from their protobuf-es descriptors, D03-RPC from the a2a.json definitions
// (generated/v0_3/fields.ts). reportUnknown drops and reports (L24) any other field.
import type { DescMessage } from "@bufbuild/protobuf";
import * as v0_3 from "../../../generated/v0_3/index.js";
import * as v1_0 from "../../../generated/v1_0/index.js";

import pb = v0_3.pb;

export type Fields = ReadonlySet<string>;

/** The ProtoJSON member names of a message (oneof members included), plus `extra`. */
function proto(m: DescMessage, ...extra: string[]): Fields {
  return new Set([...m.fields.map((f) => f.jsonName), ...extra]);
}

/** The members of the a2a.json definitions `names` (a union's members: all of them). */
function json(...names: string[]): Fields {
  return new Set(
    names.flatMap((n) => {
      const f = v0_3.fields[n];
      if (!f) throw new Error(`a2a.json has no definition ${n} with properties`);
      return f;
    }),
  );
}

/** The 1.0 messages the translators read, for both 0.3 dialects. */
export const FIELDS = {
  none: new Set<string>() as Fields,
  part: proto(v1_0.PartSchema),
  message: proto(v1_0.MessageSchema),
  status: proto(v1_0.TaskStatusSchema),
  task: proto(v1_0.TaskSchema),
  artifact: proto(v1_0.ArtifactSchema),
  statusUpdate: proto(v1_0.TaskStatusUpdateEventSchema),
  artifactUpdate: proto(v1_0.TaskArtifactUpdateEventSchema),
  streamResponse: proto(v1_0.StreamResponseSchema),
  sendResponse: proto(v1_0.SendMessageResponseSchema),
  sendRequest: proto(v1_0.SendMessageRequestSchema),
  sendConfig: proto(v1_0.SendMessageConfigurationSchema),
  pushConfig: proto(v1_0.TaskPushNotificationConfigSchema),
  authInfo: proto(v1_0.AuthenticationInfoSchema),
  getTask: proto(v1_0.GetTaskRequestSchema),
  cancelTask: proto(v1_0.CancelTaskRequestSchema),
  subscribe: proto(v1_0.SubscribeToTaskRequestSchema),
  getPushConfig: proto(v1_0.GetTaskPushNotificationConfigRequestSchema),
  deletePushConfig: proto(v1_0.DeleteTaskPushNotificationConfigRequestSchema),
  listPushConfigs: proto(v1_0.ListTaskPushNotificationConfigsRequestSchema),
  listPushConfigsResult: proto(v1_0.ListTaskPushNotificationConfigsResponseSchema),
  agentCard: proto(v1_0.AgentCardSchema),
};

/** The members of the 1.0 SecurityScheme oneof (both dialects' cards check that one is set). */
export const SECURITY_SCHEME_MEMBERS: readonly string[] = v1_0.SecuritySchemeSchema.oneofs.flatMap((o) => o.fields.map((f) => f.jsonName));

/** D03-RPC (a2a.json definitions). */
export const RPC_FIELDS = {
  textPart: json("TextPart"),
  filePart: json("FilePart"),
  file: json("FileWithBytes", "FileWithUri"),
  dataPart: json("DataPart"),
  message: json("Message"),
  status: json("TaskStatus"),
  task: json("Task"),
  artifact: json("Artifact"),
  statusUpdate: json("TaskStatusUpdateEvent"),
  artifactUpdate: json("TaskArtifactUpdateEvent"),
  sendParams: json("MessageSendParams"),
  sendConfig: json("MessageSendConfiguration"),
  pushConfig: json("PushNotificationConfig"),
  taskPushConfig: json("TaskPushNotificationConfig"),
  authInfo: json("PushNotificationAuthenticationInfo"),
  taskQuery: json("TaskQueryParams"),
  taskId: json("TaskIdParams"),
  getPushConfig: json("GetTaskPushNotificationConfigParams"),
  deletePushConfig: json("DeleteTaskPushNotificationConfigParams"),
  listPushConfigs: json("ListTaskPushNotificationConfigParams"),
  agentCard: json("AgentCard"),
};

/**
 * D03-PB (the v0.3.0 proto). The fields SDKs added to the 0.3 proto after v0.3.0 (a2a-wire.md
 * §2.14: `Part.metadata`, `FilePart.name`, `AgentCard.iconUrl`) are accepted on input, never sent.
 */
export const PB_FIELDS = {
  part: proto(pb.PartSchema, "metadata"),
  file: proto(pb.FilePartSchema, "name"),
  dataPart: proto(pb.DataPartSchema),
  message: proto(pb.MessageSchema),
  status: proto(pb.TaskStatusSchema),
  task: proto(pb.TaskSchema),
  artifact: proto(pb.ArtifactSchema),
  statusUpdate: proto(pb.TaskStatusUpdateEventSchema),
  artifactUpdate: proto(pb.TaskArtifactUpdateEventSchema),
  streamResponse: proto(pb.StreamResponseSchema),
  sendResponse: proto(pb.SendMessageResponseSchema),
  sendRequest: proto(pb.SendMessageRequestSchema),
  sendConfig: proto(pb.SendMessageConfigurationSchema),
  pushConfig: proto(pb.PushNotificationConfigSchema),
  authInfo: proto(pb.AuthenticationInfoSchema),
  getTask: proto(pb.GetTaskRequestSchema),
  cancelTask: proto(pb.CancelTaskRequestSchema),
  subscribe: proto(pb.TaskSubscriptionRequestSchema),
  taskPushConfig: proto(pb.TaskPushNotificationConfigSchema),
  createPushConfig: proto(pb.CreateTaskPushNotificationConfigRequestSchema),
  getPushConfig: proto(pb.GetTaskPushNotificationConfigRequestSchema),
  listPushConfigs: proto(pb.ListTaskPushNotificationConfigRequestSchema),
  listPushConfigsResult: proto(pb.ListTaskPushNotificationConfigResponseSchema),
  deletePushConfig: proto(pb.DeleteTaskPushNotificationConfigRequestSchema),
  agentCard: proto(pb.AgentCardSchema, "iconUrl"),
};
