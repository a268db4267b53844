// Raw HTTP for the compliance runner: the request goes out exactly as the case wrote it (no
// client library in between), and the response is recorded as it came back: status, headers,
// the body parsed as JSON when it is JSON, or the list of SSE events. Every read is bounded.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { GrpcOutcome } from "./grpc.js";
import { CLOSE_GRACE_MS, closingEvent, type Closing } from "./stream-end.js";

export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body exactly as sent (undefined: none). */
  body?: string;
}

export interface SseEventRecord {
  event?: string;
  /** The raw `data:` text. */
  data: string;
  /** `data` parsed as JSON (undefined when it is not JSON: see parseError). */
  json?: unknown;
  parseError?: string;
}

export interface WireResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Raw body text (non-SSE responses). */
  text?: string;
  /** JSON-parsed body, when the body is JSON. */
  json?: unknown;
  /** SSE events, when the response is text/event-stream. */
  events?: SseEventRecord[];
  /** SSE only: did the server end the stream before the read timed out? */
  closed?: boolean;
  /** Streams: the index of the first event after which the stream must close (stream-end.ts closingEvent). */
  closingAt?: number;
  /** Streams: what that event was (a Message, a terminal or interrupted state, a JSON-RPC error). */
  closing?: Closing;
  /** The read gave up waiting: no answer within the timeout, or a stream still open at its bound. */
  timedOut?: boolean;
  /** Why the exchange could not complete (connection refused, timeout before headers, …). */
  error?: string;
  /** gRPC calls: the status (grpc-status, grpc-message, grpc-status-details-bin) and trailers. */
  grpc?: GrpcOutcome;
  /** `json` and the events' JSON were written by the runner from protobuf messages (gRPC), not sent by the agent. */
  decoded?: boolean;
}

export interface ExchangeOptions {
  /** Bound for the status line and headers, and for a non-streaming body. */
  timeoutMs: number;
  /** Bound for reading an SSE stream to its end. */
  streamTimeoutMs: number;
  /** At most this many SSE events are kept; reading stops after it. */
  maxEvents?: number;
  /** The client closes the stream after this many events (not an error). */
  stopAfter?: number;
}

const MAX_BODY = 4 * 1024 * 1024;

export async function exchange(req: WireRequest, opts: ExchangeOptions): Promise<WireResponse> {
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(new Error(`no response within ${opts.timeoutMs} ms`)), opts.timeoutMs);
  let res: Response;
  try {
    res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: controller.signal, redirect: "manual" });
  } catch (e) {
    clearTimeout(timer);
    return { status: 0, headers: {}, error: describeFetchError(e, controller), ...(controller.signal.aborted ? { timedOut: true } : {}) };
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k.toLowerCase()] = v));
  const isSse = (headers["content-type"] ?? "").toLowerCase().startsWith("text/event-stream");
  if (!isSse) {
    try {
      const text = await readText(res, MAX_BODY);
      clearTimeout(timer);
      const out: WireResponse = { status: res.status, headers, text };
      if (text.length) {
        try {
          out.json = JSON.parse(text);
        } catch {
          // not JSON: the text stays for the report; expectations on `body` will say so
        }
      }
      return out;
    } catch (e) {
      clearTimeout(timer);
      return {
        status: res.status,
        headers,
        error: describeFetchError(e, controller),
        ...(controller.signal.aborted ? { timedOut: true } : {}),
      };
    }
  }
  // A stream: switch to the longer stream bound, read until the server closes it.
  clearTimeout(timer);
  let timedOut = false;
  const giveUp = (after: string) => {
    timedOut = true;
    controller.abort(new Error(`stream still open ${after}`));
  };
  timer = setTimeout(() => giveUp(`after ${opts.streamTimeoutMs} ms`), opts.streamTimeoutMs);
  const deadline = Date.now() + opts.streamTimeoutMs;
  let closingAt: number | undefined;
  let closing: Closing | undefined;
  const events: SseEventRecord[] = [];
  const max = opts.maxEvents ?? 1000;
  const parser = createParser({
    onEvent(m: EventSourceMessage) {
      if (events.length >= max) return;
      const rec: SseEventRecord = m.event ? { event: m.event, data: m.data } : { data: m.data };
      try {
        rec.json = JSON.parse(m.data);
      } catch (e) {
        rec.parseError = (e as Error).message;
      }
      events.push(rec);
      if (closingAt === undefined && (closing = closingEvent(rec.json))) {
        // The stream must end now: wait a little for it, not the whole stream bound.
        closingAt = events.length - 1;
        clearTimeout(timer);
        const grace = Math.min(CLOSE_GRACE_MS, Math.max(0, deadline - Date.now()));
        timer = setTimeout(() => giveUp(`${grace} ms after event ${closingAt} ended the task's stream`), grace);
      }
    },
  });
  let closed = false;
  let stopped = false;
  let error: string | undefined;
  try {
    const reader = res.body?.getReader();
    if (reader) {
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        if (opts.stopAfter !== undefined && events.length >= opts.stopAfter) {
          events.length = opts.stopAfter;
          await reader.cancel().catch(() => undefined);
          stopped = true;
          break;
        }
        if (events.length >= max) {
          await reader.cancel().catch(() => undefined);
          error = `more than ${max} events; stopped reading`;
          break;
        }
      }
      if (!error && !stopped) closed = true;
    } else closed = true;
  } catch (e) {
    if (!timedOut) error = describeFetchError(e, controller);
  } finally {
    clearTimeout(timer);
  }
  return {
    status: res.status,
    headers,
    events,
    closed,
    ...(closingAt !== undefined ? { closingAt, closing } : {}),
    ...(timedOut ? { timedOut } : {}),
    ...(error ? { error } : {}),
  };
}

async function readText(res: Response, limit: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`body larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function describeFetchError(e: unknown, controller: AbortController): string {
  if (controller.signal.aborted) {
    const reason = controller.signal.reason as unknown;
    return reason instanceof Error ? reason.message : String(reason);
  }
  const err = e as Error & { cause?: { code?: string; message?: string } };
  return err.cause?.code ? `${err.message}: ${err.cause.code}` : err.message;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and those a relay recomputes: never copied by the proxy or the recorder. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
  "content-length",
  "host",
]);
