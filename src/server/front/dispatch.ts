// The front's dispatch: one authenticated call decoded (decodeCall), its extensions checked, its
// HandlerContext built and handed to the handler's method (handler.ts UNARY / STREAMING), the answer
// encoded in the binding's and version's shape (encodeResult / openStream + the stream pump) or the
// error (encodeError). `call` is the path of JSON-RPC and HTTP+JSON; `invoke` the same steps for a
// binding that frames and decodes its own messages (gRPC, adapters/grpc.ts).
import type * as v1_0 from "../../../generated/v1_0/index.js";
import { decodeCall, encodeError, encodeResult, openStream, toA2AError, type DecodedCall, type HttpReply } from "../../transport/server.js";
import { A2AError } from "../../versioning/errors.js";
import { extensionsHeader, type ProtocolVersion } from "../../versioning/negotiate.js";
import { unauthenticatedReply, type Authenticator } from "../../security/auth.js";
import {
  dispatchStream,
  dispatchUnary,
  isExtendedCardCall,
  isStreaming,
  isUnary,
  type A2AHandler,
  type EventStream,
  type HandlerContext,
} from "../engine/handler.js";
import type { Logger } from "../engine/runtime.js";
import type { CardRoute } from "./card-route.js";
import type { DirectCall, DirectResult, FrontRequest, FrontStream } from "./front.js";
import { refusal, type Gate } from "./gate.js";
import { errorWithStatus } from "./http-limits.js";
import { pumpEvents, type PumpOptions } from "./stream-pump.js";

type Binding = "JSONRPC" | "HTTP+JSON";

export interface DispatchOptions {
  versions: readonly ProtocolVersion[];
  prefix: string;
  publicUrl?: string;
  cardAuthenticators: readonly Authenticator[];
  pump: PumpOptions;
  log: Logger;
}

export class Dispatch<Req> {
  constructor(
    private readonly handler: A2AHandler,
    private readonly gate: Gate<Req>,
    private readonly cards: CardRoute,
    private readonly opts: DispatchOptions,
  ) {}

  /** The base URL of the interfaces a request reached (`publicUrl`, else its origin and the prefix). */
  baseUrl(origin: string): string {
    return (this.opts.publicUrl ?? `${origin}${this.opts.prefix}`).replace(/\/+$/, "");
  }

  /** A JSON-RPC or HTTP+JSON request, from authentication to its reply or stream. */
  async call(binding: Binding, request: FrontRequest<Req>): Promise<HttpReply | FrontStream> {
    const principal = this.gate.anonymous ?? (await this.gate.principalOf(request, () => rpcIdOf(binding, request.body)));
    if (typeof principal !== "string") return principal;
    const decoded = decodeCall(request, { binding, versions: this.opts.versions, basePath: this.opts.prefix });
    if (decoded.kind === "reply") return decoded;
    let extensions: string[];
    try {
      extensions = this.gate.activated(decoded.extensions);
    } catch (e) {
      return encodeError(decoded, toA2AError(e));
    }
    const ctx = new RequestContext(principal, decoded.version, extensions, decoded.tenant, request);
    if (isStreaming(decoded)) {
      // Taking the slot can fail too (the replicas' count is in the database): answered like the call, with its id.
      let release: (() => void) | undefined;
      let events: EventStream;
      try {
        release = await this.gate.takeStream(principal, request.clientAddress);
        if (!release) return errorWithStatus(decoded, this.gate.tooManyStreams(), 429, "RESOURCE_EXHAUSTED");
        events = await dispatchStream(this.handler, decoded, ctx);
      } catch (e) {
        release?.();
        return this.failed(decoded, extensions, e, "A2A stream failed to start");
      }
      const sse = openStream(decoded, { extensions });
      const frames = pumpEvents(events, sse, request.signal, release, this.opts.pump);
      return { kind: "stream", status: 200, headers: sse.headers, frames, measure: (transport) => frames.measure(transport) };
    }
    try {
      if (isUnary(decoded)) return encodeResult(decoded, await dispatchUnary(this.handler, decoded, ctx), { extensions });
      if (!isExtendedCardCall(decoded)) throw new A2AError("UnsupportedOperationError", `${decoded.operation} is not a unary operation`);
      const caller = await this.gate.extendedCardCaller(request);
      if (caller !== undefined && typeof caller !== "string")
        return unauthenticatedReply(
          { version: decoded.version, binding, rpcId: rpcIdOf(binding, request.body) },
          caller,
          this.opts.cardAuthenticators,
        );
      const card = await this.extendedCard(
        decoded.version,
        decoded.request,
        caller === undefined ? ctx : new RequestContext(caller, ctx.version, extensions, ctx.tenant, request),
        request.origin,
      );
      return encodeResult(decoded, card, { extensions });
    } catch (e) {
      return this.failed(decoded, extensions, e, "A2A operation failed");
    }
  }

  /** A call of a self-framing binding (gRPC): the same steps; A2A errors are thrown as A2AError. */
  async invoke(c: DirectCall<Req>): Promise<DirectResult> {
    const principal = await this.gate.who(c);
    if (typeof principal !== "string") return { kind: "refused", status: "UNAUTHENTICATED", message: refusal(principal) };
    try {
      const extensions = this.gate.activated(c.extensions);
      const ctx: HandlerContext = { principal, version: c.version, extensions, tenant: c.tenant, signal: c.signal };
      const decoded = { operation: c.operation, request: c.request } as DecodedCall;
      if (isStreaming(decoded)) {
        const release = await this.gate.takeStream(principal, c.clientAddress);
        if (!release) return { kind: "refused", status: "RESOURCE_EXHAUSTED", message: this.gate.tooManyStreams().message };
        try {
          return { kind: "stream", events: await dispatchStream(this.handler, decoded, ctx), release, extensions };
        } catch (e) {
          release();
          throw e;
        }
      }
      if (isUnary(decoded)) return { kind: "unary", response: await dispatchUnary(this.handler, decoded, ctx), extensions };
      if (!isExtendedCardCall(decoded)) throw new A2AError("UnsupportedOperationError", `${c.operation} is not a unary operation`);
      const caller = await this.gate.extendedCardCaller(c);
      if (caller !== undefined && typeof caller !== "string")
        return { kind: "refused", status: "UNAUTHENTICATED", message: refusal(caller) };
      const card = await this.extendedCard(
        c.version,
        decoded.request,
        caller === undefined ? ctx : { ...ctx, principal: caller },
        c.origin,
      );
      return { kind: "unary", response: card, extensions };
    } catch (e) {
      if (!(e instanceof A2AError)) this.opts.log.error({ err: e }, "A2A operation failed");
      throw toA2AError(e);
    }
  }

  private failed(decoded: DecodedCall, extensions: string[], e: unknown, what: string): HttpReply {
    if (!(e instanceof A2AError)) this.opts.log.error({ err: e }, what);
    return encodeError(decoded, toA2AError(e), extensionsHeader(decoded.version, extensions));
  }

  private extendedCard(version: ProtocolVersion, request: v1_0.GetExtendedAgentCardRequest, ctx: HandlerContext, origin: string) {
    return this.cards.extended(version, request, ctx, this.baseUrl(origin));
  }
}

/**
 * The HandlerContext of a JSON-RPC or HTTP+JSON call. A class, not an object literal with a getter
 * (V8 builds those on a slow path): the signal is read only by what waits on the client (streams),
 * and the adapters make it on first read. The request is held in a #private field, so that a copy
 * of the context (a spread, or the JSON the replicas send a cancel with) carries the four fields only.
 */
class RequestContext implements HandlerContext {
  readonly #request: { readonly signal: AbortSignal };

  constructor(
    readonly principal: string,
    readonly version: ProtocolVersion,
    readonly extensions: string[],
    readonly tenant: string,
    request: { readonly signal: AbortSignal },
  ) {
    this.#request = request;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }
}

/** The JSON-RPC id of a raw request body, when it can be read (for the 401 envelope). */
function rpcIdOf(binding: Binding, body: unknown): string | number | null {
  if (binding !== "JSONRPC" || body === undefined) return null;
  try {
    const text = typeof body === "string" ? body : new TextDecoder().decode(body as Uint8Array);
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}
