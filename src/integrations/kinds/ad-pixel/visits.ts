/**
 * The visit behind an event (src/shared/tracking.ts): read from the order at each attempt, never
 * carried in the event (webhooks must not see it) nor in jobs. The order is the event's, the one the
 * lead submitted (the company's latest of that e-mail), or a subscription's first; always of the
 * integration's own company.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../../shared/db/index.js';
import type { VisitTracking } from '../../../shared/tracking.js';

export type VisitKey = { orderCode: string } | { email: string } | { subscriptionId: number };

export async function visitOf(
  db: Executor,
  integrationId: number,
  key: VisitKey,
): Promise<VisitTracking | null> {
  const which =
    'orderCode' in key
      ? sql`o.code = ${key.orderCode}::uuid`
      : 'email' in key
        ? sql`lower(o.customer->>'email') = lower(${key.email})`
        : sql`o.subscription_id = ${key.subscriptionId}`;
  const order = 'subscriptionId' in key ? sql`o.id ASC` : sql`o.id DESC`;
  const result = await db.execute<{ tracking: VisitTracking | null }>(sql`
    SELECT o.tracking FROM orders o JOIN integrations i ON i.company_id = o.company_id
     WHERE i.id = ${integrationId} AND o.livemode AND ${which}
     ORDER BY ${order} LIMIT 1`);
  return result.rows[0]?.tracking ?? null;
}
