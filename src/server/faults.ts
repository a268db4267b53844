// Deliberate faults for the reference server, so the compliance suite can be judged in turn
// (a mutation check): each named fault makes the server break one wire rule, and the suite must
// notice. The faults live in a fastify plugin registered around the server's routes; the server's
// own files are untouched and a server without the plugin is unaffected.
//
//   const app = await buildServer({ agent: createFixtureAgent() });
//   await app.register(faultsPlugin, { fault: "task-not-found-as-internal-error" });
//   await app.listen({ port: 0 });
//
// How faults act:
//   - on the request (onRequest / preHandler): headers, the raw JSON body and the query are
//     rewritten before the A2A handler sees them (e.g. an unsupported A2A-Version becomes 1.0);
//   - on the response (the raw node response is wrapped in onRequest, because streams are written
//     to it directly): a JSON body, or each SSE event's JSON, is rewritten; status and headers too.
// The plugin skips fastify's encapsulation (skip-override), so its hooks reach routes registered
// by buildServer before it.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface ResponseCtx {
  /** The request spoke 1.0 (A2A-Version 1.x), else 0.3. */
  v1_0: boolean;
  /** JSON-RPC (POST to the interface root) rather than HTTP+JSON. */
  jsonRpc: boolean;
  sse: boolean;
  path: string;
}

interface FaultSpec {
  description: string;
  /** The rule it breaks (a2a-wire.md §8 IDs). */
  breaks: string;
  /** Rewrites request headers (lower-case names). */
  headers?: (h: IncomingHttpHeaders, req: FastifyRequest, opts: FaultsPluginOptions) => void;
  /** Rewrites the raw request body text (JSON-RPC and REST bodies alike). */
  body?: (json: Json, req: FastifyRequest) => Json;
  /** Rewrites the query string (without "?"). */
  query?: (q: URLSearchParams) => void;
  /** Rewrites a JSON response body or one SSE event's JSON; undefined drops the SSE event. */
  json?: (json: Json, ctx: ResponseCtx) => Json | undefined;
  /** Rewrites status and headers of a response. */
  head?: (status: number, headers: Record<string, string>, ctx: ResponseCtx, body: Json | undefined) => number;
  /** Keeps an SSE stream open instead of ending it. */
  holdStreamOpen?: boolean;
  /** Ends an SSE stream right after the event this returns true for; what the server writes later is dropped. */
  endStreamAfter?: (json: Json, ctx: ResponseCtx) => boolean;
}

const TERMINAL_1_0 = new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]);
const TERMINAL_0_3 = new Set(["completed", "failed", "canceled", "rejected"]);

function isObj(v: unknown): v is { [k: string]: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Applies f to every object in a JSON tree (depth first, children before parents). */
function walk(v: Json, f: (o: { [k: string]: Json }) => void): Json {
  if (Array.isArray(v)) v.forEach((x) => walk(x, f));
  else if (isObj(v)) {
    for (const x of Object.values(v)) walk(x, f);
    f(v);
  }
  return v;
}

/** The A2A result inside a JSON-RPC envelope, or the REST body / SSE item itself. */
function payload(json: Json, ctx: ResponseCtx): Json {
  return ctx.jsonRpc && isObj(json) && "result" in json ? json.result : json;
}

function errorOf(json: Json): { [k: string]: Json } | undefined {
  return isObj(json) && isObj(json.error) ? json.error : undefined;
}

/** Is this status update (1.0 or 0.3, bare or wrapped) terminal? */
function terminalStatusEvent(item: Json): boolean {
  if (!isObj(item)) return false;
  const upd = isObj(item.statusUpdate) ? item.statusUpdate : item.kind === "status-update" ? item : undefined;
  const state = isObj(upd) && isObj(upd.status) ? upd.status.state : undefined;
  return typeof state === "string" && (TERMINAL_1_0.has(state) || TERMINAL_0_3.has(state));
}

function isTaskItem(item: Json): boolean {
  return isObj(item) && (isObj(item.task) || item.kind === "task");
}

/** Is this stream item a Task (0.3 JSON-RPC or REST) in input-required? */
function inputRequiredTask(item: Json): boolean {
  const task = isObj(item) ? (isObj(item.task) ? item.task : item.kind === "task" ? item : undefined) : undefined;
  const state = isObj(task) && isObj(task.status) ? task.status.state : undefined;
  return state === "input-required" || state === "TASK_STATE_INPUT_REQUIRED";
}

export const FAULTS = {
  "task-not-found-as-internal-error": {
    description: "TaskNotFoundError is answered as InternalError (-32603; REST 500 INTERNAL)",
    breaks: "S-23, S-52",
    json: (j) => {
      // 0.3 REST bodies carry the JSON-RPC code at the top level too
      if (isObj(j) && j.code === -32001) j.code = -32603;
      const e = errorOf(j);
      if (e && e.code === -32001) e.code = -32603;
      if (e && Array.isArray(e.details)) for (const d of e.details) if (isObj(d) && d.reason === "TASK_NOT_FOUND") d.reason = "INTERNAL";
      if (e && e.status === "NOT_FOUND") {
        e.status = "INTERNAL";
        e.code = 500;
      }
      return j;
    },
    head: (status, _h, ctx) => (!ctx.jsonRpc && status === 404 ? 500 : status),
  },
  "wrong-error-code": {
    description: "TaskNotCancelableError carries the code of UnsupportedOperationError (-32004)",
    breaks: "S-24, S-52",
    json: (j) => {
      if (isObj(j) && j.code === -32002) j.code = -32004;
      const e = errorOf(j);
      if (e && e.code === -32002) e.code = -32004;
      if (e && Array.isArray(e.details))
        for (const d of e.details) if (isObj(d) && d.reason === "TASK_NOT_CANCELABLE") d.reason = "UNSUPPORTED_OPERATION";
      return j;
    },
  },
  "missing-terminal-event": {
    description: "streams never carry the terminal status update",
    breaks: "S-35, V-03",
    json: (j, ctx) => (ctx.sse && terminalStatusEvent(payload(j, ctx)) ? undefined : j),
  },
  "stream-without-initial-task": {
    description: "task streams do not begin with the Task",
    breaks: "S-34",
    json: (j, ctx) => (ctx.sse && isTaskItem(payload(j, ctx)) ? undefined : j),
  },
  "events-after-terminal": {
    description: "the terminal status update is sent twice",
    breaks: "S-35",
    holdStreamOpen: false,
  } as FaultSpec,
  "stream-never-closes": {
    description: "streams stay open after the last event",
    breaks: "S-35",
    holdStreamOpen: true,
  },
  "lowercase-enums-in-1.0": {
    description: "1.0 payloads use 0.3-style lower-case states and roles",
    breaks: "S-06",
    json: (j, ctx) =>
      ctx.v1_0
        ? walk(j, (o) => {
            if (typeof o.state === "string" && o.state.startsWith("TASK_STATE_"))
              o.state = o.state.slice(11).toLowerCase().replace("_", "-");
            if (typeof o.role === "string" && o.role.startsWith("ROLE_")) o.role = o.role.slice(5).toLowerCase();
          })
        : j,
  },
  "kind-in-1.0-payloads": {
    description: "1.0 tasks, messages and parts keep the 0.3 kind member",
    breaks: "S-08",
    json: (j, ctx) =>
      ctx.v1_0
        ? walk(j, (o) => {
            if (typeof o.id === "string" && isObj(o.status)) o.kind = "task";
            if (typeof o.messageId === "string") o.kind = "message";
            if (typeof o.text === "string") o.kind = "text";
          })
        : j,
  },
  "snake-case-members": {
    description: "1.0 payloads name members in snake_case (context_id)",
    breaks: "S-05",
    json: (j, ctx) =>
      ctx.v1_0
        ? walk(j, (o) => {
            if ("contextId" in o) {
              o.context_id = o.contextId;
              delete o.contextId;
            }
          })
        : j,
  },
  "timestamp-with-offset": {
    description: "1.0 timestamps use +00:00 instead of Z",
    breaks: "S-07",
    json: (j, ctx) =>
      ctx.v1_0
        ? walk(j, (o) => {
            if (typeof o.timestamp === "string") o.timestamp = o.timestamp.replace(/Z$/, "+00:00");
          })
        : j,
  },
  "missing-next-page-token": {
    description: "ListTasks leaves out nextPageToken on the last page",
    breaks: "S-26",
    json: (j, ctx) => {
      const p = payload(j, ctx);
      if (isObj(p) && Array.isArray(p.tasks) && p.nextPageToken === "") delete p.nextPageToken;
      return j;
    },
  },
  "no-version-check": {
    description: "an unsupported A2A-Version is processed as 1.0 instead of refused",
    breaks: "S-48",
    headers: (h) => {
      const v = h["a2a-version"];
      if (typeof v === "string" && v.trim() !== "" && !/^(1\.0|0\.3)(\.\d+)?$/.test(v.trim())) h["a2a-version"] = "1.0";
    },
    query: (q) => {
      const v = q.get("A2A-Version");
      if (v && !/^(1\.0|0\.3)(\.\d+)?$/.test(v)) q.set("A2A-Version", "1.0");
    },
  },
  "patch-version-refused": {
    description: "a patch version (1.0.1) is refused as unsupported",
    breaks: "S-50",
    headers: (h) => {
      const v = h["a2a-version"];
      if (typeof v === "string" && /^\d+\.\d+\.\d+$/.test(v.trim())) h["a2a-version"] = "9.9";
    },
  },
  "missing-version-means-1.0": {
    description: "a request without A2A-Version is processed as 1.0",
    breaks: "S-49",
    headers: (h, req) => {
      if (!h["a2a-version"] && !/[?&]A2A-Version=/i.test(req.url) && !req.url.endsWith("/.well-known/agent-card.json"))
        h["a2a-version"] = "1.0";
    },
  },
  "wrong-jsonrpc-id": {
    description: "JSON-RPC responses do not echo the request id",
    breaks: "S-12",
    json: (j, ctx) => {
      if (ctx.jsonRpc && isObj(j) && j.jsonrpc === "2.0" && "id" in j && j.id !== null)
        j.id = typeof j.id === "number" ? j.id + 1 : `${String(j.id)}-x`;
      return j;
    },
  },
  "method-not-found-as-invalid-request": {
    description: "unknown JSON-RPC methods get -32600 instead of -32601",
    breaks: "S-11",
    json: (j) => {
      const e = errorOf(j);
      if (e && e.code === -32601) e.code = -32600;
      return j;
    },
  },
  "wrong-http-status-on-rest-errors": {
    description: "HTTP+JSON errors are sent with HTTP 200",
    breaks: "S-52",
    head: (status, _h, ctx, body) => (!ctx.jsonRpc && !ctx.sse && status >= 400 && errorOf(body ?? null) ? 200 : status),
  },
  "missing-error-info": {
    description: "errors carry no google.rpc.ErrorInfo (JSON-RPC data, REST details)",
    breaks: "S-53",
    json: (j) => {
      const e = errorOf(j);
      if (e) {
        delete e.data;
        delete e.details;
      }
      return j;
    },
  },
  "wrong-content-type": {
    description: "JSON responses are labelled text/plain",
    breaks: "S-32, S-59",
    head: (status, h, ctx) => {
      if (!ctx.sse && (h["content-type"] ?? "").includes("json")) h["content-type"] = "text/plain; charset=utf-8";
      return status;
    },
  },
  "card-without-supported-interfaces": {
    description: "the 1.0 agent card has no supportedInterfaces",
    breaks: "S-01, S-02",
    json: (j, ctx) => {
      if (ctx.path.endsWith("/.well-known/agent-card.json") && isObj(j)) delete j.supportedInterfaces;
      return j;
    },
  },
  "history-not-truncated": {
    description: "historyLength is ignored: the whole history is returned",
    breaks: "S-22",
    body: (j) =>
      walk(j, (o) => {
        delete o.historyLength;
      }),
    query: (q) => q.delete("historyLength"),
  },
  "artifacts-listed-without-include-artifacts": {
    description: "ListTasks returns artifacts although includeArtifacts is false",
    breaks: "S-27",
    body: (j) => {
      if (isObj(j) && j.method === "ListTasks" && isObj(j.params)) j.params.includeArtifacts = true;
      return j;
    },
    query: (q) => q.set("includeArtifacts", "true"),
  },
  "return-immediately-ignored": {
    description: "returnImmediately (0.3 blocking:false) is ignored: sends always wait",
    breaks: "S-21",
    body: (j) =>
      walk(j, (o) => {
        if (o.returnImmediately === true) delete o.returnImmediately;
        if (o.blocking === false) o.blocking = true;
      }),
  },
  "same-id-for-every-task": {
    description: "every new task is reported with the same id",
    breaks: "S-14",
    json: (j) =>
      walk(j, (o) => {
        if (typeof o.id === "string" && isObj(o.status)) o.id = "the-one-task";
      }),
  },
  "task-leaked-across-principals": {
    description: "every caller is treated as the first principal (Authorization rewritten), so tasks leak between principals",
    breaks: "S-30, S-57",
    headers: (h, _req, opts) => {
      if (h.authorization) h.authorization = opts.leakTo ?? "Bearer alice";
    },
  },
  "0.3-final-never-set": {
    description: "0.3 status updates never carry final: true",
    breaks: "V-03",
    json: (j, ctx) =>
      !ctx.v1_0 && ctx.sse
        ? walk(j, (o) => {
            if (o.final === true) o.final = false;
          })
        : j,
  },
  "0.3-stream-ends-at-input-required-task": {
    description: "a 0.3 stream ends after a Task in input-required, so a streaming follow-up gets only the task as it stood",
    breaks: "V-03",
    endStreamAfter: (j, ctx) => !ctx.v1_0 && inputRequiredTask(payload(j, ctx)),
  },
  "0.3-result-in-1.0-shape": {
    description: "0.3 JSON-RPC results are wrapped the 1.0 way ({task: …}) without kind",
    breaks: "V-01",
    json: (j, ctx) => {
      if (!ctx.v1_0 && ctx.jsonRpc && isObj(j) && isObj(j.result) && j.result.kind === "task") {
        const { kind: _kind, ...rest } = j.result;
        j.result = { task: rest };
      }
      return j;
    },
  },
} satisfies Record<string, FaultSpec>;

export type FaultName = keyof typeof FAULTS;
export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export interface FaultsPluginOptions {
  fault: FaultName;
  /** task-leaked-across-principals: the Authorization value every authenticated request gets (default "Bearer alice"). */
  leakTo?: string;
}

function isFaultName(s: string): s is FaultName {
  return Object.prototype.hasOwnProperty.call(FAULTS, s);
}

function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

function flatHeaders(res: ServerResponse, given: OutgoingHttpHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.getHeaders()))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : String(v);
  for (const [k, v] of Object.entries(given ?? {})) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : String(v);
  return out;
}

/** Wraps one node response so the fault can rewrite what the server writes. */
function wrapResponse(res: ServerResponse, spec: FaultSpec, ctxBase: Omit<ResponseCtx, "sse">): void {
  const origWriteHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  const origWrite = res.write.bind(res) as (chunk: unknown, cb?: () => void) => boolean;
  const origEnd = res.end.bind(res) as (chunk?: unknown, cb?: () => void) => ServerResponse;
  let pending: { status: number; headers: Record<string, string> } | undefined;
  let sse = false;
  const chunks: Buffer[] = [];
  let sseTail = "";
  let lastTerminal: string | undefined;
  let cut = false; // endStreamAfter matched: the stream was ended

  const rewriteFrames = (text: string): string => {
    sseTail += text;
    const frames = sseTail.split("\n\n");
    sseTail = frames.pop() ?? "";
    let out = "";
    for (const f of frames) {
      if (cut) break;
      if (!f.startsWith("data: ")) {
        out += `${f}\n\n`;
        continue;
      }
      let json = parseJson(f.slice(6));
      if (json !== undefined && spec.endStreamAfter?.(json, { ...ctxBase, sse: true })) cut = true;
      if (json === undefined || !spec.json) {
        out += `${f}\n\n`;
        if (json !== undefined && terminalStatusEvent(payload(json, { ...ctxBase, sse: true }))) lastTerminal = `${f}\n\n`;
        continue;
      }
      json = spec.json(json, { ...ctxBase, sse: true });
      if (json === undefined) continue;
      const frame = `data: ${JSON.stringify(json)}\n\n`;
      if (terminalStatusEvent(payload(json, { ...ctxBase, sse: true }))) lastTerminal = frame;
      out += frame;
    }
    return out;
  };

  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const given = (rest.find((r) => typeof r === "object" && r !== null) as OutgoingHttpHeaders | undefined) ?? undefined;
    const headers = flatHeaders(res, given);
    sse = (headers["content-type"] ?? "").startsWith("text/event-stream");
    if (sse) {
      const s = spec.head ? spec.head(status, headers, { ...ctxBase, sse }, undefined) : status;
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      return origWriteHead(s, headers);
    }
    pending = { status, headers };
    return res;
  }) as typeof res.writeHead;

  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    if (sse && cut) {
      cb?.();
      return true;
    }
    if (sse) {
      const ok = origWrite(rewriteFrames(buf.toString("utf8")), cb);
      if (cut) origEnd();
      return ok;
    }
    chunks.push(buf);
    cb?.();
    return true;
  }) as typeof res.write;

  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    if (chunk !== undefined && chunk !== null && typeof chunk !== "function")
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
    if (sse && cut) {
      cb?.();
      return res;
    }
    if (sse) {
      let tail = chunks.length ? rewriteFrames(Buffer.concat(chunks).toString("utf8")) : "";
      if (FAULTS["events-after-terminal"] === spec && lastTerminal) tail += lastTerminal;
      if (spec.holdStreamOpen) {
        if (tail) origWrite(tail);
        // The stream is left open; the client's disconnect ends it.
        return res;
      }
      return origEnd(tail, cb);
    }
    const state = pending ?? { status: res.statusCode, headers: flatHeaders(res, undefined) };
    let body = Buffer.concat(chunks).toString("utf8");
    const isJson = (state.headers["content-type"] ?? "").includes("json");
    let json = isJson && body ? parseJson(body) : undefined;
    if (json !== undefined && spec.json) {
      json = spec.json(json, { ...ctxBase, sse: false });
      if (json !== undefined) body = JSON.stringify(json);
    }
    const status = spec.head ? spec.head(state.status, state.headers, { ...ctxBase, sse: false }, json ?? null) : state.status;
    state.headers["content-length"] = String(Buffer.byteLength(body));
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    origWriteHead(status, state.headers);
    return origEnd(body, cb);
  }) as typeof res.end;
}

/** The fault plugin; register it on the app buildServer returns (before listen). */
export async function faultsPlugin(app: FastifyInstance, opts: FaultsPluginOptions): Promise<void> {
  if (!isFaultName(opts.fault)) throw new Error(`unknown fault "${String(opts.fault)}" (known: ${FAULT_NAMES.join(", ")})`);
  const spec: FaultSpec = FAULTS[opts.fault];
  app.addHook("onRequest", async (request, reply) => {
    spec.headers?.(request.headers, request, opts);
    if (spec.query && request.raw.url?.includes("?")) {
      const [p, q] = request.raw.url.split("?", 2) as [string, string];
      const params = new URLSearchParams(q);
      spec.query(params);
      const s = params.toString();
      request.raw.url = s ? `${p}?${s}` : p;
    }
    const v = String(request.headers["a2a-version"] ?? new URLSearchParams(request.raw.url?.split("?")[1] ?? "").get("A2A-Version") ?? "");
    const path = (request.raw.url ?? "/").split("?")[0];
    // JSON-RPC is a POST to the interface root; everything else is HTTP+JSON or the card.
    const jsonRpc = request.method === "POST" && (path === "/" || path === "");
    wrapResponse(reply.raw, spec, { v1_0: v.startsWith("1."), jsonRpc, path });
  });
  if (spec.body) {
    const rewrite = spec.body;
    app.addHook("preHandler", async (request) => {
      if (typeof request.body !== "string" || !request.body) return;
      const json = parseJson(request.body);
      if (json !== undefined) (request as { body: unknown }).body = JSON.stringify(rewrite(json, request));
    });
  }
}
(faultsPlugin as unknown as Record<symbol, boolean>)[Symbol.for("skip-override")] = true;
