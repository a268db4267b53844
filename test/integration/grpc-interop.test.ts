// gRPC interop, judged from outside, both directions, both versions (loopback, port 0):
//   (a) the official @a2a-js/sdk 1.3.0 gRPC client (`@a2a-js/sdk/client/grpc`; for 0.3 the
//       LegacyGrpcTransport its factory picks with legacyCompat) against buildServer({ grpc: true })
//       (what `serve` starts: gRPC on the JSON-RPC/REST port) and against the gateway's gRPC
//       facade in front of a backend it reaches over gRPC; every operation;
//   (b) our client (--binding grpc) against the SDK's gRPC server (`@a2a-js/sdk/server/grpc` and
//       `@a2a-js/sdk/compat/v0_3/server/grpc` on @grpc/grpc-js), every operation it serves;
//   (c) the raw gRPC statuses of our server, read with connect's own client, against the spec text.
import { Message, TaskState, type AgentCard, type StreamResponse, type Task } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, type Client } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { create, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import * as v0_3 from "../../generated/v0_3/index.js";
import { createA2AClient, type A2AClient } from "../../src/client/index.js";
import { buildGateway, createGateway } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent } from "../../src/server/index.js";
import { bearerAuth } from "../../src/security/auth.js";
import { decodeErrorInfo } from "../../src/versioning/grpc.js";
import { asTask, sdkListRequest, sdkRequest } from "../support/sdk-client.js";
import { startSdkGrpcEchoTarget, type SdkGrpcTarget } from "../support/sdk-grpc-target.js";

const apps: FastifyInstance[] = [];
/** The extended card needs a credential (1.0.1 §13.3): serve accepts this bearer token for it. */
const CARD_TOKEN = "card-t0ken";
const urls = { serve: "", gateway: "" };
let sdkServer: SdkGrpcTarget;

async function listen(app: FastifyInstance): Promise<string> {
  apps.push(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

beforeAll(async () => {
  urls.serve = await listen(
    await buildServer({
      agent: createFixtureAgent({ pushNotifications: true }),
      push: { allow: ["127.0.0.1"] },
      grpc: true,
      extendedCardAuthenticators: [bearerAuth({ tokens: { [CARD_TOKEN]: "carol" } })],
    }),
  );
  const backend = await listen(await buildServer({ agent: createFixtureAgent(), grpc: true }));
  const gateway = await createGateway({ backends: [{ name: "b", url: backend, binding: "GRPC", version: "1.0" }] });
  const gw = await buildGateway({ gateway, grpc: true });
  gw.addHook("onClose", () => gateway.close());
  urls.gateway = await listen(gw);
  sdkServer = await startSdkGrpcEchoTarget();
});
afterAll(async () => {
  for (const a of apps.reverse()) await a.close();
  await sdkServer?.close();
});

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

function stateOf(e: StreamResponse | v1_0.StreamResponse): number | undefined {
  const p = e.payload as { $case?: string; case?: string; value?: { status?: { state?: number } } } | undefined;
  const kind = p?.$case ?? p?.case;
  return kind === "task" || kind === "statusUpdate" ? p?.value?.status?.state : undefined;
}

const texts = (t: Task) => t.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")));

/** The SDK's gRPC client held to the GRPC interface of `version` on `base`'s card. */
async function sdkGrpcClient(base: string, version: string): Promise<{ client: Client; card: AgentCard }> {
  const legacyCompat = { enabled: true };
  const card = await new DefaultAgentCardResolver({ legacyCompat }).resolve(base);
  const only = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === "GRPC" && i.protocolVersion === version),
  };
  expect(only.supportedInterfaces).toHaveLength(1);
  const factory = new ClientFactory({ transports: [new GrpcTransportFactory({ legacyCompat })] });
  return { client: await factory.createFromAgentCard(only), card };
}

describe.each(["serve", "gateway"] as const)("@a2a-js/sdk gRPC client → %s", (target) => {
  describe.each(["1.0", "0.3"])("GRPC %s", (version) => {
    let client: Client;
    let card: AgentCard;
    const get = (id: string, historyLength?: number) => client.getTask({ tenant: "", id, historyLength });

    beforeAll(async () => {
      ({ client, card } = await sdkGrpcClient(urls[target], version));
    });

    it("SendMessage (blocking): the completed task with its artifact; a bare Message as a Message", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("echo blocking")));
      expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(texts(t)).toEqual(["blocking"]);
      const m = await client.sendMessage(sdkRequest("msg plain"));
      expect("messageId" in m && !("status" in m)).toBe(true);
      expect((m as Message).parts[0]?.content).toMatchObject({ $case: "text", value: "plain" });
    });

    it("SendStreamingMessage: task first, chunks in order, completed last; the stream ends", async () => {
      const events = await collect(client.sendMessageStream(sdkRequest("stream 3")));
      expect(events[0]?.payload?.$case).toBe("task");
      const chunks = events.flatMap((e) =>
        e.payload?.$case === "artifactUpdate"
          ? (e.payload.value.artifact?.parts ?? []).map((p) => (p.content as { value: string }).value)
          : [],
      );
      expect(chunks).toEqual(["chunk 1/3", "chunk 2/3", "chunk 3/3"]);
      expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("GetTask: history trimmed by historyLength; unknown id → TaskNotFoundError", async () => {
      const first = asTask(await client.sendMessage(sdkRequest("ask")));
      await client.sendMessage(sdkRequest("red", { taskId: first.id, contextId: first.contextId }));
      expect((await get(first.id)).history.length).toBeGreaterThanOrEqual(2);
      expect((await get(first.id, 1)).history).toHaveLength(1);
      await expect(get("no-such-task")).rejects.toBeInstanceOf(TaskNotFoundError);
    });

    it("ListTasks (1.0 only: the 0.3 service has no such rpc)", async (ctx) => {
      if (version !== "1.0") return ctx.skip();
      const t = asTask(await client.sendMessage(sdkRequest("echo listed")));
      const page = await client.listTasks(sdkListRequest(t.contextId));
      expect(page.tasks.map((x) => x.id)).toEqual([t.id]);
    });

    it("CancelTask: a running task is canceled; a finished one → TaskNotCancelableError; unknown → TaskNotFoundError", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("slow 60000", { blocking: false })));
      expect((await client.cancelTask({ tenant: "", id: t.id, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const done = asTask(await client.sendMessage(sdkRequest("echo done")));
      await expect(client.cancelTask({ tenant: "", id: done.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
      await expect(client.cancelTask({ tenant: "", id: "no-such-task", metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    });

    it("a message to a finished task → UnsupportedOperationError", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("echo over")));
      await expect(client.sendMessage(sdkRequest("more", { taskId: t.id }))).rejects.toBeInstanceOf(UnsupportedOperationError);
    });

    it("SubscribeToTask: a running task's updates to completed", async () => {
      const t = asTask(await client.sendMessage(sdkRequest("slow 300", { blocking: false })));
      const events = await collect(client.resubscribeTask({ tenant: "", id: t.id }));
      expect(events[0]?.payload?.$case).toBe("task");
      expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it("push configs: create, get, list, delete", async (ctx) => {
      if (!card.capabilities?.pushNotifications) return ctx.skip(); // the gateway's card declares none
      const t = asTask(await client.sendMessage(sdkRequest("echo push")));
      const cfg = { tenant: "", id: "cfg-1", taskId: t.id, url: "http://127.0.0.1:9/hook", token: "tok", authentication: undefined };
      expect(await client.createTaskPushNotificationConfig(cfg)).toMatchObject({ taskId: t.id, id: "cfg-1", url: cfg.url });
      expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: t.id, id: "cfg-1" })).toMatchObject({ url: cfg.url });
      const listed = await client.listTaskPushNotificationConfig({ tenant: "", taskId: t.id, pageSize: 0, pageToken: "" });
      expect(listed.configs.map((c) => c.id)).toEqual(["cfg-1"]);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: t.id, id: "cfg-1" });
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId: t.id, pageSize: 0, pageToken: "" })).configs).toEqual([]);
    });

    it("GetExtendedAgentCard", async (ctx) => {
      if (!card.capabilities?.extendedAgentCard) return ctx.skip();
      if (target === "serve") await expect(client.getAgentCard()).rejects.toThrow(/unauthenticated|authentication/i);
      const extended = await client.getAgentCard({ serviceParameters: { authorization: `Bearer ${CARD_TOKEN}` } });
      expect(extended.skills.map((s) => s.id)).toContain("extended");
      // A 0.3 card lists the 0.3 interfaces only.
      const grpcVersions = extended.supportedInterfaces.filter((i) => i.protocolBinding === "GRPC").map((i) => i.protocolVersion);
      expect(grpcVersions).toEqual(version === "1.0" ? ["1.0", "0.3"] : ["0.3"]);
    });
  });
});

describe.each(["1.0", "0.3"] as const)("our client (GRPC %s) → the SDK's gRPC server", (version) => {
  let client: A2AClient;
  const msg = (text: string, ids: { taskId?: string } = {}) => ({
    message: { messageId: crypto.randomUUID(), role: v1_0.Role.USER, parts: [{ content: { case: "text" as const, value: text } }], ...ids },
  });

  beforeAll(async () => {
    client = await createA2AClient(sdkServer.url, { bindings: ["GRPC"], version, checkCapabilities: false });
    expect(client.target).toMatchObject({ binding: "GRPC", version, url: sdkServer.grpcAddress });
  });

  it("SendMessage, GetTask: the echoed task, completed", async () => {
    const r = await client.sendMessage(msg("hi there"));
    expect(r.payload.case).toBe("task");
    const t = r.payload.value as v1_0.Task;
    expect(t.status?.state).toBe(v1_0.TaskState.COMPLETED);
    expect((await client.getTask({ id: t.id })).artifacts[0]?.parts[0]?.content).toEqual({ case: "text", value: "hi there" });
  });

  it("SendStreamingMessage: task, working, artifact, completed; then the stream ends", async () => {
    const events = await collect(client.sendStreamingMessage(msg("streamed"), { resubscribe: false }));
    expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    expect(stateOf(events.at(-1)!)).toBe(v1_0.TaskState.COMPLETED);
  });

  it("errors come back as A2A errors: unknown task, cancel of a finished task", async () => {
    await expect(client.getTask({ id: "no-such-task" })).rejects.toMatchObject({ type: "TaskNotFoundError" });
    const r = await client.sendMessage(msg("done"));
    await expect(client.cancelTask({ id: (r.payload.value as v1_0.Task).id })).rejects.toMatchObject({ type: "TaskNotCancelableError" });
  });

  it("SubscribeToTask on a finished task, push configs and the extended card: the SDK's refusals, as A2A errors", async () => {
    const r = await client.sendMessage(msg("sub"));
    const id = (r.payload.value as v1_0.Task).id;
    await expect(collect(client.subscribeToTask({ id }, { resubscribe: false }))).rejects.toMatchObject({
      type: "UnsupportedOperationError",
    });
    await expect(client.getTaskPushNotificationConfig({ taskId: id, id: "x" })).rejects.toMatchObject({
      type: "PushNotificationNotSupportedError",
    });
    await expect(client.getExtendedAgentCard()).rejects.toMatchObject({
      type: expect.stringMatching(/ExtendedAgentCardNotConfigured|UnsupportedOperation/),
    });
  });

  it("ListTasks (1.0): the task just sent; 0.3: refused locally (no rpc, loss L6)", async () => {
    if (version === "0.3") return expect(client.listTasks({})).rejects.toMatchObject({ type: "UnsupportedOperationError" });
    const r = await client.sendMessage(msg("listed"));
    const t = r.payload.value as v1_0.Task;
    expect((await client.listTasks({ contextId: t.contextId })).tasks.map((x) => x.id)).toEqual([t.id]);
  });
});

// (c) Status codes on the wire. 1.0.1 §10.6: "For A2A-specific errors, implementations **MUST**
// include a `google.rpc.ErrorInfo` message in the `status.details` array with: - `reason`: The A2A
// error type in UPPER_SNAKE_CASE without the "Error" suffix (e.g., `TASK_NOT_FOUND`) - `domain`:
// Set to `"a2a-protocol.org"`". §5.4 table: `TaskNotFoundError` → `NOT_FOUND`,
// `TaskNotCancelableError` → `FAILED_PRECONDITION`. 0.3 §3.2.2: "**MUST** map A2A error codes to
// appropriate gRPC status codes" (no table: the de-facto one, a2a-wire.md §3.1, last column:
// TaskNotFound → NOT_FOUND, TaskNotCancelable → UNIMPLEMENTED).
describe("gRPC statuses of buildServer({ grpc: true })", () => {
  async function status(version: "1.0" | "0.3", rpc: string, input: object, metadata: Record<string, string> = {}) {
    const transport = createGrpcTransport({ baseUrl: urls.serve });
    const service = version === "1.0" ? v1_0.A2AService : v0_3.pb.A2AService;
    const method = service.methods.find((m) => m.name === rpc)! as DescMethod & { methodKind: "unary" };
    try {
      await transport.unary(method, undefined, 5000, metadata, create(method.input, input as never));
      return undefined;
    } catch (e) {
      if (!(e instanceof ConnectError)) throw e;
      const info = e.details.find((d) => "type" in d && d.type === "google.rpc.ErrorInfo") as { value: Uint8Array } | undefined;
      return { code: e.code, info: info && decodeErrorInfo(info.value) };
    }
  }
  const finishedTask = async () => {
    const c = await createA2AClient(urls.serve, { bindings: ["GRPC"], version: "1.0" });
    const r = await c.sendMessage({
      message: { messageId: "m-done", role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "echo x" } }] },
    });
    return (r.payload.value as v1_0.Task).id;
  };

  it("1.0: NOT_FOUND / FAILED_PRECONDITION with ErrorInfo (reason, domain a2a-protocol.org)", async () => {
    expect(await status("1.0", "GetTask", { id: "nope" })).toEqual({
      code: Code.NotFound,
      info: { reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: expect.anything() },
    });
    const id = await finishedTask();
    expect(await status("1.0", "CancelTask", { id })).toMatchObject({
      code: Code.FailedPrecondition,
      info: { reason: "TASK_NOT_CANCELABLE" },
    });
  });

  it("0.3: NOT_FOUND and UNIMPLEMENTED (the de-facto mapping), ErrorInfo beside them", async () => {
    expect(await status("0.3", "GetTask", { name: "tasks/nope" })).toMatchObject({
      code: Code.NotFound,
      info: { reason: "TASK_NOT_FOUND" },
    });
    const id = await finishedTask();
    expect(await status("0.3", "CancelTask", { name: `tasks/${id}` })).toMatchObject({ code: Code.Unimplemented });
  });

  it("a2a-version other than the service's version: VersionNotSupportedError (FAILED_PRECONDITION, VERSION_NOT_SUPPORTED)", async () => {
    expect(await status("1.0", "GetTask", { id: "nope" }, { "a2a-version": "0.3" })).toMatchObject({
      code: Code.FailedPrecondition,
      info: { reason: "VERSION_NOT_SUPPORTED" },
    });
    expect(await status("1.0", "GetTask", { id: "nope" }, { "a2a-version": "1.0" })).toMatchObject({ code: Code.NotFound });
    expect(await status("0.3", "GetTask", { name: "tasks/nope" }, { "a2a-version": "1.0" })).toMatchObject({
      code: Code.FailedPrecondition,
    });
  });

  it("NaN/Infinity in a Struct, an out-of-range timestamp: INVALID_ARGUMENT with BadRequest; a 64 KB id: NOT_FOUND (issue 28)", async () => {
    const num = (value: number) => ({ fields: { x: { kind: { case: "numberValue", value } } } });
    const message = (version: "1.0" | "0.3") =>
      version === "1.0"
        ? { messageId: "m-nan", role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "echo x" } }] }
        : { messageId: "m-nan", role: v0_3.pb.Role.USER, content: [{ part: { case: "text", value: "echo x" } }] };
    for (const version of ["1.0", "0.3"] as const)
      for (const value of [NaN, Infinity, -Infinity]) {
        const input =
          version === "1.0" ? { message: message(version), metadata: num(value) } : { request: message(version), metadata: num(value) };
        expect(await status(version, "SendMessage", input)).toMatchObject({ code: Code.InvalidArgument });
      }
    expect(await status("1.0", "ListTasks", { statusTimestampAfter: { seconds: BigInt(1e15), nanos: 0 } })).toMatchObject({
      code: Code.InvalidArgument,
    });
    expect(await status("1.0", "GetTask", { id: "x".repeat(64 * 1024) })).toMatchObject({ code: Code.NotFound });
    expect(await status("0.3", "GetTask", { name: `tasks/${"x".repeat(64 * 1024)}` })).toMatchObject({ code: Code.NotFound });
  });

  it("a deadline ends the wait, not the task: the task runs on and completes", async () => {
    const transport = createGrpcTransport({ baseUrl: urls.serve });
    const method = v1_0.A2AService.methods.find((m) => m.name === "SendMessage")! as DescMethod & { methodKind: "unary" };
    const req = create(v1_0.SendMessageRequestSchema, {
      message: { messageId: "m-deadline", role: v1_0.Role.USER, parts: [{ content: { case: "text", value: "slow 400" } }] },
    });
    const err = await transport.unary(method, undefined, 100, {}, req as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.DeadlineExceeded);
    const c = await createA2AClient(urls.serve, { bindings: ["GRPC"], version: "1.0" });
    const listed = await c.listTasks({});
    const task = listed.tasks.find((t) => t.history.some((m) => m.messageId === "m-deadline"));
    expect(task).toBeDefined();
    // Wait for its end (a subscribe to a task that has already finished is refused: fine too).
    await collect(c.subscribeToTask({ id: task!.id }, { resubscribe: false })).catch(() => []);
    expect((await c.getTask({ id: task!.id })).status?.state).toBe(v1_0.TaskState.COMPLETED);
  });
});
