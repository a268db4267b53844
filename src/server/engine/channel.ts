// Per-task event broadcast with one buffer per subscriber.
//
// Publishing never waits for a subscriber: each subscriber has its own queue, drained at its own
// pace, so a slow SSE client delays nobody else (a2a-wire.md §5.3: every stream gets the same
// events in the same order; closing one does not affect the others). A subscriber that falls more
// than `maxBuffered` events, or more than `maxBytes` of them (as measured by `sizeOf`, once per
// event), behind is cut off with an error rather than letting memory grow without bound.

export class SubscriberOverflowError extends Error {
  constructor(limit: number, unit = "events") {
    super(`the subscriber fell more than ${limit} ${unit} behind and was disconnected`);
    this.name = "SubscriberOverflowError";
  }
}

export interface ChannelByteLimit<T> {
  /** Most bytes one subscriber may have waiting. */
  maxBytes: number;
  sizeOf: (item: T) => number;
}

export class Subscription<T> implements AsyncIterableIterator<T> {
  private queue: T[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;
  private ended = false;
  private failure: unknown;
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private failWaiter: ((e: unknown) => void) | undefined;

  constructor(
    private readonly detach: (s: Subscription<T>) => void,
    private readonly maxBuffered: number,
    /** After delivering an item for which this is true, the subscription ends. */
    private readonly stopAfter?: (item: T) => boolean,
    private readonly maxBytes = Infinity,
  ) {}

  /** Events waiting to be read. */
  get buffered(): number {
    return this.queue.length - this.head;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** `size`: the item's bytes, counted against maxBytes while it waits. */
  push(item: T, size = 0): void {
    if (this.ended) return;
    const stop = this.stopAfter?.(item) ?? false;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = this.failWaiter = undefined;
      w({ value: item, done: false });
    } else {
      if (this.buffered >= this.maxBuffered) return this.fail(new SubscriberOverflowError(this.maxBuffered));
      if (this.buffered > 0 && this.bytes + size > this.maxBytes) return this.fail(new SubscriberOverflowError(this.maxBytes, "bytes"));
      this.queue.push(item);
      this.sizes.push(size);
      this.bytes += size;
    }
    if (stop) this.end();
  }

  /** No more items; the reader gets what is buffered, then done. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.detach(this);
    if (this.waiter && this.buffered === 0) {
      const w = this.waiter;
      this.waiter = this.failWaiter = undefined;
      w({ value: undefined, done: true });
    }
  }

  /** Ends with an error, delivered after the buffered items. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = error ?? new Error("subscription failed");
    this.ended = true;
    this.detach(this);
    if (this.failWaiter && this.buffered === 0) {
      const f = this.failWaiter;
      this.waiter = this.failWaiter = undefined;
      f(this.failure);
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffered > 0) {
      // buffered > 0: the slot at head holds an item (and its size).
      const value = this.queue[this.head] as T;
      this.bytes -= this.sizes[this.head] ?? 0;
      this.queue[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.sizes = this.sizes.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== undefined) {
      const f: unknown = this.failure; // whatever the producer failed with, not narrowed to {} | null
      this.failure = undefined;
      return Promise.reject(f);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }

  /** The reader is gone (e.g. the client disconnected): drop the buffer and detach. */
  return(): Promise<IteratorResult<T>> {
    this.queue = [];
    this.sizes = [];
    this.head = 0;
    this.bytes = 0;
    this.failure = undefined;
    this.ended = true;
    this.detach(this);
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = this.failWaiter = undefined;
      w({ value: undefined, done: true });
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

export class Channel<T> {
  private readonly subscribers = new Set<Subscription<T>>();

  constructor(
    private readonly maxBuffered = 100_000,
    /** Called whenever the last subscriber leaves. */
    private readonly onEmpty?: () => void,
    private readonly byteLimit?: ChannelByteLimit<T>,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** A new subscriber; `first` items are queued before any later event. */
  subscribe(first: T[] = [], stopAfter?: (item: T) => boolean): Subscription<T> {
    const sub = new Subscription<T>(
      (s) => {
        if (this.subscribers.delete(s) && this.subscribers.size === 0) this.onEmpty?.();
      },
      this.maxBuffered,
      stopAfter,
      this.byteLimit?.maxBytes,
    );
    this.subscribers.add(sub);
    for (const item of first) sub.push(item, this.sizeOf(item));
    return sub;
  }

  publish(item: T): void {
    const size = this.sizeOf(item);
    for (const s of [...this.subscribers]) s.push(item, size);
  }

  private sizeOf(item: T): number {
    return this.byteLimit ? this.byteLimit.sizeOf(item) : 0;
  }

  /** Ends every subscriber (after their buffered items). */
  close(): void {
    for (const s of [...this.subscribers]) s.end();
  }

  /** Ends every subscriber with `error` (after their buffered items). */
  fail(error: unknown): void {
    for (const s of [...this.subscribers]) s.fail(error);
  }
}
