import { describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import {
  A2ACardError,
  A2AError,
  A2ATransportError,
  apiKey,
  cardUrls,
  createA2AClient,
  fetchAgentCard,
  selectInterface,
  textMessage,
} from "../../src/client/index.js";
import { card, ECHO_ID, json, REST, RPC, stubFetch, task } from "./client-stub.js";
import { decode } from "../../src/runtime/protojson.js";

const parse = (c: object) => decode(v1_0.AgentCardSchema, c);

describe("interface selection", () => {
  const mixed = parse(
    card([
      { url: "grpc.test:443", protocolBinding: "GRPC", protocolVersion: "1.0" },
      { url: REST, protocolBinding: "HTTP+JSON", protocolVersion: "1.0.1" },
      { url: RPC, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "t1" },
    ]),
  );

  it("takes the first interface it supports, in the agent's order (gRPC included)", () => {
    expect(selectInterface(mixed)).toEqual({ url: "grpc.test:443", binding: "GRPC", version: "1.0", tenant: "" });
    expect(selectInterface(mixed, { bindings: ["JSONRPC", "HTTP+JSON"] })).toEqual({
      url: REST,
      binding: "HTTP+JSON",
      version: "1.0",
      tenant: "",
    });
  });

  it("honours restricted bindings and versions", () => {
    expect(selectInterface(mixed, { bindings: ["JSONRPC"] })).toMatchObject({ url: RPC, version: "0.3", tenant: "t1" });
    expect(selectInterface(mixed, { versions: ["0.3"] })).toMatchObject({ url: RPC });
  });

  it("pinned to 1.0, refuses a 0.3-only card instead of falling back", () => {
    const old = parse(card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "0.3" }]));
    expect(selectInterface(old)).toMatchObject({ version: "0.3" });
    let err: unknown;
    try {
      selectInterface(old, { version: "1.0" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(A2ACardError);
    expect((err as A2ACardError).kind).toBe("no-compatible-interface");
    expect((err as Error).message).toMatch(/pinned to A2A 1\.0.*does not fall back.*JSONRPC 0\.3/);
  });

  it("derives the card URLs to try: the URL itself, then the well-known names up to the origin", () => {
    expect(cardUrls("http://h:1")).toEqual(["http://h:1/.well-known/agent-card.json", "http://h:1/.well-known/agent.json"]);
    expect(cardUrls("http://h:1/agents/a/")).toEqual([
      "http://h:1/agents/a/",
      "http://h:1/agents/a/.well-known/agent-card.json",
      "http://h:1/agents/.well-known/agent-card.json",
      "http://h:1/.well-known/agent-card.json",
      "http://h:1/agents/a/.well-known/agent.json",
      "http://h:1/agents/.well-known/agent.json",
      "http://h:1/.well-known/agent.json",
    ]);
    expect(cardUrls("http://h:1/my-card.json")[0]).toBe("http://h:1/my-card.json");
    expect(() => cardUrls("ftp://h/x")).toThrow(/unsupported URL scheme/);
  });
});

describe("card discovery", () => {
  const stub = card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "1.0" }]);

  it("an interface URL that answers something else is passed over; the base's well-known card is read", async () => {
    const { fetch, seen } = stubFetch((req) =>
      req.url.pathname === "/a2a/.well-known/agent-card.json"
        ? json(stub)
        : json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "no" } }, 405),
    );
    const got = await fetchAgentCard("http://h:1/a2a", { fetch });
    expect(got.url).toBe("http://h:1/a2a/.well-known/agent-card.json");
    expect(seen.map((r) => r.url.pathname)).toEqual(["/a2a", "/a2a/.well-known/agent-card.json"]);
  });

  it("a card at a custom path is the card; the pre-0.3 agent.json is found last", async () => {
    expect((await fetchAgentCard("http://h:1/cards/x", { fetch: stubFetch(() => json(stub)).fetch })).url).toBe("http://h:1/cards/x");
    const legacy = stubFetch((req) => (req.url.pathname === "/.well-known/agent.json" ? json(stub) : new Response("", { status: 404 })));
    expect((await fetchAgentCard("http://h:1", { fetch: legacy.fetch })).url).toBe("http://h:1/.well-known/agent.json");
  });

  it("at a well-known location, an answer that is not a card is an error, not a reason to look further", async () => {
    const { fetch, seen } = stubFetch(() => json({ hello: "world" }));
    await expect(fetchAgentCard("http://h:1", { fetch })).rejects.toBeInstanceOf(A2ACardError);
    expect(seen).toHaveLength(1);
  });
});

describe("requests", () => {
  it("sends A2A-Version, the interface's tenant, the activated extensions and auth on JSON-RPC", async () => {
    const { fetch, seen } = stubFetch(() => json({ jsonrpc: "2.0", id: ECHO_ID, result: task("t-1", "TASK_STATE_WORKING") }));
    const c = await createA2AClient(card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "acme" }]), {
      fetch,
      extensions: ["https://ext.test/a", "https://ext.test/b"],
      credentials: { bearer: "s3cret" },
    });
    const t = await c.getTask({ id: "t-1" });
    expect(t.status?.state).toBe(v1_0.TaskState.WORKING);
    const req = seen[0];
    expect(req?.headers.get("a2a-version")).toBe("1.0");
    expect(req?.headers.get("a2a-extensions")?.split(/\s*,\s*/)).toEqual(["https://ext.test/a", "https://ext.test/b"]);
    expect(req?.headers.get("authorization")).toBe("Bearer s3cret");
    expect(req?.body).toMatchObject({ jsonrpc: "2.0", method: "GetTask", params: { id: "t-1", tenant: "acme" } });
  });

  it("to a 0.3 interface: 0.3 method names, A2A-Version 0.3 and X-A2A-Extensions", async () => {
    const { fetch, seen } = stubFetch(() =>
      json({ jsonrpc: "2.0", id: ECHO_ID, result: { kind: "task", id: "t-1", contextId: "c", status: { state: "working" } } }),
    );
    const c = await createA2AClient(card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "0.3" }]), {
      fetch,
      extensions: ["https://ext.test/a"],
    });
    const t = await c.getTask({ id: "t-1" });
    expect(t.status?.state).toBe(v1_0.TaskState.WORKING);
    expect(seen[0]?.body).toMatchObject({ method: "tasks/get", params: { id: "t-1" } });
    expect(seen[0]?.headers.get("a2a-version")).toBe("0.3");
    expect(seen[0]?.headers.get("x-a2a-extensions")).toBe("https://ext.test/a");
    expect(seen[0]?.headers.get("a2a-extensions")).toBeNull();
  });

  it("puts the tenant in the REST path and an API key where the card's scheme says", async () => {
    const { fetch, seen } = stubFetch(() => json(task("t-1", "TASK_STATE_COMPLETED")));
    const c = await createA2AClient(
      card([{ url: REST, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "acme" }], {
        securitySchemes: { key: { apiKeySecurityScheme: { location: "header", name: "X-Agent-Key" } } },
      }),
      { fetch, auth: [apiKey("k-123")] },
    );
    await c.getTask({ id: "t-1", historyLength: 2 });
    expect(seen[0]?.method).toBe("GET");
    expect(seen[0]?.url.pathname).toBe("/rest/acme/tasks/t-1");
    expect(seen[0]?.url.searchParams.get("historyLength")).toBe("2");
    expect(seen[0]?.headers.get("x-agent-key")).toBe("k-123");
    expect(seen[0]?.headers.get("a2a-version")).toBe("1.0");
  });

  it("builds a user text message with a fresh id", () => {
    const a = textMessage("hi", { taskId: "t" });
    const b = textMessage("hi");
    expect(a.messageId).not.toBe(b.messageId);
    expect(a).toMatchObject({ role: v1_0.Role.USER, taskId: "t", parts: [{ content: { case: "text", value: "hi" } }] });
  });
});

describe("errors", () => {
  const rpcCard = card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "1.0" }]);

  it("a JSON-RPC error is an A2AError with the A2A name, code and data", async () => {
    const { fetch } = stubFetch(() =>
      json({
        jsonrpc: "2.0",
        id: ECHO_ID,
        error: {
          code: -32001,
          message: "no such task",
          data: [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "TASK_NOT_FOUND",
              domain: "a2a-protocol.org",
              metadata: { taskId: "x" },
            },
          ],
        },
      }),
    );
    const c = await createA2AClient(rpcCard, { fetch });
    const err = await c.getTask({ id: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(A2AError);
    expect(err).toMatchObject({ name: "TaskNotFoundError", code: -32001, message: "no such task", metadata: { taskId: "x" } });
  });

  it("a REST error is read by its ErrorInfo reason", async () => {
    const { fetch } = stubFetch(() =>
      json(
        {
          error: {
            code: 400,
            status: "FAILED_PRECONDITION",
            message: "already done",
            details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_CANCELABLE", domain: "a2a-protocol.org" }],
          },
        },
        400,
      ),
    );
    const c = await createA2AClient(card([{ url: REST, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }]), { fetch });
    const err = await c.cancelTask({ id: "x" }).catch((e) => e);
    expect(err).toMatchObject({ name: "TaskNotCancelableError", code: -32002 });
  });

  it("HTTP 401 without an A2A body is a transport error, not a protocol error", async () => {
    const { fetch } = stubFetch(() => new Response("nope", { status: 401 }));
    const c = await createA2AClient(rpcCard, { fetch });
    const err = await c.getTask({ id: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(A2ATransportError);
    expect(err).toMatchObject({ kind: "http", status: 401 });
  });

  it("a refused connection is a network transport error naming the URL", async () => {
    const c = await createA2AClient(card([{ url: "http://127.0.0.1:9/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }]));
    const err = await c.getTask({ id: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(A2ATransportError);
    expect(err.kind).toBe("network");
    expect(err.message).toContain("http://127.0.0.1:9/rpc");
  });

  it("timeouts and aborts are told apart", async () => {
    const { fetch } = stubFetch(() => new Promise<Response>(() => {}));
    const c = await createA2AClient(rpcCard, { fetch });
    await expect(c.getTask({ id: "x" }, { timeoutMs: 20 })).rejects.toMatchObject({ name: "A2ATransportError", kind: "timeout" });
    const ac = new AbortController();
    const p = c.getTask({ id: "x" }, { signal: ac.signal, timeoutMs: 0 });
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: "A2ATransportError", kind: "aborted" });
  });

  it("a reply that is not JSON is a bad-response transport error", async () => {
    const { fetch } = stubFetch(() => new Response("<html>proxy</html>", { status: 200 }));
    const c = await createA2AClient(rpcCard, { fetch });
    await expect(c.getTask({ id: "x" })).rejects.toMatchObject({ name: "A2ATransportError", kind: "bad-response" });
  });
});

describe("agent card", () => {
  it("an unreachable URL is a network error naming the card URL", async () => {
    const err = await createA2AClient("http://127.0.0.1:9").catch((e) => e);
    expect(err).toBeInstanceOf(A2ATransportError);
    expect(err.message).toContain("http://127.0.0.1:9/.well-known/agent-card.json");
  });

  it("a card that is not JSON, or not a card, is an A2ACardError", async () => {
    const { fetch } = stubFetch((_r, n) => (n === 0 ? new Response("{oops", { status: 200 }) : json({ hello: 1 })));
    await expect(createA2AClient("http://agent.test", { fetch })).rejects.toMatchObject({ name: "A2ACardError", kind: "invalid" });
    await expect(createA2AClient("http://agent.test", { fetch })).rejects.toMatchObject({ name: "A2ACardError", kind: "invalid" });
  });

  it("asks for the 1.0 card and runs the verification hook", async () => {
    const c1 = card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "1.0" }]);
    const { fetch, seen } = stubFetch(() => json(c1));
    const raws: unknown[] = [];
    const c = await createA2AClient("http://agent.test", { fetch, verifyCard: (_c, raw) => (raws.push(raw), true) });
    expect(seen[0]?.url.toString()).toBe("http://agent.test/.well-known/agent-card.json");
    expect(seen[0]?.headers.get("a2a-version")).toBe("1.0");
    expect(raws).toEqual([c1]);
    expect(c.card.name).toBe("stub agent");
    await expect(createA2AClient("http://agent.test", { fetch, verifyCard: () => false })).rejects.toMatchObject({
      name: "A2ACardError",
      kind: "verification-failed",
    });
  });
});

describe("capabilities", () => {
  const noCaps = card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "1.0" }], { capabilities: {} });

  it("refuses what the card does not declare, without sending a request", async () => {
    const { fetch, seen } = stubFetch(() => json({ jsonrpc: "2.0", id: ECHO_ID, result: {} }));
    const c = await createA2AClient(noCaps, { fetch });
    const stream = c.sendStreamingMessage({ message: textMessage("x") });
    await expect(stream.next()).rejects.toMatchObject({ name: "UnsupportedOperationError" });
    await expect(c.listTaskPushNotificationConfigs({ taskId: "t" })).rejects.toMatchObject({ name: "PushNotificationNotSupportedError" });
    await expect(c.getExtendedAgentCard()).rejects.toMatchObject({ name: "UnsupportedOperationError" });
    expect(seen).toHaveLength(0);
  });

  it("checkCapabilities: false sends anyway", async () => {
    const { fetch, seen } = stubFetch(() => json({ jsonrpc: "2.0", id: ECHO_ID, result: { configs: [] } }));
    const c = await createA2AClient(noCaps, { fetch, checkCapabilities: false });
    expect((await c.listTaskPushNotificationConfigs({ taskId: "t" })).configs).toEqual([]);
    expect(seen).toHaveLength(1);
  });
});

describe("card shapes", () => {
  it("a 0.3 card: main url and additional interfaces, in that order, at 0.3", async () => {
    const c = await createA2AClient({
      protocolVersion: "0.3.0",
      name: "old agent",
      description: "0.3",
      version: "1",
      url: RPC,
      preferredTransport: "JSONRPC",
      additionalInterfaces: [
        { url: RPC, transport: "JSONRPC" },
        { url: REST, transport: "HTTP+JSON" },
      ],
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "s", name: "s", description: "s", tags: ["t"] }],
      supportsAuthenticatedExtendedCard: true,
    });
    expect(c.target).toEqual({ url: RPC, binding: "JSONRPC", version: "0.3", tenant: "" });
    expect(c.card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion])).toEqual([
      ["JSONRPC", "0.3"],
      ["HTTP+JSON", "0.3"],
    ]);
    expect(c.card.capabilities?.extendedAgentCard).toBe(true);
    await expect(createA2AClient(c.card, { version: "1.0" })).rejects.toMatchObject({
      name: "A2ACardError",
      kind: "no-compatible-interface",
    });
  });

  it("a superset card is read as 1.0 and keeps the 0.3 extended-card flag", async () => {
    const c = await createA2AClient({
      ...card([{ url: RPC, protocolBinding: "JSONRPC", protocolVersion: "1.0" }]),
      url: RPC,
      protocolVersion: "0.3",
      supportsAuthenticatedExtendedCard: true,
    });
    expect(c.target.version).toBe("1.0");
    expect(c.card.capabilities?.extendedAgentCard).toBe(true);
  });
});
