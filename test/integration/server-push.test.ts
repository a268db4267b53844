// Push notifications over real sockets: config CRUD at 1.0 and 0.3, and delivery to a local webhook.
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import { postRpc } from "../support/rpc.js";
import { listenHttp, type RunningServer, startServer } from "../support/servers.js";

type Json = Record<string, unknown>;
interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Json;
}

let server: RunningServer;
let base: string;
let sink: http.Server;
let hookBase: string;
const hits: Hit[] = [];

beforeAll(async () => {
  sink = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      hits.push({ path: req.url ?? "", headers: req.headers, body: JSON.parse(data) as Json });
      res.writeHead(200).end();
    });
  });
  hookBase = await listenHttp(sink);
  server = await startServer("fastify", { agent: createFixtureAgent({ pushNotifications: true }), push: { allow: ["127.0.0.1"] } });
  base = server.url;
});
afterAll(async () => {
  await server.close();
  await new Promise((r) => sink.close(r));
});

const V1 = { "content-type": "application/json", "A2A-Version": "1.0" };
const V03 = { "content-type": "application/json" };
let n = 0;

const rpc = async (method: string, params: Json, headers: Record<string, string> = V1) =>
  (await postRpc<Json>(`${base}/`, method, params, headers)).body;

async function hitsFor(path: string, count: number): Promise<Hit[]> {
  for (;;) {
    const got = hits.filter((h) => h.path === path);
    if (got.length >= count) return got;
    await sleep(10);
  }
}

const ask = async (): Promise<string> => {
  const r = await rpc("SendMessage", { message: { messageId: `p${++n}`, role: "ROLE_USER", parts: [{ text: "ask" }] } });
  return ((r.result as Json).task as Json).id as string;
};

describe("push notification configs (1.0 JSON-RPC)", () => {
  it("create assigns an id; get, list and delete work; delete is idempotent; then get is TaskNotFound", async () => {
    const taskId = await ask();
    const created = (await rpc("CreateTaskPushNotificationConfig", { taskId, url: `${hookBase}/crud`, token: "tok" })).result as Json;
    expect(created).toMatchObject({ taskId, url: `${hookBase}/crud`, token: "tok" });
    expect(created.id).toBeTruthy();
    const id = created.id as string;
    expect((await rpc("GetTaskPushNotificationConfig", { taskId, id })).result).toMatchObject({ id, url: `${hookBase}/crud` });
    await rpc("CreateTaskPushNotificationConfig", { taskId, id: "second", url: `${hookBase}/crud2` });
    const list = (await rpc("ListTaskPushNotificationConfigs", { taskId })).result as Json;
    expect((list.configs as Json[]).map((c) => c.id)).toEqual([id, "second"]);
    expect((await rpc("DeleteTaskPushNotificationConfig", { taskId, id })).result).toEqual({});
    expect((await rpc("DeleteTaskPushNotificationConfig", { taskId, id })).result).toEqual({});
    expect((await rpc("GetTaskPushNotificationConfig", { taskId, id })).error).toMatchObject({ code: -32001 });
  });

  it("0.3 get with only the task id answers the task's first config; none → TaskNotFound (V-06, L23)", async () => {
    const taskId = await ask();
    expect((await rpc("tasks/pushNotificationConfig/get", { id: taskId }, V03)).error).toMatchObject({ code: -32001 });
    await rpc("tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { id: "one", url: `${hookBase}/v06a` } }, V03);
    await rpc("tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { id: "two", url: `${hookBase}/v06b` } }, V03);
    const got = (await rpc("tasks/pushNotificationConfig/get", { id: taskId }, V03)).result as Json;
    expect(got).toMatchObject({ taskId, pushNotificationConfig: { id: "one", url: `${hookBase}/v06a` } });
    // 1.0 has no such form: an empty config id names no config.
    expect((await rpc("GetTaskPushNotificationConfig", { taskId, id: "" })).error).toBeDefined();
  });

  it("unknown task → TaskNotFound; a URL that is not absolute → InvalidParams", async () => {
    expect((await rpc("CreateTaskPushNotificationConfig", { taskId: "nope", url: `${hookBase}/x` })).error).toMatchObject({ code: -32001 });
    const taskId = await ask();
    expect((await rpc("CreateTaskPushNotificationConfig", { taskId, url: "not a url" })).error).toMatchObject({ code: -32602 });
  });

  it("HTTP+JSON routes work too", async () => {
    const taskId = await ask();
    const res = await fetch(`${base}/tasks/${taskId}/pushNotificationConfigs`, {
      method: "POST",
      headers: V1,
      body: JSON.stringify({ url: `${hookBase}/rest` }),
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as Json).id as string;
    const got = await fetch(`${base}/tasks/${taskId}/pushNotificationConfigs/${id}`, { headers: V1 });
    expect(((await got.json()) as Json).url).toBe(`${hookBase}/rest`);
  });
});

describe("SSRF guard", () => {
  it("a server without an allow-list refuses loopback webhooks with InvalidParams", async () => {
    const strict = await startServer("fastify", { agent: createFixtureAgent({ pushNotifications: true }) });
    try {
      const res = await postRpc<Json>(
        `${strict.url}/`,
        "SendMessage",
        {
          message: { messageId: "ssrf", role: "ROLE_USER", parts: [{ text: "ask" }] },
          configuration: { taskPushNotificationConfig: { url: `${hookBase}/never` } },
        },
        V1,
      );
      expect(res.body.error).toMatchObject({ code: -32602 });
    } finally {
      await strict.close();
    }
  });
});

describe("delivery", () => {
  it("1.0: every event as a StreamResponse, in order, with the configured credentials", async () => {
    const r = await rpc("SendMessage", {
      message: { messageId: `p${++n}`, role: "ROLE_USER", parts: [{ text: "ask" }] },
      configuration: {
        taskPushNotificationConfig: {
          url: `${hookBase}/v1`,
          token: "secret-token",
          authentication: { scheme: "Bearer", credentials: "cred" },
        },
      },
    });
    const taskId = ((r.result as Json).task as Json).id as string;
    await rpc("SendMessage", { message: { messageId: `p${++n}`, role: "ROLE_USER", parts: [{ text: "answer" }], taskId } });
    const got = await hitsFor("/v1", 5);
    expect(got[0]?.headers["content-type"]).toBe("application/a2a+json");
    expect(got[0]?.headers.authorization).toBe("Bearer cred");
    expect(got[0]?.headers["x-a2a-notification-token"]).toBe("secret-token");
    const kinds = got.map((h) => Object.keys(h.body)[0]);
    expect(kinds).toEqual(["statusUpdate", "statusUpdate", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const states = got.filter((h) => h.body.statusUpdate).map((h) => ((h.body.statusUpdate as Json).status as Json).state);
    expect(states).toEqual(["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
    expect(got.every((h) => ((h.body.statusUpdate ?? h.body.artifactUpdate) as Json).taskId === taskId)).toBe(true);
  });

  it("0.3: a config set with tasks/pushNotificationConfig/set gets 0.3 Task bodies (task snapshots)", async () => {
    const sent = await rpc(
      "message/send",
      { message: { kind: "message", messageId: `p${++n}`, role: "user", parts: [{ kind: "text", text: "ask" }] } },
      V03,
    );
    const taskId = (sent.result as Json).id as string;
    const set = await rpc("tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url: `${hookBase}/v03` } }, V03);
    expect(set.result).toMatchObject({ taskId, pushNotificationConfig: { url: `${hookBase}/v03` } });
    await rpc(
      "message/send",
      { message: { kind: "message", messageId: `p${++n}`, role: "user", parts: [{ kind: "text", text: "fine" }], taskId } },
      V03,
    );
    const got = await hitsFor("/v03", 3);
    expect(got[0]?.headers["content-type"]).toBe("application/json");
    expect(got.every((h) => h.body.kind === "task" && h.body.id === taskId)).toBe(true);
    expect((got[0]?.body.status as Json).state).toBe("working");
    // working, then the artifact (as a snapshot), then completed
    expect((got[2]?.body.status as Json).state).toBe("completed");
    const list = await rpc("tasks/pushNotificationConfig/list", { id: taskId }, V03);
    expect(Array.isArray(list.result)).toBe(true);
  });
});
