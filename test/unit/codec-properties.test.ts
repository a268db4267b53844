// Property: for any valid 1.0 request (drawn from the 1.0 JSON Schema), what the client encodes the
// server decodes to the same message, on both bindings — path escaping, query typing and bodies
// included. 1.0 ⇄ 1.0 must be lossless.
import { equals, fromJson, type JsonValue } from "@bufbuild/protobuf";
import type { ValidateFunction } from "ajv";
import * as v1_0 from "../../generated/v1_0/index.js";
import { check } from "../../src/runtime/validation.js";
import fc from "fast-check";
import { assert, describe, expect, it } from "vitest";
import { decodeReply, encodeCall } from "../../src/transport/client.js";
import { decodeCall, encodeResult } from "../../src/transport/server.js";
import { encode1_0, OPERATION_NAMES, OPERATIONS, type Binding } from "../../src/versioning/codec.js";
import { SchemaArbitraries } from "../support/arbitraries.js";

const arbs = SchemaArbitraries.fromProtoSchema(new URL("../../generated/v1_0/schema.json", import.meta.url));

describe.each(["JSONRPC", "HTTP+JSON"] as Binding[])("1.0 %s: encodeCall → decodeCall is the identity", (binding) => {
  it.each(OPERATION_NAMES)("%s", (op) => {
    const schema = OPERATIONS[op].request;
    fc.assert(
      fc.property(arbs.of<JsonValue>(schema.name), (json) => {
        const request = fromJson(schema, json, { ignoreUnknownFields: true });
        // Precondition: the request is valid on the wire. ProtoJSON omits a REQUIRED field at its
        // default (role ROLE_UNSPECIFIED, messageId ""), and the server rightly refuses that.
        const validate = (v1_0.validators as unknown as Record<string, ValidateFunction>)[schema.name];
        assert(validate, `no validator for ${schema.name}`);
        fc.pre(check(validate, encode1_0(schema, request as never)) === undefined);
        // "." and ".." path segments are removed by every URL parser (WHATWG, even as %2E):
        // such ids cannot travel in a REST path at all (docs/policies.md).
        if (binding === "HTTP+JSON") fc.pre(!Object.values(json as object).some((v) => v === "." || v === ".."));
        // The REST path form needs its path fields; the schema marks them REQUIRED, so an empty one
        // is a request no client can send.
        let wire;
        try {
          wire = encodeCall({ url: "https://agent.example/a2a", binding, version: "1.0" }, op, request as never);
        } catch (e) {
          expect(binding).toBe("HTTP+JSON");
          expect(String(e)).toMatch(/missing path field/);
          return;
        }
        const call = decodeCall(
          { method: wire.method, url: wire.url, headers: wire.headers, body: wire.body },
          { binding, basePath: "/a2a" },
        );
        if (call.kind !== "call") throw new Error(`${wire.method} ${wire.url} ${wire.body ?? ""} → ${call.body}`);
        expect(call.operation).toBe(op);
        expect(equals(schema, call.request as never, request as never)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe.each(["JSONRPC", "HTTP+JSON"] as Binding[])("1.0 %s: encodeResult → decodeReply is the identity", (binding) => {
  it.each(OPERATION_NAMES.filter((op) => !OPERATIONS[op].streaming))("%s", (op) => {
    const schema = OPERATIONS[op].response;
    const validate = (v1_0.validators as unknown as Record<string, ValidateFunction | undefined>)[schema.name];
    const target = { url: "https://agent.example/a2a", binding, version: "1.0" as const };
    const request = fromJson(OPERATIONS[op].request, sampleRequestJson(op));
    const wire = encodeCall(target, op, request as never);
    const call = decodeCall({ method: wire.method, url: wire.url, headers: wire.headers, body: wire.body }, { binding, basePath: "/a2a" });
    if (call.kind !== "call") throw new Error(call.body);
    const arb = validate ? arbs.of<JsonValue>(schema.name) : fc.constant<JsonValue>({});
    fc.assert(
      fc.property(arb, (json) => {
        const response = fromJson(schema, json, { ignoreUnknownFields: true });
        if (validate) fc.pre(check(validate, encode1_0(schema, response as never)) === undefined);
        const reply = encodeResult(call, response as never);
        const back = decodeReply(target, op, { status: reply.status, text: reply.body }, { rpcId: call.rpcId });
        expect(equals(schema, back as never, response as never)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});

function sampleRequestJson(op: string): JsonValue {
  const ids = { id: "t1", taskId: "t1" };
  if (op === "SendMessage") return { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } };
  if (op === "CreateTaskPushNotificationConfig") return { taskId: "t1", url: "https://h" };
  if (op === "GetTaskPushNotificationConfig" || op === "DeleteTaskPushNotificationConfig") return ids;
  if (op === "ListTaskPushNotificationConfigs") return { taskId: "t1" };
  if (op === "GetTask" || op === "CancelTask") return { id: "t1" };
  return {};
}
