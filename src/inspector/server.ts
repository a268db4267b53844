// The inspector's local API and page server (`a2a-toolkit inspect`): a node:http server on loopback
// that serves the page (src/inspector/page/, plain files, no CDN) and a small JSON API the page
// calls. The API uses the toolkit's own parts: card discovery (cardCandidates), the reference client
// (createA2AClient, one per interface) and its fetch seam, through which every HTTP exchange of the
// session is recorded for the wire view. Credentials and headers live in the session, in memory,
// for as long as the inspector runs; nothing is written to disk.
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import * as v1_0 from "../../generated/v1_0/index.js";
import type { A2AClient } from "../client/index.js";
import type { JSONWebKeySet } from "jose";
import { jwksKeyResolver, verifyAgentCard } from "../security/card-signing.js";
import { judge, judgeOptions } from "./judge.js";
import { errorSummary, textOf } from "./render.js";
import { Session } from "./session.js";

export interface InspectorOptions {
  /** Port to listen on (0 = any free port). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1: the page is reachable from this machine only). */
  host?: string;
  /** An agent URL to connect to when the page opens. */
  url?: string;
}

export interface Inspector {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
/** Reports kept per session (older runs' reports are dropped). */
const MAX_REPORTS = 5;

/** Where the page's files are: beside this module (scripts/build.js copies them into dist/). */
function pageDir(): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), "page");
  if (!existsSync(join(dir, "index.html"))) throw new Error(`the inspector's page is missing from ${dir}`);
  return dir;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

export async function startInspector(opts: InspectorOptions = {}): Promise<Inspector> {
  const dir = pageDir();
  const sessions = new Map<string, Session>();
  const server = createServer((req, res) => {
    void route(req, res).catch((e: unknown) => json(res, 500, { error: `inspector: ${(e as Error).message}` }));
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://inspector");
    if (req.method === "GET" && !url.pathname.startsWith("/api/")) return servePage(res, url.pathname);
    if (req.method !== "POST" && !(req.method === "GET" && (url.pathname === "/api/wire" || url.pathname === "/api/report")))
      return json(res, 405, { error: `${req.method} ${url.pathname} is not part of the inspector's API` });
    if (url.pathname === "/api/wire") return json(res, 200, { exchanges: sessionOf(url.searchParams.get("session"))?.wire ?? [] });
    if (url.pathname === "/api/report") return serveReport(res, sessionOf(url.searchParams.get("session")), url.searchParams.get("run"));
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch (e) {
      return json(res, 400, { error: `the request body is not JSON: ${(e as Error).message}` });
    }
    if (url.pathname === "/api/connect") return connect(res, body);
    const session = sessionOf(body.session);
    if (!session) return json(res, 404, { error: "no such session: connect first" });
    if (url.pathname === "/api/send") return send(res, session, body);
    if (url.pathname === "/api/cancel") return cancel(res, session, body);
    if (url.pathname === "/api/task") return task(res, session, body);
    if (url.pathname === "/api/subscribe") return subscribe(res, session, body);
    if (url.pathname === "/api/verify") return verify(res, session, body);
    if (url.pathname === "/api/judge") return runJudge(res, session, body);
    if (url.pathname === "/api/record") return saveRecording(res, session, body);
    return json(res, 404, { error: `no inspector API at ${url.pathname}` });
  }

  function sessionOf(id: unknown): Session | undefined {
    return typeof id === "string" ? sessions.get(id) : undefined;
  }

  function servePage(res: ServerResponse, path: string): void {
    const name = path === "/" ? "index.html" : path.slice(1);
    if (!/^[a-z0-9-]+\.(html|js|css)$/.test(name) || !existsSync(join(dir, name))) return json(res, 404, { error: `no page file ${path}` });
    res.writeHead(200, {
      "content-type": TYPES[extname(name)]!,
      "cache-control": "no-store",
      // Nothing but the page's own files runs; agent content is only ever text (render.ts).
      "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'",
      "x-content-type-options": "nosniff",
    });
    res.end(
      name === "index.html"
        ? readFileSync(join(dir, name), "utf8").replace("__AGENT_URL__", escapeAttr(opts.url ?? ""))
        : readFileSync(join(dir, name)),
    );
  }

  async function connect(res: ServerResponse, body: Record<string, unknown>): Promise<void> {
    if (typeof body.url !== "string" || !body.url) return json(res, 400, { error: "give the agent's URL or its card's URL" });
    const headers = stringRecord(body.headers);
    const session = new Session(randomUUID(), body.url, headers);
    try {
      await session.discover();
    } catch (e) {
      return json(res, 502, { error: errorSummary(e), wire: session.wire });
    }
    sessions.set(session.id, session);
    if (sessions.size > 32) sessions.delete(sessions.keys().next().value!);
    return json(res, 200, session.describe());
  }

  async function send(res: ServerResponse, session: Session, body: Record<string, unknown>): Promise<void> {
    const iface = session.interfaces[Number(body.interface)];
    if (!iface) return json(res, 400, { error: `no interface ${String(body.interface)}` });
    const parts = partsOf(body);
    if (typeof parts === "string") return json(res, 400, { error: parts });
    const text = summaryOf(parts);
    const message = { messageId: randomUUID(), role: 1, parts, ...contextOf(body) };
    // returnImmediately (1.0; the client sends 0.3's blocking: false): the page then polls GetTask.
    const configuration = body.returnImmediately === true ? { configuration: { returnImmediately: true } } : {};
    if (body.stream !== true)
      return unary(res, session, Number(body.interface), "SendMessage", { text }, (client) =>
        client.sendMessage({ message, ...configuration }),
      );
    return relay(res, session, Number(body.interface), "SendStreamingMessage", { text }, (client, signal) =>
      client.sendStreamingMessage({ message }, { signal }),
    );
  }

  /** SubscribeToTask: the task's events from now on, relayed like a stream. */
  async function subscribe(res: ServerResponse, session: Session, body: Record<string, unknown>): Promise<void> {
    const index = Number(body.interface);
    if (!session.interfaces[index] || typeof body.taskId !== "string") return json(res, 400, { error: "give an interface and a taskId" });
    const id = body.taskId;
    return relay(res, session, index, "SubscribeToTask", { id }, (client, signal) => client.subscribeToTask({ id }, { signal }));
  }

  /** The page reads a stream as it comes: one SSE event per A2A stream event, then `end` (or `failure`). */
  async function relay(
    res: ServerResponse,
    session: Session,
    index: number,
    operation: string,
    request: unknown,
    open: (client: A2AClient, signal: AbortSignal) => AsyncIterable<v1_0.StreamResponse>,
  ): Promise<void> {
    const iface = session.interfaces[index]!;
    let client: A2AClient;
    try {
      client = await session.clientFor(index);
    } catch (e) {
      return json(res, 502, { error: errorSummary(e) });
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    const started = Date.now();
    let count = 0;
    try {
      for await (const event of open(client, gone.signal)) {
        count++;
        res.write(`data: ${JSON.stringify(session.view(event))}\n\n`);
      }
      session.note(iface, operation, request, `${count} events`, started, "OK");
      res.end(`event: end\ndata: ${JSON.stringify({ events: count })}\n\n`);
    } catch (e) {
      session.note(iface, operation, request, errorSummary(e), started, "error");
      if (!res.writableEnded) res.end(`event: failure\ndata: ${JSON.stringify({ error: errorSummary(e) })}\n\n`);
    }
  }

  async function cancel(res: ServerResponse, session: Session, body: Record<string, unknown>): Promise<void> {
    const index = Number(body.interface);
    if (!session.interfaces[index] || typeof body.taskId !== "string") return json(res, 400, { error: "give an interface and a taskId" });
    const request = { id: body.taskId };
    return unary(res, session, index, "CancelTask", request, (client) => client.cancelTask(request));
  }

  /** One call and its answer as JSON; a gRPC call is noted in the wire log either way. */
  async function unary(
    res: ServerResponse,
    session: Session,
    index: number,
    operation: string,
    request: unknown,
    call: (client: A2AClient) => Promise<Parameters<typeof textOf>[0]>,
  ): Promise<void> {
    const iface = session.interfaces[index]!;
    const started = Date.now();
    try {
      const answer = await call(await session.clientFor(index));
      session.note(iface, operation, request, textOf(answer), started, "OK");
      return json(res, 200, { answer: session.view(answer) });
    } catch (e) {
      session.note(iface, operation, request, errorSummary(e), started, "error");
      return json(res, 502, { error: errorSummary(e) });
    }
  }

  /** GetTask of a task (the page polls it after returnImmediately), or ListTasks of a context. */
  async function task(res: ServerResponse, session: Session, body: Record<string, unknown>): Promise<void> {
    const index = Number(body.interface);
    const list = body.op === "list";
    if (!session.interfaces[index] || (list ? typeof body.contextId !== "string" : typeof body.taskId !== "string"))
      return json(res, 400, { error: `give an interface and a ${list ? "contextId" : "taskId"}` });
    if (list) {
      const request = { contextId: body.contextId as string };
      return unary(res, session, index, "ListTasks", request, (client) => client.listTasks(request));
    }
    const request = { id: body.taskId as string };
    return unary(res, session, index, "GetTask", request, (client) => client.getTask(request));
  }

  /** The 1.0 card's signatures checked (JWS over RFC 8785, card-signing.ts) with the keys of the JWK Set the person trusts. */
  async function verify(res: ServerResponse, session: Session, body: Record<string, unknown>): Promise<void> {
    let jwks: JSONWebKeySet;
    try {
      jwks = JSON.parse(typeof body.jwks === "string" ? body.jwks : "") as JSONWebKeySet;
      if (!Array.isArray(jwks?.keys)) throw new Error('it has no "keys" array');
    } catch (e) {
      return json(res, 400, { error: `not a JWK Set: ${(e as Error).message}` });
    }
    if (!session.card1_0?.signatures.length) return json(res, 200, { checks: [] });
    const checks = await verifyAgentCard(session.card1_0, jwksKeyResolver(jwks));
    return json(res, 200, { checks });
  }

  /** The suite against the session's agent, as SSE: `progress` per case, then `report` (or `failure`). */
  async function runJudge(res: ServerResponse, session: Session, body: Record<string, unknown>): Promise<void> {
    const opts = judgeOptions(body);
    if (typeof opts === "string") return json(res, 400, { error: opts });
    if (session.judging) return json(res, 409, { error: "a suite run is already under way for this session" });
    session.judging = true;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    const event = (name: string, data: unknown) => res.writableEnded || res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    try {
      const outcome = await judge(session, opts, (p) => event("progress", p));
      session.reports.push(outcome.html);
      if (session.reports.length > MAX_REPORTS) session.reports[session.reports.length - 1 - MAX_REPORTS] = "";
      const { html: _html, ...rest } = outcome;
      event("report", { ...rest, run: session.reports.length - 1 });
    } catch (e) {
      event("failure", { error: errorSummary(e) });
    } finally {
      session.judging = false;
      res.end();
    }
  }

  /** The session as a recording in a new (or empty) directory; relative paths are under the inspector's working directory. */
  async function saveRecording(res: ServerResponse, session: Session, body: Record<string, unknown>): Promise<void> {
    if (typeof body.dir !== "string" || !body.dir.trim()) return json(res, 400, { error: "give a directory to save the recording into" });
    const dir = resolve(body.dir.trim());
    if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length))
      return json(res, 409, { error: `${dir} is not an empty directory: choose a new or empty one` });
    try {
      const saved = await session.saveRecording(dir);
      if (!saved.files.length) return json(res, 400, { error: "nothing to record yet: talk to the agent over HTTP first", ...saved });
      return json(res, 200, { dir, ...saved });
    } catch (e) {
      return json(res, 500, { error: `could not save the recording in ${dir}: ${(e as Error).message}` });
    }
  }

  /** A run's report, the same HTML as `test --report html=`: no script, so its CSP allows none. */
  function serveReport(res: ServerResponse, session: Session | undefined, run: string | null): void {
    const html = session?.reports[Number(run)];
    if (!html) return json(res, 404, { error: "no such report" });
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'",
      "x-content-type-options": "nosniff",
    });
    res.end(html);
  }

  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => ok());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host ?? "127.0.0.1";
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/`,
    close: () => closeServer(server),
  };
}

/**
 * The message's parts from the page: its text, a data part (JSON text) and a file (base64 bytes
 * with its name and media type), in that order; a text part alone when nothing else is given.
 * Returns why not when the data is not JSON or the file is not base64.
 */
function partsOf(body: Record<string, unknown>): v1_0.Part[] | string {
  const parts: v1_0.Part[] = [];
  const text = typeof body.text === "string" ? body.text : "";
  if (typeof body.data === "string" && body.data.trim()) {
    let data: JsonValue;
    try {
      data = JSON.parse(body.data) as JsonValue;
    } catch (e) {
      return `the data part is not JSON: ${(e as Error).message}`;
    }
    parts.push(create(v1_0.PartSchema, { content: { case: "data", value: fromJson(ValueSchema, data) } }));
  }
  const file = body.file as { name?: unknown; mediaType?: unknown; base64?: unknown } | undefined;
  if (file && typeof file === "object") {
    if (typeof file.base64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(file.base64)) return "the file's bytes are not base64";
    parts.push(
      create(v1_0.PartSchema, {
        content: { case: "raw", value: new Uint8Array(Buffer.from(file.base64, "base64")) },
        filename: typeof file.name === "string" ? file.name : "",
        mediaType: typeof file.mediaType === "string" && file.mediaType ? file.mediaType : "application/octet-stream",
      }),
    );
  }
  if (text || !parts.length) parts.unshift(create(v1_0.PartSchema, { content: { case: "text", value: text } }));
  return parts;
}

/** What the wire log notes of a gRPC call's message: its text and its other parts in brief. */
function summaryOf(parts: v1_0.Part[]): string {
  return parts
    .map((p) =>
      p.content.case === "text"
        ? p.content.value
        : p.content.case === "raw"
          ? `[file ${p.filename} ${p.mediaType}, ${p.content.value.length} bytes]`
          : `[${p.content.case ?? "empty"} part]`,
    )
    .join(" ");
}

function contextOf(body: Record<string, unknown>): { taskId?: string; contextId?: string } {
  return {
    ...(typeof body.taskId === "string" && body.taskId ? { taskId: body.taskId } : {}),
    ...(typeof body.contextId === "string" && body.contextId ? { contextId: body.contextId } : {}),
  };
}

function stringRecord(v: unknown): Record<string, string> {
  if (!v || typeof v !== "object") return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string" && e[0] !== ""));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        fail(new Error(`larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => ok(Buffer.concat(chunks).toString("utf8") || "{}"));
    req.on("error", fail);
  });
}

function escapeAttr(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
}
