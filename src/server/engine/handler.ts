// The A2A operations as one interface, in 1.0 protobuf-es messages only: what a server (TaskRuntime)
// or anything else answering A2A calls implements, whatever binding, version or framework brings
// the calls (front.ts decodes them, the adapters in adapters/ bring them from an HTTP framework).
//
// UNARY and STREAMING are the dispatch table from an operation name (src/versioning/codec.ts
// OPERATIONS) to the handler's method; `dispatchUnary` / `dispatchStream` call it for a decoded
// call, with the request type the operation's own.
import type { Empty } from "@bufbuild/protobuf/wkt";
import type * as v1_0 from "../../../generated/v1_0/index.js";
import type { DecodedCall } from "../../transport/server.js";
import type { Operation, RequestOf, ResponseOf } from "../../versioning/codec.js";
import type { ProtocolVersion } from "../../versioning/negotiate.js";
import type { AgentCardInit } from "./agent.js";

/** Who is calling and how: what the front learnt about one request. */
export interface HandlerContext {
  /** Authenticated principal ("anonymous" without authentication); tasks are visible to their owner only. */
  principal: string;
  /** Wire version of the request; the handler sees 1.0 messages whatever it is. */
  version: ProtocolVersion;
  /** Extension URIs the request asked for that the agent declares (activated). */
  extensions: string[];
  /** 1.0 tenant of the request ("" when none). */
  tenant: string;
  /** Aborted when the client goes away before the reply (or the stream) ends. */
  signal: AbortSignal;
}

/** Events of a stream; the promise rejects (before any event) when the stream cannot start. */
export type EventStream = AsyncIterator<v1_0.StreamResponse>;

export interface A2AHandler {
  sendMessage(req: v1_0.SendMessageRequest, ctx: HandlerContext): Promise<v1_0.SendMessageResponse>;
  sendStreamingMessage(req: v1_0.SendMessageRequest, ctx: HandlerContext): Promise<EventStream>;
  getTask(req: v1_0.GetTaskRequest, ctx: HandlerContext): Promise<v1_0.Task>;
  listTasks(req: v1_0.ListTasksRequest, ctx: HandlerContext): Promise<v1_0.ListTasksResponse>;
  cancelTask(req: v1_0.CancelTaskRequest, ctx: HandlerContext): Promise<v1_0.Task>;
  subscribeToTask(req: v1_0.SubscribeToTaskRequest, ctx: HandlerContext): Promise<EventStream>;
  createTaskPushNotificationConfig(req: v1_0.TaskPushNotificationConfig, ctx: HandlerContext): Promise<v1_0.TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(
    req: v1_0.GetTaskPushNotificationConfigRequest,
    ctx: HandlerContext,
  ): Promise<v1_0.TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    req: v1_0.ListTaskPushNotificationConfigsRequest,
    ctx: HandlerContext,
  ): Promise<v1_0.ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(req: v1_0.DeleteTaskPushNotificationConfigRequest, ctx: HandlerContext): Promise<Empty>;
  /**
   * The extended card's declaration; UnsupportedOperationError when there is none. The front
   * publishes it (interfaces, security schemes, signature) like the public card.
   */
  getExtendedAgentCard(req: v1_0.GetExtendedAgentCardRequest, ctx: HandlerContext): Promise<AgentCardInit>;
  /**
   * The public card's declaration, and whether an extended card exists. The front derives the
   * published card and the declared extensions again when `declaration` is another object.
   */
  card(): { declaration: AgentCardInit; extended: boolean };
  /** Ends every running task and open stream. */
  close(): Promise<void>;
}

export type StreamingOperation = "SendStreamingMessage" | "SubscribeToTask";
export type UnaryOperation = Exclude<Operation, StreamingOperation | "GetExtendedAgentCard">;

type UnaryTable = { [O in UnaryOperation]: (h: A2AHandler, req: RequestOf<O>, ctx: HandlerContext) => Promise<ResponseOf<O>> };
type StreamTable = { [O in StreamingOperation]: (h: A2AHandler, req: RequestOf<O>, ctx: HandlerContext) => Promise<EventStream> };

/** Operation → handler method, for the operations whose result the front encodes as it is. */
export const UNARY: UnaryTable = {
  SendMessage: (h, req, ctx) => h.sendMessage(req, ctx),
  GetTask: (h, req, ctx) => h.getTask(req, ctx),
  ListTasks: (h, req, ctx) => h.listTasks(req, ctx),
  CancelTask: (h, req, ctx) => h.cancelTask(req, ctx),
  CreateTaskPushNotificationConfig: (h, req, ctx) => h.createTaskPushNotificationConfig(req, ctx),
  GetTaskPushNotificationConfig: (h, req, ctx) => h.getTaskPushNotificationConfig(req, ctx),
  ListTaskPushNotificationConfigs: (h, req, ctx) => h.listTaskPushNotificationConfigs(req, ctx),
  DeleteTaskPushNotificationConfig: (h, req, ctx) => h.deleteTaskPushNotificationConfig(req, ctx),
};

/** Operation → handler method, for the streaming operations. */
export const STREAMING: StreamTable = {
  SendStreamingMessage: (h, req, ctx) => h.sendStreamingMessage(req, ctx),
  SubscribeToTask: (h, req, ctx) => h.subscribeToTask(req, ctx),
};

export function isUnary(call: DecodedCall): call is DecodedCall<UnaryOperation> {
  return call.operation in UNARY;
}

export function isStreaming(call: DecodedCall): call is DecodedCall<StreamingOperation> {
  return call.operation in STREAMING;
}

export function isExtendedCardCall(call: DecodedCall): call is DecodedCall<"GetExtendedAgentCard"> {
  return call.operation === "GetExtendedAgentCard";
}

/** The handler's method for a decoded call's operation (UNARY). */
export function dispatchUnary<O extends UnaryOperation>(h: A2AHandler, call: DecodedCall<O>, ctx: HandlerContext): Promise<ResponseOf<O>> {
  const method: UnaryTable[O] = UNARY[call.operation];
  return method(h, call.request, ctx);
}

/** The handler's method for a decoded streaming call (STREAMING). */
export function dispatchStream<O extends StreamingOperation>(
  h: A2AHandler,
  call: DecodedCall<O>,
  ctx: HandlerContext,
): Promise<EventStream> {
  const method: StreamTable[O] = STREAMING[call.operation];
  return method(h, call.request, ctx);
}
