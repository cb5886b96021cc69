import { EventEmitter } from 'node:events';
import type { RedisClient } from '../../queues/index.js';

/**
 * The Redis channel on which a process announces that a key's authentication answer changed, so
 * every web process drops its cached lookup at once. The message is the key's hash (a revoke), or
 * `company:<id>` (the company was deactivated or reactivated: all of its keys).
 */
export const KEY_CHANGES_CHANNEL = 'plinks:key-changes';

/**
 * The same announcements inside this process, emitted before the publish: Redis delivers a message
 * to this process's own subscriber on another socket, which the event loop may read after the next
 * request, so the revoking process would otherwise answer one request from its stale cache.
 */
export const localKeyChanges = new EventEmitter().setMaxListeners(0);

function announce(redis: RedisClient, change: string): Promise<void> {
  localKeyChanges.emit('change', change);
  return redis.publish(KEY_CHANGES_CHANNEL, change).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Announces a change after it committed. A failed publish (Redis down) is harmless: processes whose
 * subscription is down do not cache, and a cached answer lives at most the cache TTL.
 */
export async function announceKeyChange(redis: RedisClient, keyHash: string): Promise<void> {
  await announce(redis, keyHash);
}

export const companyChange = (companyId: number): string => `company:${companyId}`;

/** Announces that a company's keys answer differently now (it was deactivated or reactivated). */
export async function announceCompanyChange(redis: RedisClient, companyId: number): Promise<void> {
  await announce(redis, companyChange(companyId));
}
