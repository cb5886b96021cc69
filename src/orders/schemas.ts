import { ORDER_STATUSES } from '../shared/enums/order-statuses.js';
import { CHARGE_OUTCOMES, SUBSCRIPTION_STATUSES } from '../shared/enums/subscription-statuses.js';
import { references } from '../shared/validation/references.js';
import { v, type Output } from '../shared/validation/typed.js';
import { LINK_ID_PATTERN, UUID_PATTERN } from '../shared/ids.js';

const MAX_ID = Number.MAX_SAFE_INTEGER;

const orderCode = () => v.string().pattern(UUID_PATTERN, 'uuid');
const subscriptionId = () => v.integer().min(1).max(MAX_ID);
const limit = () => v.defaulted(v.integer().min(1).max(100), 20);
/** `true` or `false`, exactly as the document says. */
const mode = () => v.boolean().sensitive().description('`true`: live orders only; `false`: test orders only');

export const orderParams = v.object({
  code: v
    .required(orderCode())
    .description('Order code')
    .meta(references({ operationId: 'listOrders', property: 'code' })),
});

/** An order that can be refunded: a paid one (any other status is a 409). */
export const paidOrderParams = v.object({
  code: v
    .required(orderCode())
    .description('Code of a paid order')
    .meta(references({ operationId: 'listOrders', property: 'code', where: { status: 'paid' } })),
});

export const listOrdersQuery = v.object({
  status: v.enum(ORDER_STATUSES),
  link_id: v
    .string()
    .pattern(LINK_ID_PATTERN, 'link id')
    .description('Orders made through this payment link'),
  livemode: mode(),
  limit: limit(),
  starting_after: orderCode()
    .description('`code` of the last order of the previous page')
    .meta(references({ operationId: 'listOrders', property: 'code' })),
});
export type ListOrdersQuery = Output<typeof listOrdersQuery>;

export const subscriptionParams = v.object({
  id: v
    .required(subscriptionId())
    .description('Subscription id')
    .meta(references({ operationId: 'listSubscriptions', property: 'id' })),
});

/** Renew-now needs a subscription that is not canceled (a canceled one is a 409). */
export const activeSubscriptionParams = v.object({
  id: v
    .required(subscriptionId())
    .description('Id of a subscription that is not canceled')
    .meta(references({ operationId: 'listSubscriptions', property: 'id', where: { status: 'active' } })),
});

export const listSubscriptionsQuery = v.object({
  status: v.enum(SUBSCRIPTION_STATUSES),
  livemode: mode(),
  limit: limit(),
  starting_after: subscriptionId()
    .description('`id` of the last subscription of the previous page')
    .meta(references({ operationId: 'listSubscriptions', property: 'id' })),
});
export type ListSubscriptionsQuery = Output<typeof listSubscriptionsQuery>;

export const cancelSubscriptionBody = v.object({
  at_period_end: v
    .defaulted(v.strictBoolean(), false)
    .description(
      '`true`: keep the subscription until `current_period_end` and cancel it there instead of renewing ' +
        '(`cancel_at_period_end` becomes true; a past_due subscription, whose period has ended, is canceled at once). ' +
        'Default `false`: cancel at once.',
    ),
});

export const renewSubscriptionBody = v.object({
  outcome: v
    .defaulted(v.enum(CHARGE_OUTCOMES), 'paid')
    .description(
      'What the dev gateway answers to this charge. `failed`: a failed order, and the subscription becomes ' +
        '`past_due` with a retry scheduled (or, on its last retry, `canceled` with `cancel_reason: payment_failed`).',
    ),
});
