// Bad input of any kind gets a spec-shaped answer and never a throw. (The layering rules are
// checked by test/unit/layers.test.ts.)
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCall } from "../../src/transport/server.js";

const methods = ["SendMessage", "message/send", "GetTask", "tasks/get", "SubscribeToTask", "tasks/resubscribe", "x", ""];
const versions = [undefined, "", "1.0", "0.3", "1.0.9", "2", "abc"];

const jsonRpcBody = fc.oneof(
  fc.string(),
  fc.json(),
  fc
    .record(
      {
        jsonrpc: fc.constantFrom("2.0", "1.0", 2),
        id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object()),
        method: fc.oneof(fc.constantFrom(...methods), fc.string()),
        params: fc.oneof(
          fc.object(),
          fc.anything(),
          fc.constant({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } }),
        ),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
);

function checkShape(r: ReturnType<typeof decodeCall>, binding: "JSONRPC" | "HTTP+JSON"): void {
  if (r.kind === "call") return;
  expect(r.status).toBeGreaterThanOrEqual(200);
  const body = JSON.parse(r.body);
  if (binding === "JSONRPC") {
    expect(body.jsonrpc).toBe("2.0");
    expect(Number.isInteger(body.error.code)).toBe(true);
    expect(typeof body.error.message).toBe("string");
  } else {
    expect(body.error.code).toBe(r.status);
    expect(typeof body.error.status).toBe("string");
  }
}

describe("decodeCall never throws and always answers in the binding's error shape", () => {
  it("JSON-RPC", () => {
    fc.assert(
      fc.property(jsonRpcBody, fc.constantFrom(...versions), (body, v) => {
        const headers: Record<string, string> = v === undefined ? {} : { "A2A-Version": v };
        checkShape(decodeCall({ method: "POST", url: "/", headers, body }, { binding: "JSONRPC" }), "JSONRPC");
      }),
      { numRuns: 400 },
    );
  });

  it("REST", () => {
    const paths = fc.oneof(
      fc.constantFrom(
        "/message:send",
        "/tasks/a",
        "/tasks/a:cancel",
        "/tasks/a:subscribe",
        "/v1/tasks/a",
        "/v1/card",
        "/t/tasks",
        "/v1/tasks",
      ),
      fc.webPath(),
      fc.string().map((s) => "/" + s),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("GET", "POST", "DELETE", "PUT"),
        paths,
        fc.oneof(fc.constant(undefined), fc.string(), fc.json()),
        fc.constantFrom(...versions),
        (method, path, body, v) => {
          const headers: Record<string, string> = v === undefined ? {} : { "A2A-Version": v };
          checkShape(decodeCall({ method, url: path, headers, body }, { binding: "HTTP+JSON" }), "HTTP+JSON");
        },
      ),
      { numRuns: 400 },
    );
  });
});
