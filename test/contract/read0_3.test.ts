// The 0.3 one-pass readers of both bindings (src/versioning/read0_3.ts) against the tree path they
// shortcut: validate the 0.3 input, upgrade it to 1.0 JSON, validate, ProtoJSON decode (a strict codec
// never takes the readers). Where a reader answers, the message is the tree path's exactly and the
// tree path reported no loss; wherever it does not, the codec answers what the tree path answers,
// value and losses or the same error. Drawn from the 0.3 schemas as they come (mostly shapes the
// readers leave to the tree path) and reshaped into the common shape they must read themselves.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codecFor, type Codec } from "../../src/versioning/codec.js";
import { restRead0_3, rpcRead0_3 } from "../../src/versioning/read0_3.js";
import { base64Any, base64Standard, SchemaArbitraries } from "../support/arbitraries.js";

const RPC_SCHEMA = new URL("../../spec/upstream/v0.3/a2a.json", import.meta.url);
const PB_SCHEMA = new URL("../../generated/v0_3/schema.json", import.meta.url);
const taskName = fc.oneof(
  fc.string({ maxLength: 8 }).map((s) => `tasks/${s}`),
  fc.string({ maxLength: 8 }),
);
/** Text with any UTF-16 code unit, lone surrogates included (a string field refuses them, Struct does not). */
const anyText = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom("\ud800", "a\udfff", "\ud83d\ude00", "é"));
const rpcArbs = SchemaArbitraries.fromA2aJson(RPC_SCHEMA, {
  overrides: { "FileWithBytes.bytes": fc.oneof(base64Standard(), base64Any()), "TextPart.text": anyText, "Message.messageId": anyText },
});
const pbArbs = SchemaArbitraries.fromProtoSchema(PB_SCHEMA, {
  overrides: { "GetTaskRequest.name": taskName, "CancelTaskRequest.name": taskName, "Part.text": anyText },
});

type Op = "SendMessage" | "SendStreamingMessage" | "GetTask" | "CancelTask";
type Outcome = { value: unknown; losses: unknown[] } | { error: string };
type W = Record<string, unknown>;
const wellFormed = (s: string) => s.replace(/\p{Cs}/gu, "\ufffd");

function outcome(codec: Codec, op: Op, wire: unknown): Outcome {
  try {
    const { value, losses } = codec.decodeRequest(op, wire);
    return { value, losses };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** As the transport hands it over: parsed JSON. */
const wired = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

const BINDINGS = [
  ["JSONRPC", rpcRead0_3, rpcArbs, { send: "MessageSendParams", get: "TaskQueryParams", cancel: "TaskIdParams" }],
  ["HTTP+JSON", restRead0_3, pbArbs, { send: "SendMessageRequest", get: "GetTaskRequest", cancel: "CancelTaskRequest" }],
] as const;

describe.each(BINDINGS)("0.3 %s one-pass reader", (binding, readers, arbs, defs) => {
  const codec = codecFor("0.3", binding);
  const tree = codecFor("0.3", binding, { strictValidation: true });
  const readerOf = {
    SendMessage: readers.send,
    SendStreamingMessage: readers.send,
    GetTask: readers.getTask,
    CancelTask: readers.cancelTask,
  };

  /** The codec answers as the tree path; where the reader answers, it is the tree path's loss-free message. */
  function sameAsTree(op: Op, wire: unknown): boolean {
    const expected = outcome(tree, op, wire);
    expect(outcome(codec, op, wire)).toStrictEqual(expected);
    const read = readerOf[op](wire);
    if (read === undefined) return false;
    expect(expected).toStrictEqual({ value: read, losses: [] });
    return true;
  }

  it("SendMessage, GetTask, CancelTask as drawn: the tree path's answer", () => {
    const read = { send: 0, get: 0, cancel: 0 };
    fc.assert(
      fc.property(arbs.of(defs.send), arbs.of(defs.get), arbs.of(defs.cancel), (send, get, cancel) => {
        if (sameAsTree("SendMessage", wired(send))) read.send++;
        sameAsTree("SendStreamingMessage", wired(send));
        if (sameAsTree("GetTask", wired(get))) read.get++;
        if (sameAsTree("CancelTask", wired(cancel))) read.cancel++;
      }),
      { numRuns: 200, seed: 20261205 },
    );
    // Both paths were compared, not only the tree path with itself.
    expect(read.get).toBeGreaterThan(0);
    expect(read.cancel).toBeGreaterThan(0);
  });

  /** Reshaped into the common shape: no push config, blocking sends (D03-PB), int32 history, no lone surrogates. */
  const common = (send: W): W => {
    const config = (send.configuration ?? {}) as W;
    delete config.pushNotificationConfig;
    delete config.pushNotification;
    if (binding === "HTTP+JSON") config.blocking = true;
    if (typeof config.historyLength !== "number" || Math.abs(config.historyLength) > 1000) delete config.historyLength;
    send.configuration = config;
    const m = send.message as W;
    const parts = (m[binding === "JSONRPC" ? "parts" : "content"] ??= []) as W[];
    if (parts.length === 0) parts.push(binding === "JSONRPC" ? { kind: "text", text: "x" } : { text: "x" });
    for (const p of parts) {
      if (typeof p.text === "string") p.text = wellFormed(p.text);
      if (binding === "JSONRPC" && p.kind === "file" && (p.file as W).bytes !== undefined) delete (p.file as W).uri;
      if (binding === "HTTP+JSON" && p.data !== undefined) p.data = { data: (p.data as W).data ?? {} };
    }
    if (binding === "HTTP+JSON") m.role = m.role === "ROLE_AGENT" ? "ROLE_AGENT" : "ROLE_USER";
    m.messageId = typeof m.messageId === "string" ? wellFormed(m.messageId) : "m";
    return send;
  };

  it("reads the common shape itself, with no loss and the tree path's message", () => {
    fc.assert(
      fc.property(arbs.of(defs.send), (drawn) => {
        const send = wired(common(drawn as W));
        expect(readers.send(send)).toBeDefined();
        sameAsTree("SendMessage", send);
      }),
      { numRuns: 200, seed: 20261205 },
    );
  });
});

describe("0.3 one-pass readers: examples", () => {
  const rpc = codecFor("0.3", "JSONRPC");
  const rest = codecFor("0.3", "HTTP+JSON");
  const rpcTree = codecFor("0.3", "JSONRPC", { strictValidation: true });
  const restTree = codecFor("0.3", "HTTP+JSON", { strictValidation: true });
  const nested = (levels: number): W => (levels === 0 ? {} : { a: nested(levels - 1) });
  const message = (parts: unknown[], extra: W = {}) => ({ kind: "message", messageId: "m1", role: "user", parts, ...extra });

  it("reads text, data and file parts, metadata and the send configuration (JSON-RPC)", () => {
    const params = {
      message: message(
        [
          { kind: "text", text: "hi", metadata: { k: [1, { z: null }] } },
          { kind: "data", data: { a: [1, "two", true, null, { b: -0.5 }] } },
          { kind: "file", file: { bytes: "AAE_-w", mimeType: "application/octet-stream", name: "f.bin" } },
          { kind: "file", file: { uri: "https://example.com/f" } },
        ],
        { contextId: "c", taskId: "t", extensions: ["e"], referenceTaskIds: ["r"], metadata: { n: 2 } },
      ),
      configuration: { blocking: false, historyLength: 3, acceptedOutputModes: ["text/plain"] },
      metadata: { trace: "x" },
    };
    const read = rpcRead0_3.send(params);
    expect(read).toBeDefined();
    expect(read!.configuration?.returnImmediately).toBe(true);
    expect(Array.from((read!.message!.parts[2]!.content.value as Uint8Array) ?? [])).toEqual([0, 1, 63, 251]);
    expect(rpcTree.decodeRequest("SendMessage", params)).toStrictEqual({ value: read, losses: [] });
    expect(rpc.decodeRequest("SendMessage", params)).toStrictEqual({ value: read, losses: [] });
  });

  it("reads a blocking send, tasks/get and tasks/cancel (HTTP+JSON)", () => {
    const body = {
      message: {
        messageId: "m1",
        role: "ROLE_USER",
        content: [{ text: "hi" }, { data: { data: { a: 1 } } }, { file: { fileWithUri: "u" } }],
      },
      configuration: { blocking: true, historyLength: 0 },
    };
    const read = restRead0_3.send(body);
    expect(read).toBeDefined();
    expect(read!.configuration).toBeUndefined();
    expect(restTree.decodeRequest("SendMessage", body)).toStrictEqual({ value: read, losses: [] });
    for (const [op, wire] of [
      ["GetTask", { name: "tasks/abc", historyLength: 2 }],
      ["CancelTask", { name: "tasks/abc" }],
    ] as const) {
      const r = op === "GetTask" ? restRead0_3.getTask(wire) : restRead0_3.cancelTask(wire);
      expect(r).toBeDefined();
      expect(restTree.decodeRequest(op, wire)).toStrictEqual({ value: r, losses: [] });
    }
  });

  it("leaves every loss and error to the tree path, which reports or raises it as before", () => {
    const rpcCases: [string, W, string][] = [
      ["SendMessage", { message: message([]) }, "error"],
      ["SendMessage", { message: message([{ kind: "text", text: "x" }]), extra: 1 }, "L24"],
      ["SendMessage", { message: message([{ kind: "data", data: { n: 2 ** 60 } }]) }, "L25"],
      ["SendMessage", { message: message([{ kind: "file", file: { bytes: "AA", uri: "u" } }]) }, "L24"],
      ["SendMessage", { message: message([{ kind: "text", text: "x", metadata: { "a2a-toolkit/part": { mediaType: "a/b" } } }]) }, ""],
      ["SendMessage", { message: message([{ kind: "file", file: { bytes: "A" } }]) }, "error"],
      ["SendMessage", { message: { ...message([{ kind: "text", text: "x" }]), role: "system" } }, "error"],
      ["SendMessage", { message: message([{ kind: "text", text: "x" }]), configuration: { historyLength: 2 ** 40 } }, "error"],
      // Past protobuf-es's recursion limit (100), which the transport's own limit (100 JSON levels) nears.
      ["SendMessage", { message: message([{ kind: "data", data: nested(98) }]) }, "error"],
      ["SendMessage", { message: message([{ kind: "text", text: "x" }], { metadata: nested(98) }) }, "error"],
      ["SendMessage", { message: message([{ kind: "text", text: "x" }], { metadata: nested(40) }) }, ""],
      // A lone surrogate is not UTF-8: refused in a string field, carried in Struct and Value.
      ["SendMessage", { message: message([{ kind: "text", text: "a\ud800" }]) }, "error"],
      ["SendMessage", { message: message([{ kind: "text", text: "x" }], { extensions: ["\udfff"] }) }, "error"],
      ["SendMessage", { message: message([{ kind: "file", file: { uri: "\ud800" } }]) }, "error"],
      ["SendMessage", { message: message([{ kind: "text", text: "x" }]), configuration: { acceptedOutputModes: ["\ud800"] } }, "error"],
      ["GetTask", { id: "\ud800" }, "error"],
      ["GetTask", { id: "t", metadata: { a: 1 } }, "L17"],
      ["GetTask", { id: 5 }, "error"],
    ];
    for (const [op, wire, expected] of rpcCases) {
      const reader = op === "GetTask" ? rpcRead0_3.getTask : rpcRead0_3.send;
      expect(reader(wire), JSON.stringify(wire)).toBeUndefined();
      const tree = outcome(rpcTree, op as Op, wire);
      expect(outcome(rpc, op as Op, wire)).toStrictEqual(tree);
      if (expected === "error") expect(tree).toHaveProperty("error");
      else if (expected) expect((tree as { losses: { id: string }[] }).losses.map((l) => l.id)).toContain(expected);
    }
    const restCases: [Op, W, string][] = [
      ["SendMessage", { message: { messageId: "m", role: "ROLE_USER", content: [{ text: "x" }] } }, "L22"],
      [
        "SendMessage",
        { message: { messageId: "m", role: "ROLE_USER", content: [{ text: "x" }] }, configuration: { blocking: false } },
        "L22",
      ],
      ["GetTask", { name: "tasks/a%2Fb" }, ""],
      ["GetTask", { name: "projects/x" }, "error"],
      ["CancelTask", {}, "error"],
    ];
    for (const [op, wire, expected] of restCases) {
      const reader = op === "GetTask" ? restRead0_3.getTask : op === "CancelTask" ? restRead0_3.cancelTask : restRead0_3.send;
      expect(reader(wire), JSON.stringify(wire)).toBeUndefined();
      const tree = outcome(restTree, op, wire);
      expect(outcome(rest, op, wire)).toStrictEqual(tree);
      if (expected === "error") expect(tree).toHaveProperty("error");
      else if (expected) expect((tree as { losses: { id: string }[] }).losses.map((l) => l.id)).toContain(expected);
    }
  });

  it("copies metadata rather than sharing the wire's objects, own keys and lone surrogates included", () => {
    const meta = JSON.parse('{"__proto__": {"x": 1}, "k": {"n": 1}, "\\ud800": "\\udc00 \\ud83d\\ude00"}') as W;
    const wire = { id: "t", metadata: meta };
    const read = rpcRead0_3.cancelTask(wire);
    expect(read).toBeDefined();
    expect(read!.metadata).not.toBe(meta);
    expect(Object.keys(read!.metadata!)).toEqual(["__proto__", "k", "\ud800"]);
    expect(rpcTree.decodeRequest("CancelTask", wire)).toStrictEqual({ value: read, losses: [] });
  });
});
