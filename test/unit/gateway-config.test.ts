// Gateway configuration (YAML/JSON files, --backend lists) and the routing rule.
import { create } from "@bufbuild/protobuf";
import { assert, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { Backend, checkConfig, GatewayConfigError, GatewayRuntime, parseBackendList, parseConfigText } from "../../src/gateway/index.js";
import type { Agent } from "../../src/server/engine/agent.js";
import { A2AError } from "../../src/versioning/errors.js";

describe("gateway configuration", () => {
  it("reads YAML and JSON alike", () => {
    const yaml = parseConfigText(
      [
        "default: b",
        "timeoutMs: 1000",
        "store: postgres://gw@127.0.0.1:5432/gw",
        "leaseMs: 2000",
        "backends:",
        "  - { name: a, url: 'http://127.0.0.1:1', version: '0.3', binding: rest, keywords: [x] }",
        "  - name: b",
        "    url: http://127.0.0.1:2/agent",
        "    version: 1.0",
        "    timeoutMs: 50",
      ].join("\n"),
    );
    expect(yaml.backends[0]).toEqual({ name: "a", url: "http://127.0.0.1:1", version: "0.3", binding: "HTTP+JSON", keywords: ["x"] });
    // An unquoted YAML 1.0 is the number 1; it still means version "1.0".
    expect(yaml.backends[1]?.version).toBe("1.0");
    expect([yaml.store, yaml.leaseMs]).toEqual(["postgres://gw@127.0.0.1:5432/gw", 2000]);
    const json = parseConfigText(JSON.stringify({ backends: [{ name: "a", url: "http://h/", binding: "JSONRPC" }] }));
    expect(json.backends[0]?.binding).toBe("JSONRPC");
  });

  it.each([
    [{}, /at least one backend/],
    [{ backends: [{ name: "a", url: "ftp://x" }] }, /not an http\(s\) URL/],
    [{ backends: [{ name: "a b", url: "http://x" }] }, /name must be/],
    [
      {
        backends: [
          { name: "a", url: "http://x" },
          { name: "a", url: "http://y" },
        ],
      },
      /used twice/,
    ],
    [{ default: "z", backends: [{ name: "a", url: "http://x" }] }, /"default" names no backend/],
    [{ backends: [{ name: "a", url: "http://x", version: "2.0" }] }, /version must be/],
    [{ backends: [{ name: "a", url: "http://x", timeoutMs: -1 }] }, /positive integer/],
    [{ backends: [{ name: "a", url: "http://x", colour: "red" }] }, /unknown key "colour"/],
    [{ backend: [] }, /unknown configuration key "backend"/],
    [{ store: "mysql://x", backends: [{ name: "a", url: "http://x" }] }, /"store" must be memory, sqlite:<file> or postgres:/],
    [{ leaseMs: 0, backends: [{ name: "a", url: "http://x" }] }, /leaseMs must be a positive integer/],
  ])("refuses %j", (raw, message) => {
    expect(() => checkConfig(raw)).toThrow(GatewayConfigError);
    expect(() => checkConfig(raw)).toThrow(message);
  });

  it("refuses text that is neither YAML nor JSON", () => {
    expect(() => parseConfigText("backends: [unclosed")).toThrow(/not valid YAML or JSON/);
  });

  it("parses --backend name=url lists", () => {
    expect(parseBackendList("a=http://x:1, b=http://y:2/p?q=1")).toEqual([
      { name: "a", url: "http://x:1" },
      { name: "b", url: "http://y:2/p?q=1" },
    ]);
    expect(() => parseBackendList("http://x")).toThrow(/name=<url>/);
  });
});

describe("routing", () => {
  const agent: Agent = { card: { name: "gw" }, handleMessage: () => ({ kind: "message", parts: ["x"] }) };
  const backends = ["a", "b"].map((name) => new Backend({ name, url: `http://127.0.0.1/${name}` }, undefined));
  const req = (messageMeta?: Record<string, string>, requestMeta?: Record<string, string>) =>
    create(v1_0.SendMessageRequestSchema, {
      message: { messageId: "m", role: v1_0.Role.USER, parts: [], ...(messageMeta ? { metadata: messageMeta } : {}) },
      ...(requestMeta ? { metadata: requestMeta } : {}),
    });

  it("message.metadata.agent_id first, then the request's metadata, then the default", () => {
    const rt = new GatewayRuntime({ agent, backends, defaultBackend: "b" });
    expect(rt.route(req({ agent_id: "a" }, { agent_id: "b" })).name).toBe("a");
    expect(rt.route(req(undefined, { agent_id: "a" })).name).toBe("a");
    expect(rt.route(req()).name).toBe("b");
  });

  it("a published skill id routes to its backend", () => {
    const rt = new GatewayRuntime({ agent, backends });
    const [a] = backends;
    assert(a);
    rt.addRoute("a/echo", a);
    expect(rt.route(req({ agent_id: "a/echo" })).name).toBe("a");
  });

  it("an unknown agent_id, or none without a default, is InvalidParams", () => {
    const rt = new GatewayRuntime({ agent, backends });
    expect(() => rt.route(req({ agent_id: "c" }))).toThrow(A2AError);
    expect(() => rt.route(req({ agent_id: "c" }))).toThrow(/names no agent of this gateway \(agents: a, b\)/);
    expect(() => rt.route(req())).toThrow(/has no default agent/);
  });

  it("a single backend is the default", () => {
    const rt = new GatewayRuntime({ agent, backends: backends.slice(0, 1) });
    expect(rt.route(req()).name).toBe("a");
  });
});
