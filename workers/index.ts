import type { AppContext } from '../src/shared/context.js';

export interface RunningWorkers {
  /** Lets in-flight jobs finish, then closes every worker and queue connection. */
  close(): Promise<void>;
}

/**
 * Procfile `worker` entry point and the worker half of `npm start`. The event engine registers its
 * BullMQ processors here; with none registered there is nothing to run yet.
 */
export async function startWorkers(ctx: AppContext, redisUrl: string): Promise<RunningWorkers> {
  ctx.logger.info({ redis: redisUrl.replace(/\/\/[^@]*@/, '//***@') }, 'workers started');
  return { close: async () => undefined };
}
