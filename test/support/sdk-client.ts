// What the tests that drive the official @a2a-js/sdk client share: a SendMessage request in its
// types, and the check that a result is a Task.
import { Message, type SendMessageResult, type Task } from "@a2a-js/sdk";
import { expect } from "vitest";

let n = 0;

/** A user text message; `blocking: false` asks for returnImmediately. */
export function sdkRequest(text: string, opts: { taskId?: string; contextId?: string; blocking?: boolean } = {}) {
  return {
    tenant: "",
    message: Message.fromJSON({
      messageId: `sdk-${++n}`,
      role: "ROLE_USER",
      parts: [{ text }],
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

export function asTask(r: SendMessageResult): Task {
  expect("id" in r && "status" in r).toBe(true);
  return r as Task;
}
