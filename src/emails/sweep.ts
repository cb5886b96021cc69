import { ensureJob, jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { queueEmails } from './relay.js';
import { eventsMissedByRelay, waitingMessages } from './repository.js';

/** At most this many batches of missed events per sweep. */
const MAX_ROUNDS = 20;

export interface EmailSweepReport {
  /** Messages queued for events whose relay never queued theirs. */
  queued: number;
  /** Jobs added again for due messages whose job was lost. */
  requeued: number;
}

/**
 * The e-mail part of the safety net (PostgreSQL holds every message; Redis only its job): queues the
 * e-mails of live events no relay got to (`eventGraceMs` old), and adds the job again of every message
 * due for longer than `messageGraceMs` whose job is gone (a Redis restart, a crash before the add).
 */
export async function sweepEmails(
  ctx: AppContext,
  options: { eventGraceMs: number; messageGraceMs: number; batch: number },
): Promise<EmailSweepReport> {
  const report: EmailSweepReport = { queued: 0, requeued: 0 };
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const missed = await eventsMissedByRelay(ctx.db, options.eventGraceMs, options.batch);
    if (missed.length > 0) report.queued += await queueEmails(ctx, missed);
    if (missed.length < options.batch) break;
  }
  for (const message of await waitingMessages(ctx.db, options.messageGraceMs, options.batch)) {
    const data = { messageId: message.id, kind: message.kind };
    if (await ensureJob(ctx.producers, 'emails', jobIds.emails(message.id), data)) report.requeued += 1;
  }
  return report;
}
