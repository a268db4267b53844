// One backend agent behind the gateway: its configuration and a reference client bound to the
// interface it speaks (version and binding from the configuration, else from its card). The card
// is read when the gateway starts, each attempt bounded by a discovery timeout, and read again in
// the background after a failure, so a backend that is down or hangs when the gateway starts
// delays nothing and is picked up when it answers.
import { createA2AClient, type A2AClient, type ClientOptions } from "../client/index.js";
import type * as v1_0 from "../../generated/v1_0/index.js";
import type { BackendConfig } from "./config.js";

export const DEFAULT_TURN_TIMEOUT_MS = 300_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Longest wait for a backend's card, per attempt. */
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 5_000;
/** Retries of a failed card read: 1 s, doubling up to 30 s. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export class Backend {
  private pending: Promise<A2AClient> | undefined;
  private connected: A2AClient | undefined;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;
  /** Per-turn deadline in ms. */
  readonly turnTimeoutMs: number;
  /** Called once, when the card has been read (the gateway then publishes the backend's skills). */
  onConnected: ((b: Backend) => void) | undefined;

  constructor(
    readonly config: BackendConfig,
    gatewayTimeoutMs: number | undefined,
    private readonly fetchImpl?: typeof fetch,
    private readonly discoveryTimeoutMs = DEFAULT_DISCOVERY_TIMEOUT_MS,
  ) {
    this.turnTimeoutMs = config.timeoutMs ?? gatewayTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
  }

  get name(): string {
    return this.config.name;
  }

  /** The backend's card, once it has been read. */
  get card(): v1_0.AgentCard | undefined {
    return this.connected?.card;
  }

  /** Whether the gateway follows the remote task by subscribing (else it polls GetTask). */
  get streams(): boolean {
    return this.connected?.canStream ?? false;
  }

  /**
   * The client, reading the backend's card if it has not been read (an attempt in progress is
   * awaited). Each attempt is bounded by the discovery timeout; a failed one is retried in the
   * background (1 s, doubling up to 30 s) until the card is read or the backend is closed.
   * `failFast`: while an attempt is in progress, reject at once instead of waiting for it (a new
   * message to a backend still being discovered gets the generic failure without delay).
   */
  client(opts: { failFast?: boolean } = {}): Promise<A2AClient> {
    if (this.connected) return Promise.resolve(this.connected);
    if (this.pending && opts.failFast)
      return Promise.reject(new Error(`backend ${this.name}: its agent card (${this.config.url}) has not been read yet`));
    return (this.pending ??= this.attempt());
  }

  /** Stops the background retries. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
  }

  private attempt(): Promise<A2AClient> {
    clearTimeout(this.retry);
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`backend ${this.name}: no agent card within ${this.discoveryTimeoutMs} ms`)),
      this.discoveryTimeoutMs,
    );
    return this.connect(controller.signal).then(
      (c) => {
        clearTimeout(timer);
        this.connected = c;
        this.pending = undefined;
        this.onConnected?.(this);
        return c;
      },
      (e: unknown) => {
        clearTimeout(timer);
        this.pending = undefined;
        if (!this.closed) {
          const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.failures++);
          this.retry = setTimeout(() => void this.client().catch(() => {}), delay).unref();
        }
        throw e;
      },
    );
  }

  /** `signal` bounds the card read; it stays with the client (never aborted once the card is read). */
  private connect(signal: AbortSignal): Promise<A2AClient> {
    const c = this.config;
    const options: ClientOptions = {
      timeoutMs: c.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      signal,
      ...(c.version ? { version: c.version } : {}),
      ...(c.binding ? { bindings: [c.binding] } : {}),
      ...(c.headers ? { headers: c.headers } : {}),
      ...(this.fetchImpl ? { fetch: this.fetchImpl } : {}),
      resubscribe: { maxAttempts: 3, backoffMs: 200 },
    };
    return createA2AClient(c.url, options);
  }
}
