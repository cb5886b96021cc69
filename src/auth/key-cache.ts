import type { Redis } from 'ioredis';
import { companyChange, KEY_CHANGES_CHANNEL } from '../keys/key-changes.js';
import type { KeyLookup } from '../keys/repository.js';

interface Entry {
  lookup: KeyLookup | undefined;
  until: number;
}

/**
 * A per-process cache of key lookups (the one PostgreSQL read of every authenticated request),
 * correct under revocation: a revoke announces the key's hash on Redis and every process drops it
 * at once. Whenever this process's subscription is not live (Redis down, reconnecting) nothing is
 * read from or written to the cache, and a reconnect starts it empty: a message missed meanwhile can
 * leave nothing stale. Changes made outside the service (SQL by hand) live at most `ttlMs`.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private live = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {
    subscriber.on('ready', () => {
      this.entries.clear();
      subscriber.subscribe(KEY_CHANGES_CHANNEL).then(
        () => {
          this.entries.clear();
          this.live = true;
        },
        () => undefined,
      );
    });
    for (const down of ['close', 'reconnecting', 'end'] as const) {
      subscriber.on(down, () => {
        this.live = false;
        this.entries.clear();
      });
    }
    subscriber.on('message', (_channel: string, change: string) => {
      if (!this.entries.delete(change) && change.startsWith('company:')) {
        for (const [hash, entry] of this.entries) {
          if (change === companyChange(entry.lookup?.companyId ?? 0)) this.entries.delete(hash);
        }
      }
    });
    subscriber.on('error', () => undefined);
  }

  /** The cached lookup (`undefined` inside means "no such key"), or null when it must be read. */
  get(keyHash: string): Entry | null {
    if (!this.live) return null;
    const entry = this.entries.get(keyHash);
    if (!entry) return null;
    if (entry.until < Date.now()) {
      this.entries.delete(keyHash);
      return null;
    }
    return entry;
  }

  /**
   * Caches a lookup read while the subscription was live from before the read to after it: a
   * revoke announced during the read is then either seen by the read or delivered after this set.
   */
  set(keyHash: string, lookup: KeyLookup | undefined, wasLive: boolean): void {
    if (!this.live || !wasLive || this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(keyHash, { lookup, until: Date.now() + this.ttlMs });
  }

  get isLive(): boolean {
    return this.live;
  }

  close(): void {
    this.live = false;
    this.entries.clear();
    this.subscriber.disconnect();
  }
}
