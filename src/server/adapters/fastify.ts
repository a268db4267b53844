// The fastify adapter of the reference server: `a2aPlugin` mounts the A2A routes (front.ts) into a
// fastify app, under the prefix it is registered with. Bodies reach the front raw (every content
// type: the front answers -32700 for bad JSON, 415 for wrong types); fastify's own errors (an
// oversized or malformed body) get the front's A2A-shaped answers. The plugin is encapsulated: its
// content-type parser, error and not-found handlers do not leak into the application it is mounted in.
import type { ServerResponse } from "node:http";
import { Transform } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { HttpReply } from "../../transport/server.js";
import { createFront, type A2AHandlerServeOptions, type A2AServeOptions, type FrontRequest } from "../front/front.js";
import { CloseSignal, guard, send, TurnEnd } from "./node-http.js";

const OVER_BUDGET = "A2A_OVER_MEMORY_BUDGET";

export type A2APluginOptions = A2AServeOptions<FastifyRequest>;
/** The plugin's options for serving an A2AHandler (the gateway's …) rather than an agent. */
export type A2AHandlerPluginOptions = A2AHandlerServeOptions<FastifyRequest>;

export async function a2aPlugin(app: FastifyInstance, opts: A2APluginOptions | A2AHandlerPluginOptions): Promise<void> {
  const front = createFront<FastifyRequest>({ ...opts, prefix: app.prefix, logger: app.log });
  // preClose: open streams must end before fastify waits for connections to drain.
  app.addHook("preClose", () => front.close());

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit: front.bodyLimit }, (_req, body, done) => done(null, body));

  // A connection beyond its address's limit is answered 429 and closed; a body that has not
  // arrived bodyTimeoutMs after the headers is answered 408 and its connection closed.
  app.addHook("onRequest", (request, reply, done) => {
    if (guard(front, request.raw, reply.raw, request, () => void reply.hijack())) done();
  });

  // The body's bytes count in the memory budget (stream-budget.ts) until the request is answered; a
  // body that does not fit is refused with a retryable 503. A body of declared length (within
  // bodyLimit: a larger one is refused 413 before it is read) is counted whole before it arrives;
  // one of unknown length (chunked) as it arrives, through a counting stream.
  app.addHook("preParsing", (request, _reply, payload, done) => {
    if (request.method === "GET" || request.method === "HEAD") return done(null, payload);
    const hold = front.streamBudget.hold();
    request.raw.once("close", () => hold.release());
    const declared = declaredLength(request.headers["content-length"]);
    if (declared !== undefined && declared <= front.bodyLimit) {
      if (hold.grow(declared)) return done(null, payload);
      hold.release();
      return done(overBudget());
    }
    const counted = new Transform({
      transform(chunk: Buffer, _enc, next) {
        if (hold.grow(chunk.length)) return next(null, chunk);
        hold.release();
        next(overBudget());
      },
    });
    // A client that goes away mid-body errors the payload: the parser reading `counted` answers it,
    // and when none reads it (the request was refused before its body) the error has nowhere to
    // go but this listener, not the process.
    payload.on("error", (e) => counted.destroy(e));
    counted.on("error", () => hold.release());
    done(null, payload.pipe(counted));
  });

  const reply = (r: FastifyReply, a: HttpReply) => r.code(a.status).headers(a.headers).send(a.body);
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, r) =>
    reply(
      r,
      err.code === "FST_ERR_CTP_BODY_TOO_LARGE"
        ? front.tooLarge(request)
        : err.code === OVER_BUDGET
          ? front.overBudget(request)
          : front.failure(request, err),
    ),
  );

  const turnEnd = new TurnEnd();
  const route = async (request: FastifyRequest, r: FastifyReply) => {
    const turnOver = turnEnd.wait();
    const answer = await front.handle(new FastifyFrontRequest(request, r.raw));
    if (answer.kind === "reply") {
      await turnOver;
      return reply(r, answer);
    }
    r.hijack();
    await send(r.raw, answer);
  };
  app.all("/", route);
  app.all("/*", route);
  app.setNotFoundHandler(route);
}

const overBudget = () => Object.assign(new Error("over the memory budget"), { code: OVER_BUDGET, statusCode: 503 });

/** A Content-Length header's value; undefined when there is none (node has refused a malformed one). */
function declaredLength(header: string | undefined): number | undefined {
  return header === undefined ? undefined : Number(header);
}

/**
 * A fastify request as the front sees it. A class rather than an object literal with getters (which
 * V8 builds on a slow path): `origin` and the close signal are only read by the card routes and streams.
 */
class FastifyFrontRequest implements FrontRequest<FastifyRequest> {
  readonly method: string;
  readonly url: string;
  readonly headers: FastifyRequest["headers"];
  readonly body: string | undefined;
  readonly clientAddress: string;
  private readonly closed: CloseSignal;

  constructor(
    readonly raw: FastifyRequest,
    res: ServerResponse,
  ) {
    this.method = raw.method;
    this.url = raw.url;
    this.headers = raw.headers;
    this.body = raw.body as string | undefined;
    this.clientAddress = raw.ip;
    this.closed = new CloseSignal(res);
  }

  get origin(): string {
    return `${this.raw.protocol}://${this.raw.host}`;
  }

  get signal(): AbortSignal {
    return this.closed.signal;
  }
}
