// How `record` turns one exchange into an expectation (docs/policies.md, "Recorded cases"): the
// rules the SDK-to-SDK conversation of test/integration/compliance-record-sdk.test.ts does not
// reach, checked on the case file toCase writes, and that every written case loads.
import { assert, describe, expect, it } from "vitest";
import { parseCase } from "../../src/compliance/cases.js";
import { toCase, type RecordedExchange } from "../../src/compliance/record.js";

type Conv = Parameters<typeof toCase>[0];

function caseOf(
  version: "1.0" | "0.3",
  binding: "json-rpc" | "rest",
  response: RecordedExchange["response"],
  exact = false,
  operation = "op",
) {
  const x: RecordedExchange = {
    version,
    binding,
    operation,
    request: {
      method: "POST",
      path: "/x",
      base: "interface",
      headers: {},
      body: { message: { role: "ROLE_USER", parts: [{ text: "hi" }] } },
    },
    response,
  };
  const conv: Conv = { index: 1, version, binding, exchanges: [x], ids: new Set() };
  const written = toCase(conv, ["S-03"], exact);
  const id = `${version === "1.0" ? "v1_0" : "v0_3"}/${binding}/recorded/001-op`;
  expect(parseCase(id, "f.json", JSON.parse(JSON.stringify(written))).problems).toEqual([]);
  const [step] = written.steps as { expect: { status: unknown; body?: unknown } }[];
  assert(step, "the case has a step");
  return step.expect;
}

const json = { "content-type": "application/json" };

describe("record: expectations only as strict as the spec", () => {
  it("1.0 HTTP+JSON errors: the status of either 1.0 table, ErrorInfo's reason kept, message free", () => {
    const body = {
      error: {
        code: 409,
        status: "FAILED_PRECONDITION",
        message: "Task t1 is completed",
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "TASK_NOT_CANCELABLE",
            domain: "a2a-protocol.org",
            metadata: { x: "1" },
          },
        ],
      },
    };
    const e = caseOf("1.0", "rest", { status: 409, headers: json, json: body });
    expect(e.status).toEqual({ $oneOf: [400, 409] });
    expect(e.body).toEqual({
      error: {
        code: 409,
        status: "FAILED_PRECONDITION",
        message: { $match: "string" },
        details: {
          $some: { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_CANCELABLE", domain: "a2a-protocol.org" },
        },
      },
    });
    expect(caseOf("1.0", "rest", { status: 409, headers: json, json: body }, true).status).toBe(409);
  });

  it("0.3 HTTP+JSON errors keep only the status class and a JSON object; 2xx successes any 2xx", () => {
    expect(caseOf("0.3", "rest", { status: 404, headers: json, json: { code: -32001, message: "nope" } })).toMatchObject({
      status: { $range: [400, 499] },
      body: { $match: "object" },
    });
    expect(caseOf("0.3", "rest", { status: 201, headers: json, json: {} }).status).toEqual({ $range: [200, 299] });
  });

  it("a short id the client chose is templated where it is a path segment of a resource name; push needs the capability", () => {
    const x: RecordedExchange = {
      version: "0.3",
      binding: "rest",
      operation: "POST pushNotificationConfigs",
      request: {
        method: "POST",
        path: "/v1/tasks/t-123456789/pushNotificationConfigs",
        base: "interface",
        headers: {},
        body: { id: "cfg-1" },
      },
      response: { status: 200, headers: json, json: { name: "tasks/t-123456789/pushNotificationConfigs/cfg-1", url: "http://h/x" } },
    };
    const written = toCase({ index: 1, version: "0.3", binding: "rest", exchanges: [x], ids: new Set() }, ["S-03"]);
    const step = (written.steps as { request: { body: unknown }; expect: { body: unknown } }[])[0];
    expect(step?.request.body).toEqual({ id: "{{uuid:c1}}" });
    expect(step?.expect.body).toEqual({ name: "tasks/t-123456789/pushNotificationConfigs/{{uuid:c1}}", url: "http://h/x" });
    expect(written.capabilities).toEqual(["pushNotifications"]);
  });

  it("an extended card is checked as a valid card of its version, not value by value", () => {
    const card = { name: "SDK agent", description: "d", version: "1.0.0", supportedInterfaces: [] };
    const rpc = caseOf(
      "1.0",
      "json-rpc",
      { status: 200, headers: json, json: { jsonrpc: "2.0", id: 9, result: card } },
      false,
      "GetExtendedAgentCard",
    );
    expect(rpc.body).toEqual({ jsonrpc: "2.0", id: 9, result: { $valid: "v1_0.AgentCard" } });
    expect(caseOf("0.3", "rest", { status: 200, headers: json, json: card }, false, "GET /card").body).toEqual({
      $valid: "v0_3.rest.AgentCard",
    });
  });

  it("agent content: parts by JSON type, data of any JSON type, optional names; roles, kind and states exact", () => {
    const task = {
      kind: "task",
      id: "t-123456",
      status: {
        state: "completed",
        message: { kind: "message", role: "agent", messageId: "m-123456", parts: [{ kind: "text", text: "done" }] },
      },
      artifacts: [
        {
          artifactId: "a-123456",
          name: "result",
          parts: [
            { kind: "data", data: [1, 2] },
            { kind: "file", file: { uri: "https://x/y", mimeType: "text/plain" } },
          ],
        },
      ],
    };
    const e = caseOf("0.3", "json-rpc", { status: 200, headers: json, json: { jsonrpc: "2.0", id: 3, result: task } });
    expect(e.body).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: {
        kind: "task",
        id: { $capture: "task1" },
        status: {
          state: "completed",
          message: {
            kind: "message",
            role: "agent",
            messageId: { $capture: "message2" },
            parts: [{ kind: "text", text: { $match: "string" } }],
          },
        },
        artifacts: [
          {
            artifactId: { $capture: "artifact3" },
            name: { $optional: { $match: "string" } },
            parts: [
              { kind: "data", data: { $match: "array" } },
              { kind: "file", file: { uri: { $match: "string" }, mimeType: { $optional: { $match: "string" } } } },
            ],
          },
        ],
      },
    });
  });
});
