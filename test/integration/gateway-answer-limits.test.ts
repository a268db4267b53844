// The gateway bounds what it reads of a backend's answer (issue 28, failure 8; http-fetch.ts): an
// answer, a stream event or a stream past its byte limit is not read further, and the local task
// ends FAILED with a message naming the limit (follow.ts / runtime.ts answerTooLarge).
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, textMessage } from "../../src/client/index.js";
import { answerTooLarge, createHttpFetch } from "../../src/gateway/http-fetch.js";
import { buildGateway } from "../../src/gateway/index.js";
import { buildServer, createFixtureAgent, reply, type Agent } from "../../src/server/index.js";
import { listenHttp, serverGroup } from "../support/servers.js";

const S = v1_0.TaskState;
const { listen, close } = serverGroup();
let gateway: string;

/** Answers `big <bytes>` with one text part of that many bytes; the rest as the fixture agent. */
const fixture = createFixtureAgent();
const agent: Agent = {
  card: fixture.card,
  handleMessage(message, ctx) {
    const m = /^big (\d+)$/.exec(message.parts[0]?.content.case === "text" ? message.parts[0].content.value : "");
    return m ? reply({ text: "x".repeat(Number(m[1])) }) : fixture.handleMessage(message, ctx);
  },
};

beforeAll(async () => {
  const backend = await listen(await buildServer({ agent, versions: ["1.0"] }));
  gateway = await listen(
    await buildGateway({
      gateway: { backends: [{ name: "b", url: backend }] },
      backendLimits: { maxAnswerBytes: 64 * 1024, maxEventBytes: 64 * 1024, maxStreamBytes: 256 * 1024 },
    }),
  );
});
afterAll(close);

const failureText = (t: v1_0.Task) => (t.status?.message?.parts[0]?.content.value as string | undefined) ?? "";

describe("gateway: a backend's answer past the byte limits", () => {
  it("a blocking answer over maxAnswerBytes: the task is FAILED, naming the limit", { timeout: 20_000 }, async () => {
    const client = await createA2AClient(gateway, { versions: ["1.0"], bindings: ["JSONRPC"] });
    const r = await client.sendMessage({ message: textMessage("big 200000") });
    const task = r.payload.value as v1_0.Task;
    expect(task.status?.state).toBe(S.FAILED);
    expect(failureText(task)).toContain("maxAnswerBytes");
  });

  it("an answer under the limit passes", { timeout: 20_000 }, async () => {
    const client = await createA2AClient(gateway, { versions: ["1.0"], bindings: ["JSONRPC"] });
    const r = await client.sendMessage({ message: textMessage("big 1000") });
    expect((r.payload.value as v1_0.Task).status?.state).toBe(S.COMPLETED);
  });
});

describe("the gateway's fetch: SSE streams past their limits are cut", () => {
  /** A backend answering SSE: `events` events of `size` bytes each. */
  async function sse(events: number, size: number): Promise<string> {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < events; i++) res.write(`data: ${"x".repeat(size)}\n\n`);
      res.end();
    });
    return listenHttp(server).then((url) => (servers.push(server), url));
  }
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));
  const read = async (url: string) => {
    const f = createHttpFetch({ maxEventBytes: 10_000, maxStreamBytes: 100_000 });
    try {
      return await (await f(url)).text();
    } finally {
      f.close();
    }
  };

  it("one event over maxEventBytes", async () => {
    const e = await read(await sse(1, 50_000)).catch((x: unknown) => x);
    expect(answerTooLarge(e)?.message).toContain("maxEventBytes");
  });
  it("a stream over maxStreamBytes", async () => {
    const e = await read(await sse(100, 5_000)).catch((x: unknown) => x);
    expect(answerTooLarge(e)?.message).toContain("maxStreamBytes");
  });
  it("a stream within both passes whole", async () => {
    expect((await read(await sse(10, 5_000))).length).toBe(10 * 5_008);
  });
});
