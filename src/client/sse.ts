// Reads Server-Sent Events from a fetch() body with eventsource-parser (multi-line `data:`,
// comments, `retry:` and `id:` fields handled by the library; A2A uses none but `data:`).
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseItem {
  /** `event:` name when the server sent one (A2A defines none; some servers send `error`). */
  event?: string;
  data: string;
}

/** Yields each SSE event of `body` as it arrives; ends when the body ends. Throws what the body read throws. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  const queue: SseItem[] = [];
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => queue.push(m.event ? { event: m.event, data: m.data } : { data: m.data }),
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length) yield queue.shift()!;
    }
    const rest = decoder.decode();
    if (rest) parser.feed(rest);
    while (queue.length) yield queue.shift()!;
  } finally {
    reader.releaseLock();
    // Stops the connection when the consumer leaves early; a no-op once the body has ended.
    await body.cancel().catch(() => {});
  }
}
