/**
 * Collects the calls made in one turn of the event loop and runs them as one batch (one SQL
 * statement instead of many). Each caller gets its own result, or the batch's error. `run` must
 * return one result per item, in order: a batch answered with more or fewer fails every caller,
 * since results could no longer be matched to items.
 */
export class MicroBatcher<I, O> {
  private waiting: Array<{ item: I; resolve: (value: O) => void; reject: (err: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.waiting.splice(0, this.maxBatch);
    this.scheduled = this.waiting.length > 0;
    if (this.scheduled) setImmediate(() => this.flush());
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
      );
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
