// The front's gate: who is calling (authenticators, or the `authenticate` hook), which extensions a
// call activates (ExtensionSupportRequiredError without a required one), the caller's stream slots,
// and the extended card's own credential check on an otherwise open server. Everything here is
// decided before a handler sees the call, for every binding (JSON-RPC and HTTP+JSON replies are
// shaped by the dispatch; gRPC's refusals by its adapter).
import { encodeError, type HttpReply } from "../../transport/server.js";
import { A2AError } from "../../versioning/errors.js";
import { authenticate, unauthenticatedReply, type AuthRequest, type AuthResult, type Authenticator } from "../../security/auth.js";
import type { StreamSlots } from "../engine/coordinator.js";
import type { Declared } from "./card-route.js";
import { errorScope, type RouteScope } from "./http-limits.js";

type Headers = Record<string, string | string[] | undefined>;

export interface GateOptions<Req> {
  /** Tried in order on every call; the first principal wins. */
  authenticators?: readonly Authenticator[];
  /** Without authenticators: the caller's principal, or undefined to refuse. */
  authenticate?: (request: Req) => string | undefined | Promise<string | undefined>;
  /** What an otherwise open server checks for the extended card alone. */
  cardAuthenticators: readonly Authenticator[];
  maxStreams: number;
  streamSlots: StreamSlots;
  /** The card's declaration now (CardRoute.current). */
  declared: () => Declared;
  /** Where error replies are shaped for a URL (prefix and versions served). */
  scope: RouteScope;
}

export class Gate<Req> {
  /** "anonymous" when nothing authenticates (every call's principal, known without waiting), else undefined. */
  readonly anonymous: "anonymous" | undefined;

  constructor(private readonly opts: GateOptions<Req>) {
    this.anonymous = opts.authenticators || opts.authenticate ? undefined : "anonymous";
  }

  /** Whether every call carries credentials (then each principal has its own stream slots). */
  get authenticates(): boolean {
    return !!this.opts.authenticators || !!this.opts.authenticate;
  }

  /** The principal, or why there is none (the authenticators' result; undefined: the `authenticate` hook refused). */
  async who(request: { headers: Headers; url: string; raw: Req }): Promise<string | AuthResult | undefined> {
    const { authenticators, authenticate: hook } = this.opts;
    if (authenticators) {
      const r = await authenticate(authenticators, request);
      return r.ok ? r.principal : r;
    }
    if (!hook) return "anonymous";
    return hook(request.raw);
  }

  /** The principal, or the 401 reply in the binding's shape (`rpcId`: the JSON-RPC request's id, read only for that reply). */
  async principalOf(
    request: { headers: Headers; url: string; raw: Req },
    rpcId: () => string | number | null,
  ): Promise<string | HttpReply> {
    const r = await this.who(request);
    if (typeof r === "string") return r;
    const scope = errorScope(request.url, request.headers, this.opts.scope);
    if (r && this.opts.authenticators) return unauthenticatedReply({ ...scope, rpcId: rpcId() }, r, this.opts.authenticators);
    const e = encodeError({ ...scope, rpcId: null }, new A2AError("InvalidRequestError", "Authentication required"));
    return { ...e, status: 401, headers: { ...e.headers, "www-authenticate": "Bearer" } };
  }

  /** The extensions a call activates; ExtensionSupportRequiredError when it lacks a required one. */
  activated(asked: readonly string[]): string[] {
    const { requiredUris, declaredUris } = this.opts.declared();
    if (!asked.length && !requiredUris.length) return [];
    const missing = requiredUris.filter((u) => !asked.includes(u));
    if (missing.length)
      throw new A2AError("ExtensionSupportRequiredError", `This agent requires the extension(s) ${missing.join(", ")}`, {
        extensions: missing.join(","),
      });
    return asked.filter((u) => declaredUris.has(u));
  }

  /** Takes one of the caller's stream slots (this process, or every replica): its release, or undefined when all are taken. */
  async takeStream(principal: string, clientAddress: string): Promise<(() => void) | undefined> {
    // Without authentication every caller is "anonymous": count per client address instead.
    const key = this.authenticates ? `principal:${principal}` : `address:${clientAddress}`;
    if (!(await this.opts.streamSlots.acquire(key, this.opts.maxStreams))) return undefined;
    return () => this.opts.streamSlots.release(key);
  }

  tooManyStreams(): A2AError {
    return new A2AError("InvalidRequestError", `Too many open streams: at most ${this.opts.maxStreams} per caller; close one and retry`);
  }

  /**
   * The extended card's caller on an open server (cardAuthenticators): its principal, or why there
   * is none. Undefined when nothing is to check: the server authenticates every call, or it has no
   * extended card (UnsupportedOperationError comes first, 1.0.1 §3.3.4).
   */
  async extendedCardCaller(request: AuthRequest): Promise<string | AuthResult | undefined> {
    if (this.authenticates || !this.opts.declared().hasExtended) return undefined;
    if (!this.opts.cardAuthenticators.length) return { ok: false, error: "missing" };
    const r = await authenticate(this.opts.cardAuthenticators, request);
    return r.ok ? r.principal : r;
  }
}

/** The message of a refusal below A2A (gRPC UNAUTHENTICATED). */
export const refusal = (r: AuthResult | undefined) =>
  r && !r.ok && r.error === "invalid" ? "Credentials refused" : "Authentication required";
