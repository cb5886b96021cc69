/**
 * Collects the calls made in one turn of the event loop and runs them as one batch (one SQL
 * statement instead of many). Each caller gets its own result, or the batch's error. `run` must
 * return one result per item, in order: a batch answered with more or fewer fails every caller,
 * since results could no longer be matched to items.
 */
/** The clock a batcher schedules on: the process's, or a test's fake one. */
export interface BatchClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  setImmediate(run: () => void): unknown;
}

const PROCESS_CLOCK: BatchClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  setImmediate: (run) => setImmediate(run),
};

export class MicroBatcher<I, O> {
  private waiting: Array<{ item: I; resolve: (value: O) => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;
  private running = 0;
  private lastStartedAt = Number.NEGATIVE_INFINITY;

  /**
   * `maxRunning` bounds the batches running at once: what arrives meanwhile waits and goes in the
   * next batch, so under load the batches grow instead of the statements multiplying (each has a
   * fixed cost, and statements locking the same rows only queue behind one another anyway).
   * `minSpacingMs` keeps batches at least that far apart: the first item after a quiet spell goes at
   * once, and under a steady stream the items of each spacing share one batch (one job, say, rather
   * than one per item), delaying none of them by more than the spacing.
   */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
    private readonly maxRunning = Number.POSITIVE_INFINITY,
    private readonly minSpacingMs = 0,
    private readonly clock: BatchClock = PROCESS_CLOCK,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.running >= this.maxRunning) return;
    this.scheduled = true;
    const wait = this.lastStartedAt + this.minSpacingMs - this.clock.now();
    if (wait >= 1) this.clock.setTimeout(() => this.flush(), wait);
    else this.clock.setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.running >= this.maxRunning) return;
    const batch = this.waiting.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.running += 1;
    this.lastStartedAt = this.clock.now();
    this.schedule();
    let results: Promise<O[]>;
    try {
      results = this.run(batch.map((b) => b.item));
    } catch (err) {
      results = Promise.reject(err);
    }
    results
      .then((out) => {
        if (out.length !== batch.length)
          throw new Error(`batch of ${batch.length} items answered with ${out.length} results`);
        return out;
      })
      .then(
        (out) => batch.forEach((b, i) => b.resolve(out[i] as O)),
        (err: unknown) => batch.forEach((b) => b.reject(err)),
      )
      .finally(() => {
        this.running -= 1;
        this.schedule();
      });
  }
}

/** One batcher per key object (e.g. per database handle), created on first use. */
export function batcherFor<K extends object, I, O>(
  registry: WeakMap<K, MicroBatcher<I, O>>,
  key: K,
  create: () => MicroBatcher<I, O>,
): MicroBatcher<I, O> {
  let batcher = registry.get(key);
  if (!batcher) {
    batcher = create();
    registry.set(key, batcher);
  }
  return batcher;
}
