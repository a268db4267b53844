// The codec skips validating what the toolkit produced itself (1.0 JSON from its own encoder, and the
// 0.3 JSON a downgrade writes from it); strict validation turns those checks back on. Both must give
// the same wire values for valid messages, and the translators' own outputs stay checked by the
// property tests (test/properties, translate-properties), which call the translators directly.
import { create } from "@bufbuild/protobuf";
import type { ValidateFunction } from "ajv";
import { assert, describe, expect, it } from "vitest";
import * as v0_3 from "../../generated/v0_3/index.js";
import * as v1_0 from "../../generated/v1_0/index.js";
import { check } from "../../src/runtime/validation.js";
import { codecFor, type Binding } from "../../src/versioning/codec.js";
import { A2AError } from "../../src/versioning/errors.js";

const S = v1_0.TaskState;
const task = create(v1_0.TaskSchema, {
  id: "t1",
  contextId: "c1",
  status: { state: S.COMPLETED, timestamp: { seconds: 1_700_000_000n, nanos: 5_000_000 } },
  history: [{ messageId: "m1", role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "hi" } }] }],
  artifacts: [
    {
      artifactId: "a1",
      parts: [
        { content: { case: "text", value: "hello" }, mediaType: "text/markdown" },
        { content: { case: "raw", value: new Uint8Array([1, 2, 3]) }, filename: "x.bin" },
      ],
    },
  ],
  metadata: { n: 1 },
});
const response = create(v1_0.SendMessageResponseSchema, { payload: { case: "task", value: task } });
const rpcValidators = v0_3.validators as unknown as Record<string, ValidateFunction>;

describe.each(["JSONRPC", "HTTP+JSON"] as Binding[])("0.3 %s codec: trusted downgrades", (binding) => {
  const codec = codecFor("0.3", binding, { strictValidation: false });
  const strictCodec = codecFor("0.3", binding, { strictValidation: true });

  it("give the same value and losses as strict validation", () => {
    const fast = codec.encodeResponse("SendMessage", response);
    const strict = strictCodec.encodeResponse("SendMessage", response);
    expect(fast.value).toEqual(strict.value);
    expect(fast.losses).toEqual(strict.losses);
    // Only the strict run validated its output, and says with what.
    expect(fast.validated).toBeUndefined();
    expect(strict.validated?.value).toBe(strict.value);
    expect(fast.losses.length).toBeGreaterThan(0);
  });

  it("write valid 0.3 values", () => {
    const out = codec.encodeResponse("SendMessage", response).value;
    const validate = binding === "JSONRPC" ? rpcValidators.Task : v0_3.restValidators.SendMessageResponse;
    assert(validate);
    expect(check(validate, out)).toBeUndefined();
  });

  it("strict validation still refuses a 1.0 message the 1.0 schema rejects (a toolkit bug)", () => {
    const bad = create(v1_0.SendMessageResponseSchema, {
      payload: { case: "message", value: { messageId: "m", role: v1_0.Role.AGENT, parts: [] } },
    });
    expect(() => strictCodec.encodeResponse("SendMessage", bad)).toThrow(A2AError);
  });
});
