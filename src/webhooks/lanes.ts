import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import type { Executor } from '../shared/db/index.js';
import { wakeLanes, type LaneWake } from './repository/lanes.js';

type LaneJob = Pick<LaneWake, 'integrationId' | 'generation'> & {
  enqueue?: boolean;
  at?: Date | null;
  /** A wake that may have replaced a sleeping generation: its delayed job is dropped (it would do nothing). */
  replaces?: boolean;
};

/**
 * Adds the jobs of the lanes a wake started (`enqueue`), delayed until `at` when given. A job that
 * cannot be added (Redis down) is not lost: its lane stays due in PostgreSQL and the sweep adds it.
 */
export async function enqueueLaneJobs(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  jobs: LaneJob[],
): Promise<void> {
  await Promise.all(
    jobs
      .filter((w) => w.enqueue !== false)
      .map(async (w) => {
        const delay = w.at ? Math.max(0, w.at.getTime() - Date.now()) : 0;
        if (w.replaces && w.generation > 1) {
          // Removes nothing when the previous generation's job already ran (the lane was idle).
          await ctx.producers
            .queue('deliveryLanes')
            .remove(jobIds.deliveryLanes(w.integrationId, w.generation - 1))
            .catch(() => undefined);
        }
        return ctx.producers
          .add(
            'deliveryLanes',
            jobIds.deliveryLanes(w.integrationId, w.generation),
            { integrationId: w.integrationId, generation: w.generation },
            delay > 0 ? { delay } : {},
          )
          .catch((err: unknown) =>
            ctx.logger.warn(
              { err, integrationId: w.integrationId },
              'lane job not enqueued; the sweep will pick the lane up',
            ),
          );
      }),
  );
}

/** Wakes these integrations' lanes (their deliveries were reopened or made due) and adds their jobs. */
export async function wakeAndEnqueue(
  ctx: Pick<AppContext, 'producers' | 'logger'> & { db: Executor },
  integrationIds: number[],
): Promise<void> {
  await enqueueLaneJobs(
    ctx,
    (await wakeLanes(ctx.db, integrationIds)).map((w) => ({ ...w, replaces: true })),
  );
}
