// Server-Sent Events framing for A2A streams, both versions and both HTTP bindings
// (a2a-wire.md §5.1): one item per event, `data: <compact JSON>` and a blank line; no event
// names, ids or retry hints. Receivers ignore comments (`: keep-alive`) and unknown fields.
//
// API
//   SSE_HEADERS                 response headers of a stream (text/event-stream, no caching)
//   sseFrame(json)              one `data:` frame
//   sseComment(text)            a comment frame (keep-alive)
//   SseDecoder                  client side: feed(chunk) → SseEvent[]; flush() at end of input
//   readSse(body)               client side: async iterable of SseEvent from a byte stream
import { createParser, type EventSourceMessage } from "eventsource-parser";

export const SSE_CONTENT_TYPE = "text/event-stream";

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": SSE_CONTENT_TYPE,
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/** One SSE event carrying `json` on a single `data:` line (JSON.stringify never emits raw newlines). */
export function sseFrame(json: unknown): string {
  return `data: ${JSON.stringify(json)}\n\n`;
}

export function sseComment(text = "keep-alive"): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

export interface SseEvent {
  /** The `event:` name when one was sent (A2A defines none; some servers send `error`). */
  event?: string;
  data: string;
}

/** Incremental SSE reader: accepts text or bytes in arbitrary chunks. */
export class SseDecoder {
  private readonly pending: SseEvent[] = [];
  private readonly parser = createParser({
    onEvent: (m: EventSourceMessage) => this.pending.push(m.event ? { event: m.event, data: m.data } : { data: m.data }),
  });
  private readonly text = new TextDecoder();

  feed(chunk: string | Uint8Array): SseEvent[] {
    this.parser.feed(typeof chunk === "string" ? chunk : this.text.decode(chunk, { stream: true }));
    return this.pending.splice(0);
  }

  /** End of input: an event not terminated by a blank line is dispatched (lenient). */
  flush(): SseEvent[] {
    const rest = this.text.decode();
    if (rest) this.parser.feed(rest);
    this.parser.feed("\n\n");
    return this.pending.splice(0);
  }
}

/** Reads SSE events from a fetch body (web ReadableStream) or any async iterable of chunks. */
export async function* readSse(body: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  const iterable: AsyncIterable<Uint8Array | string> =
    Symbol.asyncIterator in body ? (body as AsyncIterable<Uint8Array | string>) : streamToIterable(body as ReadableStream<Uint8Array>);
  for await (const chunk of iterable) for (const e of decoder.feed(chunk)) yield e;
  for (const e of decoder.flush()) yield e;
}

async function* streamToIterable(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
