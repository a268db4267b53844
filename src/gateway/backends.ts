// One backend agent behind the gateway: its configuration and a reference client bound to the
// interface it speaks (version and binding from the configuration, else from its card). The client
// is made on first use and made again after a failure, so a backend that is down when the gateway
// starts is picked up when it comes back.
import { createA2AClient, type A2AClient, type ClientOptions } from "../client/index.js";
import type * as v1_0 from "../../generated/v1_0/index.js";
import type { BackendConfig } from "./config.js";

export const DEFAULT_TURN_TIMEOUT_MS = 300_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export class Backend {
  private pending: Promise<A2AClient> | undefined;
  private connected: A2AClient | undefined;
  /** Per-turn deadline in ms. */
  readonly turnTimeoutMs: number;

  constructor(
    readonly config: BackendConfig,
    gatewayTimeoutMs: number | undefined,
    private readonly fetchImpl?: typeof fetch,
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

  /** The client, reading the backend's card the first time (and again after a failed attempt). */
  client(): Promise<A2AClient> {
    if (this.connected) return Promise.resolve(this.connected);
    this.pending ??= this.connect().then(
      (c) => (this.connected = c),
      (e: unknown) => {
        this.pending = undefined;
        throw e;
      },
    );
    return this.pending;
  }

  private connect(): Promise<A2AClient> {
    const c = this.config;
    const options: ClientOptions = {
      timeoutMs: c.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      ...(c.version ? { version: c.version } : {}),
      ...(c.binding ? { bindings: [c.binding] } : {}),
      ...(c.headers ? { headers: c.headers } : {}),
      ...(this.fetchImpl ? { fetch: this.fetchImpl } : {}),
      resubscribe: { maxAttempts: 3, backoffMs: 200 },
    };
    return createA2AClient(c.url, options);
  }
}
