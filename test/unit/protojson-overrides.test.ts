// The A2A 1.0 overrides on top of plain ProtoJSON (a2a-wire.md §6.2), applied by
// encode(schema, msg, { alwaysEmit: v1_0.alwaysEmit }), and that what the codec emits for a valid
// response passes the generated 1.0 validator.
import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { assert, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { decode, encode, ProtoJsonError } from "../../src/runtime/protojson.js";
import { check } from "../../src/runtime/validation.js";

const a2a = <D extends DescMessage>(schema: D, msg: MessageShape<D>) => encode(schema, msg, { alwaysEmit: v1_0.alwaysEmit });
const plain = <D extends DescMessage>(schema: D, msg: MessageShape<D>) => encode(schema, msg);
/** JSON in, A2A JSON out: decode, then encode with the overrides. */
const through = <D extends DescMessage>(schema: D, json: unknown) => a2a(schema, decode(schema, json));

const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const task = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING", timestamp: "2025-01-02T03:04:05.678Z" } };
const card = {
  name: "Demo",
  description: "",
  supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: false },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
};

describe("ListTasksResponse", () => {
  it("always carries nextPageToken, pageSize and totalSize, even at their defaults", () => {
    const empty = create(v1_0.ListTasksResponseSchema, {});
    expect(plain(v1_0.ListTasksResponseSchema, empty)).toEqual({});
    expect(a2a(v1_0.ListTasksResponseSchema, empty)).toEqual({ tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 });
  });

  it("keeps an empty nextPageToken on a last page that has tasks", () => {
    const json = through(v1_0.ListTasksResponseSchema, { tasks: [task], pageSize: 50, totalSize: 1 });
    expect(json).toMatchObject({ nextPageToken: "", pageSize: 50, totalSize: 1 });
    expect((json as { tasks: unknown[] }).tasks).toHaveLength(1);
  });

  it("applies the overrides to the tasks inside the page", () => {
    const page = create(v1_0.ListTasksResponseSchema, {
      tasks: [
        create(v1_0.TaskSchema, {
          status: { state: v1_0.TaskState.WORKING, message: create(v1_0.MessageSchema, { role: v1_0.Role.AGENT }) },
        }),
      ],
    });
    const json = a2a(v1_0.ListTasksResponseSchema, page) as { tasks: Record<string, unknown>[] };
    expect(json.tasks[0]?.id).toBe("");
    expect(json.tasks[0]?.status).toEqual({ state: "TASK_STATE_WORKING", message: { messageId: "", role: "ROLE_AGENT", parts: [] } });
    // plain ProtoJSON drops all of these
    expect((plain(v1_0.ListTasksResponseSchema, page) as { tasks: unknown[] }).tasks[0]).toEqual({
      status: { state: "TASK_STATE_WORKING", message: { role: "ROLE_AGENT" } },
    });
  });
});

describe("AgentCard", () => {
  it('emits REQUIRED fields at their default: description "" and skills []', () => {
    const json = through(v1_0.AgentCardSchema, card) as Record<string, unknown>;
    expect(json.description).toBe("");
    expect(json.skills).toEqual([]);
    expect(json).not.toHaveProperty("securitySchemes"); // not REQUIRED: omitted as in plain ProtoJSON
    const bare = plain(v1_0.AgentCardSchema, decode(v1_0.AgentCardSchema, card)) as Record<string, unknown>;
    expect(bare).not.toHaveProperty("description");
    expect(bare).not.toHaveProperty("skills");
  });

  it("emits an optional boolean set to false, and leaves an unset one out", () => {
    const json = through(v1_0.AgentCardSchema, card) as { capabilities: Record<string, unknown> };
    expect(json.capabilities).toEqual({ streaming: false });
    expect(json.capabilities).not.toHaveProperty("pushNotifications");
  });

  it("applies the overrides inside map values and oneof members (security schemes)", () => {
    const json = through(v1_0.AgentCardSchema, {
      ...card,
      securitySchemes: {
        key: { apiKeySecurityScheme: {} },
        oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://auth/t" } } } },
      },
    }) as { securitySchemes: Record<string, unknown> };
    expect(json.securitySchemes.key).toEqual({ apiKeySecurityScheme: { location: "", name: "" } });
    expect(json.securitySchemes.oauth).toEqual({
      oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://auth/t", scopes: {} } } },
    });
  });
});

describe("timestamps", () => {
  it("are emitted in UTC with Z even when parsed from an offset", () => {
    const json = through(v1_0.TaskSchema, { ...task, status: { state: "TASK_STATE_WORKING", timestamp: "2025-01-02T04:04:05.250+01:00" } });
    expect((json as { status: { timestamp: string } }).status.timestamp).toBe("2025-01-02T03:04:05.250Z");
    const req = through(v1_0.ListTasksRequestSchema, { statusTimestampAfter: "2024-12-31T22:00:00-05:00" });
    expect(req).toEqual({ statusTimestampAfter: "2025-01-01T03:00:00Z" });
  });
});

describe("stream events", () => {
  it("carry taskId and contextId even when empty", () => {
    const json = through(v1_0.StreamResponseSchema, { statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
    expect(json).toEqual({ statusUpdate: { taskId: "", contextId: "", status: { state: "TASK_STATE_COMPLETED" } } });
  });
});

describe("codec output for valid responses passes the generated validator", () => {
  const responses: [string, DescMessage, unknown][] = [
    ["Task", v1_0.TaskSchema, { ...task, artifacts: [{ artifactId: "a", parts: [{ data: { k: [1, null] } }] }], history: [message] }],
    ["Message", v1_0.MessageSchema, message],
    ["SendMessageResponse", v1_0.SendMessageResponseSchema, { task }],
    ["SendMessageResponse", v1_0.SendMessageResponseSchema, { message }],
    ["StreamResponse", v1_0.StreamResponseSchema, { task }],
    ["StreamResponse", v1_0.StreamResponseSchema, { message }],
    [
      "StreamResponse",
      v1_0.StreamResponseSchema,
      { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } },
    ],
    [
      "StreamResponse",
      v1_0.StreamResponseSchema,
      {
        artifactUpdate: {
          taskId: "t1",
          contextId: "c1",
          artifact: { artifactId: "a", parts: [{ raw: "AAEC", mediaType: "application/octet-stream" }] },
          lastChunk: true,
        },
      },
    ],
    ["ListTasksResponse", v1_0.ListTasksResponseSchema, {}],
    ["ListTasksResponse", v1_0.ListTasksResponseSchema, { tasks: [task], nextPageToken: "p2", pageSize: 1, totalSize: 2 }],
    ["AgentCard", v1_0.AgentCardSchema, card],
    [
      "TaskPushNotificationConfig",
      v1_0.TaskPushNotificationConfigSchema,
      { id: "cfg", taskId: "t1", url: "https://hook.example/cb", authentication: { scheme: "Bearer" } },
    ],
    [
      "ListTaskPushNotificationConfigsResponse",
      v1_0.ListTaskPushNotificationConfigsResponseSchema,
      { configs: [{ id: "cfg", taskId: "t1", url: "https://hook.example/cb" }] },
    ],
  ];
  const validators = v1_0.validators as unknown as Record<string, Parameters<typeof check>[0]>;

  it.each(responses.map(([name, schema, json], i) => [`${name} #${i}`, name, schema, json] as const))(
    "%s",
    (_label, name, schema, json) => {
      const out = through(schema, json);
      const validate = validators[name];
      assert(validate, `a validator for ${name}`);
      expect(check(validate, out)).toBeUndefined();
    },
  );

  it("the validator does reject the plain ProtoJSON of the same empty page (so the check above can fail)", () => {
    const out = plain(v1_0.ListTasksResponseSchema, create(v1_0.ListTasksResponseSchema, {}));
    expect(check(v1_0.validators.ListTasksResponse, out)).toBeDefined();
  });
});

describe("decode errors name the field", () => {
  const err = (schema: DescMessage, json: unknown): ProtoJsonError => {
    try {
      decode(schema, json);
    } catch (e) {
      if (e instanceof ProtoJsonError) return e;
      throw e;
    }
    throw new Error("decode accepted the input");
  };

  it("for a wrong JSON type", () => {
    expect(err(v1_0.TaskSchema, { id: 5 }).message).toBe("cannot decode field lf.a2a.v1.Task.id from JSON: expected string, got 5");
  });

  it("for an unknown enum name, with its JSON path", () => {
    const e = err(v1_0.TaskSchema, { id: "t", status: { state: "working" } });
    expect(e.message).toMatch(/field lf\.a2a\.v1\.TaskStatus\.state\b.*"working"/);
    expect(e.path).toBe("/status/state");
  });

  it("for a bad timestamp", () => {
    const e = err(v1_0.TaskSchema, { id: "t", status: { state: 2, timestamp: "yesterday" } });
    expect(e.message).toMatch(/field lf\.a2a\.v1\.TaskStatus\.timestamp\b.*RFC 3339/);
    expect(e.path).toBe("/status/timestamp");
  });

  it("for a message given as a string inside a list", () => {
    const e = err(v1_0.TaskSchema, { id: "t", history: [message, "m2"] });
    expect(e.message).toMatch(/field lf\.a2a\.v1\.Task\.history\b.*expected an object/);
    expect(e.path).toBe("/history/1");
  });

  it("for two members of a oneof", () => {
    expect(err(v1_0.PartSchema, { text: "a", url: "b" }).message).toMatch(/lf\.a2a\.v1\.Part\.content.*text and url/);
  });

  it("for metadata that is not an object", () => {
    const e = err(v1_0.MessageSchema, { ...message, metadata: ["x"] });
    expect(e.message).toMatch(/field lf\.a2a\.v1\.Message\.metadata\b.*expected an object/);
    expect(e.path).toBe("/metadata");
  });
});
