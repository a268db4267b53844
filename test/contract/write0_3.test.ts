// The 0.3 one-pass writers of both bindings (src/versioning/write0_3.ts) against the tree path it shortcuts:
// the 1.0 ProtoJSON tree, the downgrade walkers, JSON.stringify. Where the writer answers, the text
// is the tree path's exactly and the tree path reported no loss; where the tree path refuses a
// message, the codec refuses it with the same error. Drawn from the 1.0 schema as it comes (mostly
// shapes the writer leaves to the tree path) and reshaped into the common shape it must write itself.
import fc from "fast-check";
import { create, fromJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { codecFor, type Codec } from "../../src/versioning/codec.js";
import { restText0_3, rpcText0_3 } from "../../src/versioning/write0_3.js";
import { SchemaArbitraries } from "../support/arbitraries.js";

const arbs = SchemaArbitraries.fromProtoSchema(new URL("../../generated/v1_0/schema.json", import.meta.url));

type Op = "SendMessage" | "GetTask";

/** The tree path's text and losses, or its error. */
function treePath(rpc: Codec, op: Op, response: never): { text: string; losses: number } | { error: string } {
  try {
    const { value, losses } = rpc.encodeResponse(op, response);
    return { text: JSON.stringify(value), losses: losses.length };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** What the codec answers (one pass where it can); the same as the tree path either way. */
function sameAsTree(rpc: Codec, op: Op, response: never): void {
  const tree = treePath(rpc, op, response);
  if ("error" in tree) {
    expect(() => rpc.encodeResponseText(op, response)).toThrow(tree.error);
    return;
  }
  const ours = rpc.encodeResponseText(op, response);
  expect(ours.value).toBe(tree.text);
  expect(ours.losses.length).toBe(tree.losses);
}

/** The common shape: text parts only, no metadata, a known role and a contextId, no referenceTaskIds. */
function common(m: Record<string, unknown>): void {
  delete m.metadata;
  const parts = m.parts as Record<string, unknown>[] | undefined;
  if (parts)
    for (const [i, p] of parts.entries()) {
      p.content = { case: "text", value: `part ${i} "é\n` };
      p.mediaType = "";
      p.filename = "";
      delete p.metadata;
    }
}
function commonTask(t: v1_0.Task): v1_0.Task {
  common(t);
  if (t.contextId === "") t.contextId = "ctx";
  if (t.status) {
    if (!(Number(t.status.state) >= 1 && Number(t.status.state) <= 8)) t.status.state = v1_0.TaskState.WORKING;
    if (t.status.message) commonMessage(t.status.message);
  }
  for (const a of t.artifacts) common(a);
  for (const m of t.history) commonMessage(m);
  return t;
}
function commonMessage(m: v1_0.Message): v1_0.Message {
  common(m);
  if (m.role !== v1_0.Role.USER && m.role !== v1_0.Role.AGENT) m.role = v1_0.Role.AGENT;
  m.referenceTaskIds = [];
  return m;
}

const drawn = <D extends DescMessage>(schema: D, name: string) =>
  arbs.of(name).map((json) => fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }));

describe.each([
  ["JSONRPC", rpcText0_3],
  ["HTTP+JSON", restText0_3],
] as const)("0.3 %s one-pass writer", (binding, writers) => {
  const rpc = codecFor("0.3", binding);

  it("SendMessage and GetTask: the tree path's text, or the tree path itself", () => {
    fc.assert(
      fc.property(drawn(v1_0.SendMessageResponseSchema, "SendMessageResponse"), drawn(v1_0.TaskSchema, "Task"), (send, task) => {
        sameAsTree(rpc, "SendMessage", send as never);
        sameAsTree(rpc, "GetTask", task as never);
      }),
      { numRuns: 150, seed: 20261204 },
    );
  });

  it("writes the common shape itself, with no loss and the tree path's text", () => {
    fc.assert(
      fc.property(drawn(v1_0.TaskSchema, "Task"), drawn(v1_0.MessageSchema, "Message"), (t, m) => {
        const task = commonTask(t);
        const message = commonMessage(m);
        expect(writers.task(task as never)).toBeDefined();
        for (const payload of [
          { case: "task", value: task },
          { case: "message", value: message },
        ] as const) {
          const send = create(v1_0.SendMessageResponseSchema, { payload });
          expect(writers.sendResponse(send as never)).toBeDefined();
          sameAsTree(rpc, "SendMessage", send as never);
        }
        sameAsTree(rpc, "GetTask", task as never);
      }),
      { numRuns: 150, seed: 20261204 },
    );
  });

  it("leaves every loss to the tree path: no contextId (L26) or referenceTaskIds (L11), non-text parts, metadata", () => {
    const base = {
      id: "t",
      contextId: "c",
      status: { state: v1_0.TaskState.COMPLETED, timestamp: { seconds: 1_700_000_000n, nanos: 5_000_000 } },
      artifacts: [{ artifactId: "a", parts: [{ content: { case: "text" as const, value: "hi" } }] }],
    };
    const texts = {
      JSONRPC:
        '{"kind":"task","id":"t","contextId":"c","status":{"state":"completed","timestamp":"2023-11-14T22:13:20.005Z"},' +
        '"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"hi"}]}]}',
      "HTTP+JSON":
        '{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2023-11-14T22:13:20.005Z"},' +
        '"artifacts":[{"artifactId":"a","parts":[{"text":"hi"}]}]}',
    };
    expect(writers.task(create(v1_0.TaskSchema, base) as never)).toBe(texts[binding]);
    const lossy = [
      binding === "JSONRPC"
        ? create(v1_0.TaskSchema, { ...base, contextId: "" })
        : create(v1_0.TaskSchema, { ...base, history: [{ messageId: "m", role: v1_0.Role.USER, referenceTaskIds: ["t0"] }] }),
      create(v1_0.TaskSchema, { ...base, metadata: { n: 2 ** 60 } }),
      create(v1_0.TaskSchema, {
        ...base,
        artifacts: [{ artifactId: "a", parts: [{ content: { case: "text", value: "x" }, mediaType: "text/x" }] }],
      }),
      fromJson(v1_0.TaskSchema, { id: "t", contextId: "c", artifacts: [{ artifactId: "a", parts: [{ data: 5 }] }] }),
    ];
    for (const task of lossy) {
      expect(writers.task(task as never)).toBeUndefined();
      const tree = treePath(rpc, "GetTask", task as never);
      expect("losses" in tree && tree.losses).toBeGreaterThan(0);
      sameAsTree(rpc, "GetTask", task as never);
    }
  });

  it("refuses what the tree path refuses, with its error", () => {
    const task = create(v1_0.TaskSchema, { id: "t", contextId: "c", status: { timestamp: { seconds: 253402300800n, nanos: 0 } } });
    expect(treePath(rpc, "GetTask", task as never)).toHaveProperty("error");
    sameAsTree(rpc, "GetTask", task as never);
    const unset = create(v1_0.SendMessageResponseSchema);
    expect(treePath(rpc, "SendMessage", unset as never)).toHaveProperty("error");
    sameAsTree(rpc, "SendMessage", unset as never);
  });
});
