// stripProse and generateV03Types on tiny inline JSON Schemas (draft-07, like the 0.3 a2a.json).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateV03Types, stripProse } from "../../codegen/types-v0_3.js";

describe("stripProse", () => {
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "Root title",
    description: "Root prose.",
    definitions: {
      Card: {
        title: "Card",
        description: "A card. Prose that must not be copied.",
        type: "object",
        properties: {
          description: { type: "string", description: "The card's own description field." },
          title: { type: "string", examples: ["x"] },
          owner: { $ref: "#/definitions/Owner", description: "Sibling of $ref." },
        },
        required: ["description", "title"],
        $comment: "internal",
      },
      Owner: { type: "object", properties: { name: { type: "string", default: "anon" } } },
    },
  };

  it("removes description/title/examples/$comment keywords but keeps properties that carry those names", () => {
    const out = stripProse(schema) as typeof schema;
    expect(JSON.stringify(out)).not.toMatch(/prose|Prose|internal|Root title|card's own/);
    expect(Object.keys(out.definitions.Card.properties)).toEqual(["description", "title", "owner"]);
    expect(out.definitions.Card.properties.description).toEqual({ type: "string" });
    expect(out.definitions.Card.properties.title).toEqual({ type: "string" });
    expect(out.definitions.Card.required).toEqual(["description", "title"]);
    expect(out.definitions.Owner.properties.name).toEqual({ type: "string", default: "anon" });
  });

  it("keeps $ref siblings by default (draft-07 validators ignore them) and drops them with refSiblings", () => {
    const plain = stripProse({ properties: { o: { $ref: "#/definitions/O", default: {} } } }) as never;
    expect(plain).toEqual({ properties: { o: { $ref: "#/definitions/O", default: {} } } });
    expect(stripProse({ properties: { o: { $ref: "#/definitions/O", default: {} } } }, true)).toEqual({
      properties: { o: { $ref: "#/definitions/O" } },
    });
  });

  it("does not modify its input", () => {
    const copy = structuredClone(schema);
    stripProse(schema, true);
    expect(schema).toEqual(copy);
  });
});

// A miniature of the 0.3 shape: `kind` discriminators, a union by anyOf, and $refs with prose siblings
// (which make json-schema-to-typescript mint Part1, Message1, ... unless stripped).
const tinyV03 = {
  $schema: "http://json-schema.org/draft-07/schema#",
  definitions: {
    TextPart: {
      type: "object",
      description: "Prose about text parts.",
      properties: { kind: { const: "text", type: "string" }, text: { type: "string" } },
      required: ["kind", "text"],
    },
    DataPart: {
      type: "object",
      properties: { kind: { const: "data", type: "string" }, data: { type: "object", additionalProperties: {} } },
      required: ["kind", "data"],
    },
    Part: { anyOf: [{ $ref: "#/definitions/TextPart" }, { $ref: "#/definitions/DataPart" }] },
    Message: {
      type: "object",
      properties: {
        kind: { const: "message", type: "string" },
        parts: { type: "array", items: { $ref: "#/definitions/Part" }, description: "The parts." },
        reply: { $ref: "#/definitions/Message", description: "A reply, prose beside a $ref." },
        first: { $ref: "#/definitions/Part", description: "Another prose sibling." },
        role: { enum: ["agent", "user"], type: "string" },
      },
      required: ["kind", "parts", "role"],
    },
    Task: {
      type: "object",
      properties: { kind: { const: "task", type: "string" }, history: { type: "array", items: { $ref: "#/definitions/Message" } } },
      required: ["kind"],
    },
    Event: { anyOf: [{ $ref: "#/definitions/Message" }, { $ref: "#/definitions/Task" }] },
  },
};

describe("generateV03Types (tiny schema)", () => {
  let code: string;
  let dir: string;
  beforeAll(async () => {
    code = await generateV03Types(tinyV03);
    dir = mkdtempSync(join(tmpdir(), "a2a-v03-types-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("emits one type per definition, unions for anyOf, and no numbered duplicates", () => {
    const exported = [...code.matchAll(/export (?:interface|type) (\w+)/g)].map((m) => m[1]).sort();
    expect(exported).toEqual(["DataPart", "Event", "Message", "Part", "Task", "TextPart"]);
    expect(code).not.toMatch(/\b(Part|Message|Task|TextPart|DataPart)\d+\b/);
    expect(code).toMatch(/export type Part = TextPart \| DataPart/);
    expect(code).toMatch(/kind: "text"/);
    expect(code).toMatch(/role: "agent" \| "user"/);
  });

  it("copies no upstream prose and no root wrapper type", () => {
    expect(code).not.toMatch(/Prose|prose|The parts|A reply/);
    expect(code).not.toMatch(/A2AWireSchema/);
  });

  /** Typechecks each snippet against the generated types in one program; diagnostics per snippet. */
  function typecheck(snippets: string[]): string[][] {
    writeFileSync(join(dir, "types.ts"), code);
    const names = snippets.map((snippet, i) => {
      const file = join(dir, `use${i}.ts`);
      writeFileSync(file, `import type * as t from "./types.js";\n${snippet}\n`);
      return file;
    });
    const program = ts.createProgram(names, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    return names.map((f) =>
      ts.getPreEmitDiagnostics(program, program.getSourceFile(f)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
    );
  }

  it("the unions narrow on `kind` with an exhaustive never, and mismatched members do not compile", () => {
    const good = `
      export function size(p: t.Part): number {
        switch (p.kind) {
          case "text": return p.text.length;
          case "data": return Object.keys(p.data).length;
          default: { const never: never = p; return never; }
        }
      }
      export function isTask(e: t.Event): boolean { return e.kind === "task" && (e.history?.length ?? 0) >= 0; }
    `;
    const [ok, wrongMember, wrongEnum] = typecheck([
      good,
      `export const p: t.Part = { kind: "text", data: {} };`,
      `export const m: t.Message = { kind: "message", parts: [], role: "robot" };`,
    ]);
    expect(ok).toEqual([]);
    expect(wrongMember?.length).toBeGreaterThan(0);
    expect(wrongEnum?.join("\n")).toMatch(/"robot"/);
  }, 120_000);
});
