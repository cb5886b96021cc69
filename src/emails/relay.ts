/**
 * The e-mail half of the outbox relay: claims committed events of the kinds that mail a buyer and
 * writes their messages in the same transaction (so each event's e-mails are queued once, however
 * many relays and sweeps reach it), then adds each message's job, delayed to its time.
 */
import { jobIds } from '../../queues/index.js';
import type { AppContext } from '../shared/context.js';
import { randomBase62 } from '../shared/ids.js';
import type { MessageKind } from './kinds.js';
import { planMessages } from './plan.js';
import { claimEvents, eventsAwaitingEmails, insertMessages } from './repository.js';
import { sellerOf, type Seller } from './settings.js';

/** The domain of the deployment's sender address: its messages' ids are of that domain. */
const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1) || 'localhost';

/** Adds a message's job (delayed until `sendAt`). Never throws: the sweep adds what could not be added. */
export function enqueueMessage(
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  message: { id: number; kind: MessageKind; sendAt: Date },
): void {
  const delay = Math.max(0, message.sendAt.getTime() - Date.now());
  ctx.producers
    .add('emails', jobIds.emails(message.id), { messageId: message.id, kind: message.kind }, { delay })
    .catch((err: unknown) => {
      ctx.logger.warn({ err, messageId: message.id }, 'could not queue an e-mail; the sweep will');
    });
}

/** Queues the e-mails of these events (those that ask for any and are not queued yet); returns how many. */
export async function queueEmails(ctx: AppContext, eventIds: string[]): Promise<number> {
  if (eventIds.length === 0) return 0;
  const awaiting = await eventsAwaitingEmails(ctx.db, eventIds);
  if (awaiting.length === 0) return 0;
  const domain = domainOf(ctx.config.email.from);
  const now = new Date();
  const queued = await ctx.db.transaction(async (tx) => {
    const sellers = new Map<number, Promise<Seller | undefined>>();
    const seller = (companyId: number): Promise<Seller | undefined> => {
      const known = sellers.get(companyId) ?? sellerOf(tx, companyId);
      sellers.set(companyId, known);
      return known;
    };
    const planned = [];
    for (const event of await claimEvents(tx, awaiting))
      planned.push(...(await planMessages(tx, event, seller, now)));
    return insertMessages(
      tx,
      planned.map((message) => ({
        ...message,
        token: randomBase62(32),
        messageId: `<em.${randomBase62(24)}@${domain}>`,
      })),
    );
  });
  for (const message of queued) enqueueMessage(ctx, message);
  return queued.length;
}
