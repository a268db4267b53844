// Client-side failures that are not A2A protocol errors. A protocol error (the agent answered with
// an A2A or JSON-RPC error) is an `A2AError` from src/versioning/errors.ts; everything here means
// the conversation never reached that point: the agent could not be reached, answered something
// that is not A2A, the call timed out or was aborted, or the agent card was unusable.
export { A2AError } from "../versioning/errors.js";
export type { A2AErrorName } from "../versioning/errors.js";

export type TransportErrorKind =
  /** DNS failure, refused or reset connection, TLS failure: no HTTP response at all. */
  | "network"
  /** An HTTP error without an A2A error body (e.g. 502 with an HTML page), or 401/403 (credentials). */
  | "http"
  /** The response is not what the binding promises (not JSON, not SSE, wrong envelope). */
  | "bad-response"
  /** The per-call timeout elapsed. */
  | "timeout"
  /** The caller's AbortSignal fired. */
  | "aborted";

/** The call failed below the A2A protocol: no A2A answer was received. */
export class A2ATransportError extends Error {
  override readonly name = "A2ATransportError";
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
    readonly details: { url?: string; status?: number; cause?: unknown } = {},
  ) {
    super(message, details.cause !== undefined ? { cause: details.cause } : undefined);
  }

  get status(): number | undefined {
    return this.details.status;
  }
}

export type CardErrorKind =
  /** The card was fetched but is not JSON or not an agent card of either version. */
  | "invalid"
  /** The card offers no interface this client may use (bindings/versions restricted or pinned). */
  | "no-compatible-interface"
  /** The caller's `verifyCard` hook rejected the card. */
  | "verification-failed";

/** The agent card cannot be used to talk to the agent. */
export class A2ACardError extends Error {
  override readonly name = "A2ACardError";
  constructor(
    readonly kind: CardErrorKind,
    message: string,
    readonly details: { url?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause !== undefined ? { cause: details.cause } : undefined);
  }
}

/** Turns a fetch()/body-read rejection into an A2ATransportError (keeps the timeout/abort cause apart). */
export function transportFailure(e: unknown, url: string, signals: { timeout?: AbortSignal; caller?: AbortSignal }): A2ATransportError {
  if (e instanceof A2ATransportError) return e;
  if (signals.caller?.aborted)
    return new A2ATransportError("aborted", `request to ${url} was aborted`, { url, cause: signals.caller.reason });
  if (signals.timeout?.aborted) return new A2ATransportError("timeout", `request to ${url} timed out`, { url, cause: e });
  const cause = (e as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const why = cause?.code ?? cause?.message ?? (e instanceof Error ? e.message : String(e));
  return new A2ATransportError("network", `could not reach ${url}: ${why}`, { url, cause: e });
}
