import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { RedisClient } from '../../queues/index.js';
import { companyChange, KEY_CHANGES_CHANNEL, localKeyChanges } from '../keys/key-changes.js';
import type { KeyLookup } from '../keys/repository.js';
import { carried } from '../shared/carried.js';

interface Entry {
  lookup: KeyLookup | undefined;
  until: number;
}

/** A PING that requests of one event-loop turn wait on together. */
interface Barrier {
  passed: Promise<boolean>;
  settle: (passed: boolean) => void;
}

/** How long a request waits on a barrier before it reads its key from PostgreSQL instead. */
const BARRIER_TIMEOUT_MS = 1000;

/**
 * A per-process cache of key lookups (the one PostgreSQL read of every authenticated request),
 * correct under revocation: a revoke announces the key's hash on Redis and every process drops it
 * at once. Whenever this process's subscription is not live (Redis down, reconnecting) nothing is
 * read from or written to the cache, and a reconnect starts it empty: a message missed meanwhile can
 * leave nothing stale. Changes made outside the service (SQL by hand) live at most `ttlMs`.
 *
 * A lookup takes a mark with `beginRead()` before its read and hands it to `set`: the answer is
 * cached only if no announcement arrived and the subscription did not drop in between. So a read
 * that saw a key before its revoke committed, and returns after the revoke's announcement was
 * handled here, is not cached (the announcement found nothing to drop when it came).
 *
 * A request trusts a cached answer only through `getConfirmed`, after a barrier: a revoke that has
 * answered was published before the request was sent, but Redis may write it to this process's
 * subscription later than the request arrives (it answers the publisher first), and a busy machine
 * can stretch that gap past any fixed wait.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private live = false;
  /** Bumped by every announcement and every change of the subscription's state. */
  private changes = 0;
  /** The barrier the requests of this turn join; its PING goes out once the turn's reads are done. */
  private gathering: Barrier | null = null;
  /** Barriers whose PING is out, failed at once if the subscription drops. */
  private readonly outstanding = new Set<Barrier>();

  constructor(
    private readonly subscriber: RedisClient,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {
    subscriber.on('ready', () => {
      this.changes += 1;
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
        this.changes += 1;
        this.live = false;
        this.entries.clear();
        this.failOutstanding();
      });
    }
    subscriber.on('message', (_channel: string, change: string) => this.forget(change));
    localKeyChanges.on('change', this.forgetLocal);
    subscriber.on('error', () => undefined);
  }

  private readonly forgetLocal = (change: string): void => this.forget(change);

  private forget(change: string): void {
    this.changes += 1;
    if (!this.entries.delete(change) && change.startsWith('company:')) {
      for (const [hash, entry] of this.entries) {
        if (change === companyChange(entry.lookup?.companyId ?? 0)) this.entries.delete(hash);
      }
    }
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
   * The cached lookup once every announcement published before this call has been handled, or null
   * when the key must be read. A PING on the subscribed connection comes back behind every message
   * Redis queued for that connection before the PING reached it, so a revoke that answered before
   * this request was read has dropped its entry by then. The requests of one event-loop turn share
   * one PING, sent after all of them asked.
   */
  async getConfirmed(keyHash: string): Promise<Entry | null> {
    if (!this.get(keyHash)) return null;
    if (!(await this.barrier())) return null;
    return this.get(keyHash);
  }

  private barrier(): Promise<boolean> {
    if (!this.gathering) {
      let settle: (passed: boolean) => void = () => undefined;
      const passed = new Promise<boolean>((resolve) => (settle = resolve));
      const barrier: Barrier = { passed, settle };
      this.gathering = barrier;
      // Sent outside the request that happened to ask first: the PING serves every request of the
      // turn, so it belongs to none of their traces (nor their log lines).
      context.with(ROOT_CONTEXT, () => carried.exit(() => setImmediate(() => this.sendBarrier(barrier))));
    }
    return this.gathering.passed;
  }

  private sendBarrier(barrier: Barrier): void {
    this.gathering = null;
    if (!this.live) return barrier.settle(false);
    this.outstanding.add(barrier);
    const end = (passed: boolean): void => {
      clearTimeout(timer);
      if (this.outstanding.delete(barrier)) barrier.settle(passed && this.live);
    };
    // A Redis that stalls without dropping the connection must not stall authentication with it.
    const timer = setTimeout(() => end(false), BARRIER_TIMEOUT_MS);
    this.subscriber.ping().then(
      () => end(true),
      () => end(false),
    );
  }

  private failOutstanding(): void {
    for (const barrier of this.outstanding) barrier.settle(false);
    this.outstanding.clear();
  }

  /**
   * To call before reading a key: the mark `set` needs, or undefined when the subscription is not
   * live (then nothing read now may be cached).
   */
  beginRead(): number | undefined {
    return this.live ? this.changes : undefined;
  }

  /**
   * Caches a lookup whose read began at `mark`, unless anything was announced (or the subscription
   * dropped) since: a revoke committed after the read is then either announced after this set (and
   * drops the entry) or announced before it (and this set does nothing).
   */
  set(keyHash: string, lookup: KeyLookup | undefined, mark: number | undefined): void {
    if (!this.live || mark !== this.changes || this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(keyHash, { lookup, until: Date.now() + this.ttlMs });
  }

  get isLive(): boolean {
    return this.live;
  }

  close(): void {
    this.live = false;
    this.entries.clear();
    this.failOutstanding();
    localKeyChanges.off('change', this.forgetLocal);
    this.subscriber.disconnect();
  }
}
