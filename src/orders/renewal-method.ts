/**
 * How a subscription renews (docs/api.md, "The buyer's page", "Switching how a subscription renews"):
 * its buyer switches between `pix` and `credit_card`. A subscription that renews through a PSP that
 * tokenizes cards in the browser (Mercado Pago) needs a card tokenized there by the same script as
 * the checkout's; one that renews locally (the dev gateway) needs none, as its checkout does. Switching
 * to Pix forgets the card. The charges read the choice when they run (`renewal-charge.ts`).
 */
import type { CardToken, CheckoutNeeds } from '../gateways/port.js';
import type { AppContext } from '../shared/context.js';
import type { RenewalCard, RenewalMethod } from '../shared/db/schema.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { renewalGateway } from './renewal-charge.js';
import {
  findSubscription,
  lockSubscription,
  setRenewalMethod,
  type SubscriptionRow,
} from './subscription-repository.js';

export interface RenewalChoice {
  method: RenewalMethod;
  /** The card the PSP's browser script tokenized (null with `pix`, or for a gateway that posts none). */
  card: CardToken | null;
}

/** The PSP card tokenizer a subscription's renewals go through, or null (a local gateway). */
export async function renewalTokenizer(
  ctx: AppContext,
  subscription: SubscriptionRow,
): Promise<CheckoutNeeds['cardTokenizer']> {
  const via = await renewalGateway(ctx, subscription);
  return via ? via.gateway.checkout.cardTokenizer : null;
}

/**
 * Switches how the company's subscription `id` renews, under its row lock. A canceled subscription, or
 * one set to cancel at its period end (it renews no more), is a 409; a card switch through a PSP that
 * tokenizes without a token is a 400 naming `card_token`. No event: the panel's subscription object
 * and events carry no renewal method, as a cancel at the period end fires none.
 */
export async function switchRenewalMethod(
  ctx: AppContext,
  companyId: number,
  id: number,
  choice: RenewalChoice,
): Promise<SubscriptionRow> {
  const found = await findSubscription(ctx.db, id);
  if (!found || found.companyId !== companyId) throw new NotFoundError(`No subscription ${id}`);
  const tokenizer = await renewalTokenizer(ctx, found);
  if (choice.method === 'credit_card' && tokenizer && !choice.card)
    throw ValidationError.field(
      'card_token',
      'is required: the card must be tokenized by the payment gateway',
    );
  const card: RenewalCard | null =
    choice.method === 'credit_card' && tokenizer && choice.card
      ? {
          token: choice.card.token,
          payment_method_id: choice.card.paymentMethodId,
          issuer_id: choice.card.issuerId,
          stored_at: new Date().toISOString(),
        }
      : null;
  return ctx.db.transaction(async (tx) => {
    const current = await lockSubscription(tx, id);
    if (!current || current.companyId !== companyId) throw new NotFoundError(`No subscription ${id}`);
    if (current.status === 'canceled' || current.cancelAtPeriodEnd)
      throw new ConflictError(`Subscription ${id} does not renew any more`);
    return setRenewalMethod(tx, id, choice.method, card);
  });
}
