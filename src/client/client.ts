// The reference A2A client: one agent, one chosen interface, 1.0 types whatever the agent speaks.
import { create, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import * as v1_0 from "../../generated/v1_0/index.js";
import { A2AError } from "../versioning/errors.js";
import { collectAuth, fromCredentials, type AuthProvider, type Credentials } from "./auth.js";
import { fetchAgentCard, selectInterface, SUPPORTED_VERSIONS, type CardCache, type InterfacePolicy } from "./card.js";
import { A2ACardError, A2ATransportError, transportFailure } from "./errors.js";
import { sseEvents } from "./sse.js";
import { resilientStream, type ResubscribePolicy } from "./stream.js";
import { waitForTask, type WaitOptions } from "./wait.js";
import type { GrpcChannelOptions, GrpcStatusError } from "../transport/grpc-client.js";
import {
  OPERATIONS,
  type ClientWire,
  type Operation,
  type RequestOf,
  type ResponseOf,
  type Target,
  type WireEvent,
  type WireRequest,
} from "./wire.js";

/** Per-call options, accepted by every method. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Milliseconds; overrides the client's `timeoutMs`. For streams it bounds the wait for the response headers. */
  timeoutMs?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
  /** Extension URIs to activate for this call, in addition to the client's. */
  extensions?: readonly string[];
}

export interface StreamOptions extends CallOptions {
  /** Automatic resubscription after a dropped stream; `false` to turn it off. */
  resubscribe?: ResubscribePolicy | false;
}

export interface ClientOptions extends InterfacePolicy {
  /** fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Default timeout of every call, in milliseconds (default 30 000; 0 = none). */
  timeoutMs?: number;
  /** Headers sent with every request (and the card request). */
  headers?: Record<string, string>;
  /** Reuse and revalidate fetched cards per their caching headers (`new CardCache()`, shared between clients). */
  cardCache?: CardCache;
  /** Extension URIs the caller activates (sent as `A2A-Extensions`, or `X-A2A-Extensions` to a 0.3 agent). */
  extensions?: readonly string[];
  /** Credentials placed as the card's security schemes say. */
  credentials?: Credentials;
  /** Custom auth providers, run after the ones built from `credentials`. */
  auth?: readonly AuthProvider[];
  /**
   * Card verification hook, called with the parsed card and the JSON as received before the
   * client uses it. Return false (or throw) to refuse the card. Signature checking (JWS over
   * the JCS-canonical card, A2A 1.0 §8.4) plugs in here.
   */
  verifyCard?: (card: v1_0.AgentCard, raw: unknown) => boolean | Promise<boolean>;
  /** Stream resubscription defaults (see StreamOptions.resubscribe). */
  resubscribe?: ResubscribePolicy | false;
  /**
   * Refuse, without a request, operations the card says the agent lacks (1.0 §3.3.4): streaming
   * without `capabilities.streaming` and extended card without `capabilities.extendedAgentCard` →
   * UnsupportedOperationError; push configs without `capabilities.pushNotifications` →
   * PushNotificationNotSupportedError. Default true.
   */
  checkCapabilities?: boolean;
  /** The wire implementation; default: the toolkit's versioning layer. */
  wire?: ClientWire;
  /** gRPC channels: TLS for `host:port` interfaces, trusted CA (src/transport/grpc-client.ts). */
  grpc?: GrpcChannelOptions;
  signal?: AbortSignal;
}

type Init<O extends Operation> = MessageInitShape<(typeof OPERATIONS)[O]["request"]>;

export { INTERRUPTED_STATES, TERMINAL_STATES } from "../versioning/stream.js";

let defaultWirePromise: Promise<ClientWire> | undefined;
let grpcPromise: Promise<typeof import("../transport/grpc-client.js")> | undefined;
/** The gRPC client loads with its first call: HTTP-only users never load @connectrpc. */
function loadGrpc() {
  grpcPromise ??= import("../transport/grpc-client.js");
  return grpcPromise;
}

async function loadDefaultWire(): Promise<ClientWire> {
  defaultWirePromise ??= import("./default-wire.js").then((m) => m.defaultWire);
  return defaultWirePromise;
}

/**
 * Fetches the agent card at `urlOrCard` (or takes the card given), picks the first interface
 * the client supports in the agent's order, and returns a client bound to it.
 */
export async function createA2AClient(
  urlOrCard: string | URL | v1_0.AgentCard | Record<string, unknown>,
  options: ClientOptions = {},
): Promise<A2AClient> {
  const wire = options.wire ?? (await loadDefaultWire());
  let card: v1_0.AgentCard;
  let raw: unknown;
  let cardUrl: string | undefined;
  if (typeof urlOrCard === "string" || urlOrCard instanceof URL) {
    const versions = options.version ? [options.version] : (options.versions ?? SUPPORTED_VERSIONS);
    const fetched = await fetchAgentCard(urlOrCard.toString(), {
      wire,
      fetch: options.fetch,
      headers: options.headers,
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? 30_000,
      askFor1_0: versions.includes("1.0"),
      cache: options.cardCache,
    });
    ({ card, raw, url: cardUrl } = fetched);
  } else if ((urlOrCard as { $typeName?: string }).$typeName === "lf.a2a.v1.AgentCard") {
    card = urlOrCard as v1_0.AgentCard;
    raw = urlOrCard;
  } else {
    raw = urlOrCard;
    try {
      card = wire.parseCard(urlOrCard);
    } catch (e) {
      throw new A2ACardError("invalid", `the agent card given does not parse as an A2A 1.0 or 0.3 card: ${(e as Error).message}`, {
        cause: e,
      });
    }
  }
  if (options.verifyCard) {
    let ok: boolean;
    try {
      ok = await options.verifyCard(card, raw);
    } catch (e) {
      throw new A2ACardError("verification-failed", `agent card verification failed: ${(e as Error).message}`, { url: cardUrl, cause: e });
    }
    if (!ok)
      throw new A2ACardError("verification-failed", `agent card${cardUrl ? ` at ${cardUrl}` : ""} failed verification`, { url: cardUrl });
  }
  const target = selectInterface(card, options);
  return new A2AClient(card, target, wire, options, cardUrl);
}

export class A2AClient {
  private readonly auth: readonly AuthProvider[];

  constructor(
    /** The agent card (1.0 shape, translated if the agent serves a 0.3 card); see useExtendedCard. */
    public card: v1_0.AgentCard,
    /** The interface in use: URL, binding, version and tenant. */
    readonly target: Target,
    private readonly wire: ClientWire,
    private readonly options: ClientOptions = {},
    /** Where the card was fetched from, if it was. */
    readonly cardUrl?: string,
  ) {
    this.auth = [...fromCredentials(options.credentials ?? {}), ...(options.auth ?? [])];
  }

  get version() {
    return this.target.version;
  }
  get binding() {
    return this.target.binding;
  }
  /** Whether the card declares streaming support. */
  get canStream(): boolean {
    return this.card.capabilities?.streaming === true;
  }

  // ---- the 11 operations ------------------------------------------------------------------

  sendMessage(request: Init<"SendMessage">, opts?: CallOptions): Promise<v1_0.SendMessageResponse> {
    return this.unary("SendMessage", request, opts);
  }

  /** Streams the events of a message; resubscribes after a drop (see StreamOptions). */
  sendStreamingMessage(request: Init<"SendStreamingMessage">, opts: StreamOptions = {}): AsyncGenerator<v1_0.StreamResponse> {
    return this.stream("SendStreamingMessage", request, opts);
  }

  getTask(request: Init<"GetTask">, opts?: CallOptions): Promise<v1_0.Task> {
    return this.unary("GetTask", request, opts);
  }

  /** A2A 1.0 only: against a 0.3 interface this fails with UnsupportedOperationError. */
  listTasks(request: Init<"ListTasks"> = {}, opts?: CallOptions): Promise<v1_0.ListTasksResponse> {
    return this.unary("ListTasks", request, opts);
  }

  cancelTask(request: Init<"CancelTask">, opts?: CallOptions): Promise<v1_0.Task> {
    return this.unary("CancelTask", request, opts);
  }

  /** Streams the events of an existing task; resubscribes after a drop (see StreamOptions). */
  subscribeToTask(request: Init<"SubscribeToTask">, opts: StreamOptions = {}): AsyncGenerator<v1_0.StreamResponse> {
    return this.stream("SubscribeToTask", request, opts);
  }

  createTaskPushNotificationConfig(
    request: Init<"CreateTaskPushNotificationConfig">,
    opts?: CallOptions,
  ): Promise<v1_0.TaskPushNotificationConfig> {
    return this.unary("CreateTaskPushNotificationConfig", request, opts);
  }

  getTaskPushNotificationConfig(
    request: Init<"GetTaskPushNotificationConfig">,
    opts?: CallOptions,
  ): Promise<v1_0.TaskPushNotificationConfig> {
    return this.unary("GetTaskPushNotificationConfig", request, opts);
  }

  listTaskPushNotificationConfigs(
    request: Init<"ListTaskPushNotificationConfigs">,
    opts?: CallOptions,
  ): Promise<v1_0.ListTaskPushNotificationConfigsResponse> {
    return this.unary("ListTaskPushNotificationConfigs", request, opts);
  }

  async deleteTaskPushNotificationConfig(request: Init<"DeleteTaskPushNotificationConfig">, opts?: CallOptions): Promise<void> {
    await this.unary("DeleteTaskPushNotificationConfig", request, opts);
  }

  getExtendedAgentCard(request: Init<"GetExtendedAgentCard"> = {}, opts?: CallOptions): Promise<v1_0.AgentCard> {
    return this.unary("GetExtendedAgentCard", request, opts);
  }

  /**
   * Fetches the extended card (with this client's credentials) and uses it from now on in place
   * of the public one, for capabilities and security schemes (1.0 §3.1.11); the interface in use
   * stays the same.
   */
  async useExtendedCard(opts?: CallOptions): Promise<v1_0.AgentCard> {
    this.card = await this.getExtendedAgentCard({}, opts);
    return this.card;
  }

  /**
   * Waits until the task reaches a state `until` accepts (default: terminal or interrupted),
   * subscribing when the card declares streaming and polling GetTask with backoff otherwise.
   */
  waitForTask(id: string, opts: WaitOptions = {}): Promise<v1_0.Task> {
    return waitForTask(this, id, opts);
  }

  // ---- plumbing ---------------------------------------------------------------------------

  /** Builds the 1.0 request message and stamps the interface's tenant on it. */
  private build<O extends Operation>(op: O, init: Init<O>): RequestOf<O> {
    const schema: DescMessage = OPERATIONS[op].request;
    const msg = create(schema, init as never) as unknown as RequestOf<O> & { tenant?: string };
    if (this.target.tenant && schema.fields.some((f) => f.localName === "tenant") && !msg.tenant) msg.tenant = this.target.tenant;
    return msg;
  }

  private async send(
    op: Operation,
    request: RequestOf<Operation>,
    opts: CallOptions,
    signal: AbortSignal | undefined,
  ): Promise<{ res: Response; wireReq: WireRequest }> {
    const extensions = [...(this.options.extensions ?? []), ...(opts.extensions ?? [])];
    const wireReq = this.wire.encode(this.target, op, request, extensions);
    const { headers: authHeaders, query } = await collectAuth(this.auth, this.card, wireReq.url);
    const url = new URL(wireReq.url);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers = new Headers(wireReq.headers);
    if (!headers.has("a2a-version")) headers.set("A2A-Version", this.target.version);
    for (const [k, v] of Object.entries({ ...this.options.headers, ...authHeaders, ...opts.headers })) headers.set(k, v);
    const doFetch = this.options.fetch ?? fetch;
    const res = await doFetch(url.toString(), { method: wireReq.method, headers, body: wireReq.body, signal });
    return { res, wireReq };
  }

  private signals(opts: CallOptions): { timeout?: AbortSignal; caller?: AbortSignal; combined?: AbortSignal } {
    const ms = opts.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const timeout = ms > 0 ? AbortSignal.timeout(ms) : undefined;
    const callers = [opts.signal, this.options.signal].filter((s): s is AbortSignal => !!s);
    const caller = callers.length > 1 ? AbortSignal.any(callers) : callers[0];
    const all = [timeout, caller].filter((s): s is AbortSignal => !!s);
    return { timeout, caller, combined: all.length > 1 ? AbortSignal.any(all) : all[0] };
  }

  /** The error for an operation the card says the agent does not offer, if so. */
  private capabilityError(op: Operation): A2AError | undefined {
    if (this.options.checkCapabilities === false) return undefined;
    const caps = this.card.capabilities;
    if ((op === "SendStreamingMessage" || op === "SubscribeToTask") && caps?.streaming !== true)
      return new A2AError("UnsupportedOperationError", `${op}: the agent card does not declare streaming (capabilities.streaming)`);
    if (op === "GetExtendedAgentCard" && caps?.extendedAgentCard !== true)
      return new A2AError("UnsupportedOperationError", "the agent card does not declare an extended card (capabilities.extendedAgentCard)");
    if (op.endsWith("TaskPushNotificationConfig") || op === "ListTaskPushNotificationConfigs")
      if (caps?.pushNotifications !== true)
        return new A2AError(
          "PushNotificationNotSupportedError",
          `${op}: the agent card does not declare push notifications (capabilities.pushNotifications)`,
        );
    return undefined;
  }

  /** The gRPC call options of one call: metadata (auth, caller headers), extensions, channel. */
  private async grpcCall(opts: CallOptions, signal: AbortSignal | undefined, timeoutMs?: number) {
    const { headers: authHeaders } = await collectAuth(this.auth, this.card, this.target.url);
    return {
      ...this.options.grpc,
      headers: { ...this.options.headers, ...authHeaders, ...opts.headers },
      extensions: [...(this.options.extensions ?? []), ...(opts.extensions ?? [])],
      signal,
      timeoutMs,
    };
  }

  /** A gRPC failure below A2A as the transport error HTTP bindings give for the same cause. */
  private grpcFailure(e: unknown, s: { caller?: AbortSignal }): unknown {
    if (e instanceof A2AError) return e;
    // By name: the class lives in the lazily loaded gRPC module.
    if (!(e instanceof Error) || e.name !== "GrpcStatusError") return transportFailure(e, this.target.url, s);
    const { codeName } = e as GrpcStatusError;
    const url = this.target.url;
    if (codeName === "Unauthenticated" || codeName === "PermissionDenied")
      return new A2ATransportError(
        "http",
        `${url} answered gRPC ${codeName}: credentials required or refused${authHint(this.card)}${snippet(e.message)}`,
        {
          url,
          status: codeName === "Unauthenticated" ? 401 : 403,
        },
      );
    if (codeName === "DeadlineExceeded") return new A2ATransportError("timeout", `request to ${url} timed out`, { url, cause: e });
    if (s.caller?.aborted) return new A2ATransportError("aborted", `request to ${url} was aborted`, { url, cause: s.caller.reason });
    return new A2ATransportError("network", `${url} answered gRPC ${codeName}: ${e.message}`, { url, cause: e });
  }

  /** One request/response operation. */
  async unary<O extends Operation>(op: O, init: Init<O>, opts: CallOptions = {}): Promise<ResponseOf<O>> {
    const refused = this.capabilityError(op);
    if (refused) throw refused;
    const request = this.build(op, init);
    if (this.target.binding === "GRPC") {
      const ms = opts.timeoutMs ?? this.options.timeoutMs ?? 30_000;
      const s = this.signals({ ...opts, timeoutMs: 0 });
      const { grpcUnary } = await loadGrpc();
      try {
        return await grpcUnary(this.target, op, request, await this.grpcCall(opts, s.caller, ms > 0 ? ms : undefined));
      } catch (e) {
        throw this.grpcFailure(e, s);
      }
    }
    const s = this.signals(opts);
    const url = this.target.url;
    let res: Response;
    let wireReq: WireRequest;
    let text: string;
    try {
      ({ res, wireReq } = await this.send(op, request, opts, s.combined));
      text = await res.text();
    } catch (e) {
      if (e instanceof A2AError) throw e;
      throw transportFailure(e, url, s);
    }
    return this.decodeReply(op, res, text, wireReq);
  }

  private decodeReply<O extends Operation>(op: O, res: Response, text: string, wireReq?: WireRequest): ResponseOf<O> {
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // Authentication and authorization sit below A2A (1.0 §3.3.2): 401/403 are transport errors
    // whatever the body says, so callers can tell "fix your credentials" from protocol errors.
    if (res.status === 401 || res.status === 403)
      throw new A2ATransportError(
        "http",
        `${this.target.url} answered HTTP ${res.status}: credentials required or refused${authHint(this.card)}${snippet(errorMessage(json) ?? text)}`,
        { url: this.target.url, status: res.status },
      );
    if (res.status >= 400 && !looksLikeError(json))
      throw new A2ATransportError("http", `${this.target.url} answered HTTP ${res.status}${snippet(text)}`, {
        url: this.target.url,
        status: res.status,
      });
    if (res.status < 400 && json === undefined && text.trim() !== "")
      throw new A2ATransportError("bad-response", `${this.target.url} answered with a body that is not JSON${snippet(text)}`, {
        url: this.target.url,
        status: res.status,
      });
    try {
      return this.wire.decode(this.target, op, { status: res.status, headers: res.headers, json, text }, wireReq);
    } catch (e) {
      if (e instanceof A2AError || e instanceof A2ATransportError) throw e;
      throw new A2ATransportError(
        "bad-response",
        `${this.target.url} answered ${op} with something that is not A2A: ${(e as Error).message}`,
        {
          url: this.target.url,
          status: res.status,
          cause: e,
        },
      );
    }
  }

  /**
   * One connection of a streaming operation: yields decoded items until the server closes the
   * stream, an error item arrives (thrown), or a 0.3 `final` event ends it.
   */
  async *openStream(
    op: "SendStreamingMessage" | "SubscribeToTask",
    request: RequestOf<Operation>,
    opts: CallOptions,
  ): AsyncGenerator<WireEvent> {
    if (this.target.binding === "GRPC") {
      // No deadline: a stream may run long; the caller's signal ends it (never the task).
      const s = this.signals({ ...opts, timeoutMs: 0 });
      const { grpcStream } = await loadGrpc();
      try {
        for await (const item of grpcStream(this.target, op, request as never, await this.grpcCall(opts, s.caller))) {
          yield item.final ? { event: item.event, end: true } : { event: item.event };
          if (item.final) return;
        }
      } catch (e) {
        throw this.grpcFailure(e, s);
      }
      return;
    }
    const s = this.signals(opts);
    // The per-call timeout bounds the connection set-up only; the stream itself may run long.
    const connection = new AbortController();
    const signal = s.caller ? AbortSignal.any([s.caller, connection.signal]) : connection.signal;
    const onTimeout = () => connection.abort(s.timeout?.reason);
    s.timeout?.addEventListener("abort", onTimeout, { once: true });
    let res: Response;
    let wireReq: WireRequest;
    try {
      ({ res, wireReq } = await this.send(op, request, opts, signal));
    } catch (e) {
      if (e instanceof A2AError) throw e;
      throw transportFailure(e, this.target.url, s);
    } finally {
      s.timeout?.removeEventListener("abort", onTimeout);
    }
    try {
      const type = res.headers.get("content-type") ?? "";
      if (!type.toLowerCase().startsWith("text/event-stream") || !res.body) {
        let text: string;
        try {
          text = await res.text();
        } catch (e) {
          throw transportFailure(e, this.target.url, { caller: s.caller });
        }
        // An error before the stream starts comes as an ordinary error response.
        this.decodeReply(op, res, text, wireReq);
        throw new A2ATransportError(
          "bad-response",
          `${this.target.url} answered ${op} without an event stream (${type || "no content type"})`,
          {
            url: this.target.url,
            status: res.status,
          },
        );
      }
      try {
        for await (const item of sseEvents(res.body)) {
          let data: unknown;
          try {
            data = JSON.parse(item.data);
          } catch (e) {
            throw new A2ATransportError("bad-response", `stream event is not JSON: ${snippet(item.data)}`, {
              url: this.target.url,
              cause: e,
            });
          }
          let ev: WireEvent;
          try {
            ev = this.wire.decodeEvent(this.target, op, data, item.event);
          } catch (e) {
            if (e instanceof A2AError || e instanceof A2ATransportError) throw e;
            throw new A2ATransportError("bad-response", `stream event is not an A2A event: ${(e as Error).message}`, {
              url: this.target.url,
              cause: e,
            });
          }
          if ("error" in ev) throw ev.error;
          yield ev;
          if (ev.end) return;
        }
      } catch (e) {
        if (e instanceof A2AError || e instanceof A2ATransportError) throw e;
        throw transportFailure(e, this.target.url, { caller: s.caller });
      }
    } finally {
      connection.abort();
    }
  }

  private stream(
    op: "SendStreamingMessage" | "SubscribeToTask",
    init: Init<typeof op>,
    opts: StreamOptions,
  ): AsyncGenerator<v1_0.StreamResponse> {
    const refused = this.capabilityError(op);
    if (refused)
      return (async function* (): AsyncGenerator<v1_0.StreamResponse> {
        throw refused;
      })();
    const request = this.build(op, init as Init<"SendStreamingMessage">);
    const policy = opts.resubscribe ?? this.options.resubscribe;
    const subscribeId = op === "SubscribeToTask" ? (request as v1_0.SubscribeToTaskRequest).id : undefined;
    return resilientStream(this, () => this.openStream(op, request, opts), opts, policy === false ? false : (policy ?? {}), subscribeId);
  }
}

function looksLikeError(json: unknown): boolean {
  return !!json && typeof json === "object" && !Array.isArray(json) && ("error" in json || "code" in json || "message" in json);
}

/** The message of an A2A error body (JSON-RPC, AIP-193 or bare), if there is one. */
function errorMessage(json: unknown): string | undefined {
  const o = json as { error?: { message?: unknown }; message?: unknown } | undefined;
  const m = o?.error?.message ?? o?.message;
  return typeof m === "string" ? m : undefined;
}

function snippet(text: string): string {
  const t = text.trim().replace(/\s+/g, " ");
  return t ? `: ${t.length > 200 ? `${t.slice(0, 200)}…` : t}` : "";
}

function authHint(card: v1_0.AgentCard): string {
  const names = Object.keys(card.securitySchemes ?? {});
  return names.length ? `; the card declares security schemes ${names.join(", ")}` : "";
}

/** A user text message (role USER, a fresh messageId), optionally continuing a task or context. */
export function textMessage(text: string, ids: { taskId?: string; contextId?: string } = {}): MessageInitShape<typeof v1_0.MessageSchema> {
  return {
    messageId: crypto.randomUUID(),
    role: v1_0.Role.USER,
    parts: [{ content: { case: "text", value: text } }],
    ...(ids.taskId ? { taskId: ids.taskId } : {}),
    ...(ids.contextId ? { contextId: ids.contextId } : {}),
  };
}
