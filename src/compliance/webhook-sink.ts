// A webhook receiver for the push-notification cases: a small HTTP server the runner starts when
// asked (`--webhook-listen`), which answers every POST with 200 and records it. Each case run gets
// its own path below the base URL, so deliveries are attributed to the case that registered them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  method: string;
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
  json?: unknown;
  receivedAt: string;
}

export interface WebhookSink {
  /** The URL agents are told to call, for one case run. */
  urlFor(runId: string): string;
  deliveries(runId: string): Delivery[];
  /** Resolves when a delivery for runId satisfies `accept`, or with false after timeoutMs. */
  waitFor(runId: string, accept: (d: Delivery) => boolean, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

export async function startWebhookSink(listen: { host: string; port: number }, publicUrl?: string): Promise<WebhookSink> {
  const byRun = new Map<string, Delivery[]>();
  const waiters = new Set<{ runId: string; accept: (d: Delivery) => boolean; done: () => void }>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => {
      const [path = "/"] = (req.url ?? "/").split("?", 1);
      const runId = path.split("/").filter(Boolean)[0] ?? "";
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
      const text = Buffer.concat(chunks).toString("utf8");
      const d: Delivery = { method: req.method ?? "", path, headers, text, receivedAt: new Date().toISOString() };
      try {
        d.json = JSON.parse(text);
      } catch {
        // kept as text; the case's expectations say what was wrong
      }
      byRun.set(runId, [...(byRun.get(runId) ?? []), d]);
      for (const w of [...waiters]) if (w.runId === runId && w.accept(d)) w.done();
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const base = (publicUrl ?? `http://${host}:${addr.port}`).replace(/\/+$/, "");
  return {
    urlFor: (runId) => `${base}/${runId}`,
    deliveries: (runId) => [...(byRun.get(runId) ?? [])],
    waitFor(runId, accept, timeoutMs) {
      if ((byRun.get(runId) ?? []).some(accept)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const w = {
          runId,
          accept,
          done: () => {
            clearTimeout(timer);
            waiters.delete(w);
            resolve(true);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          resolve(false);
        }, timeoutMs);
        waiters.add(w);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
