import { afterEach, describe, expect, it } from "vitest";
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
});
