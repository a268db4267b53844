// The webhook SSRF guard on every way a push config can be registered (1.0 and 0.3, JSON-RPC and
// HTTP+JSON, the config methods and the push config inside SendMessage's configuration), over a
// real socket with an injected resolver (no real DNS): IPv6 forms embedding an IPv4 address and
// names resolving to private addresses are refused with a message that names no address; a name
// that does not resolve now is accepted (it is checked again at delivery).
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AddressLookup } from "../../src/push/ssrf.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { postRpc } from "../support/rpc.js";
import { listen, type RunningServer } from "../support/servers.js";

type Json = Record<string, unknown>;
let app: FastifyInstance;
let server: RunningServer;
let base: string;
let taskId: string;
const warnings: string[] = [];

const NAMES: Record<string, string[]> = {
  runsc: ["127.0.0.1"],
  "meta.internal": ["::a9fe:a9fe"],
  "mixed.example": ["93.184.216.34", "::7f00:1"],
};
const lookup: AddressLookup = async (host) => {
  const a = NAMES[host];
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

beforeAll(async () => {
  app = await buildServer({ agent: createFixtureAgent({ pushNotifications: true }), push: { lookup, maxAttempts: 1 } });
  // The refusal's detail goes to the server log.
  const warn = app.log.warn.bind(app.log);
  app.log.warn = (obj: unknown, msg?: string) => {
    warnings.push(String(msg ?? obj));
    warn(obj as never, msg as never);
  };
  server = await listen(app);
  base = server.url;
  const r = await post("/", { jsonrpc: "2.0", id: 0, method: "SendMessage", params: { message: msg1_0("ask") } }, V1);
  taskId = ((r.body.result as Json).task as Json).id as string;
});
afterAll(() => server.close());

const V1 = { "content-type": "application/json", "A2A-Version": "1.0" };
const V03 = { "content-type": "application/json" };
let n = 0;
const msg1_0 = (text: string) => ({ messageId: `s${++n}`, role: "ROLE_USER", parts: [{ text }] });
const msg0_3 = (text: string) => ({ kind: "message", messageId: `s${++n}`, role: "user", parts: [{ kind: "text", text }] });

async function post(path: string, body: Json, headers: Record<string, string>): Promise<{ status: number; body: Json }> {
  const res = await fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Json };
}
const rpc = (method: string, params: Json, headers: Record<string, string>) => postRpc<Json>(`${base}/`, method, params, headers);

/** Each registration path: send `url` there, get back whether it was refused and with which message. */
const PATHS: [string, (url: string) => Promise<{ status: number; body: Json }>][] = [
  ["1.0 JSON-RPC CreateTaskPushNotificationConfig", (url) => rpc("CreateTaskPushNotificationConfig", { taskId, url }, V1)],
  ["1.0 REST POST /tasks/{id}/pushNotificationConfigs", (url) => post(`/tasks/${taskId}/pushNotificationConfigs`, { url }, V1)],
  [
    "1.0 JSON-RPC SendMessage configuration",
    (url) => rpc("SendMessage", { message: msg1_0("echo x"), configuration: { taskPushNotificationConfig: { url } } }, V1),
  ],
  [
    "1.0 REST POST /message:send configuration",
    (url) => post("/message:send", { message: msg1_0("echo x"), configuration: { taskPushNotificationConfig: { url } } }, V1),
  ],
  [
    "0.3 JSON-RPC tasks/pushNotificationConfig/set",
    (url) => rpc("tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url } }, V03),
  ],
  [
    "0.3 REST POST /v1/tasks/{id}/pushNotificationConfigs",
    (url) => post(`/v1/tasks/${taskId}/pushNotificationConfigs`, { pushNotificationConfig: { url } }, V03),
  ],
  [
    "0.3 JSON-RPC message/send configuration",
    (url) => rpc("message/send", { message: msg0_3("echo x"), configuration: { pushNotificationConfig: { url } } }, V03),
  ],
  [
    "0.3 REST POST /v1/message:send configuration",
    (url) =>
      post(
        "/v1/message:send",
        {
          message: { messageId: `s${++n}`, role: "ROLE_USER", content: [{ text: "echo x" }] },
          configuration: { pushNotification: { url } },
        },
        V03,
      ),
  ],
];

const REFUSED = [
  "http://[::127.0.0.1]/hook",
  "http://[::7f00:1]/hook",
  "http://[::a9fe:a9fe]/latest/meta-data/",
  "http://[::10.0.0.1]/hook",
  "http://[::ffff:127.0.0.1]/hook",
  "http://[::ffff:0:7f00:1]/hook",
  "http://[64:ff9b::a9fe:a9fe]/hook",
  "http://[64:ff9b:1::a00:1]/hook",
  "http://[2002:7f00:1::1]/hook",
  "http://[2001:0:808:808::80ff:fffe]/hook",
  "http://[2001:4860::200:5efe:a00:1]/hook",
  "http://runsc/hook",
  "http://meta.internal/hook",
  "http://mixed.example/hook",
];

function errorOf(r: { status: number; body: Json }): { code: unknown; message: string } {
  const e = (r.body.error ?? r.body) as Json;
  return { code: r.body.jsonrpc ? e.code : r.status, message: String(e.message) };
}

describe.each(PATHS)("%s", (_name, register) => {
  it("refuses every IPv6 form embedding an IPv4 address and every name resolving to a private one, naming no address", async () => {
    for (const url of REFUSED) {
      const r = await register(url);
      const { code, message } = errorOf(r);
      expect([url, code]).toEqual([url, r.body.jsonrpc ? -32602 : 400]);
      expect(message).toContain("webhook URL not allowed");
      expect(message).not.toMatch(/\d+\.\d+\.\d+\.\d+|::|resolves/);
    }
  });

  it("accepts a name that does not resolve now (PUSH-CREATE-001)", async () => {
    const r = await register("https://not-yet-in-dns.example/hook");
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
  });
});

it("logs the detail of a refusal on the server", () => {
  expect(warnings.some((w) => /runsc resolves to 127\.0\.0\.1 \(loopback\)/.test(w))).toBe(true);
  expect(warnings.some((w) => /IPv4-compatible, embeds 169\.254\.169\.254/.test(w))).toBe(true);
});
