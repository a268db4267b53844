// Which scripted behaviours the agent under test implements (the `behaviours` of Discovery), from
// three sources: the fixture-extension marker on its card (discovery.ts), what the user claims for it
// (`--profile`, `--behaviours`) and, for the official TCK's messageId conventions (tck-1.0.md), a
// probe: one SendMessage with messageId `tck-message-response-<uuid>`; an agent that answers it
// with a bare Message (no Task) honours them. The probe is sent once per run, on the first 1.0
// interface (JSON-RPC preferred), and only when nothing else decided (no profile, tck not claimed).
// Cases for a behaviour nobody claimed are skipped, never failed (runner.ts applicability).
import type { Behaviour } from "./cases.js";
import { ALL_BEHAVIOURS, type AgentInterfaceInfo, type Discovery } from "./discovery.js";
import { grpcExchange, grpcMethod } from "./grpc.js";
import { exchange } from "./http.js";
import { isPlainObject } from "./match.js";

/**
 * tck: the official TCK's SUT conventions (messageId prefixes); fixture: every behaviour of this
 * project's fixture agent (compliance/README.md); none: only what the card declares, and no probe.
 */
export type Profile = "tck" | "fixture" | "none";
export const PROFILES: readonly Profile[] = ["tck", "fixture", "none"];

export interface BehaviourOptions {
  profile?: Profile;
  /** Fixture behaviours the agent implements, declared for it (its card left as it is). */
  behaviours?: Behaviour[];
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** Whether a probe may be sent (default true; the suite sends it only when a tck case is selected). */
  probe?: boolean;
}

/** What the kit expects in the Message answering `tck-message-response-*` (../shared/reference/tck-1.0.md). */
const TCK_MESSAGE_TEXT = "Direct message response";

/** The probe's verdict: does the agent answer a `tck-message-response-*` message with a bare Message holding the kit's text? */
export async function probeTck(
  iface: AgentInterfaceInfo,
  timeoutMs = 10_000,
  headers: Record<string, string> = {},
): Promise<{ honours: boolean; answer: string; messageId: string }> {
  const messageId = `tck-message-response-${crypto.randomUUID()}`;
  const message = { messageId, role: "ROLE_USER", parts: [{ text: "hello" }] };
  const rpc = iface.binding === "json-rpc";
  const bounds = { timeoutMs, streamTimeoutMs: timeoutMs };
  const res =
    iface.binding === "grpc"
      ? await grpcExchange(
          {
            target: iface.url,
            version: "1.0",
            method: grpcMethod("1.0", "SendMessage")!,
            metadata: { ...headers, "a2a-version": "1.0" },
            body: { message },
          },
          bounds,
        )
      : await exchange(
          {
            method: "POST",
            url: rpc ? iface.url : `${iface.url.replace(/\/+$/, "")}/message:send`,
            headers: { ...headers, "Content-Type": "application/json", "A2A-Version": "1.0" },
            body: JSON.stringify(rpc ? { jsonrpc: "2.0", id: "tck-probe", method: "SendMessage", params: { message } } : { message }),
          },
          bounds,
        );
  const body = rpc && isPlainObject(res.json) ? res.json.result : res.json;
  // The kit's text, not just the shape: an agent that answers every message with a bare Message
  // (an echo or chat agent) must not pass for one that honours the conventions.
  if (isPlainObject(body) && isPlainObject(body.message) && body.task === undefined) {
    const parts = Array.isArray(body.message.parts) ? body.message.parts : [];
    if (parts.some((p) => isPlainObject(p) && p.text === TCK_MESSAGE_TEXT))
      return { honours: true, answer: `a bare Message "${TCK_MESSAGE_TEXT}"`, messageId };
    return { honours: false, answer: `a bare Message without the text "${TCK_MESSAGE_TEXT}"`, messageId };
  }
  const answer = res.error
    ? res.error
    : isPlainObject(body) && isPlainObject(body.task)
      ? "a Task"
      : `HTTP ${res.status}${rpc && isPlainObject(res.json) && res.json.error ? ", a JSON-RPC error" : ""}`;
  return { honours: false, answer, messageId };
}

/**
 * Sets `d.behaviours` from the card, the options and (when they leave it open) the TCK probe; notes what
 * was decided. True when the probe message was sent.
 */
export async function resolveBehaviours(d: Discovery, opts: BehaviourOptions): Promise<boolean> {
  const claimed = new Set<Behaviour>([...(opts.behaviours ?? [])]);
  if (opts.profile === "fixture") ALL_BEHAVIOURS.forEach((b) => claimed.add(b));
  if (opts.profile === "tck") claimed.add("tck");
  const merged = new Set<Behaviour>([...(d.behaviours ?? []), ...claimed]);
  const by = [
    opts.profile === "tck" || opts.profile === "fixture" ? `--profile ${opts.profile}` : "",
    opts.behaviours?.length ? "--behaviours" : "",
  ];
  if (claimed.size) d.notes.push(`behaviours claimed for the agent (${by.filter(Boolean).join(" and ")}): ${[...claimed].join(", ")}`);
  let probed = false;
  if (!opts.profile && !merged.has("tck") && opts.probe !== false) {
    const iface =
      d.interfaces.find((i) => i.version === "1.0" && i.binding === "json-rpc") ?? d.interfaces.find((i) => i.version === "1.0");
    if (iface) {
      probed = true;
      const probe = await probeTck(iface, opts.timeoutMs, opts.headers);
      if (probe.honours) merged.add("tck");
      d.notes.push(
        `TCK conventions probed (SendMessage messageId ${probe.messageId} on ${iface.url}): answered by ${probe.answer}; ` +
          (probe.honours ? "the tck cases run" : "the tck cases are skipped (--profile tck runs them)"),
      );
    }
  }
  d.behaviours = merged.size || d.behaviours ? ALL_BEHAVIOURS.filter((b) => merged.has(b)) : undefined;
  return probed;
}
