/**
 * What a signed-in buyer sees and does: their live orders across companies, and the right of
 * regret (a refund asked within the order's guarantee, made as a panel refund is: through the
 * order's gateway at once, then the order refunded with `order.refunded`, the reason kept).
 */
import { cardTokenFields } from '../checkout/pay-form.js';
import { sellerOf } from '../emails/settings.js';
import type { CheckoutNeeds } from '../gateways/port.js';
import { renewalTokenizer, switchRenewalMethod } from '../orders/renewal-method.js';
import { findSubscription } from '../orders/subscription-repository.js';
import { RENEWAL_METHODS } from '../shared/db/schema.js';
import { fieldErrors } from '../shared/validation/fields.js';
import { v } from '../shared/validation/typed.js';
import { cancelSubscription } from '../orders/panel-service.js';
import { refundForBuyer } from '../orders/refunds.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import {
  accessibleContentOf,
  payNowTokenOf,
  purchaseOf,
  purchasesOf,
  type AccessibleContent,
  type Purchase,
} from './repository.js';

export const MAX_REASON = 500;

/** How to reach a seller once the guarantee is over: its reply-to address (or none known). */
export interface SellerContact {
  name: string;
  address: string | null;
}

export interface AccountView {
  email: string;
  purchases: Purchase[];
  /** By company id: the sellers of paid orders past their guarantee. */
  contacts: Map<number, SellerContact>;
  /** The content the buyer holds access to now, by product (the only place its URLs are shown). */
  content: AccessibleContent[];
  /** By subscription id: the pay-now token of a past-due subscription's failed-renewal e-mail. */
  payNow: Map<number, string>;
}

export async function loadAccount(ctx: AppContext, email: string): Promise<AccountView> {
  const purchases = await purchasesOf(ctx.db, email);
  const contacts = new Map<number, SellerContact>();
  const past = new Set(purchases.filter((p) => p.status === 'paid' && !p.refundable).map((p) => p.companyId));
  for (const companyId of past) {
    const seller = await sellerOf(ctx.db, companyId);
    if (seller) contacts.set(companyId, { name: seller.senderName, address: seller.replyTo });
  }
  const payNow = new Map<number, string>();
  for (const p of purchases)
    if (p.subscription?.status === 'past_due' && !payNow.has(p.subscription.id)) {
      const token = await payNowTokenOf(ctx.db, p.subscription.id);
      if (token) payNow.set(p.subscription.id, token);
    }
  return { email, purchases, contacts, content: await accessibleContentOf(ctx.db, email), payNow };
}

/** One of the buyer's purchases; another buyer's (or a test-mode order) is a 404. */
export async function buyerPurchase(ctx: AppContext, email: string, code: string): Promise<Purchase> {
  const found = /^[0-9a-f-]{36}$/i.test(code) ? await purchaseOf(ctx.db, email, code) : undefined;
  if (!found) throw new NotFoundError(`No order ${code} of this buyer`);
  return found;
}

/**
 * The right of regret: a paid order within its guarantee (by PostgreSQL's clock) is refunded through
 * its gateway, recorded as asked by the buyer with the reason given (`refundForBuyer`): at once, or,
 * when the gateway does not answer, queued (the order stays paid, "refund requested", until the
 * `refunds` queue has the gateway refund it). Past the guarantee, or not paid, a 409; a gateway that
 * refuses, a 409 too. Answers whether the refund is made or on its way.
 */
export async function askRefund(
  ctx: AppContext,
  email: string,
  code: string,
  reasonText: string,
): Promise<'refunded' | 'queued'> {
  const reason = reasonText.trim();
  if (reason.length > MAX_REASON)
    throw ValidationError.field('reason', `must be at most ${MAX_REASON} characters`);
  const purchase = await buyerPurchase(ctx, email, code);
  if (purchase.status === 'refunded') return 'refunded';
  if (purchase.status === 'paid' && purchase.refundQueuedAt) return 'queued';
  if (!purchase.refundable)
    throw new ConflictError('This order is past its guarantee or not paid: it cannot be refunded here');
  return refundForBuyer(
    ctx,
    { companyId: purchase.companyId, code: purchase.code },
    { by: 'buyer', reason: reason === '' ? null : reason },
  );
}

/** The newest purchase of one of the buyer's subscriptions; another buyer's subscription is a 404. */
export async function buyerSubscription(
  ctx: AppContext,
  email: string,
  subscriptionId: number,
): Promise<Purchase & { subscription: NonNullable<Purchase['subscription']> }> {
  const purchase = (await purchasesOf(ctx.db, email)).find((p) => p.subscription?.id === subscriptionId);
  if (!purchase?.subscription) throw new NotFoundError(`No subscription ${subscriptionId} of this buyer`);
  return { ...purchase, subscription: purchase.subscription };
}

/**
 * Cancels one of the buyer's subscriptions, at once or at the period end, as the panel's cancel does
 * (the same events); another buyer's subscription is a 404.
 */
export async function cancelBuyerSubscription(
  ctx: AppContext,
  email: string,
  subscriptionId: number,
  atPeriodEnd: boolean,
): Promise<void> {
  const purchase = await buyerSubscription(ctx, email, subscriptionId);
  await cancelSubscription(ctx, purchase.companyId, subscriptionId, atPeriodEnd);
}

/** The renewal method page of one of the buyer's subscriptions: it, and the PSP's card tokenizer if any. */
export async function renewalMethodPage(
  ctx: AppContext,
  email: string,
  subscriptionId: number,
): Promise<{ purchase: Purchase; tokenizer: CheckoutNeeds['cardTokenizer'] }> {
  const purchase = await buyerSubscription(ctx, email, subscriptionId);
  const subscription = await findSubscription(ctx.db, subscriptionId);
  if (!subscription) throw new NotFoundError(`No subscription ${subscriptionId} of this buyer`);
  return { purchase, tokenizer: await renewalTokenizer(ctx, subscription) };
}

const choiceFields = { _csrf: v.string(), payment_method: v.required(v.enum(RENEWAL_METHODS)) };
/** The renewal method form: the method, and the card a PSP's script tokenized (`mercadopago-card.js`). */
const localChoice = v.object(choiceFields);
const pspChoice = v.object({ ...choiceFields, ...cardTokenFields() });

/**
 * Switches how one of the buyer's subscriptions renews (`switchRenewalMethod`): the form is read as
 * its gateway asks (a card token for a PSP that tokenizes in the browser).
 */
export async function switchBuyerRenewal(
  ctx: AppContext,
  email: string,
  subscriptionId: number,
  form: Record<string, unknown>,
): Promise<void> {
  const { purchase, tokenizer } = await renewalMethodPage(ctx, email, subscriptionId);
  const filled = Object.fromEntries(Object.entries(form).filter(([, value]) => value !== ''));
  const checked = tokenizer ? pspChoice.validate(filled) : localChoice.validate(filled);
  if (checked.error) throw new ValidationError('The form is invalid', fieldErrors(checked.error));
  const values: Record<string, unknown> = checked.value;
  const text = (name: string): string | undefined => {
    const found = values[name];
    return typeof found === 'string' ? found : undefined;
  };
  const token = text('card_token');
  const brand = text('card_payment_method_id');
  const method = checked.value.payment_method;
  await switchRenewalMethod(ctx, purchase.companyId, subscriptionId, {
    method,
    card:
      method === 'credit_card' && token !== undefined && brand !== undefined
        ? { token, paymentMethodId: brand, issuerId: text('card_issuer_id') ?? null }
        : null,
  });
}
