// One memory budget for the open streams of a process (SSE and gRPC alike).
//
// A stream's writer takes events from the task's channel as soon as they are published, encodes
// them and queues what the client has not read yet, as bytes: SSE frames as Buffers, gRPC messages
// in their binary encoding. What a stream holds is measured, not estimated: the bytes of its queued
// chunks plus what its transport still holds (the response's writableLength). Every stream has an
// account in the process's StreamBudget. A stream over `maxBytesPerStream`, or over its share of
// `maxBytes` (the budget divided by the open streams) while the process is over the budget, is cut:
// its queue is dropped and it ends with its binding's error (SSE: an error event, then the end of
// the stream; gRPC: RESOURCE_EXHAUSTED). The task goes on; the client can resubscribe.
// Request bodies being read count in the same budget (BudgetHold, their received bytes; HTTP bodies
// and gRPC request messages alike): a body that does not fit once the streams over their share are
// cut is refused with a retryable error (budgetFull).

import { A2AError, retryable } from "../../versioning/errors.js";

const MiB = 1024 * 1024;

/** The error a cut stream ends with (retryable: the task goes on, SubscribeToTask picks it up again). */
export function fellBehind(limit: number): A2AError {
  return retryable(
    new A2AError(
      "InternalError",
      `This stream fell more than ${limit} bytes behind (the server's stream buffer budget) and was ended; the task goes on: resubscribe to it (SubscribeToTask)`,
    ),
  );
}

/** The error a request gets whose bytes do not fit in the budget (retryable: nothing of it was done). */
export function budgetFull(maxBytes: number): A2AError {
  return retryable(
    new A2AError(
      "InternalError",
      `The server's memory budget (${maxBytes} bytes of stream buffers and request bodies) is full; retry shortly`,
    ),
  );
}

/** Defaults of the budget (docs/limits.md). */
export const DEFAULT_STREAM_BUDGET = { maxBytes: 128 * MiB, maxBytesPerStream: 16 * MiB } as const;

export interface StreamBudgetOptions {
  /** Bytes every open stream together may hold queued (default 128 MiB). */
  maxBytes?: number;
  /** Bytes one stream may hold queued, whatever the others hold (default 16 MiB, at most maxBytes). */
  maxBytesPerStream?: number;
}

/** One stream's share of the budget: what it holds now, and what to do when it is cut. */
export class StreamAccount {
  bytes = 0;
  closed = false;
  constructor(
    private readonly budget: StreamBudget,
    /** Called once, when the stream is over its share: `limit` is the share it went over. */
    readonly onCut: (limit: number) => void,
  ) {}

  /** The stream now holds `bytes` (queued and in its transport). */
  set(bytes: number): void {
    if (!this.closed) this.budget.update(this, bytes);
  }

  /** The stream ended: its bytes are no longer counted. */
  close(): void {
    if (!this.closed) this.budget.remove(this);
  }
}

/**
 * Bytes outside any stream that the budget also counts (a request body as it arrives). Unlike a
 * stream, a hold is never cut: it is refused. grow() makes room by cutting the streams over their
 * share first, and says false when the budget still has no room (the caller answers a retryable
 * error and lets go).
 */
export class BudgetHold {
  bytes = 0;
  private released = false;
  constructor(private readonly budget: StreamBudget) {}

  /** `n` more bytes; false (nothing counted) when they do not fit in the budget. */
  grow(n: number): boolean {
    if (this.released) return false;
    if (!this.budget.reserve(n)) return false;
    this.bytes += n;
    return true;
  }

  /** The bytes are gone (the body was parsed, or refused). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.unreserve(this.bytes);
    this.bytes = 0;
  }
}

export class StreamBudget {
  readonly maxBytes: number;
  readonly maxBytesPerStream: number;
  private used = 0;
  /** Of `used`, the bytes of holds (request bodies), not of streams. */
  private held = 0;
  private most = 0;
  private readonly accounts = new Set<StreamAccount>();

  constructor(opts: StreamBudgetOptions = {}) {
    const positive = (v: number | undefined, d: number) => (v !== undefined && v >= 1 ? Math.floor(v) : d);
    this.maxBytes = positive(opts.maxBytes, DEFAULT_STREAM_BUDGET.maxBytes);
    this.maxBytesPerStream = Math.min(this.maxBytes, positive(opts.maxBytesPerStream, DEFAULT_STREAM_BUDGET.maxBytesPerStream));
  }

  /** Bytes the open streams hold, as last reported, and the holds (request bodies). */
  get bytes(): number {
    return this.used;
  }

  /** The most bytes the open streams held at once, once every stream over its share was cut. */
  get peak(): number {
    return this.most;
  }

  /** Open streams. */
  get streams(): number {
    return this.accounts.size;
  }

  /** Bytes the holds (request bodies being read) count. */
  get heldBytes(): number {
    return this.held;
  }

  /** Counts bytes outside the streams (a request body): see BudgetHold. */
  hold(): BudgetHold {
    return new BudgetHold(this);
  }

  /** @internal BudgetHold.grow */
  reserve(n: number): boolean {
    if (this.used + n > this.maxBytes) this.cutOver(this.used + n);
    if (this.used + n > this.maxBytes) return false;
    this.used += n;
    this.held += n;
    this.most = Math.max(this.most, this.used);
    return true;
  }

  /** @internal BudgetHold.release */
  unreserve(n: number): void {
    this.used -= n;
    this.held -= n;
  }

  open(onCut: (limit: number) => void): StreamAccount {
    const a = new StreamAccount(this, onCut);
    this.accounts.add(a);
    return a;
  }

  /** @internal StreamAccount.set */
  update(a: StreamAccount, bytes: number): void {
    this.used += bytes - a.bytes;
    a.bytes = bytes;
    if (bytes > this.maxBytesPerStream) return this.cut(a, this.maxBytesPerStream);
    if (this.used <= this.maxBytes) {
      this.most = Math.max(this.most, this.used);
      return;
    }
    this.cutOver(this.used);
    this.most = Math.max(this.most, this.used);
  }

  /**
   * Over the budget (`want` bytes): some stream holds more than its share of what the holds leave
   * (the average is above it). The largest go first, until `want` is back within the budget.
   */
  private cutOver(want: number): void {
    if (this.accounts.size === 0) return;
    const share = Math.floor(Math.max(0, this.maxBytes - this.held) / this.accounts.size);
    const over = [...this.accounts].filter((x) => x.bytes > share).sort((x, y) => y.bytes - x.bytes);
    for (const x of over) {
      if (want <= this.maxBytes) break;
      want -= x.bytes;
      this.cut(x, share);
    }
  }

  /** @internal StreamAccount.close */
  remove(a: StreamAccount): void {
    a.closed = true;
    this.used -= a.bytes;
    a.bytes = 0;
    this.accounts.delete(a);
  }

  private cut(a: StreamAccount, limit: number): void {
    this.remove(a);
    a.onCut(limit);
  }
}

/** How a queued item is kept: as bytes, and back (`bytes` is a view into the queue's memory). */
export interface Packing<T> {
  pack(item: T): Uint8Array;
  unpack(bytes: Uint8Array): T;
}

/**
 * Queued bytes are copied into blocks of a sixteenth of the per-stream limit, between 4 and 64 KiB
 * (an item larger than its queue's blocks gets a block of its own).
 */
const blockSize = (budget: StreamBudget | undefined) =>
  Math.min(64 * 1024, Math.max(4 * 1024, Math.floor((budget?.maxBytesPerStream ?? Infinity) / 16)));
/** What the queue counts per item on top of its bytes (its length in an array). */
const ITEM_BYTES = 8;

/**
 * The queue between a stream's producer (events as they are published) and its writer (the
 * transport, pulling as it drains). An item the writer is already waiting for is handed over as it
 * is; one that must wait is packed into bytes, copied into the queue's blocks (up to 64 KiB: small
 * objects would cost more than their bytes), and counted against the stream's account as the
 * blocks' whole size, together with `transport()`, the bytes the transport holds. When the budget
 * cuts the stream, the queue is dropped and `onCut` decides how it ends (push a last item and end,
 * or fail).
 */
export class StreamQueue<T> implements AsyncIterableIterator<T> {
  /** The blocks: the reader reads blocks[0] at `readAt`, the writer writes the last one at `writeAt`. */
  private blocks: Buffer[] = [];
  private readAt = 0;
  private writeAt = 0;
  /** The length of every queued item, oldest at `head`. */
  private sizes: number[] = [];
  private head = 0;
  private queued = 0;
  private ended = false;
  private failure: unknown;
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  private readonly account: StreamAccount | undefined;
  private readonly block: number;
  private transport: () => number = () => 0;

  constructor(
    budget: StreamBudget | undefined,
    private readonly packing: Packing<T>,
    /** The stream was cut (over `limit` bytes): its queue is already empty. */
    onCut: (limit: number) => void,
    /** The writer stopped reading (return()): stop producing. */
    private readonly onReturn: () => void = () => {},
  ) {
    this.block = blockSize(budget);
    this.account = budget?.open((limit) => {
      // What waited is gone, so the stream's end is now the cut's, even when the producer had
      // already ended the queue (its task finished before the client read): without this, the
      // writer would find an ended, empty queue and end the stream as if it were whole.
      this.drop();
      this.ended = false;
      this.failure = undefined;
      onCut(limit);
    });
  }

  /** Bytes the transport holds beyond this queue (e.g. `() => res.writableLength`). */
  measure(transport: () => number): void {
    this.transport = transport;
  }

  /** Items waiting (not yet taken by the writer). */
  get length(): number {
    return this.sizes.length - this.head;
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: item, done: false });
      this.report();
      return;
    }
    const packed = this.packing.pack(item);
    const n = packed.byteLength;
    let block = this.blocks.at(-1);
    if (!block || this.writeAt + n > block.length) {
      block = Buffer.allocUnsafeSlow(Math.max(this.block, n));
      this.blocks.push(block);
      this.queued += block.length;
      this.writeAt = 0;
    }
    block.set(packed, this.writeAt);
    this.writeAt += n;
    this.sizes.push(n);
    this.queued += ITEM_BYTES;
    this.report();
  }

  /** No more items: the writer gets what is queued, then done. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter && this.length === 0) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: undefined, done: true });
    }
    if (this.length === 0) this.account?.close();
  }

  /** Ends with an error, thrown to the writer after the queued items. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter && this.length === 0) {
      const w = this.waiter;
      this.waiter = undefined;
      w.reject(error);
    } else this.failure = error;
    if (this.length === 0) this.account?.close();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.length > 0) {
      // The writer moved to a new block where this item did not fit: so does the reader.
      const n = this.sizes[this.head++]!;
      if (this.readAt + n > this.blocks[0]!.length) {
        this.queued -= this.blocks.shift()!.length;
        this.readAt = 0;
      }
      const packed = this.blocks[0]!.subarray(this.readAt, this.readAt + n);
      this.readAt += n;
      this.queued -= ITEM_BYTES;
      if (this.length === 0) this.drop();
      else if (this.head > 1024 && this.head * 2 > this.sizes.length) {
        this.sizes = this.sizes.slice(this.head);
        this.head = 0;
      }
      if (this.ended && this.length === 0) this.account?.close();
      else this.report();
      return Promise.resolve({ value: this.packing.unpack(packed), done: false });
    }
    if (this.failure !== undefined) {
      const f: unknown = this.failure;
      this.failure = undefined;
      return Promise.reject(f);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    this.report();
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T>> {
    this.drop();
    this.ended = true;
    this.account?.close();
    this.onReturn();
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: undefined, done: true });
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private drop(): void {
    this.blocks = [];
    this.readAt = this.writeAt = 0;
    this.sizes = [];
    this.head = 0;
    this.queued = 0;
  }

  private report(): void {
    this.account?.set(this.queued + this.transport());
  }
}

/**
 * A stream's wait for its next event that something else may cut short: `stop` (the client went
 * away, the stream was cut; it lasts) or `nudge` (a keep-alive tick; it ends only the current
 * wait). Unlike a Promise.race against a promise that settles only at the end, a wait leaves
 * nothing behind: such a race keeps every event it was won with until that promise settles.
 */
export class EventWait {
  private wake: ((why: symbol) => void) | undefined;
  private stopped: symbol | undefined;

  /** `pending`'s outcome, or the symbol given to stop() or nudge() first. */
  wait<R>(pending: Promise<R>): Promise<R | symbol> {
    if (this.stopped) return Promise.resolve(this.stopped);
    return new Promise<R | symbol>((resolve, reject) => {
      this.wake = resolve;
      pending.then(resolve, reject);
    }).finally(() => (this.wake = undefined));
  }

  stop(why: symbol): void {
    this.stopped ??= why;
    this.wake?.(why);
  }

  nudge(why: symbol): void {
    this.wake?.(why);
  }
}
