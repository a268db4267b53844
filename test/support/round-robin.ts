// A round-robin HTTP proxy over several upstreams (the replica tests, bench/replicas.ts): each
// request goes to the next upstream in turn, Host and body passed through, the answer (SSE too)
// streamed back. An upstream that refuses the connection is skipped for that request, as a load
// balancer's health check would.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export interface RoundRobin {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startRoundRobin(upstreams: string[]): Promise<RoundRobin> {
  let next = 0;
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number) => {
    const target = new URL(upstreams[next++ % upstreams.length]!);
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on("error", () => {
      if (res.headersSent) res.destroy();
      else if (tries + 1 < upstreams.length) forward(req, res, body, tries + 1);
      else res.writeHead(502).end();
    });
    res.on("close", () => up.destroy());
    up.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), 0));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
