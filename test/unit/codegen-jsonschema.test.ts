// deriveSchema on a tiny proto compiled by the real pipeline (buf from npm, local modules), checked
// with ajv: the derived 2020-12 schema must enforce REQUIRED, oneof exclusivity, enum names, maps and
// timestamps the way ProtoJSON input is accepted.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveSchema, isRequired } from "../../codegen/jsonschema.js";
import { compileProto } from "../../codegen/proto.js";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default as typeof import("ajv/dist/2020.js").default;
const addFormats = require("ajv-formats").default as typeof import("ajv-formats").default;

const SHARED_SPEC = process.env.A2A_SPEC_DIR ?? join(import.meta.dirname, "..", "..", "..", "shared", "spec");

const TINY_PROTO = `syntax = "proto3";
package tiny.v1;

import "google/api/field_behavior.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";

enum Color {
  COLOR_UNSPECIFIED = 0;
  COLOR_RED = 1;
  COLOR_BLUE = 2;
}

message Item {
  string name = 1 [(google.api.field_behavior) = REQUIRED];
  oneof content {
    string text = 2;
    bytes raw = 3;
    Inner inner = 4;
  }
  Color color = 5;
  map<string, int32> counts = 6;
  google.protobuf.Timestamp created_at = 7;
  repeated string labels = 8 [(google.api.field_behavior) = REQUIRED];
  repeated string tags = 9 [(google.api.field_behavior) = REQUIRED];
  int64 big = 10;
  optional int32 small = 11;
  google.protobuf.Struct metadata = 12;
  message Inner {
    Inner next = 1;
    double weight = 2;
  }
}
`;

let dir: string;
let validateItem: ValidateFunction;
let schema: Record<string, unknown>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-tiny-proto-"));
  mkdirSync(join(dir, "tiny"));
  writeFileSync(join(dir, "tiny", "a2a.proto"), TINY_PROTO);
  cpSync(join(SHARED_SPEC, "third_party"), join(dir, "third_party"), { recursive: true });
  const { registry } = compileProto(dir, "tiny");
  const item = registry.getMessage("tiny.v1.Item");
  expect(
    item &&
      isRequired(
        registry,
        item.fields.find((f) => f.name === "name")!,
      ),
  ).toBe(true);
  schema = deriveSchema(registry, { protoPackage: "tiny.v1", emptyAllowed: new Set(["tiny.v1.Item.tags"]) });
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv, ["date-time"]);
  ajv.addSchema({ ...schema, $id: "urn:tiny:v1" });
  validateItem = ajv.getSchema("urn:tiny:v1#/$defs/Item")!;
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ok = { name: "n", labels: ["a"], tags: [] };
const errorsOf = (v: unknown) => (validateItem(v) ? [] : (validateItem.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`));

describe("deriveSchema (tiny proto)", () => {
  it("defines package messages, nested ones joined with _, and nothing from imported packages", () => {
    const defs = Object.keys(schema.$defs as object);
    expect(defs).toEqual(["Item", "Item_Inner"]);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("accepts a minimal valid message and ignores unknown fields", () => {
    expect(errorsOf(ok)).toEqual([]);
    expect(errorsOf({ ...ok, somethingNew: 1 })).toEqual([]);
  });

  it("rejects a missing REQUIRED field, by its JSON (camelCase) name", () => {
    expect(errorsOf({ labels: ["a"], tags: [] })).toContain(" required");
    expect(validateItem.errors?.[0]?.params).toEqual({ missingProperty: "name" });
  });

  it("a REQUIRED repeated field needs an element unless listed as may-be-empty (errata E10)", () => {
    expect(errorsOf({ ...ok, labels: [] })).toContain("/labels minItems");
    expect(errorsOf({ name: "n", labels: ["a"] })).toContain(" required"); // tags must be present...
    expect(errorsOf({ ...ok, tags: [] })).toEqual([]); // ...but may be empty
  });

  it("accepts one member of a oneof and rejects two", () => {
    expect(errorsOf({ ...ok, text: "t" })).toEqual([]);
    expect(errorsOf({ ...ok, raw: "AAEC" })).toEqual([]);
    expect(errorsOf({ ...ok, text: "t", raw: "AAEC" }).length).toBeGreaterThan(0);
    expect(errorsOf({ ...ok, text: "t", inner: {} })).toContain("/inner false schema");
  });

  it("enums: the value name is accepted, the number and unknown names are rejected", () => {
    expect(errorsOf({ ...ok, color: "COLOR_RED" })).toEqual([]);
    expect(errorsOf({ ...ok, color: 1 })).toContain("/color type");
    expect(errorsOf({ ...ok, color: "red" })).toContain("/color enum");
  });

  it("maps are objects whose values follow the value type", () => {
    expect(errorsOf({ ...ok, counts: { a: 1, b: -2 } })).toEqual([]);
    expect(errorsOf({ ...ok, counts: { a: "x" } }).length).toBeGreaterThan(0);
    expect(errorsOf({ ...ok, counts: [1] })).toContain("/counts type");
  });

  it("Timestamp: RFC 3339 with Z or an offset is accepted on input; other strings are not", () => {
    expect(errorsOf({ ...ok, createdAt: "2025-01-02T03:04:05Z" })).toEqual([]);
    expect(errorsOf({ ...ok, createdAt: "2025-01-02T03:04:05.123456789Z" })).toEqual([]);
    expect(errorsOf({ ...ok, createdAt: "2025-01-02T03:04:05+01:00" })).toEqual([]);
    expect(errorsOf({ ...ok, createdAt: "2025-01-02 03:04:05" }).length).toBeGreaterThan(0);
    expect(errorsOf({ ...ok, createdAt: "2025-13-02T03:04:05Z" })).toContain("/createdAt format");
    expect(errorsOf({ ...ok, createdAt: 1735787045 })).toContain("/createdAt type");
  });

  it("scalars follow ProtoJSON: int64 as number or decimal string, bytes as base64, doubles with NaN", () => {
    expect(errorsOf({ ...ok, big: "9007199254740993", small: 3 })).toEqual([]);
    expect(errorsOf({ ...ok, big: "12x" }).length).toBeGreaterThan(0);
    expect(errorsOf({ ...ok, raw: "not base64!" }).length).toBeGreaterThan(0);
    expect(errorsOf({ ...ok, inner: { weight: "NaN", next: { weight: 1.5 } } })).toEqual([]);
    expect(errorsOf({ ...ok, inner: { weight: "heavy" } }).length).toBeGreaterThan(0);
  });

  it("Struct is any JSON object", () => {
    expect(errorsOf({ ...ok, metadata: { a: [1, { b: null }] } })).toEqual([]);
    expect(errorsOf({ ...ok, metadata: "x" })).toContain("/metadata type");
  });
});
