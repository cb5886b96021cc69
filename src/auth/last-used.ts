import type { Logger } from '../shared/logger.js';

const MINUTE_MS = 60_000;

/**
 * Records "last used" at most once a minute per credential and off the request path: the write is
 * not awaited, and a failure is logged, never surfaced to the caller.
 */
export class LastUsedTracker {
  private readonly touched = new Map<number, number>();

  constructor(
    private readonly write: (id: number) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  touch(id: number, now = Date.now()): void {
    const last = this.touched.get(id);
    if (last !== undefined && now - last < MINUTE_MS) return;
    this.touched.set(id, now);
    if (this.touched.size > 10_000) this.prune(now);
    this.write(id).catch((err: unknown) => this.logger.warn({ err, id }, 'could not record last use'));
  }

  private prune(now: number): void {
    for (const [id, at] of this.touched) if (now - at >= MINUTE_MS) this.touched.delete(id);
  }
}
