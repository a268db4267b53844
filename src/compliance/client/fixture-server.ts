// The fixture server of client compliance: a plain node:http server (not the reference server,
// so the judge stays independent of what it judges) that plays the server side of one client
// case. It serves the case's agent card at /.well-known/agent-card.json, answers the client's
// requests with the case's recorded responses in order, and records every request with the
// differences from what the case expected.
//
// Matching: each incoming request (other than a card fetch) is compared with the next expected
// exchange; an exchange marked `optional` that does not match is passed over. A request that
// matches no remaining exchange is answered with HTTP 500 and recorded as unexpected. Captures
// made while matching a request ({"$capture": "rpcId"}) are available to its response and to
// later exchanges ("id": "{{rpcId}}").
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Scope, match, render, type Diff } from "../match.js";
import { fromJson } from "@bufbuild/protobuf";
import { decodeCall } from "../../transport/server.js";
import { encode1_0, OPERATIONS, type Operation } from "../../versioning/codec.js";
import { decodeGrpcRequest } from "../../versioning/grpc.js";
import { grpcMethod } from "../grpc.js";
import type { ClientCase, ClientExchange, RequestView } from "./cases.js";
import { startGrpcFixture, type GrpcFixture } from "./grpc-fixture.js";
import { PROTOCOL_BINDING } from "../discovery.js";

export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  json?: unknown;
}

export interface ExchangeOutcome {
  exchange: ClientExchange;
  index: number;
  request?: RecordedRequest;
  diffs: Diff[];
  status: "pass" | "fail" | "not received" | "skipped";
  responseStatus?: number;
}

export interface FixtureRun {
  /** The fixture server's base URL ({{base}} in the case). */
  url: string;
  /** Card fetches (GET …/.well-known/agent-card.json). */
  cardFetches: RecordedRequest[];
  /** Requests that matched no expected exchange. */
  unexpected: { request: RecordedRequest; diffs: Diff[] }[];
  outcomes: ExchangeOutcome[];
  /** Path of the interface URL the exchange paths are relative to. */
  ifacePath: string;
  /** Captures made while matching. */
  vars: ReadonlyMap<string, unknown>;
  close(): Promise<void>;
}

const CARD_PATH = "/.well-known/agent-card.json";

/** The default card of a case: one interface of the case's version and binding at {{base}}/a2a. */
export function defaultCard(c: ClientCase): Record<string, unknown> {
  const binding = PROTOCOL_BINDING[c.binding];
  // A gRPC interface is the fixture's HTTP/2 server, named the way gRPC clients take it (host:port).
  const url = c.binding === "grpc" ? "{{grpcAddress}}" : "{{base}}/a2a";
  const capabilities = { streaming: true, pushNotifications: false, ...(c.capabilities ?? {}) };
  const common = {
    name: "a2a-toolkit client-compliance fixture",
    description: "Plays the server side of one client compliance scenario.",
    version: "1.0.0",
    capabilities,
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "fixture", name: "fixture", description: "Scripted answers", tags: ["fixture"] }],
  };
  if (c.version === "1.0")
    return {
      ...common,
      supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: "1.0", ...(c.tenant ? { tenant: c.tenant } : {}) }],
    };
  return { ...common, protocolVersion: "0.3.0", url, preferredTransport: binding };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

/**
 * A client scenario's request matchers on the 1.0 view: the request decoded by the server side of the
 * codecs (decodeCall; for gRPC the version's service message), then matched as the ProtoJSON of the
 * operation's 1.0 request. A request that does not decode as that operation is the difference.
 */
function viewDiffs(v: RequestView, rec: RecordedRequest, ifacePath: string, scope: Scope): Diff[] {
  const op = v.operation as Operation;
  const refused = (why: string): Diff[] => [
    {
      path: "/view",
      expected: `a ${v.version} ${op} request`,
      actual: rec.body ?? `${rec.method} ${rec.url}`,
      message: `the request does not decode as ${op}: ${why}`,
    },
  ];
  let request: unknown;
  try {
    if (v.binding === "grpc") {
      const method = grpcMethod(v.version, op);
      if (!method || rec.json === undefined) return refused(rec.body ?? "no message");
      request = decodeGrpcRequest(v.version, op, fromJson(method.input, rec.json as never)).value;
    } else {
      // The version header is judged on its own (the wire rules' A2A-Version check): the request is
      // read as the scenario's version, so a missing header does not hide what the body gets wrong.
      const call = decodeCall(
        { method: rec.method, url: rec.url, headers: { ...rec.headers, "a2a-version": v.version }, body: rec.body ?? "" },
        { binding: v.binding === "json-rpc" ? "JSONRPC" : "HTTP+JSON", versions: [v.version], basePath: ifacePath },
      );
      if (call.kind === "reply") return refused(`the server codecs answer ${call.status} ${call.body}`);
      if (call.operation !== op) return refused(`it is ${call.operation}`);
      request = call.request;
    }
  } catch (e) {
    return refused((e as Error).message);
  }
  return match(v.params, encode1_0(OPERATIONS[op].request, request as never), "/view", scope);
}

/** Compares one request with an exchange's expectation; captures go into scope. */
export function compareRequest(e: ClientExchange["request"], rec: RecordedRequest, ifacePath: string, scope: Scope): Diff[] {
  const diffs: Diff[] = [];
  if (e.method !== undefined) diffs.push(...match(e.method, rec.method, "/method", scope));
  if (e.path !== undefined) {
    const [pathname = ""] = rec.url.split("?", 1);
    const query = rec.url.slice(pathname.length);
    const under = pathname === ifacePath || pathname.startsWith(`${ifacePath}/`) || (ifacePath === "" && pathname.startsWith("/"));
    const rel = under ? pathname.slice(ifacePath.length) + query : undefined;
    if (rel === undefined)
      diffs.push({
        path: "/path",
        expected: `a path under the interface URL (${ifacePath || "/"})`,
        actual: rec.url,
        message: `request outside the interface URL: ${rec.url}`,
      });
    // A trailing slash on the interface URL itself is the same resource.
    else diffs.push(...match(e.path, rel.startsWith("/?") || rel === "/" ? rel.slice(1) : rel, "/path", scope));
  }
  for (const [name, exp] of Object.entries(e.headers ?? {}))
    diffs.push(...match(exp, rec.headers[name.toLowerCase()], `/headers/${name.toLowerCase()}`, scope));
  if (e.body !== undefined) {
    if (rec.json === undefined && !(rec.body === undefined || rec.body === ""))
      diffs.push({ path: "/body", expected: "a JSON body", actual: rec.body, message: "the request body is not JSON" });
    else diffs.push(...match(e.body, rec.json, "/body", scope));
  }
  if (e.view) diffs.push(...viewDiffs(e.view, rec, ifacePath, scope));
  return diffs;
}

function send(res: ServerResponse, r: ClientExchange["response"], vars: Map<string, unknown>): number {
  const status = r.status ?? 200;
  let rendered: ClientExchange["response"];
  try {
    rendered = render(r, vars) as ClientExchange["response"];
  } catch (e) {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: `fixture server: ${(e as Error).message}` }));
    return 500;
  }
  if (rendered.events) {
    res.writeHead(status, { "content-type": "text/event-stream", "cache-control": "no-cache", ...(rendered.headers ?? {}) });
    const frames = rendered.events.map((ev) => `data: ${JSON.stringify(ev)}\n\n`).join("");
    if (rendered.end === "drop") {
      // A broken connection: the events reach the client, then the chunked body never ends properly.
      const socket = res.socket;
      if (frames) res.write(frames, () => setImmediate(() => socket?.destroy()));
      else socket?.destroy();
      return status;
    }
    res.end(frames);
    return status;
  }
  const body = rendered.body === undefined ? "" : JSON.stringify(rendered.body);
  res.writeHead(status, { ...(rendered.body !== undefined ? { "content-type": "application/json" } : {}), ...(rendered.headers ?? {}) });
  res.end(body);
  return status;
}

/** Starts the fixture server of one case on 127.0.0.1 (port 0). */
export async function startFixtureServer(c: ClientCase, host = "127.0.0.1"): Promise<FixtureRun> {
  const vars = new Map<string, unknown>();
  const outcomes: ExchangeOutcome[] = c.exchanges.map((exchange, index) => ({ exchange, index, diffs: [], status: "not received" }));
  const cardFetches: RecordedRequest[] = [];
  const unexpected: FixtureRun["unexpected"] = [];
  let next = 0;
  let ifacePath = "";

  /** The next exchange that takes the request (optional ones that do not match are passed over), or none: unexpected. */
  const take = (rec: RecordedRequest): { outcome: ExchangeOutcome } | undefined => {
    let firstTry: Diff[] | undefined;
    for (const [i, o] of outcomes.entries()) {
      if (i < next) continue;
      const scope = new Scope(vars);
      const diffs = compareRequest(o.exchange.request, rec, ifacePath, scope);
      firstTry ??= diffs;
      if (diffs.length && o.exchange.optional) continue;
      // A mandatory exchange takes the request, matching or not (its differences are the finding).
      for (const passed of outcomes.slice(next, i)) passed.status = "skipped";
      for (const [k, v] of scope.staged) vars.set(k, v);
      o.request = rec;
      o.diffs = diffs;
      o.status = diffs.length ? "fail" : "pass";
      next = i + 1;
      return { outcome: o };
    }
    unexpected.push({
      request: rec,
      diffs: firstTry ?? [
        {
          path: "",
          expected: "no further request",
          actual: `${rec.method} ${rec.url}`,
          message: "request after the last expected exchange",
        },
      ],
    });
    return undefined;
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const rec: RecordedRequest = { method: req.method ?? "GET", url: req.url ?? "/", headers: headersOf(req) };
      if (body.length) {
        rec.body = body;
        try {
          rec.json = JSON.parse(body);
        } catch {
          // kept as text; a body expectation reports it
        }
      }
      const [pathname = ""] = rec.url.split("?", 1);
      if (rec.method === "GET" && pathname.endsWith(CARD_PATH)) {
        cardFetches.push(rec);
        const card = render(c.card ?? defaultCard(c), vars);
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
        res.end(JSON.stringify(card));
        return;
      }
      const taken = take(rec);
      if (taken) taken.outcome.responseStatus = send(res, taken.outcome.exchange.response, vars);
      else {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: `fixture server: unexpected request ${rec.method} ${rec.url}` }));
      }
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `fixture server: ${(e as Error).message}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  vars.set("base", url);
  // gRPC cases: the requests come to an HTTP/2 server of their own; the card stays on HTTP/1.1.
  let grpc: GrpcFixture | undefined;
  if (c.binding === "grpc") {
    grpc = await startGrpcFixture(c.version, host, take, vars);
    vars.set("grpcAddress", grpc.address);
  }
  // A gRPC request path is the method's (/<service>/<Method>), matched whole.
  if (c.binding !== "grpc") ifacePath = new URL(render(c.interfaceUrl ?? "{{base}}/a2a", vars) as string).pathname.replace(/\/+$/, "");
  return {
    url,
    cardFetches,
    unexpected,
    outcomes,
    ifacePath,
    vars,
    close: async () => {
      await grpc?.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
