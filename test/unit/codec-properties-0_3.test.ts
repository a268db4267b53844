// Property: any valid 0.3 JSON-RPC request (drawn from the 0.3 a2a.json) that has a 1.0 form is
// decoded by the server into a 1.0 call; one without (an empty parts array, L27) gets -32602 —
// never an internal error.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCall } from "../../src/transport/server.js";
import { base64Standard, isoTimestamp, SchemaArbitraries } from "../support/arbitraries.js";

const RPC_SCHEMA = new URL("../../spec/upstream/v0.3/a2a.json", import.meta.url);
const options = {
  overrides: {
    "TaskStatus.timestamp": isoTimestamp({ allowNoZone: true, maxFraction: 12 }),
    "FileWithBytes.bytes": base64Standard(),
  },
};
const translatable = SchemaArbitraries.fromA2aJson(RPC_SCHEMA, {
  ...options,
  minItems: { "Message.parts": 1, "Artifact.parts": 1, "PushNotificationAuthenticationInfo.schemes": 1 },
});
const any = SchemaArbitraries.fromA2aJson(RPC_SCHEMA, options);

const METHODS: [string, string][] = [
  ["message/send", "MessageSendParams"],
  ["message/stream", "MessageSendParams"],
  ["tasks/get", "TaskQueryParams"],
  ["tasks/cancel", "TaskIdParams"],
  ["tasks/resubscribe", "TaskIdParams"],
  ["tasks/pushNotificationConfig/set", "TaskPushNotificationConfig"],
  ["tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfigParams"],
  ["tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigParams"],
  ["tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfigParams"],
];

const decode = (method: string, params: unknown) =>
  decodeCall(
    {
      method: "POST",
      url: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    },
    { binding: "JSONRPC" },
  );

describe("0.3 JSON-RPC requests reach the handler as 1.0 calls", () => {
  it.each(METHODS)("%s", (method, params) => {
    fc.assert(
      fc.property(translatable.of(params), (p) => {
        const r = decode(method, p);
        if (r.kind !== "call") throw new Error(r.body);
        expect(r.version).toBe("0.3");
      }),
      { numRuns: 60 },
    );
  });

  it.each(METHODS)("%s: anything valid in 0.3 gets a call or -32602", (method, params) => {
    fc.assert(
      fc.property(any.of(params), (p) => {
        const r = decode(method, p);
        if (r.kind === "reply") expect(JSON.parse(r.body).error.code).toBe(-32602);
      }),
      { numRuns: 60 },
    );
  });
});
