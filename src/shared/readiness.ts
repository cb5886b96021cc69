import type { AppContext } from './context.js';
import { whenReady } from './redis.js';

export interface Readiness {
  ready: boolean;
  checks: { postgres: 'ok' | 'down'; redis: 'ok' | 'down' };
}

const within = <T>(ms: number, promise: Promise<T>): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref(),
    ),
  ]);

const probe = async (check: () => Promise<unknown>): Promise<'ok' | 'down'> => {
  try {
    await within(2000, check());
    return 'ok';
  } catch {
    return 'down';
  }
};

/** PostgreSQL and Redis both answer within two seconds. */
export async function checkReadiness(ctx: Pick<AppContext, 'pool' | 'redis'>): Promise<Readiness> {
  const [postgres, redis] = await Promise.all([
    probe(() => ctx.pool.query('SELECT 1')),
    probe(async () => {
      await whenReady(ctx.redis, 2000);
      return ctx.redis.ping();
    }),
  ]);
  return { ready: postgres === 'ok' && redis === 'ok', checks: { postgres, redis } };
}
