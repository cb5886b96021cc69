import type { Redis } from 'ioredis';

/**
 * The Redis channel on which a process announces that a key's authentication answer changed, so
 * every web process drops its cached lookup at once. The message is the key's hash (a revoke), or
 * `company:<id>` (the company was deactivated or reactivated: all of its keys).
 */
export const KEY_CHANGES_CHANNEL = 'plinks:key-changes';

/**
 * Announces a change after it committed. A failed publish (Redis down) is harmless: processes whose
 * subscription is down do not cache, and a cached answer lives at most the cache TTL.
 */
export async function announceKeyChange(redis: Redis, keyHash: string): Promise<void> {
  await redis.publish(KEY_CHANGES_CHANNEL, keyHash).catch(() => undefined);
}

export const companyChange = (companyId: number): string => `company:${companyId}`;

/** Announces that a company's keys answer differently now (it was deactivated or reactivated). */
export async function announceCompanyChange(redis: Redis, companyId: number): Promise<void> {
  await redis.publish(KEY_CHANGES_CHANNEL, companyChange(companyId)).catch(() => undefined);
}
