// The fixture agent's ACTS behaviours (ACTS §11: the first text part names the behaviour), through
// the reference client against the reference server on 127.0.0.1, A2A 1.0 over JSON-RPC and
// HTTP+JSON, and 0.3 over JSON-RPC through the translation layer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as v1_0 from "../../generated/v1_0/index.js";
import { createA2AClient, textMessage, type A2AClient } from "../../src/client/index.js";
import { ACTS_PREFIXES, createFixtureAgent } from "../../src/server/fixture/fixture-agent.js";
import { ACTS_BEHAVIOUR_CHECKS, ACTS_CHECKED_PREFIXES } from "../support/acts-behaviours.js";
import { startServer, type RunningServer } from "../support/servers.js";

const S = v1_0.TaskState;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer("fastify", { agent: createFixtureAgent({ longRunningMs: 50 }) });
});
afterAll(() => server.close());

it("the fixture answers every prefix the checks cover, and its card lists them", async () => {
  expect([...ACTS_PREFIXES].sort()).toEqual([...ACTS_CHECKED_PREFIXES].sort());
  const client = await createA2AClient(server.url);
  const ext = client.card.capabilities?.extensions.find((e) => e.uri === "urn:a2a-toolkit:fixture-agent:v1");
  expect(ext?.params).toMatchObject({ acts: ACTS_PREFIXES });
});

const matrix = [
  { version: "1.0", binding: "JSONRPC" },
  { version: "1.0", binding: "HTTP+JSON" },
  { version: "0.3", binding: "JSONRPC" },
] as const;

describe.each(matrix)("A2A $version over $binding", ({ version, binding }) => {
  let client: A2AClient;
  beforeAll(async () => {
    client = await createA2AClient(server.url, { version, bindings: [binding] });
  });

  it.concurrent.each(ACTS_CHECKED_PREFIXES)("%s", async (prefix) => {
    await ACTS_BEHAVIOUR_CHECKS[prefix]!(client);
  });

  it("the messageId prefix of the official kit still wins over the text; unknown tck text is echoed", async () => {
    const byId = await client.sendMessage({ message: { ...textMessage("tck-task-failure"), messageId: `tck-complete-task-${version}` } });
    expect((byId.payload.value as v1_0.Task).status?.state).toBe(S.COMPLETED);
    const unknown = (await client.sendMessage({ message: textMessage("tck-no-such-behaviour hi") })).payload.value as v1_0.Task;
    expect(unknown.status?.state).toBe(S.COMPLETED);
    expect(unknown.artifacts[0]?.parts[0]?.content.value).toBe("tck-no-such-behaviour hi");
  });

  it("a follow-up other than a multi-turn one still completes an interrupted task with its text", async () => {
    const t = (await client.sendMessage({ message: textMessage("tck-input-required q") })).payload.value as v1_0.Task;
    const done = (await client.sendMessage({ message: textMessage("done", { taskId: t.id }) })).payload.value as v1_0.Task;
    expect(done.status?.state).toBe(S.COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content.value).toBe("done");
  });
});
