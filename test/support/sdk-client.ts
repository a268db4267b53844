// What the tests that drive the official @a2a-js/sdk client share: a client held to one interface
// of the card, SendMessage and ListTasks requests in its types, and the check that a result is a Task.
import { Message, TaskState, type AgentCard, type SendMessageResult, type Task } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";
import { expect } from "vitest";

const legacyCompat = { enabled: true };

/** The SDK's client for the one interface of `base`'s card with this binding and version (0.3 through its compat transports). */
export async function sdkClientFor(base: string, binding: string, version: string): Promise<{ client: Client; card: AgentCard }> {
  const card = await new DefaultAgentCardResolver({ legacyCompat }).resolve(base);
  // Keep only the interface under test, so the SDK cannot pick another one.
  const only = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === binding && i.protocolVersion === version),
  };
  expect(only.supportedInterfaces).toHaveLength(1);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })],
  });
  return { client: await factory.createFromAgentCard(only), card };
}

let n = 0;

/** A user text message; `blocking: false` asks for returnImmediately. */
export function sdkRequest(
  text: string,
  opts: { taskId?: string; contextId?: string; blocking?: boolean; metadata?: Record<string, unknown> } = {},
) {
  return {
    tenant: "",
    message: Message.fromJSON({
      messageId: `sdk-${++n}`,
      role: "ROLE_USER",
      parts: [{ text }],
      ...(opts.metadata ? { metadata: opts.metadata } : {}),
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
      ...(opts.contextId ? { contextId: opts.contextId } : {}),
    }),
    configuration:
      opts.blocking === false
        ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true }
        : undefined,
    metadata: undefined,
  };
}

/** A ListTasks request in the SDK client's types (every field present, as they require): the tasks of one context. */
export function sdkListRequest(contextId: string) {
  return {
    tenant: "",
    contextId,
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: "",
    statusTimestampAfter: undefined,
    includeArtifacts: undefined,
    pageSize: undefined,
    historyLength: undefined,
  };
}

export function asTask(r: SendMessageResult): Task {
  expect("id" in r && "status" in r).toBe(true);
  return r as Task;
}
