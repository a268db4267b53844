// Push delivery against a real webhook receiver on 127.0.0.1 (allow-listed; the SSRF guard refuses
// loopback otherwise): body shape per registered wire version, headers, retries, giving up, queue
// bounds, a dead webhook that blocks nobody, and the SSRF refusals at delivery time.
import http from "node:http";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { afterAll, afterEach, assert, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import * as v0_3 from "../../generated/v0_3/index.js";
import { MemoryPushConfigStore, type PushWireVersion } from "../../src/push/config-store.js";
import { PushDelivery, type PushDeliveryOptions, type PushOutcome } from "../../src/push/delivery.js";
import { SqliteTaskStore } from "../../src/server/store/sqlite-store.js";
import { listenHttp } from "../support/servers.js";

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Responder = (r: Received, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let received: Received[] = [];
let responder: Responder = (_r, res) => res.writeHead(200).end();
const arrivals: (() => void)[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(r);
      arrivals.splice(0).forEach((f) => f());
      responder(r, res);
    });
  });
  base = await listenHttp(server);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

let delivery: PushDelivery | undefined;
let outcomes: PushOutcome[] = [];
const outcomeWaiters: (() => void)[] = [];
afterEach(async () => {
  await delivery?.close();
  delivery = undefined;
  received = [];
  outcomes = [];
  responder = (_r, res) => res.writeHead(200).end();
});

/** Resolves once `pred` holds over the outcomes so far (checked after each new outcome). */
async function until(pred: (o: PushOutcome[]) => boolean): Promise<void> {
  while (!pred(outcomes)) await new Promise<void>((r) => outcomeWaiters.push(r));
}
async function requests(n: number): Promise<void> {
  while (received.length < n) await new Promise<void>((r) => arrivals.push(r));
}

function setup(opts: PushDeliveryOptions = {}) {
  const configs = new MemoryPushConfigStore();
  delivery = new PushDelivery(configs, {
    allow: ["127.0.0.1"],
    backoffMs: 1,
    maxBackoffMs: 5,
    ...opts,
    onOutcome: (o) => {
      outcomes.push(o);
      outcomeWaiters.splice(0).forEach((f) => f());
    },
  });
  const register = (
    taskId: string,
    version: PushWireVersion,
    init: { id?: string; url?: string; token?: string; authentication?: { scheme: string; credentials: string } } = {},
  ) => configs.create("alice", create(v1_0.TaskPushNotificationConfigSchema, { taskId, url: `${base}/${taskId}`, ...init }), version);
  return { configs, delivery, register };
}

/** Answers the first delivery the test's receiver held back. */
function release(held: http.ServerResponse[]): void {
  const [first] = held;
  assert(first, "a delivery is being held");
  first.writeHead(200).end();
}

function snapshot(taskId: string, state: v1_0.TaskState): v1_0.Task {
  return create(v1_0.TaskSchema, {
    id: taskId,
    contextId: "ctx-1",
    status: { state, timestamp: timestampFromMs(1_750_000_000_000) },
    history: [
      { messageId: "m1", role: v1_0.Role.USER, taskId, contextId: "ctx-1", parts: [{ content: { case: "text", value: "hello" } }] },
    ],
    artifacts: state === v1_0.TaskState.COMPLETED ? [{ artifactId: "a1", parts: [{ content: { case: "text", value: "hello" } }] }] : [],
  });
}

function statusEvent(taskId: string, state: v1_0.TaskState, note = ""): v1_0.StreamResponse {
  return create(v1_0.StreamResponseSchema, {
    payload: {
      case: "statusUpdate",
      value: {
        taskId,
        contextId: "ctx-1",
        status: { state, timestamp: timestampFromMs(1_750_000_000_000) },
        metadata: note ? { note } : undefined,
      },
    },
  });
}

const S = v1_0.TaskState;

describe("webhook bodies and headers", () => {
  it("1.0 config: the StreamResponse as application/a2a+json, with the token and Authorization headers", async () => {
    const { delivery, register } = setup();
    await register("t1", "1.0", { token: "tok-1", authentication: { scheme: "Bearer", credentials: "s3cret" } });
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED), snapshot("t1", S.COMPLETED));
    await delivery.idle();
    expect(received).toHaveLength(1);
    const [r] = received;
    assert(r);
    expect(r.path).toBe("/t1");
    expect(r.headers["content-type"]).toBe("application/a2a+json");
    expect(r.headers["x-a2a-notification-token"]).toBe("tok-1");
    expect(r.headers.authorization).toBe("Bearer s3cret");
    const body = JSON.parse(r.body);
    expect(Object.keys(body)).toEqual(["statusUpdate"]);
    expect(body.statusUpdate).toMatchObject({ taskId: "t1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED" } });
    expect(outcomes).toEqual([expect.objectContaining({ kind: "delivered", attempts: 1, status: 200 })]);
  });

  it("0.3 config: the task snapshot as a 0.3 Task (kind: task) in application/json", async () => {
    const { delivery, register } = setup();
    await register("t1", "0.3", { token: "tok-03" });
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED), snapshot("t1", S.COMPLETED));
    await delivery.idle();
    expect(received).toHaveLength(1);
    const [r] = received;
    assert(r);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["x-a2a-notification-token"]).toBe("tok-03");
    expect(r.headers.authorization).toBeUndefined();
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ kind: "task", id: "t1", contextId: "ctx-1", status: { state: "completed" } });
    expect(body.artifacts[0].parts[0]).toEqual({ kind: "text", text: "hello" });
    expect(v0_3.validators.Task(body)).toBe(true);
  });

  it("a Task event goes to 0.3 webhooks as is; other events without a snapshot are not sent to them", async () => {
    const { delivery, register } = setup();
    await register("t1", "0.3");
    await register("t1", "1.0", { id: "v1" });
    const taskEvent = create(v1_0.StreamResponseSchema, { payload: { case: "task", value: snapshot("t1", S.WORKING) } });
    delivery.enqueue("alice", "t1", taskEvent);
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED)); // no snapshot
    await delivery.idle();
    const to03 = received.filter((r) => r.headers["content-type"] === "application/json").map((r) => JSON.parse(r.body));
    const to10 = received.filter((r) => r.headers["content-type"] === "application/a2a+json").map((r) => JSON.parse(r.body));
    expect(to03).toEqual([expect.objectContaining({ kind: "task", status: expect.objectContaining({ state: "working" }) })]);
    expect(to10.map((b) => Object.keys(b)[0])).toEqual(["task", "statusUpdate"]);
    expect(outcomes.filter((o) => o.kind === "skipped")).toHaveLength(1);
  });

  it("a webhook receiving several notifications gets them over one kept-alive connection", async () => {
    const { delivery, register } = setup();
    await register("t1", "1.0");
    const sockets = new Set<unknown>();
    responder = (_r, res) => {
      sockets.add(res.socket);
      res.writeHead(200).end();
    };
    for (let i = 0; i < 5; i++) delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING, `n${i}`));
    await delivery.idle();
    expect(received).toHaveLength(5);
    expect(sockets.size).toBe(1);
  });

  it("every config of the task gets the event; other owners' and tasks' configs do not", async () => {
    const { configs, delivery, register } = setup();
    await register("t1", "1.0", { id: "a" });
    await register("t1", "1.0", { id: "b", url: `${base}/t1-b` });
    await register("t2", "1.0");
    await configs.create("bob", create(v1_0.TaskPushNotificationConfigSchema, { taskId: "t1", url: `${base}/bob` }), "1.0");
    delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING));
    await delivery.idle();
    expect(received.map((r) => r.path).sort()).toEqual(["/t1", "/t1-b"]);
  });

  it("a caller's later changes to the event or snapshot do not change what is sent", async () => {
    const { delivery, register } = setup();
    await register("t1", "0.3");
    await register("t1", "1.0", { id: "v1", url: `${base}/v1` });
    const snap = snapshot("t1", S.WORKING);
    const ev = statusEvent("t1", S.WORKING);
    delivery.enqueue("alice", "t1", ev, snap);
    snap.status = create(v1_0.TaskStatusSchema, { state: S.FAILED });
    snap.history.push(create(v1_0.MessageSchema, { messageId: "later", role: v1_0.Role.AGENT }));
    (ev.payload.value as v1_0.TaskStatusUpdateEvent).status = create(v1_0.TaskStatusSchema, { state: S.FAILED });
    await delivery.idle();
    const body = JSON.parse(received.find((r) => r.path === "/t1")!.body);
    expect(body.status.state).toBe("working");
    expect(body.history).toHaveLength(1);
    const body10 = JSON.parse(received.find((r) => r.path === "/v1")!.body);
    expect(body10.statusUpdate.status.state).toBe("TASK_STATE_WORKING");
  });
});

it("delivers from configs kept in the SQLite store", async () => {
  const store = new SqliteTaskStore(":memory:");
  const d = new PushDelivery(store.pushConfigs, { allow: ["127.0.0.1"], onOutcome: (o) => outcomes.push(o) });
  await store.pushConfigs.create(
    "alice",
    create(v1_0.TaskPushNotificationConfigSchema, { taskId: "t1", url: `${base}/sql`, token: "tk" }),
    "0.3",
  );
  d.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED), snapshot("t1", S.COMPLETED));
  await d.idle();
  expect(received.map((r) => [r.path, r.headers["x-a2a-notification-token"], JSON.parse(r.body).kind])).toEqual([["/sql", "tk", "task"]]);
  await d.close();
  await store.close();
});

describe("retries and giving up", () => {
  it("retries after HTTP 500 and delivers on the third attempt", async () => {
    const { delivery, register } = setup({ maxAttempts: 5 });
    await register("t1", "1.0");
    let n = 0;
    responder = (_r, res) => res.writeHead(++n <= 2 ? 500 : 204).end();
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.body)).size).toBe(1); // the same notification each time
    expect(outcomes.map((o) => o.kind)).toEqual(["retrying", "retrying", "delivered"]);
    expect(outcomes[2]).toMatchObject({ attempts: 3, status: 204 });
  });

  it("gives up after maxAttempts and goes on with the next notification of the same webhook", async () => {
    const { delivery, register } = setup({ maxAttempts: 3 });
    await register("t1", "1.0");
    responder = (r, res) => res.writeHead(JSON.parse(r.body).statusUpdate?.metadata?.note === "first" ? 503 : 200).end();
    delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING, "first"));
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED, "second"));
    await delivery.idle();
    const notes = received.map((r) => JSON.parse(r.body).statusUpdate.metadata.note);
    expect(notes).toEqual(["first", "first", "first", "second"]);
    expect(outcomes.filter((o) => o.kind === "failed")).toEqual([expect.objectContaining({ attempts: 3, error: "HTTP 503" })]);
    expect(outcomes[outcomes.length - 1]).toMatchObject({ kind: "delivered", attempts: 1 });
  });

  it("a 4xx answer other than 408/429 is final: no retry", async () => {
    const { delivery, register } = setup({ maxAttempts: 5 });
    await register("t1", "1.0");
    responder = (_r, res) => res.writeHead(400).end();
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(received).toHaveLength(1);
    expect(outcomes).toEqual([expect.objectContaining({ kind: "failed", attempts: 1, error: "HTTP 400" })]);
  });

  it("a redirect is not followed", async () => {
    const { delivery, register } = setup({ maxAttempts: 5 });
    await register("t1", "1.0");
    responder = (r, res) => (r.path === "/t1" ? res.writeHead(307, { location: `${base}/elsewhere` }).end() : res.writeHead(200).end());
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(received.map((r) => r.path)).toEqual(["/t1"]);
    expect(outcomes).toEqual([expect.objectContaining({ kind: "failed", error: "HTTP 307" })]);
  });

  it("a 2xx status counts at once, even when the receiver never finishes its body", async () => {
    const { delivery, register } = setup();
    await register("t1", "1.0");
    responder = (_r, res) => {
      res.writeHead(202, { "content-type": "text/plain" });
      res.write("still talking…");
    };
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(outcomes).toEqual([expect.objectContaining({ kind: "delivered", status: 202 })]);
  });

  it("a webhook that does not answer times out and counts as a failed attempt", async () => {
    const { delivery, register } = setup({ maxAttempts: 2, timeoutMs: 100 });
    await register("t1", "1.0");
    responder = () => {}; // never answers
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(received).toHaveLength(2);
    expect(outcomes.map((o) => o.kind)).toEqual(["retrying", "failed"]);
    expect(outcomes[1]).toMatchObject({ error: "no answer within 100 ms" });
  });
});

describe("bounds: a dead webhook blocks nobody", () => {
  it("while one webhook hangs, enqueue returns and other tasks' webhooks are served", async () => {
    const { delivery, register } = setup();
    await register("dead", "1.0");
    await register("alive", "1.0");
    const held: http.ServerResponse[] = [];
    responder = (r, res) => (r.path === "/dead" ? held.push(res) : res.writeHead(200).end());
    expect(delivery.enqueue("alice", "dead", statusEvent("dead", S.WORKING))).toBeUndefined();
    await requests(1);
    delivery.enqueue("alice", "alive", statusEvent("alive", S.COMPLETED));
    await until((o) => o.some((x) => x.kind === "delivered" && x.taskId === "alive"));
    expect(held).toHaveLength(1); // the dead one is still hanging
    release(held);
    await delivery.idle();
  });

  it("a config's queue keeps at most maxQueuePerConfig notifications, dropping the oldest waiting ones", async () => {
    const { delivery, register } = setup({ maxQueuePerConfig: 3 });
    await register("t1", "1.0");
    const held: http.ServerResponse[] = [];
    responder = (_r, res) => held.push(res);
    delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING, "n1"));
    await requests(1);
    for (let i = 2; i <= 8; i++) delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING, `n${i}`));
    await until((o) => o.filter((x) => x.kind === "dropped").length === 5);
    expect(delivery.queued).toBe(3); // n1 in flight, n7 and n8 waiting
    responder = (_r, res) => res.writeHead(200).end();
    release(held);
    await delivery.idle();
    expect(received.map((r) => JSON.parse(r.body).statusUpdate.metadata.note)).toEqual(["n1", "n7", "n8"]);
    expect(outcomes.filter((o) => o.kind === "dropped").every((o) => o.kind === "dropped" && o.why === "queue-full")).toBe(true);
  });

  it("with supersede0_3, a newer task snapshot replaces one still waiting for a 0.3 webhook", async () => {
    const { delivery, register } = setup({ supersede0_3: true });
    await register("t1", "0.3");
    const held: http.ServerResponse[] = [];
    responder = (_r, res) => held.push(res);
    delivery.enqueue("alice", "t1", statusEvent("t1", S.SUBMITTED), snapshot("t1", S.SUBMITTED));
    await requests(1);
    delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING), snapshot("t1", S.WORKING));
    delivery.enqueue("alice", "t1", statusEvent("t1", S.INPUT_REQUIRED), snapshot("t1", S.INPUT_REQUIRED));
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED), snapshot("t1", S.COMPLETED));
    await until((o) => o.filter((x) => x.kind === "superseded").length === 2);
    expect(delivery.queued).toBe(2);
    responder = (_r, res) => res.writeHead(200).end();
    release(held);
    await delivery.idle();
    expect(received.map((r) => JSON.parse(r.body).status.state)).toEqual(["submitted", "completed"]);
  });

  it("all queues together hold at most maxQueueTotal notifications", async () => {
    const { delivery, register } = setup({ maxQueueTotal: 2, concurrency: 1 });
    for (const t of ["a", "b", "c"]) await register(t, "1.0");
    const held: http.ServerResponse[] = [];
    responder = (_r, res) => held.push(res);
    delivery.enqueue("alice", "a", statusEvent("a", S.WORKING));
    await requests(1);
    delivery.enqueue("alice", "b", statusEvent("b", S.WORKING));
    delivery.enqueue("alice", "c", statusEvent("c", S.WORKING));
    await until((o) => o.some((x) => x.kind === "dropped"));
    expect(outcomes).toEqual([expect.objectContaining({ kind: "dropped", taskId: "c", why: "total-queue-full" })]);
    responder = (_r, res) => res.writeHead(200).end();
    release(held);
    await delivery.idle();
    expect(received.map((r) => r.path)).toEqual(["/a", "/b"]);
  });

  it("close aborts requests in flight and drops what waits", async () => {
    const { delivery, register } = setup();
    await register("t1", "1.0");
    responder = () => {};
    delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING, "n1"));
    delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING, "n2"));
    await requests(1);
    await delivery.close();
    await delivery.idle();
    expect(outcomes).toEqual([
      expect.objectContaining({ kind: "dropped", why: "closed" }),
      expect.objectContaining({ kind: "dropped", why: "closed" }),
    ]);
  });
});

describe("SSRF guard at delivery", () => {
  it.each([
    ["127.0.0.1 without an allow-list", () => `${base}/t1`, []],
    ["10.0.0.1", () => "http://10.0.0.1/hook", ["127.0.0.1"]],
    ["169.254.169.254", () => "http://169.254.169.254/latest/meta-data/", ["127.0.0.1"]],
    ["localhost (resolves to loopback)", () => `${base.replace("127.0.0.1", "localhost")}/t1`, []],
    // IPv6 forms embedding an IPv4 address (ipaddr.js calls ::/96 unicast); allowing 127.0.0.1 would admit the first.
    ["[::7f00:1] (IPv4-compatible 127.0.0.1)", () => `http://[::7f00:1]:${new URL(base).port}/t1`, ["10.9.9.9"]],
    ["[::a9fe:a9fe] (IPv4-compatible 169.254.169.254)", () => "http://[::a9fe:a9fe]/latest/meta-data/", ["127.0.0.1"]],
    ["[64:ff9b::a9fe:a9fe] (NAT64 169.254.169.254)", () => "http://[64:ff9b::a9fe:a9fe]/", ["127.0.0.1"]],
  ])("refuses %s: no request, no retry", async (_name, url, allow) => {
    const { delivery, register } = setup({ allow, maxAttempts: 5 });
    await register("t1", "1.0", { url: url() });
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(received).toEqual([]);
    expect(outcomes).toEqual([expect.objectContaining({ kind: "failed", attempts: 1, error: expect.stringMatching(/resolves to/) })]);
  });

  it("a host name that does not resolve is retried (it may resolve later)", async () => {
    let resolves = false;
    const port = new URL(base).port;
    const { delivery, register } = setup({
      allow: ["127.0.0.1"],
      maxAttempts: 3,
      lookup: async (host) => {
        if (!resolves) {
          resolves = true;
          throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: "EAI_AGAIN" });
        }
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    await register("t1", "1.0", { url: `http://flaky-dns.test:${port}/t1` });
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(outcomes.map((o) => o.kind)).toEqual(["retrying", "delivered"]);
    expect(received).toHaveLength(1);
  });

  it("re-resolves at every delivery: a name that now points at loopback is refused", async () => {
    let answer = "127.0.0.1";
    const { delivery, register } = setup({
      allow: ["127.0.0.0/8"],
      lookup: async () => [{ address: answer, family: 4 }],
    });
    const port = new URL(base).port;
    await register("t1", "1.0", { url: `http://hooks.test:${port}/t1` });
    delivery.enqueue("alice", "t1", statusEvent("t1", S.WORKING));
    await delivery.idle();
    expect(received.map((r) => [r.path, r.headers.host])).toEqual([["/t1", `hooks.test:${port}`]]); // connected to the checked address
    answer = "10.9.9.9";
    delivery.enqueue("alice", "t1", statusEvent("t1", S.COMPLETED));
    await delivery.idle();
    expect(received).toHaveLength(1);
    expect(outcomes[1]).toMatchObject({ kind: "failed", error: expect.stringMatching(/10\.9\.9\.9 \(private\)/) });
  });
});
