// The reference server over real sockets, the same scenarios in all four wire forms:
// 1.0 JSON-RPC, 1.0 HTTP+JSON, 0.3 JSON-RPC, 0.3 HTTP+JSON; over the fastify and the node:http adapter.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixtureAgent } from "../../src/server/index.js";
import { ADAPTERS, startServer, type RunningServer } from "../support/servers.js";
import { SseDecoder } from "../../src/transport/sse.js";

let server: RunningServer;
let base: string;

type Json = Record<string, unknown>;
interface Outcome {
  kind: "task" | "message" | "error";
  id?: string;
  contextId?: string;
  state?: string;
  artifactTexts?: string[];
  statusText?: string;
  text?: string;
  error?: string;
  historyLength?: number;
}
interface Event {
  kind: "task" | "message" | "status" | "artifact" | "error";
  state?: string;
  final?: boolean;
  text?: string;
  append?: boolean;
  lastChunk?: boolean;
  id?: string;
}

const CODE_NAMES: Record<number, string> = {
  [-32001]: "TaskNotFound",
  [-32002]: "TaskNotCancelable",
  [-32004]: "UnsupportedOperation",
  [-32006]: "InvalidAgentResponse",
  [-32602]: "InvalidParams",
  [-32601]: "MethodNotFound",
};
const REASON_NAMES: Record<string, string> = {
  TASK_NOT_FOUND: "TaskNotFound",
  TASK_NOT_CANCELABLE: "TaskNotCancelable",
  UNSUPPORTED_OPERATION: "UnsupportedOperation",
};

function normState(s: unknown): string {
  return String(s)
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replace(/_/g, "-")
    .replace("cancelled", "canceled");
}

function partText(p: Json): string | undefined {
  return typeof p.text === "string" ? p.text : undefined;
}

function partsOf(m: Json | undefined): Json[] {
  return ((m?.parts ?? m?.content ?? []) as Json[]) || [];
}

function outcomeOf(result: Json): Outcome {
  // SendMessage wraps ({task} / 0.3 kind:"task"); GetTask and CancelTask answer a bare Task.
  const task = (result.kind === "task" || (result.status && result.id) ? result : result.task) as Json | undefined;
  const msg = (result.kind === "message" ? result : result.message) as Json | undefined;
  if (task) {
    const status = task.status as Json;
    return {
      kind: "task",
      id: task.id as string,
      contextId: task.contextId as string,
      state: normState(status.state),
      artifactTexts: ((task.artifacts ?? []) as Json[]).flatMap((a) =>
        partsOf(a)
          .map(partText)
          .filter((t): t is string => t !== undefined),
      ),
      statusText: partsOf((status.message ?? status.update) as Json | undefined).map(partText)[0],
      historyLength: ((task.history ?? []) as Json[]).length,
    };
  }
  if (msg) return { kind: "message", text: partsOf(msg).map(partText)[0] };
  throw new Error(`unexpected result ${JSON.stringify(result)}`);
}

function eventOf(item: Json): Event {
  const kind = item.kind as string | undefined;
  if (kind === "task" || item.task) {
    const t = (item.task ?? item) as Json;
    return { kind: "task", id: t.id as string, state: normState((t.status as Json).state) };
  }
  if (kind === "message" || item.message) return { kind: "message", text: partsOf((item.message ?? item) as Json).map(partText)[0] };
  if (kind === "status-update" || item.statusUpdate) {
    const e = (item.statusUpdate ?? item) as Json;
    return { kind: "status", state: normState((e.status as Json).state), ...(typeof e.final === "boolean" ? { final: e.final } : {}) };
  }
  if (kind === "artifact-update" || item.artifactUpdate) {
    const e = (item.artifactUpdate ?? item) as Json;
    return {
      kind: "artifact",
      text: partsOf(e.artifact as Json).map(partText)[0],
      append: Boolean(e.append),
      lastChunk: Boolean(e.lastChunk),
    };
  }
  throw new Error(`unexpected event ${JSON.stringify(item)}`);
}

interface Wire {
  name: string;
  send(
    text: string,
    opts?: { taskId?: string; contextId?: string; immediate?: boolean; messageId?: string; historyLength?: number },
  ): Promise<Outcome>;
  get(id: string, historyLength?: number): Promise<Outcome>;
  cancel(id: string): Promise<Outcome>;
  stream(text: string, opts?: { taskId?: string; messageId?: string }): Promise<Event[]>;
  subscribe(id: string): Promise<Event[] | Outcome>;
  list?(query: string): Promise<Json | Outcome>;
}

let seq = 0;
const mid = () => `wire-${++seq}`;

async function readSse(res: Response): Promise<Json[]> {
  const d = new SseDecoder();
  const text = await res.text();
  return [...d.feed(text), ...d.flush()].map((e) => JSON.parse(e.data) as Json);
}

function rpcWire(version: "1.0" | "0.3"): Wire {
  const v1 = version === "1.0";
  const headers: Record<string, string> = { "content-type": "application/json", ...(v1 ? { "A2A-Version": "1.0" } : {}) };
  let id = 0;
  const post = (method: string, params: Json) =>
    fetch(`${base}/`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) });
  const call = async (method: string, params: Json): Promise<Outcome | Json> => {
    const res = await post(method, params);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.id).toBe(id);
    if (body.error) return { kind: "error", error: CODE_NAMES[(body.error as Json).code as number] ?? String((body.error as Json).code) };
    return body.result as Json;
  };
  const asOutcome = (r: Outcome | Json): Outcome => (r.kind === "error" ? (r as Outcome) : outcomeOf(r as Json));
  const message = (text: string, o: { taskId?: string; contextId?: string; messageId?: string }) =>
    v1
      ? {
          messageId: o.messageId ?? mid(),
          role: "ROLE_USER",
          parts: [{ text }],
          ...(o.taskId ? { taskId: o.taskId } : {}),
          ...(o.contextId ? { contextId: o.contextId } : {}),
        }
      : {
          kind: "message",
          messageId: o.messageId ?? mid(),
          role: "user",
          parts: [{ kind: "text", text }],
          ...(o.taskId ? { taskId: o.taskId } : {}),
          ...(o.contextId ? { contextId: o.contextId } : {}),
        };
  return {
    name: `${version} JSON-RPC`,
    send: async (text, o = {}) =>
      asOutcome(
        await call(v1 ? "SendMessage" : "message/send", {
          message: message(text, o),
          configuration: {
            ...(v1 ? (o.immediate ? { returnImmediately: true } : {}) : { blocking: !o.immediate }),
            ...(o.historyLength !== undefined ? { historyLength: o.historyLength } : {}),
          },
        }),
      ),
    get: async (tid, historyLength) =>
      asOutcome(await call(v1 ? "GetTask" : "tasks/get", { id: tid, ...(historyLength !== undefined ? { historyLength } : {}) })),
    cancel: async (tid) => asOutcome(await call(v1 ? "CancelTask" : "tasks/cancel", { id: tid })),
    stream: async (text, o = {}) => {
      const res = await post(v1 ? "SendStreamingMessage" : "message/stream", { message: message(text, o) });
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      return (await readSse(res)).map((env) => {
        expect(env.id).toBe(id);
        if (env.error) return { kind: "error", text: CODE_NAMES[(env.error as Json).code as number] };
        return eventOf(env.result as Json);
      });
    },
    subscribe: async (tid) => {
      const res = await post(v1 ? "SubscribeToTask" : "tasks/resubscribe", { id: tid });
      if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
        const body = (await res.json()) as Json;
        return { kind: "error", error: CODE_NAMES[(body.error as Json).code as number] };
      }
      return (await readSse(res)).map((env) => eventOf(env.result as Json));
    },
    ...(v1
      ? {
          list: async (query: string) => {
            const params = Object.fromEntries(new URLSearchParams(query)) as Json;
            if (params.pageSize) params.pageSize = Number(params.pageSize);
            if (params.includeArtifacts) params.includeArtifacts = params.includeArtifacts === "true";
            return await call("ListTasks", params);
          },
        }
      : {}),
  };
}

function restWire(version: "1.0" | "0.3"): Wire {
  const v1 = version === "1.0";
  const root = () => (v1 ? base : `${base}/v1`);
  const headers: Record<string, string> = {
    "content-type": v1 ? "application/a2a+json" : "application/json",
    ...(v1 ? { "A2A-Version": "1.0" } : {}),
  };
  const req = async (method: string, path: string, body?: Json): Promise<Outcome | Json> => {
    const res = await fetch(`${root()}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const json = (await res.json()) as Json;
    if (res.status !== 200) {
      const err = json.error as Json;
      expect(err.code).toBe(res.status);
      const info = ((err.details ?? []) as Json[]).find((d) => String(d["@type"]).endsWith("ErrorInfo"));
      return {
        kind: "error",
        error: REASON_NAMES[info?.reason as string] ?? (typeof info?.reason === "string" ? info.reason : String(res.status)),
      };
    }
    expect(res.headers.get("content-type")).toMatch(v1 ? /^application\/a2a\+json/ : /^application\/json/);
    return json;
  };
  const asOutcome = (r: Outcome | Json): Outcome => (r.kind === "error" ? (r as Outcome) : outcomeOf(r as Json));
  const message = (text: string, o: { taskId?: string; contextId?: string; messageId?: string }) => ({
    messageId: o.messageId ?? mid(),
    role: "ROLE_USER",
    [v1 ? "parts" : "content"]: [{ text }],
    ...(o.taskId ? { taskId: o.taskId } : {}),
    ...(o.contextId ? { contextId: o.contextId } : {}),
  });
  return {
    name: `${version} HTTP+JSON`,
    send: async (text, o = {}) =>
      asOutcome(
        await req("POST", "/message:send", {
          message: message(text, o),
          configuration: {
            ...(v1 ? (o.immediate ? { returnImmediately: true } : {}) : { blocking: !o.immediate }),
            ...(o.historyLength !== undefined ? { historyLength: o.historyLength } : {}),
          },
        }),
      ),
    get: async (tid, historyLength) =>
      asOutcome(await req("GET", `/tasks/${tid}${historyLength !== undefined ? `?historyLength=${historyLength}` : ""}`)),
    cancel: async (tid) => asOutcome(await req("POST", `/tasks/${tid}:cancel`, {})),
    stream: async (text, o = {}) => {
      const res = await fetch(`${root()}/message:stream`, { method: "POST", headers, body: JSON.stringify({ message: message(text, o) }) });
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      return (await readSse(res)).map(eventOf);
    },
    subscribe: async (tid) => {
      const res = await fetch(`${root()}/tasks/${tid}:subscribe`, { headers });
      if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
        const json = (await res.json()) as Json;
        const info = (((json.error as Json).details ?? []) as Json[])[0];
        return { kind: "error", error: REASON_NAMES[info?.reason as string] };
      }
      return (await readSse(res)).map(eventOf);
    },
    ...(v1 ? { list: async (query: string) => await req("GET", `/tasks?${query}`) } : {}),
  };
}

const wires = [rpcWire("1.0"), restWire("1.0"), rpcWire("0.3"), restWire("0.3")];

describe.each(ADAPTERS)("over %s", (adapter) => {
  beforeAll(async () => {
    server = await startServer(adapter, { agent: createFixtureAgent() });
    base = server.url;
  });
  afterAll(() => server.close());

  describe.each(wires.map((w) => [w.name, w] as const))("%s", (_name, w) => {
    it("echo completes with the text as an artifact; GetTask returns the same task", async () => {
      const t = await w.send("echo hello there");
      expect(t).toMatchObject({ kind: "task", state: "completed", artifactTexts: ["hello there"] });
      expect(t.id).toBeTruthy();
      expect(t.contextId).toBeTruthy();
      const g = await w.get(t.id!);
      expect(g).toMatchObject({ kind: "task", id: t.id, state: "completed", artifactTexts: ["hello there"] });
    });

    it("msg answers with a bare message, no task", async () => {
      expect(await w.send("msg plain words")).toEqual({ kind: "message", text: "plain words" });
    });

    it("ask is input-required; the follow-up in the same task completes it with the follow-up's text", async () => {
      const t = await w.send("ask");
      expect(t).toMatchObject({ state: "input-required", statusText: "What should I echo back?" });
      const done = await w.send("the follow-up", { taskId: t.id });
      expect(done).toMatchObject({ id: t.id, contextId: t.contextId, state: "completed", artifactTexts: ["the follow-up"] });
    });

    it("auth is auth-required, then completes", async () => {
      const t = await w.send("auth");
      expect(t.state).toBe("auth-required");
      expect((await w.send("creds", { taskId: t.id })).state).toBe("completed");
    });

    it("fail fails with a status message; parts returns four parts", async () => {
      expect(await w.send("fail")).toMatchObject({ state: "failed", statusText: "The fixture agent failed as requested." });
      const p = await w.send("parts");
      expect(p.state).toBe("completed");
      expect(p.artifactTexts).toEqual(["Here are four kinds of part."]);
    });

    it("historyLength limits the returned history", async () => {
      const t = await w.send("ask");
      await w.send("answer", { taskId: t.id });
      expect((await w.get(t.id!)).historyLength).toBe(3);
      expect((await w.get(t.id!, 1)).historyLength).toBe(1);
    });

    it("errors: unknown task, message to a terminal task, cancel of a terminal task", async () => {
      expect((await w.get("no-such-task")).error).toBe("TaskNotFound");
      const t = await w.send("echo x");
      expect((await w.send("more", { taskId: t.id })).error).toBe("UnsupportedOperation");
      expect((await w.cancel(t.id!)).error).toBe("TaskNotCancelable");
      expect((await w.cancel("no-such-task")).error).toBe("TaskNotFound");
    });

    it("slow with returnImmediately (0.3: blocking false) answers working; cancel ends it canceled", async () => {
      const t = await w.send("slow 60000", { immediate: true });
      expect(t.state).toBe("working");
      const c = await w.cancel(t.id!);
      expect(c).toMatchObject({ id: t.id, state: "canceled" });
      expect((await w.get(t.id!)).state).toBe("canceled");
    });

    it("stream 3: task first, working, three chunks of one artifact, completed", async () => {
      const events = await w.stream("stream 3");
      expect(events.map((e) => e.kind)).toEqual(["task", "status", "artifact", "artifact", "artifact", "status"]);
      expect(events.filter((e) => e.kind === "artifact").map((e) => [e.text, e.append, e.lastChunk])).toEqual([
        ["chunk 1/3", false, false],
        ["chunk 2/3", true, false],
        ["chunk 3/3", true, true],
      ]);
      expect(events.at(-1)?.state).toBe("completed");
      if (w.name.startsWith("0.3")) expect(events.at(-1)?.final).toBe(true);
    });

    it("a message-only stream is exactly one message", async () => {
      expect(await w.stream("msg hi")).toEqual([{ kind: "message", text: "hi" }]);
    });

    it("subscribe to a running task: the current task first, then live events to the end", async () => {
      const t = await w.send("slow 300", { immediate: true });
      const events = (await w.subscribe(t.id!)) as Event[];
      expect(events[0]).toMatchObject({ kind: "task", id: t.id, state: "working" });
      expect(events.at(-1)).toMatchObject({ kind: "status", state: "completed" });
    });

    it("subscribe to a finished task: 1.0 UnsupportedOperation, 0.3 the task then close", async () => {
      const t = await w.send("echo done");
      const r = await w.subscribe(t.id!);
      if (w.name.startsWith("1.0")) expect(r).toMatchObject({ kind: "error", error: "UnsupportedOperation" });
      else expect(r).toEqual([{ kind: "task", id: t.id, state: "completed" }]);
    });

    it("TCK scenarios selected by messageId prefix", async () => {
      expect(await w.send("hi", { messageId: "tck-complete-task-1" })).toMatchObject({ state: "completed", statusText: "Hello from TCK" });
      expect(await w.send("hi", { messageId: "tck-artifact-text-1" })).toMatchObject({ artifactTexts: ["Generated text content"] });
      expect(await w.send("hi", { messageId: "tck-message-response-1" })).toEqual({ kind: "message", text: "Direct message response" });
      expect((await w.send("hi", { messageId: "tck-input-required-1" })).state).toBe("input-required");
      expect((await w.send("hi", { messageId: "tck-reject-task-1" })).state).toBe("rejected");
      const chunked = await w.stream("hi", { messageId: "tck-stream-artifact-chunked-1" });
      expect(chunked.filter((e) => e.kind === "artifact").map((e) => [e.text, e.lastChunk])).toEqual([
        ["chunk-1 ", false],
        ["chunk-2", true],
      ]);
    });
  });

  describe("ListTasks", () => {
    it("1.0 (both bindings): filters by context, pages with an always-present nextPageToken, omits artifacts unless asked", async () => {
      for (const w of wires.slice(0, 2)) {
        const ctx = `list-${w.name.replace(/\W/g, "")}`;
        for (let i = 0; i < 3; i++) await w.send(`echo ${i}`, { contextId: ctx });
        const p1 = (await w.list!(`contextId=${ctx}&pageSize=2`)) as Json;
        expect(p1.totalSize).toBe(3);
        expect((p1.tasks as Json[]).length).toBe(2);
        expect((p1.tasks as Json[])[0]).not.toHaveProperty("artifacts");
        expect(typeof p1.nextPageToken).toBe("string");
        expect(p1.nextPageToken).not.toBe("");
        const p2 = (await w.list!(
          `contextId=${ctx}&pageSize=2&pageToken=${encodeURIComponent(p1.nextPageToken as string)}&includeArtifacts=true`,
        )) as Json;
        expect((p2.tasks as Json[]).length).toBe(1);
        expect(p2.nextPageToken).toBe("");
        expect((p2.tasks as Json[])[0]).toHaveProperty("artifacts");
      }
    });

    it("0.3 has no ListTasks: UnsupportedOperation", async () => {
      const res = await fetch(`${base}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tasks/list", params: {} }),
      });
      expect(((await res.json()) as Json).error).toMatchObject({ code: -32004 });
    });
  });
});
