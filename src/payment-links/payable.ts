import type { LinkStatus } from '../shared/enums/link-statuses.js';
import type { LinkRow } from './repository.js';

/** What the payability rules read of a link. */
export type LinkState = Pick<LinkRow, 'status' | 'singleUse' | 'expiresAt'>;

/** An active link whose `expires_at` has passed: reads show it expired, whatever the job did. */
export const isOverdue = (link: LinkState, now: Date): boolean =>
  link.status === 'active' && link.expiresAt.getTime() <= now.getTime();

/** The status a read shows at `now`. */
export const effectiveStatus = (link: LinkState, now: Date): LinkStatus =>
  isOverdue(link, now) ? 'expired' : link.status;

/**
 * The one "link is payable" rule (a `single_use: false` link stays payable after its first payment): an active link, or a paid
 * reusable one, that has not passed `expires_at`. Simulation asks for less-or-other: see `isSimulatable`.
 */
export function isPayable(link: LinkState, now: Date): boolean {
  const status = effectiveStatus(link, now);
  return status === 'active' || (status === 'paid' && !link.singleUse);
}

/** Simulate acts on active links only (a link that is not active → 409). */
export const isSimulatable = (link: LinkState, now: Date): boolean => effectiveStatus(link, now) === 'active';

/** Why a buyer cannot pay the link now, in the buyer's words; null when it can be paid. */
export function unpayableReason(link: LinkState, now: Date): 'canceled' | 'expired' | 'paid' | null {
  if (isPayable(link, now)) return null;
  const status = effectiveStatus(link, now);
  return status === 'active' ? null : status;
}
