// "Everything submitted before now is committed", while a batching loop keeps committing: the
// group-commit loops of pg-store.ts and cluster.ts never stop under steady load, so waiting for
// them to go idle would wait for as long as the load lasts.
export class CommitBarrier {
  private submitted = 0;
  private done = 0;
  private waiters: { seq: number; resolve: () => void }[] = [];

  /** Counts one submitted write. */
  submit(): void {
    this.submitted++;
  }

  /** Where a batch taken now ends: pass it to reached() once that batch is committed (or failed). */
  mark(): number {
    return this.submitted;
  }

  reached(seq: number): void {
    this.done = Math.max(this.done, seq);
    const ready = this.waiters.filter((w) => w.seq <= this.done);
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => w.seq > this.done);
    for (const w of ready) w.resolve();
  }

  /** Resolves once every write submitted before this call is committed (or failed). */
  wait(): Promise<void> {
    const seq = this.submitted;
    if (this.done >= seq) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }
}
