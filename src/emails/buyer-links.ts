/**
 * What the links of a message open: its token (random, one per message) is the recipient's only
 * credential, and it opens only what its own message is about.
 */
import type { Executor } from '../shared/db/index.js';
import { findMessageByToken, unsubscribe } from './repository.js';
import { sellerOf } from './settings.js';

const TOKEN = /^[0-9A-Za-z]{32}$/;

export interface UnsubscribeTarget {
  companyId: number;
  /** The seller's name as its messages show it. */
  seller: string;
}

/** The company whose recovery messages a recovery message's token unsubscribes from. */
export async function unsubscribeTarget(db: Executor, token: string): Promise<UnsubscribeTarget | undefined> {
  const message = TOKEN.test(token) ? await findMessageByToken(db, token) : undefined;
  if (message?.kind !== 'recovery') return undefined;
  const seller = await sellerOf(db, message.companyId);
  return seller && { companyId: message.companyId, seller: seller.senderName };
}

/**
 * Unsubscribes the recipient of a recovery message from that company's recovery messages (RFC 8058's
 * one-click POST, or the page's button); doing it again changes nothing.
 */
export async function unsubscribeByToken(
  db: Executor,
  token: string,
): Promise<UnsubscribeTarget | undefined> {
  const message = TOKEN.test(token) ? await findMessageByToken(db, token) : undefined;
  if (message?.kind !== 'recovery') return undefined;
  await unsubscribe(db, message.companyId, message.recipient);
  const seller = await sellerOf(db, message.companyId);
  return { companyId: message.companyId, seller: seller?.senderName ?? '' };
}

export interface RenewalTarget {
  companyId: number;
  subscriptionId: number;
  seller: string;
}

/** The subscription whose failed renewal a pay-now message's token pays. */
export async function renewalOfToken(db: Executor, token: string): Promise<RenewalTarget | undefined> {
  const message = TOKEN.test(token) ? await findMessageByToken(db, token) : undefined;
  if (message?.kind !== 'renewal_failed' || message.subscriptionId === null) return undefined;
  const seller = await sellerOf(db, message.companyId);
  return {
    companyId: message.companyId,
    subscriptionId: message.subscriptionId,
    seller: seller?.senderName ?? '',
  };
}
