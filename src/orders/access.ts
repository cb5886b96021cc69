/**
 * A buyer's access to a product's content (docs/api.md, "The buyer's page"): a product linked to an
 * active `members_area` integration of its company (builtin provider; linked by product, or sending
 * to all products) gives its buyer access while an order of it is paid (not refunded, not charged
 * back), or while its subscription is active (cancel at the period end included, until that end) or
 * past_due within its paid period. `access.granted` and `access.revoked` are recorded in the
 * transaction that changes the order or the subscription, when the buyer's access starts or ends.
 */
import { sql } from 'drizzle-orm';
import { recordEvent } from '../events/outbox.js';
import type { AccessEventKind } from '../events/kinds.js';
import type { Executor } from '../shared/db/index.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import type { Emitted } from './order-events.js';
import { firstOrderOfSubscription, type OrderRow } from './repository.js';

/** Whether a product's buyers get access to its content (an active builtin members area covers it). */
export async function productHasMembersArea(
  tx: Executor,
  companyId: number,
  productId: number,
): Promise<boolean> {
  const result = await tx.execute<{ covered: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM integrations i
                    WHERE i.company_id = ${companyId} AND i.type = 'members_area' AND i.is_active
                      AND i.config->>'provider' = 'builtin'
                      AND (i.send_to_all_products OR ${productId}::int = ANY(i.product_ids))) AS covered`);
  return result.rows[0]?.covered ?? false;
}

/**
 * The SQL condition that order `o` (with its subscription `s` left-joined) gives access now. One
 * definition, for the events below and the buyer's page.
 */
export const GIVES_ACCESS = sql`(
  (o.subscription_id IS NULL AND o.status = 'paid')
  OR (s.id IS NOT NULL AND (s.status = 'active'
      OR (s.status = 'past_due' AND s.current_period_end > clock_timestamp()))))`;

/** Whether the buyer `email` holds access to the order's product now, through any order but those excluded. */
async function accessElsewhere(
  tx: Executor,
  order: OrderRow,
  email: string,
  excluded: { orderId?: number; subscriptionId?: number | null },
): Promise<boolean> {
  const result = await tx.execute<{ holds: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM orders o LEFT JOIN subscriptions s ON s.id = o.subscription_id
                    WHERE o.company_id = ${order.companyId} AND o.product_id = ${order.productId}
                      AND o.livemode = ${order.livemode} AND lower(o.customer->>'email') = ${email}
                      AND o.id <> ${excluded.orderId ?? -1}
                      AND (${excluded.subscriptionId ?? null}::bigint IS NULL
                           OR o.subscription_id IS DISTINCT FROM ${excluded.subscriptionId ?? null}::bigint)
                      AND ${GIVES_ACCESS}) AS holds`);
  return result.rows[0]?.holds ?? false;
}

/** The buyer of an order: its own, or (a renewal) its subscription's first order's. */
async function buyerOf(
  tx: Executor,
  order: OrderRow,
): Promise<{ email: string; name: string | null } | undefined> {
  if (order.customer?.email) return { email: order.customer.email.toLowerCase(), name: order.customer.name };
  if (order.subscriptionId === null) return undefined;
  const result = await tx.execute<{ email: string | null; name: string | null }>(sql`
    SELECT customer->>'email' AS email, customer->>'name' AS name FROM orders
     WHERE subscription_id = ${order.subscriptionId} ORDER BY id LIMIT 1`);
  const row = result.rows[0];
  return row?.email ? { email: row.email.toLowerCase(), name: row.name } : undefined;
}

/**
 * Records `kind` about `order`'s product when its buyer's access changes with it: granted when no
 * other order or subscription gave access already, revoked when none still does. Returns the event
 * ids recorded (none when the product has no members area, or the access did not change).
 */
export async function recordAccessChange(
  tx: Executor,
  kind: AccessEventKind,
  order: OrderRow,
): Promise<string[]> {
  if (!(await productHasMembersArea(tx, order.companyId, order.productId))) return [];
  const buyer = await buyerOf(tx, order);
  if (!buyer) return [];
  // Granted: unless something else gave access before (this order and its subscription aside).
  // Revoked: unless anything still gives access now (its subscription running, another order paid).
  const excluded =
    kind === 'access.granted' ? { orderId: order.id, subscriptionId: order.subscriptionId } : {};
  if (await accessElsewhere(tx, order, buyer.email, excluded)) return [];
  const event = await recordEvent(tx, {
    companyId: order.companyId,
    type: kind,
    livemode: order.livemode,
    test: !order.livemode,
    productId: order.productId,
    data: {
      access: {
        product_id: order.productId,
        customer: { email: buyer.email, name: buyer.name },
        order_code: order.code,
        subscription_id: order.subscriptionId,
      },
    },
  });
  return [event.id];
}

/**
 * The access a subscription gave ends with it (canceled at once, at its period end, or unpaid after
 * its last retry): `access.revoked` about its first order, unless something else still gives access.
 */
export async function accessEndsWithSubscription(tx: Executor, subscriptionId: number): Promise<Emitted[]> {
  const first = await firstOrderOfSubscription(tx, subscriptionId);
  if (!first) return [];
  const ids = await recordAccessChange(tx, 'access.revoked', first);
  return ids.map((id) => ({ id, type: 'access.revoked' }));
}

/** `data` of the access events, as the payments OpenAPI document shows it. */
export const accessEventSchemas: Record<string, JsonSchema> = {
  AccessEventData: {
    type: 'object',
    additionalProperties: false,
    required: ['access'],
    properties: {
      access: {
        type: 'object',
        additionalProperties: false,
        required: ['product_id', 'customer', 'order_code', 'subscription_id'],
        properties: {
          product_id: { type: 'integer', description: 'The product whose content the buyer gained or lost' },
          customer: {
            type: 'object',
            additionalProperties: false,
            required: ['email', 'name'],
            properties: { email: { type: 'string' }, name: { type: ['string', 'null'] } },
          },
          order_code: {
            type: 'string',
            format: 'uuid',
            description: 'The order that gave or ended the access',
          },
          subscription_id: {
            type: ['integer', 'null'],
            description: 'The subscription of that order, if it is one',
          },
        },
      },
    },
  },
};
