import { afterEach, describe, expect, it } from "vitest";
import { runStep } from "../../src/compliance/runner.js";
import { startWebhookSink, type WebhookSink } from "../../src/compliance/webhook-sink.js";

describe("webhook receiver", () => {
  let sink: WebhookSink | undefined;
  afterEach(async () => {
    await sink?.close();
    sink = undefined;
  });

  it("records calls per case run and wakes a waiter when a matching call arrives", async () => {
    sink = await startWebhookSink({ host: "127.0.0.1", port: 0 });
    const url = sink.urlFor("run-1");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run-1$/);
    const waiting = sink.waitFor("run-1", (d) => (d.json as { n?: number } | undefined)?.n === 2, 5_000);
    for (const n of [1, 2]) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/a2a+json", authorization: "Bearer x" },
        body: JSON.stringify({ n }),
      });
      expect(res.status).toBe(200);
    }
    await fetch(sink.urlFor("run-2"), { method: "POST", body: "not json" });
    expect(await waiting).toBe(true);
    const calls = sink.deliveries("run-1");
    expect(calls.map((d) => [d.method, d.headers["content-type"], d.headers.authorization, d.json])).toEqual([
      ["POST", "application/a2a+json", "Bearer x", { n: 1 }],
      ["POST", "application/a2a+json", "Bearer x", { n: 2 }],
    ]);
    const [other] = sink.deliveries("run-2");
    expect(other?.text).toBe("not json");
    expect(other?.json).toBeUndefined();
  });

  it("a wait for a call that never comes ends false at its bound; a public URL replaces the listen address", async () => {
    sink = await startWebhookSink({ host: "127.0.0.1", port: 0 }, "https://hooks.example.test/base/");
    expect(sink.urlFor("r")).toBe("https://hooks.example.test/base/r");
    expect(await sink.waitFor("r", () => true, 50)).toBe(false);
  });

  it("a webhook step names the $variants alternatives its calls took, and fails a call that takes none", async () => {
    sink = await startWebhookSink({ host: "127.0.0.1", port: 0 });
    const contentType = { $variants: { "1.0.1": { $regex: "^application/a2a\\+json" }, "1.0.0": { $regex: "^application/json" } } };
    const step = { name: "webhook calls", awaitWebhook: { until: { done: true }, each: { headers: { "content-type": contentType } } } };
    const run = async (runId: string, types: string[]) => {
      for (const [i, type] of types.entries())
        await fetch(sink!.urlFor(runId), {
          method: "POST",
          headers: { "content-type": type },
          body: JSON.stringify({ done: i === types.length - 1 }),
        });
      const opts = { timeoutMs: 1_000, streamTimeoutMs: 1_000, taskTimeoutMs: 1_000, webhook: sink, runId, version: "1.0" as const };
      const [result] = await runStep(step, 0, { interface: "", agent: "", card: "" }, new Map(), opts);
      return result!;
    };
    const ok = await run("a", ["application/json", "application/json; charset=utf-8"]);
    expect(ok.status).toBe("pass");
    expect(ok.variants).toEqual({ "/deliveries/*/headers/content-type": "1.0.0" });
    const mixed = await run("c", ["application/a2a+json", "application/json"]);
    expect(mixed.variants).toEqual({ "/deliveries/*/headers/content-type": "1.0.1 and 1.0.0" });
    const bad = await run("b", ["application/a2a+json", "text/plain"]);
    expect(bad.status).toBe("fail");
    expect(bad.diffs.map((d) => d.path)).toEqual(["/deliveries/1/headers/content-type"]);
  });
});
