// Authentication and ownership in the reference server (plugin option `authenticators`), over real
// sockets, for both versions and both bindings: every operation needs a credential (the card
// excepted); a second principal asking for, listing, cancelling, subscribing to or continuing the
// first one's task, or touching its push configs, gets exactly what an unknown id gets
// (TaskNotFound, or an empty list) and the first principal's task is left as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeyAuth, bearerAuth } from "../../src/security/auth.js";
import { createFixtureAgent } from "../../src/server/index.js";
import { startServer, type RunningServer } from "../support/servers.js";
import { zip } from "../support/zip.js";

type Json = Record<string, unknown>;
type Version = "1.0" | "0.3";
type Binding = "JSONRPC" | "HTTP+JSON";

const auths = [bearerAuth({ tokens: { "tok-alice": "alice", "tok-bob": "bob" } }), apiKeyAuth({ keys: { "key-carol": "carol" } })];
const ALICE = { authorization: "Bearer tok-alice" };
const BOB = { authorization: "Bearer tok-bob" };
const CAROL = { "x-api-key": "key-carol" };
const HOOK = "http://127.0.0.1:9/hook"; // never contacted: the task emits no event while the test runs

let server: RunningServer;
let base: string;
beforeAll(async () => {
  server = await startServer("fastify", {
    agent: createFixtureAgent({ pushNotifications: true }),
    authenticators: auths,
    push: { allow: ["127.0.0.1"] },
  });
  base = server.url;
});
afterAll(() => server.close());

let seq = 0;

/** One A2A operation in one version and binding, as an HTTP request. */
interface Op {
  name: string;
  method: string;
  path: string;
  body?: Json;
  /** The answer is an SSE stream when it succeeds. */
  stream?: boolean;
}

function message(v: Version, b: Binding, text: string, taskId?: string): Json {
  const id = `auth-${++seq}`;
  if (v === "0.3" && b === "JSONRPC")
    return { kind: "message", messageId: id, role: "user", parts: [{ kind: "text", text }], ...(taskId ? { taskId } : {}) };
  return { messageId: id, role: "ROLE_USER", [v === "0.3" ? "content" : "parts"]: [{ text }], ...(taskId ? { taskId } : {}) };
}

/** Every operation on task `t` (push config `c`) in version `v` and binding `b`. */
/** At least the seven operations the tests pick by position: get, cancel, ..., the push-config get. */
type Ops = [Op, Op, Op, Op, Op, Op, Op, ...Op[]];

function ops(v: Version, b: Binding, t: string, c: string, tenant = ""): Ops {
  const rpc = (method: string, params: Json, stream = false): Op => ({
    name: method,
    method: "POST",
    path: "/",
    body: { jsonrpc: "2.0", id: ++seq, method, params: { ...params, ...(tenant ? { tenant } : {}) } },
    stream,
  });
  if (b === "JSONRPC" && v === "1.0")
    return [
      rpc("GetTask", { id: t }),
      rpc("CancelTask", { id: t }),
      rpc("SubscribeToTask", { id: t }, true),
      rpc("SendMessage", { message: message(v, b, "continue", t) }),
      rpc("SendStreamingMessage", { message: message(v, b, "continue", t) }, true),
      rpc("CreateTaskPushNotificationConfig", { taskId: t, id: "bobs", url: HOOK }),
      rpc("GetTaskPushNotificationConfig", { taskId: t, id: c }),
      rpc("ListTaskPushNotificationConfigs", { taskId: t }),
      rpc("DeleteTaskPushNotificationConfig", { taskId: t, id: c }),
    ];
  if (b === "JSONRPC")
    return [
      rpc("tasks/get", { id: t }),
      rpc("tasks/cancel", { id: t }),
      rpc("tasks/resubscribe", { id: t }, true),
      rpc("message/send", { message: message(v, b, "continue", t) }),
      rpc("message/stream", { message: message(v, b, "continue", t) }, true),
      rpc("tasks/pushNotificationConfig/set", { taskId: t, pushNotificationConfig: { id: "bobs", url: HOOK } }),
      rpc("tasks/pushNotificationConfig/get", { id: t, pushNotificationConfigId: c }),
      rpc("tasks/pushNotificationConfig/get", { id: t }),
      rpc("tasks/pushNotificationConfig/list", { id: t }),
      rpc("tasks/pushNotificationConfig/delete", { id: t, pushNotificationConfigId: c }),
    ];
  const root = v === "1.0" ? (tenant ? `/${tenant}` : "") : "/v1";
  const rest = (name: string, method: string, path: string, body?: Json, stream = false): Op => ({
    name,
    method,
    path: root + path,
    body,
    stream,
  });
  return [
    rest("GetTask", "GET", `/tasks/${t}`),
    rest("CancelTask", "POST", `/tasks/${t}:cancel`, {}),
    rest("SubscribeToTask", "GET", `/tasks/${t}:subscribe`, undefined, true),
    rest("SendMessage", "POST", "/message:send", { message: message(v, b, "continue", t) }),
    rest("SendStreamingMessage", "POST", "/message:stream", { message: message(v, b, "continue", t) }, true),
    v === "1.0"
      ? rest("CreatePushConfig", "POST", `/tasks/${t}/pushNotificationConfigs`, { id: "bobs", url: HOOK })
      : rest("CreatePushConfig", "POST", `/tasks/${t}/pushNotificationConfigs`, { pushNotificationConfig: { id: "bobs", url: HOOK } }),
    rest("GetPushConfig", "GET", `/tasks/${t}/pushNotificationConfigs/${c}`),
    rest("ListPushConfigs", "GET", `/tasks/${t}/pushNotificationConfigs`),
    rest("DeletePushConfig", "DELETE", `/tasks/${t}/pushNotificationConfigs/${c}`),
  ];
}

interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the SSE text of a stream. */
  body: Json | string;
}

async function call(v: Version, op: Op, who: Record<string, string>): Promise<Answer> {
  const res = await fetch(base + op.path, {
    method: op.method,
    headers: { "content-type": "application/json", ...(v === "1.0" ? { "A2A-Version": "1.0" } : {}), ...who },
    ...(op.body ? { body: JSON.stringify(op.body) } : {}),
  });
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    headers: res.headers,
    body: type.startsWith("text/event-stream") ? await res.text() : ((await res.json()) as Json),
  };
}

/** What a caller can tell from an error answer, with task and config ids blanked out. */
function errorShape(a: Answer, ...ids: string[]): string {
  let text = JSON.stringify({ status: a.status, body: a.body });
  for (const id of ids) text = text.split(id).join("<id>");
  return text.replace(/"id":\d+/, '"id":0');
}

/** alice's task waiting for input, with one push config; returns their ids. */
async function alicesTask(v: Version, b: Binding, tenant = ""): Promise<{ t: string; c: string }> {
  const send: Op =
    b === "JSONRPC"
      ? {
          name: "send",
          method: "POST",
          path: "/",
          body: {
            jsonrpc: "2.0",
            id: 1,
            method: v === "1.0" ? "SendMessage" : "message/send",
            params: { message: message(v, b, "ask"), ...(tenant ? { tenant } : {}) },
          },
        }
      : {
          name: "send",
          method: "POST",
          path: `${v === "1.0" ? (tenant ? `/${tenant}` : "") : "/v1"}/message:send`,
          body: { message: message(v, b, "ask") },
        };
  const r = (await call(v, send, ALICE)).body as Json;
  const res = (b === "JSONRPC" ? r.result : r) as Json;
  const task = (v === "1.0" ? res.task : b === "JSONRPC" ? res : res.task) as Json;
  const t = task.id as string;
  const create = ops(v, b, t, "", tenant).find((o) => /Create|set/.test(o.name))!;
  const body = JSON.parse(JSON.stringify(create.body).replace('"bobs"', '"alices"')) as Json;
  const created = await call(v, { ...create, body }, ALICE);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { t, c: "alices" };
}

function isTaskNotFound(b: Binding, a: Answer): boolean {
  if (typeof a.body === "string") return false;
  if (b === "JSONRPC") return a.status === 200 && (a.body.error as Json | undefined)?.code === -32001;
  const details = ((a.body.error as Json | undefined)?.details ?? []) as Json[];
  return a.status === 404 && details.some((d) => d.reason === "TASK_NOT_FOUND");
}

async function aliceStillHas(v: Version, b: Binding, t: string, tenant = ""): Promise<void> {
  const [get, , , , , , getConfig] = ops(v, b, t, "alices", tenant);
  const g = await call(v, get, ALICE);
  const body = (b === "JSONRPC" ? (g.body as Json).result : g.body) as Json;
  expect(JSON.stringify((body.status as Json).state)).toMatch(/INPUT_REQUIRED|input-required/);
  expect(((body.history ?? []) as Json[]).length).toBe(2); // "ask" and the question: nobody else's message got in
  const cfg = await call(v, getConfig, ALICE);
  expect(cfg.status).toBe(200);
  expect(JSON.stringify(cfg.body)).toContain("alices");
  expect(JSON.stringify(cfg.body)).not.toContain("bobs");
}

const wires: [Version, Binding][] = [
  ["1.0", "JSONRPC"],
  ["1.0", "HTTP+JSON"],
  ["0.3", "JSONRPC"],
  ["0.3", "HTTP+JSON"],
];

describe.each(wires)("%s %s", (v, b) => {
  it("every operation on another principal's task answers exactly as for an unknown id, and changes nothing", async () => {
    const { t, c } = await alicesTask(v, b);
    const unknown = `no-such-task-${++seq}`;
    const mine = ops(v, b, t, c);
    const none = ops(v, b, unknown, c);
    for (const [op, same] of zip(mine, none)) {
      for (const who of [BOB, CAROL]) {
        const theirs = await call(v, op, who);
        const missing = await call(v, same, who);
        expect(isTaskNotFound(b, theirs), `${op.name}: ${errorShape(theirs)}`).toBe(true);
        expect(errorShape(theirs, t, c, "bobs"), op.name).toBe(errorShape(missing, unknown, c, "bobs"));
      }
    }
    await aliceStillHas(v, b, t);
  });

  it("without a credential, or with a wrong one, every operation is refused with 401 and a challenge", async () => {
    const { t, c } = await alicesTask(v, b);
    for (const op of ops(v, b, t, c)) {
      for (const who of [{}, { authorization: "Bearer stolen" }, { "x-api-key": "guess" }] as Record<string, string>[]) {
        const a = await call(v, op, who);
        expect(a.status, op.name).toBe(401);
        expect(a.headers.get("www-authenticate")).toMatch(/Bearer realm="a2a".*ApiKey/);
        const body = a.body as Json;
        if (b === "JSONRPC") expect(body).toMatchObject({ jsonrpc: "2.0", id: (op.body as Json).id, error: { code: -32600 } });
        else expect(body).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
      }
    }
    await aliceStillHas(v, b, t);
  });

  it("the owner can do what the other principal could not", async () => {
    const { t, c } = await alicesTask(v, b);
    const [get, cancel, , , , , getConfig] = ops(v, b, t, c);
    expect((await call(v, get, ALICE)).status).toBe(200);
    expect((await call(v, getConfig, ALICE)).status).toBe(200);
    const canceled = await call(v, cancel, ALICE);
    expect(JSON.stringify(canceled.body)).toMatch(/CANCELED|CANCELLED|canceled/);
  });
});

describe("listing and tenants", () => {
  it("1.0 ListTasks shows each principal only its own tasks (JSON-RPC and HTTP+JSON)", async () => {
    const { t } = await alicesTask("1.0", "JSONRPC");
    const rpc = await call(
      "1.0",
      { name: "ListTasks", method: "POST", path: "/", body: { jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} } },
      CAROL,
    );
    expect(((rpc.body as Json).result as Json).tasks).toEqual([]);
    const rest = await call("1.0", { name: "ListTasks", method: "GET", path: "/tasks" }, BOB);
    expect(JSON.stringify(rest.body)).not.toContain(t);
    const own = await call("1.0", { name: "ListTasks", method: "GET", path: "/tasks?pageSize=100" }, ALICE);
    expect(JSON.stringify(own.body)).toContain(t);
  });

  it("a tenant is data, not authorization: another principal naming alice's tenant still finds nothing", async () => {
    for (const b of ["JSONRPC", "HTTP+JSON"] as const) {
      const { t, c } = await alicesTask("1.0", b, "acme");
      const [get, , , , , , getConfig] = ops("1.0", b, t, c, "acme");
      expect((await call("1.0", get, ALICE)).status).toBe(200);
      for (const op of ops("1.0", b, t, c, "acme")) expect(isTaskNotFound(b, await call("1.0", op, BOB)), op.name).toBe(true);
      // alice herself, outside the tenant, does not see it either.
      expect(isTaskNotFound(b, await call("1.0", ops("1.0", b, t, c)[0], ALICE))).toBe(true);
      expect((await call("1.0", getConfig, ALICE)).status).toBe(200);
      const list = await call("1.0", { name: "ListTasks", method: "GET", path: "/acme/tasks" }, BOB);
      expect((list.body as Json).tasks).toEqual([]);
    }
  });
});

describe("cards", () => {
  it("the public card needs no credential and declares both schemes, in 1.0 and in 0.3", async () => {
    const c10 = (await (await fetch(`${base}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as Json;
    expect(c10.securitySchemes).toMatchObject({
      bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
      apiKey: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
    });
    expect(c10.securityRequirements).toEqual([{ schemes: { bearer: {} } }, { schemes: { apiKey: {} } }]);
    expect(c10.capabilities).toMatchObject({ extendedAgentCard: true });
    const c03 = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as Json;
    expect(c03.securitySchemes).toMatchObject({
      bearer: { type: "http", scheme: "Bearer" },
      apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
    });
    expect(c03.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(c03.supportsAuthenticatedExtendedCard).toBe(true);
  });

  it.each(wires)("the extended card (%s %s) only with a credential, with the extra skill and the schemes", async (v, b) => {
    const op: Op =
      b === "JSONRPC"
        ? {
            name: "card",
            method: "POST",
            path: "/",
            body: { jsonrpc: "2.0", id: 1, method: v === "1.0" ? "GetExtendedAgentCard" : "agent/getAuthenticatedExtendedCard" },
          }
        : { name: "card", method: "GET", path: v === "1.0" ? "/extendedAgentCard" : "/v1/card" };
    expect((await call(v, op, {})).status).toBe(401);
    const pub = (await (
      await fetch(`${base}/.well-known/agent-card.json`, { headers: v === "1.0" ? { "A2A-Version": "1.0" } : {} })
    ).json()) as Json;
    const got = await call(v, op, CAROL);
    expect(got.status).toBe(200);
    const card = (b === "JSONRPC" ? (got.body as Json).result : got.body) as Json;
    expect((card.skills as Json[]).length).toBe((pub.skills as Json[]).length + 1);
    expect(card.securitySchemes).toMatchObject({ bearer: {}, apiKey: {} });
  });
});
