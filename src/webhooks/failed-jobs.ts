import { UnrecoverableError } from 'bullmq';

/**
 * The reason of the Bull Board job that stands for one failed attempt. Unrecoverable: the delivery's
 * next attempt follows the retry schedule in its lane, so BullMQ must not retry this job by itself;
 * a person retrying it from the board asks for one more attempt.
 */
export class AttemptFailedError extends UnrecoverableError {
  constructor(message: string) {
    super(message);
    this.name = 'AttemptFailedError';
  }
}
