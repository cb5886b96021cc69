/** One renewal charge through the subscription's gateway: the charge row reserved first, the PSP asked, its answer recorded with the order and its events. */
import { accessEndsWithSubscription } from './access.js';
import { publishAfterCommit } from '../events/publish.js';
import { linkCustomer } from '../payment-links/purchase-data.js';
import { findLinkById } from '../payment-links/repository.js';
import type { AppContext } from '../shared/context.js';
import type { ChargeOutcome } from '../shared/enums/subscription-statuses.js';
import { newUuid } from '../shared/ids.js';
import { recordOrderEventOf, recordSubscriptionEvent } from './order-events.js';
import { firstOrderOfSubscription, insertOrder, type OrderRow } from './repository.js';
import { platformFeeOf, platformFeeRule } from '../companies/fees.js';
import { findCompany } from '../companies/repository.js';
import { gatewayOfCharge, gatewayOfCompany } from '../gateways/index.js';
import {
  AccountDisconnectedError,
  ChargeRefusedError,
  type Charge,
  type PaymentGateway,
} from '../gateways/port.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import type { RenewalCard } from '../shared/db/schema.js';
import { deleteStartingCharge, findCharge, reserveChargeRow } from './charge-repository.js';
import {
  checkoutRequestOf,
  recordCharge,
  renewalOrderCode,
  renewalRequestOf,
  type CheckoutChargeRequest,
  type RenewalChargeRequest,
} from './charges.js';
import {
  enterPeriod,
  findSubscription,
  forgetRenewalCard,
  lockSubscription,
  type DueCharge,
  type SubscriptionRow,
} from './subscription-repository.js';
import {
  endSubscription,
  failRenewal,
  isDue,
  planOf,
  scheduleCharge,
  type ChargeResult,
} from './subscription-periods.js';

/** A renewal's Pix stays payable a day, its boleto is due in three (the buyer hears of it through the company). */
const RENEWAL_PIX_EXPIRES_IN_SECONDS = 86_400;

const RENEWAL_BOLETO_DUE_DAYS = 3;

/** How long a PSP's card token can still be charged (MP's card tokens: single use, valid for 7 days). */
export const CARD_TOKEN_LIFE_MS = 7 * 86_400_000;

/** The stored card a charge through a PSP may still use now, if any (the method is card, the token fresh). */
export function usableRenewalCard(subscription: SubscriptionRow, now: Date): RenewalCard | null {
  const card = subscription.renewalCard;
  if (subscription.renewalMethod !== 'credit_card' || !card) return null;
  return now.getTime() - Date.parse(card.stored_at) < CARD_TOKEN_LIFE_MS ? card : null;
}

/**
 * How a renewal through a PSP is paid: the buyer's stored card while usable; Pix when the buyer
 * chose it, or chose a card no longer usable (MP charges a saved card only with its security code);
 * otherwise as the first purchase was (a boleto again when it was one and the payer is known), else Pix.
 */
function methodThroughGateway(
  subscription: SubscriptionRow,
  byBoleto: boolean,
  now: Date,
): { method: PaymentMethod; card: RenewalCard | null } {
  const card = usableRenewalCard(subscription, now);
  if (card) return { method: 'credit_card', card };
  return { method: subscription.renewalMethod === null && byBoleto ? 'boleto' : 'pix', card: null };
}

/**
 * One charge in one transaction, under the subscription's row lock, if it is still the one due:
 * - a subscription set to cancel at the period end is canceled there (`requested`) instead;
 * - paid: a paid order at the plan's current price (coupons apply to the first purchase only) with the
 *   first order's buyer and payment method, the next period, `order.paid` and `subscription.renewed`;
 * - failed: a failed order (`order.failed`); past_due with the next retry due after its delay on
 *   RENEWAL_RETRY_SCHEDULE (`subscription.past_due` on the first failure), or, when the last retry
 *   failed, canceled (`payment_failed`, `subscription.canceled`).
 * Then the next charge is scheduled. The events are the caller's to publish.
 */
export async function commitCharge(
  ctx: AppContext,
  charge: DueCharge,
  asOf: Date,
  outcome: ChargeOutcome,
  orderCode: string = newUuid(),
): Promise<ChargeResult | undefined> {
  const retries = ctx.config.renewalRetryScheduleSeconds;
  const done = await ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, charge.subscriptionId);
    if (!current || !isDue(current, charge, asOf)) return undefined;
    if (current.cancelAtPeriodEnd) {
      const ended = await endSubscription(tx, current.id, 'requested');
      const events = [ended.event, ...(await accessEndsWithSubscription(tx, current.id))];
      return { subscription: ended.subscription, events, next: undefined };
    }
    const plan = await planOf(tx, current.planId);
    const first = await firstOrderOfSubscription(tx, current.id);
    const link =
      current.paymentLinkId === null ? null : ((await findLinkById(tx, current.paymentLinkId))?.link ?? null);
    const now = new Date();
    const order = await insertOrder(tx, {
      code: orderCode,
      companyId: current.companyId,
      livemode: current.livemode,
      paymentLinkId: null,
      subscriptionId: current.id,
      productId: plan.productId,
      offerId: null,
      planId: plan.id,
      status: outcome,
      amount: plan.price,
      paymentMethod: current.renewalMethod ?? first?.paymentMethod ?? 'credit_card',
      paidAt: outcome === 'paid' ? now : null,
      customer: first?.customer ?? (link ? linkCustomer(link) : null),
    });
    if (outcome === 'paid') {
      const renewed = await enterPeriod(tx, current.id, plan.billingCycle, charge.period);
      const events = [
        await recordOrderEventOf(tx, 'order.paid', order, null, renewed),
        await recordSubscriptionEvent(tx, 'subscription.renewed', renewed),
      ];
      const next = {
        charge: { subscriptionId: current.id, period: charge.period + 1, attempt: 0 },
        at: renewed.currentPeriodEnd,
      };
      return { subscription: renewed, events, next };
    }
    const failed = await failRenewal(tx, retries, current, charge, order);
    return failed;
  });
  if (!done) return undefined;
  if (done.next) scheduleCharge(ctx, done.next.charge, done.next.at);
  return { subscription: done.subscription, events: done.events };
}

/**
 * The gateway a subscription bought through a PSP renews through, with what it needs: the company's
 * own PSP gateway now (the account may have been reconnected), else the account the first purchase
 * was made in. Undefined for a subscription bought any other way (test mode, the dev gateway, the
 * signed callback), whose renewals are charged as before.
 */
export async function renewalGateway(
  ctx: AppContext,
  subscription: SubscriptionRow,
): Promise<
  { gateway: PaymentGateway; first: OrderRow; firstRequest: CheckoutChargeRequest | undefined } | undefined
> {
  if (!subscription.livemode) return undefined;
  const first = await firstOrderOfSubscription(ctx.db, subscription.id);
  if (!first) return undefined;
  const firstCharge = await findCharge(ctx.db, first.code);
  if (firstCharge?.provider !== 'mercadopago') return undefined;
  const now = await gatewayOfCompany(ctx, subscription.companyId);
  const gateway = now.provider === 'mercadopago' ? now : await gatewayOfCharge(ctx, firstCharge);
  return { gateway, first, firstRequest: checkoutRequestOf(firstCharge) };
}

/**
 * A renewal charged through the subscription's PSP (docs/mercadopago.md, "Renewals"): a Pix (or a
 * boleto, when the subscription was bought with one and its buyer chose nothing else) whose
 * instructions reach the company in `order.created`; the order is paid when the PSP says so, and its
 * failure or expiry is a failed charge (past_due, retries). MP charges a saved card only with the
 * buyer's security code, so a card subscription renews by Pix, unless its buyer gave a card on the
 * buyer's page whose single-use token is still valid: that charge spends it. The charge's order code
 * is fixed per (subscription, period, attempt), so however many times its job, BullMQ's retries and
 * the sweep run it, the PSP makes one
 * payment. `'local'` when the subscription does not renew through a PSP.
 */
export async function chargeThroughGateway(
  ctx: AppContext,
  charge: DueCharge,
  asOf: Date,
): Promise<ChargeResult | undefined | 'local'> {
  const subscription = await findSubscription(ctx.db, charge.subscriptionId);
  if (!subscription || !isDue(subscription, charge, asOf) || subscription.cancelAtPeriodEnd) return 'local';
  const via = await renewalGateway(ctx, subscription);
  if (!via) return 'local';
  const { gateway, first, firstRequest } = via;
  const orderCode = renewalOrderCode(subscription.id, charge.period, charge.attempt);
  const plan = await planOf(ctx.db, subscription.planId);
  const customer = first.customer;
  const payerAddress = firstRequest?.payerAddress ?? null;
  const byBoleto = first.paymentMethod === 'boleto' && payerAddress !== null && customer?.document != null;
  const { method, card } = methodThroughGateway(subscription, byBoleto, new Date());
  const reserved = await ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, subscription.id);
    if (!current || !isDue(current, charge, asOf) || current.cancelAtPeriodEnd) return undefined;
    const request: RenewalChargeRequest = {
      kind: 'renewal',
      subscriptionId: current.id,
      period: charge.period,
      attempt: charge.attempt,
      productId: plan.productId,
      planId: plan.id,
      amount: plan.price,
      paymentMethod: method,
      customer,
      payerAddress: method === 'boleto' ? payerAddress : null,
      createdAt: new Date().toISOString(),
    };
    return (
      await reserveChargeRow(tx, {
        orderCode,
        companyId: current.companyId,
        provider: gateway.provider,
        accountId: gateway.accountId,
        paymentLinkId: null,
        subscriptionId: current.id,
        request: { ...request },
      })
    ).row;
  });
  // Not due any more (run by another worker), or its charge already made: nothing to do here.
  if (!reserved || reserved.state !== 'starting') return undefined;
  const request = renewalRequestOf(reserved);
  if (!request) return undefined;
  // The card this charge was reserved for (a retry after a lost answer asks again with it).
  const charged = request.paymentMethod === 'credit_card' ? card : null;
  const company = await findCompany(ctx.db, subscription.companyId);
  let made: Charge;
  try {
    made = await gateway.createCharge({
      orderCode,
      companyId: subscription.companyId,
      merchantName: company?.name ?? plan.productName,
      description: plan.productName,
      amount: request.amount,
      method: request.paymentMethod,
      installments: charged ? 1 : null,
      createdAt: new Date(request.createdAt),
      pixExpiresInSeconds: RENEWAL_PIX_EXPIRES_IN_SECONDS,
      boletoDueDays: RENEWAL_BOLETO_DUE_DAYS,
      boletoPageUrl: `${ctx.config.urls.checkout}/orders/${orderCode}/boleto`,
      payer: {
        ...(request.customer ?? { name: null, email: null, phone: null, document: null }),
        address: request.payerAddress,
      },
      card: charged && {
        token: charged.token,
        paymentMethodId: charged.payment_method_id,
        issuerId: charged.issuer_id,
      },
      platformFee: platformFeeOf(platformFeeRule(ctx.config, company), request.amount),
    });
  } catch (err) {
    // A PSP that will never make this charge (it refuses it, or the account is disconnected) is a
    // failed charge; one that did not answer is asked again by the job's retry or the sweep.
    if (!(err instanceof ChargeRefusedError) && !(err instanceof AccountDisconnectedError)) throw err;
    ctx.logger.warn(
      { orderCode, subscriptionId: subscription.id, reason: err.message },
      'a renewal charge was refused',
    );
    await deleteStartingCharge(ctx.db, orderCode);
    const failed = await commitCharge(ctx, charge, asOf, 'failed', orderCode);
    if (failed)
      publishAfterCommit(
        ctx,
        failed.events.map((e) => e.id),
      );
    return failed;
  }
  if (charged) await forgetRenewalCard(ctx.db, subscription.id, charged.token);
  await recordCharge(ctx, orderCode, made);
  const after = await findSubscription(ctx.db, subscription.id);
  return after && { subscription: after, events: [] };
}
