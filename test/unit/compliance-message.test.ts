import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMessageFile, messageVars } from "../../src/compliance/message.js";

const vars = (...args: Parameters<typeof messageVars>) => Object.fromEntries(messageVars(...args));

function file(content: string): string {
  const f = join(mkdtempSync(join(tmpdir(), "message-file-")), "m.json");
  writeFileSync(f, content);
  return f;
}

describe("run message templates", () => {
  it("defaults: hello and yes, as text parts in each dialect", () => {
    expect(vars({}, "1.0", "rest")).toEqual({
      message: "hello",
      followUp: "yes",
      "parts:message": [{ text: "hello" }],
      "parts:followUp": [{ text: "yes" }],
      "metadata:message": {},
    });
    expect(vars({ message: "hi" }, "0.3", "json-rpc")["parts:message"]).toEqual([{ kind: "text", text: "hi" }]);
    expect(vars({ followUp: "no" }, "0.3", "json-rpc")["parts:followUp"]).toEqual([{ kind: "text", text: "no" }]);
    expect(vars({ message: "hi" }, "0.3", "rest")["parts:message"]).toEqual([{ text: "hi" }]);
  });

  it("file parts converted per dialect; {{message}} is the first text part", () => {
    const messageParts = [
      { url: "https://example.com/a.png", mediaType: "image/png", filename: "a.png" },
      { text: "describe this" },
      { raw: "aGk=", mediaType: "text/plain", filename: "hi.txt" },
      { data: { k: 1 } },
    ];
    const m = { messageParts, messageMetadata: { trace: "x" } };
    expect(vars(m, "1.0", "json-rpc")).toMatchObject({
      message: "describe this",
      "parts:message": messageParts,
      "metadata:message": { trace: "x" },
    });
    expect(vars(m, "0.3", "json-rpc")["parts:message"]).toEqual([
      { kind: "file", file: { uri: "https://example.com/a.png", mimeType: "image/png", name: "a.png" } },
      { kind: "text", text: "describe this" },
      { kind: "file", file: { bytes: "aGk=", mimeType: "text/plain", name: "hi.txt" } },
      { kind: "data", data: { k: 1 } },
    ]);
    // the 0.3 proto FilePart has no name field (a ProtoJSON reader may refuse an unknown one)
    expect(vars(m, "0.3", "rest")["parts:message"]).toEqual([
      { file: { fileWithUri: "https://example.com/a.png", mimeType: "image/png" } },
      { text: "describe this" },
      { file: { fileWithBytes: "aGk=", mimeType: "text/plain" } },
      { data: { data: { k: 1 } } },
    ]);
    expect(vars({ messageParts: [{ data: { k: 1 } }] }, "1.0", "rest").message).toBe("hello");
  });

  it("loadMessageFile reads parts and metadata and names each problem", () => {
    expect(loadMessageFile(file('{"parts": [{"text": "hi"}], "metadata": {"a": 1}}'))).toEqual({
      messageParts: [{ text: "hi" }],
      messageMetadata: { a: 1 },
    });
    const problem = (text: string) => {
      try {
        loadMessageFile(file(text));
      } catch (e) {
        return (e as Error).message.replace(/^--message-file \S+: /, "");
      }
      return "no error";
    };
    expect(problem("{nope")).toMatch(/^not valid JSON/);
    expect(problem("[]")).toMatch(/^expected an object/);
    expect(problem('{"parts": []}')).toBe("/parts: expected a non-empty array of 1.0 ProtoJSON parts");
    expect(problem('{"parts": [{"text": "a"}], "meta": {}}')).toBe('unknown member "meta" (expected parts and optionally metadata)');
    expect(problem('{"parts": [{"text": 5}]}')).toMatch(/^\/parts\/0\/text: not a valid 1.0 Part/);
    expect(problem('{"parts": [{"text": "a"}], "metadata": 3}')).toBe("/metadata: expected an object");
    expect(problem('{"parts": [{"data": [1]}]}')).toMatch(/^\/parts\/0\/data: must be an object/);
    expect(() => loadMessageFile("/nonexistent/m.json")).toThrow(/--message-file \/nonexistent\/m.json: cannot read/);
  });
});
