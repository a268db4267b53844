// The one-pass ProtoJSON writer (src/runtime/json-writer.ts) against what it replaces: protobuf-es'
// toJson followed by the always-emit pass. Same JSON, same key order, same errors, for every 1.0
// message type, drawn from its schema (test/support/arbitraries.ts), and for the corner cases the
// schema-drawn values rarely hit; the text writer (writeJsonText) gives the same text.
import fc from "fast-check";
import { create, fromJson, toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { applyAlwaysEmit, writeJson, writeJsonText } from "../../src/runtime/json-writer.js";
import { rowOf } from "../../src/server/store/sqlite-store.js";
import { SchemaArbitraries } from "../support/arbitraries.js";

const arbs = SchemaArbitraries.fromProtoSchema(new URL("../../generated/v1_0/schema.json", import.meta.url));
const schemas = (Object.values(v1_0) as unknown[]).filter(
  (x): x is DescMessage => typeof x === "object" && x !== null && (x as { kind?: string }).kind === "message",
);

/** The reference text and the writer's; the text writer must give the tree writer's text exactly. */
function twoWays(schema: DescMessage, message: unknown): { ours: string; reference: string } {
  const json = toJson(schema, message as never);
  applyAlwaysEmit(schema, json, v1_0.alwaysEmit);
  const ours = JSON.stringify(writeJson(schema, message, v1_0.alwaysEmit));
  expect(writeJsonText(schema, message, v1_0.alwaysEmit)).toBe(ours);
  return { ours, reference: JSON.stringify(json) };
}

/** The message both writers refuse, with the same error. */
function refusedAlike(schema: DescMessage, message: unknown): string {
  let message_ = "no error";
  try {
    writeJson(schema, message, v1_0.alwaysEmit);
  } catch (e) {
    message_ = (e as Error).message;
  }
  expect(() => writeJsonText(schema, message, v1_0.alwaysEmit)).toThrow(message_);
  return message_;
}

describe("one-pass ProtoJSON writer", () => {
  it("covers every message type of the 1.0 schema", () => {
    expect(schemas.length).toBeGreaterThan(40);
  });

  it.each(schemas.map((s) => [s.name, s] as const))("%s: same JSON as toJson + always-emit, key order included", (name, schema) => {
    const defs = arbs as unknown as { defs: Record<string, unknown> };
    if (!(name in defs.defs)) {
      const { ours, reference } = twoWays(schema, create(schema));
      expect(ours).toBe(reference);
      return;
    }
    fc.assert(
      fc.property(arbs.of(name), (json) => {
        const message = fromJson(schema, json as JsonValue, { ignoreUnknownFields: true });
        const { ours, reference } = twoWays(schema, message);
        expect(ours).toBe(reference);
      }),
      { numRuns: 60, seed: 20261130 },
    );
    const empty = twoWays(schema, create(schema));
    expect(empty.ours).toBe(empty.reference);
  });

  it("timestamps: every precision, both ends of the range, and the range errors", () => {
    for (const [seconds, nanos] of [
      [0n, 0],
      [1_700_000_000n, 5_000_000],
      [1_700_000_000n, 5_000],
      [1_700_000_000n, 5],
      [-62135596800n, 0],
      [253402300799n, 999_999_999],
    ] as const) {
      const status = create(v1_0.TaskStatusSchema, { state: v1_0.TaskState.WORKING, timestamp: { seconds, nanos } });
      const { ours, reference } = twoWays(v1_0.TaskStatusSchema, status);
      expect(ours).toBe(reference);
    }
    for (const [seconds, nanos] of [
      [-62135596801n, 0],
      [253402300800n, 0],
      [0n, -1],
      [0n, 1_000_000_000],
    ] as const) {
      const status = create(v1_0.TaskStatusSchema, { timestamp: { seconds, nanos } });
      refusedAlike(v1_0.TaskStatusSchema, status);
      expect(() => writeJson(v1_0.TaskStatusSchema, status, v1_0.alwaysEmit)).toThrow(
        (() => {
          try {
            toJson(v1_0.TaskStatusSchema, status);
          } catch (e) {
            return (e as Error).message;
          }
          return "no error";
        })(),
      );
    }
  });

  it("Struct and Value fields, raw bytes and unknown enum numbers", () => {
    const message = fromJson(v1_0.MessageSchema, {
      messageId: "m",
      role: 7,
      metadata: { a: [1, "x", null, { b: true }] },
      parts: [{ raw: "AP8K" }, { data: { k: [1, 2] } }, { text: "" }],
    });
    const { ours, reference } = twoWays(v1_0.MessageSchema, message);
    expect(ours).toBe(reference);
    expect(JSON.parse(ours)).toMatchObject({ role: 7, metadata: { a: [1, "x", null, { b: true }] } });
  });

  it("refuses what protobuf-es refuses: a message of another type, a non-finite Value", () => {
    expect(() => writeJson(v1_0.TaskSchema, create(v1_0.MessageSchema), v1_0.alwaysEmit)).toThrow();
    expect(() => writeJson(v1_0.TaskSchema, create(v1_0.TaskSchema, { metadata: { n: Number.NaN } }), v1_0.alwaysEmit)).toThrow(/NaN/);
    expect(refusedAlike(v1_0.TaskSchema, create(v1_0.MessageSchema))).not.toBe("no error");
    expect(refusedAlike(v1_0.TaskSchema, create(v1_0.TaskSchema, { metadata: { n: Number.NaN } }))).toMatch(/NaN/);
  });

  it("text: strings that need escaping, map keys, and every always-emitted default left unset", () => {
    const task = create(v1_0.TaskSchema, {
      id: 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 emoji 😀 </script>',
      history: [
        create(v1_0.MessageSchema, { messageId: "", role: v1_0.Role.AGENT, parts: [{ content: { case: "text", value: "\u2028" } }] }),
      ],
      artifacts: [create(v1_0.ArtifactSchema, { artifactId: "a", parts: [] })],
    });
    const { ours, reference } = twoWays(v1_0.TaskSchema, task);
    expect(ours).toBe(reference);
    expect(JSON.parse(ours)).toMatchObject({ id: task.id });
    for (const schema of schemas) twoWays(schema, create(schema));
    // Map keys in the order JSON.stringify gives them (integer-like first), one needing escapes.
    const requirement = create(v1_0.SecurityRequirementSchema, {
      schemes: { b: { list: ["x"] }, "10": { list: [] }, "2": { list: ["y", "z"] }, 'k"\\': { list: ["w"] } },
    });
    const both = twoWays(v1_0.SecurityRequirementSchema, requirement);
    expect(both.ours).toBe(both.reference);
    expect(Object.keys((JSON.parse(both.ours) as { schemes: object }).schemes)).toEqual(["2", "10", "b", 'k"\\']);
  });
});

describe("the SQLite stores' rows (rowOf), written as text", () => {
  it("hold the task's ProtoJSON without artifacts, and its artifacts as a ProtoJSON array", () => {
    fc.assert(
      fc.property(arbs.of("Task"), (json) => {
        const task = fromJson(v1_0.TaskSchema, json as JsonValue, { ignoreUnknownFields: true });
        const tree = toJson(v1_0.TaskSchema, task) as Record<string, JsonValue>;
        applyAlwaysEmit(v1_0.TaskSchema, tree, v1_0.alwaysEmit);
        const { artifacts, ...rest } = tree;
        const row = rowOf("owner", task);
        expect(row.body).toBe(JSON.stringify(rest));
        expect(row.artifacts).toBe(JSON.stringify(artifacts ?? []));
      }),
      { numRuns: 60, seed: 20261205 },
    );
  });
});
