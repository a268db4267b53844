// Pacing for agents that take time or ration requests (issue 12): a 429 answer is re-sent after
// its Retry-After (bounded), a non-terminal task is polled until it ends (`repeatUntil`, bounded by
// --task-timeout), and requests that send a message are counted against --max-messages. Waits use
// the global setTimeout and Date.now, so tests drive them with fake timers.
import type { Case, CaseRequest } from "./cases.js";
import { exchangesOf } from "./cases.js";
import type { WireRequest, WireResponse } from "./http.js";

/** At most this many re-sends of one request answered 429. */
export const MAX_429_RETRIES = 3;
/** A Retry-After longer than this is cut to it. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** Polling: the first interval, doubled after each poll up to the cap. */
export const POLL_START_MS = 250;
export const POLL_MAX_MS = 2_000;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After (RFC 9110 §10.2.3): delta-seconds or an HTTP-date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const MESSAGE_METHODS = new Set(["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]);

/** Does this request send a message (JSON-RPC SendMessage/SendStreamingMessage/message/send/message/stream, REST POST …message:send|stream)? */
export function sendsMessage(req: Pick<CaseRequest, "method" | "path" | "body" | "rawBody" | "rpc">): boolean {
  if (req.rpc !== undefined) return MESSAGE_METHODS.has(req.rpc);
  if (req.method === "POST" && /message:(send|stream)$/.test(req.path.split("?", 1).join(""))) return true;
  let body = req.body;
  if (body === undefined && req.rawBody !== undefined) {
    try {
      body = JSON.parse(req.rawBody);
    } catch {
      return false;
    }
  }
  const calls = Array.isArray(body) ? body : [body];
  return calls.some((c) => typeof c === "object" && c !== null && MESSAGE_METHODS.has((c as { method?: unknown }).method as string));
}

/** How many message-sending requests the case sends if every step runs (the static budget check). */
export function messagesNeeded(c: Case): number {
  return c.steps.flatMap(exchangesOf).filter((x) => sendsMessage(x.request)).length;
}

/** What --max-messages leaves for the rest of the run (left: Infinity when unlimited). */
export interface MessageBudget {
  left: number;
  /** First sends the running case still has to make (counted statically): a 429 re-send may not take them. */
  reserved?: number;
  /** Message-sending requests sent so far, 429 re-sends included (the report's "messages sent"). */
  sent?: number;
}

export interface PacedOptions {
  /** Date.now() after which no further wait starts (the --task-timeout bound). */
  deadline: number;
  /** The request sends a message: each send is charged to the budget, and a 429 is re-sent only while budget is left. */
  budget?: MessageBudget;
}

/**
 * Sends the request; a 429 is re-sent after its Retry-After (capped at 60 s), or 1 s, 2 s, 4 s
 * without one, at most 3 times and never past the deadline. `notes` says what happened.
 */
export async function sendPaced(
  send: (r: WireRequest) => Promise<WireResponse>,
  request: WireRequest,
  opts: PacedOptions,
): Promise<{ response: WireResponse; notes: string[] }> {
  const notes: string[] = [];
  const b = opts.budget;
  if (b) {
    b.left--;
    b.sent = (b.sent ?? 0) + 1;
    b.reserved = Math.max(0, (b.reserved ?? 0) - 1);
  }
  let response = await send(request);
  for (let retry = 0; response.status === 429 && retry < MAX_429_RETRIES; retry++) {
    const given = retryAfterMs(response.headers["retry-after"]);
    const wait = Math.min(given ?? 1000 * 2 ** retry, MAX_RETRY_AFTER_MS);
    const why = given === undefined ? "no Retry-After" : `Retry-After ${response.headers["retry-after"]}`;
    if (Date.now() + wait > opts.deadline) {
      notes.push(`HTTP 429 (${why}): not re-sent, the wait of ${wait} ms would pass --task-timeout`);
      break;
    }
    if (b && b.left - (b.reserved ?? 0) <= 0) {
      notes.push(`HTTP 429 (${why}): not re-sent, the --max-messages budget is spent`);
      break;
    }
    await sleep(wait);
    if (b) {
      b.left--;
      b.sent = (b.sent ?? 0) + 1;
    }
    response = await send(request);
    notes.push(`HTTP 429 (${why}): re-sent after ${wait} ms, answered ${response.status}`);
  }
  return { response, notes };
}

/** The next polling interval: doubles up to 2 s; a Retry-After on the last answer takes precedence (capped at 60 s). */
export function nextPollMs(previous: number | undefined, res: WireResponse): number {
  const given = retryAfterMs(res.headers["retry-after"]);
  if (given !== undefined) return Math.min(given, MAX_RETRY_AFTER_MS);
  return previous === undefined ? POLL_START_MS : Math.min(previous * 2, POLL_MAX_MS);
}

/**
 * Re-sends (through `resend`, which pays 429s itself) until `done(response)`; the last wait is cut
 * to the deadline, and once it has passed the result is `timedOut`.
 */
export async function pollUntil(
  resend: () => Promise<WireResponse>,
  first: WireResponse,
  done: (res: WireResponse) => boolean,
  deadline: number,
): Promise<{ response: WireResponse; polls: number; timedOut: boolean }> {
  let response = first;
  let polls = 0;
  let interval: number | undefined;
  while (!done(response)) {
    const left = deadline - Date.now();
    if (left <= 0) return { response, polls, timedOut: true };
    interval = nextPollMs(interval, response);
    await sleep(Math.min(interval, left));
    response = await resend();
    polls++;
  }
  return { response, polls, timedOut: false };
}
