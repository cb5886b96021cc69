import { UnrecoverableError, type Job } from 'bullmq';
import type { AttemptFailure } from './deliver.js';

/**
 * A failed attempt fails the job that made it, so Bull Board's Failed tab lists it with the
 * receiver's answer. Unrecoverable: the next attempt is already scheduled as its own job (decisions,
 * retry schedule), so BullMQ must not retry this one by itself.
 */
export class AttemptFailedError extends UnrecoverableError {
  constructor(message: string) {
    super(message);
    this.name = 'AttemptFailedError';
  }
}

const MAX_LISTED = 5;

const describe = (f: AttemptFailure): string =>
  `delivery ${f.deliveryId} (integration ${f.integrationId}) attempt ${f.attempt}: ${f.reason}`;

/**
 * Marks the job's data with what failed (a retry from Bull Board then asks for one more attempt of
 * exactly those deliveries, not a rerun of the whole job) and fails it. No-op without failures.
 */
export async function failJobOnFailedAttempts<T extends object>(
  job: Job<T>,
  failures: AttemptFailure[],
  mark: (failures: AttemptFailure[]) => Partial<T>,
): Promise<void> {
  if (failures.length === 0) return;
  await job.updateData({ ...job.data, ...mark(failures) });
  const shown = failures.slice(0, MAX_LISTED).map(describe).join('; ');
  const more = failures.length > MAX_LISTED ? `; and ${failures.length - MAX_LISTED} more` : '';
  throw new AttemptFailedError(`${shown}${more}`);
}

/** The failed attempts among a job's reports. */
export const failuresOf = (reports: Array<{ failure: AttemptFailure | null }>): AttemptFailure[] =>
  reports.flatMap((r) => (r.failure ? [r.failure] : []));
