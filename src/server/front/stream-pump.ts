// The front's stream pump: one SSE stream's frames, taken from the handler's events as they come
// and queued as bytes until the client reads them (stream-budget.ts: a stream over its share of the
// budget is cut with an error event). Comments keep proxies from cutting a stream that is quiet
// while the agent works; the client going away stops the pump and releases the stream's slot.
import type { SseStream } from "../../transport/server.js";
import { toA2AError } from "../../transport/server.js";
import { sseComment } from "../../transport/sse.js";
import { A2AError } from "../../versioning/errors.js";
import type { EventStream } from "../engine/handler.js";
import type { Logger } from "../engine/runtime.js";
import type { SseChunk } from "./front.js";
import { EventWait, fellBehind, StreamQueue, type Packing, type StreamBudget } from "./stream-budget.js";

/** SSE frames wait as UTF-8 bytes (what the socket would hold of them). */
const SSE_PACKING: Packing<SseChunk> = {
  pack: (chunk) => (typeof chunk === "string" ? Buffer.from(chunk) : chunk),
  unpack: (b) => b,
};

const TICK = Symbol("keep-alive");
const GONE = Symbol("client gone");

export interface PumpOptions {
  budget: StreamBudget;
  /** Interval of keep-alive comments while no event comes, in ms (0 = none). */
  keepAliveMs: number;
  log: Logger;
}

/** Pumps `events` into SSE frames of `sse` until the stream ends, the client goes (`signal`) or the budget cuts it; then `release`. */
export function pumpEvents(
  events: EventStream,
  sse: SseStream,
  signal: AbortSignal,
  release: () => void,
  opts: PumpOptions,
): StreamQueue<SseChunk> {
  // The client going away ends the wait for the next event even when the handler's iterator
  // does not settle a pending next() on return() (an async generator's return waits behind it).
  const waiting = new EventWait();
  const stop = () => {
    waiting.stop(GONE);
    void events.return?.();
  };
  const out = new StreamQueue<SseChunk>(
    opts.budget,
    SSE_PACKING,
    (limit) => {
      out.push(sse.error(fellBehind(limit)));
      out.end();
      stop();
    },
    stop,
  );
  const produce = async () => {
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
    const timer = opts.keepAliveMs > 0 ? setInterval(() => waiting.nudge(TICK), opts.keepAliveMs) : undefined;
    try {
      // A pending next() may reject while a comment is out: the empty catch keeps that from counting
      // as unhandled; the rejection still reaches the wait that awaits it.
      const pull = () => {
        const p = events.next();
        p.catch(() => {});
        return p;
      };
      let pending = pull();
      for (;;) {
        const next = await waiting.wait(pending);
        if (next === GONE) break;
        if (next === TICK) {
          // A stream with frames still queued is not idle.
          if (!signal.aborted && out.length === 0) out.push(sseComment());
          continue;
        }
        if (typeof next === "symbol" || next.done || signal.aborted) break;
        const { frames, close } = sse.event(next.value);
        if (frames) out.push(frames);
        if (close) break;
        pending = pull();
      }
      if (!signal.aborted) {
        const tail = sse.end();
        if (tail) out.push(tail);
      }
    } catch (e) {
      if (!(e instanceof A2AError)) opts.log.error({ err: e }, "A2A stream failed");
      if (!signal.aborted) out.push(sse.error(toA2AError(e)));
    } finally {
      clearInterval(timer);
      signal.removeEventListener("abort", stop);
      stop();
      release();
      out.end();
    }
  };
  void produce();
  return out;
}
