import type { Config } from '../shared/config.js';
import { formatMoney } from '../shared/money.js';
import type { LinkStatus } from '../shared/enums/link-statuses.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import { campaignWire, type CampaignWire } from '../shared/tracking.js';
import type { LinkOrder, LinkRow } from './repository.js';

export interface OrderWire {
  code: string;
  status: string;
  amount: string;
  payment_method: string | null;
  paid_at: string | null;
}

/** The PaymentLink as the payments API returns it. */
export interface PaymentLinkWire {
  object: 'payment_link';
  id: string;
  livemode: boolean;
  status: LinkStatus;
  type: 'offer' | 'plan';
  offer_code: string | null;
  plan_code: string | null;
  url: string;
  short_url: string;
  customer: { name: string | null; email: string | null; phone: string | null; document: string | null };
  external_reference: string | null;
  tracking: CampaignWire;
  metadata: Record<string, string>;
  coupon_code: string | null;
  single_use: boolean;
  expires_at: string | null;
  paid_at: string | null;
  canceled_at: string | null;
  created_at: string;
  order: OrderWire | null;
  payment_methods: PaymentMethod[];
  pix_expires_in_seconds: number;
  boleto_due_days: number;
  max_installments: number;
  success_url: string | null;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/**
 * Where the buyer pays. Live links open the checkout of their offer (or plan) carrying only the
 * link id; test links open the simulation page, which the real checkout never serves.
 */
export function linkUrl(
  config: Config,
  link: Pick<LinkRow, 'id' | 'livemode' | 'offerCode' | 'planCode'>,
): string {
  const checkout = config.urls.checkout;
  if (!link.livemode) return `${checkout}/teste/${encodeURIComponent(link.id)}`;
  const code = link.offerCode ?? link.planCode ?? '';
  return `${checkout}/${encodeURIComponent(code)}?plink=${encodeURIComponent(link.id)}`;
}

export const shortUrl = (config: Config, shortCode: string): string =>
  `${config.urls.checkout}/r/${encodeURIComponent(shortCode)}`;

export function toOrderWire(order: LinkOrder): OrderWire {
  return {
    code: order.code,
    status: order.status,
    amount: formatMoney(order.amount),
    payment_method: order.paymentMethod,
    paid_at: iso(order.paidAt),
  };
}

export function toPaymentLinkWire(config: Config, row: LinkRow, order: LinkOrder | null): PaymentLinkWire {
  return {
    object: 'payment_link',
    id: row.id,
    livemode: row.livemode,
    status: row.status,
    type: row.type,
    offer_code: row.offerCode,
    plan_code: row.planCode,
    url: linkUrl(config, row),
    short_url: shortUrl(config, row.shortCode),
    customer: {
      name: row.customerName,
      email: row.customerEmail,
      phone: row.customerPhone,
      document: row.customerDocument,
    },
    external_reference: row.externalReference,
    tracking: campaignWire(row.tracking),
    metadata: row.metadata,
    coupon_code: row.couponCode,
    single_use: row.singleUse,
    expires_at: iso(row.expiresAt),
    paid_at: iso(row.paidAt),
    canceled_at: iso(row.canceledAt),
    created_at: row.createdAt.toISOString(),
    order: order ? toOrderWire(order) : null,
    payment_methods: row.paymentMethods,
    pix_expires_in_seconds: row.pixExpiresInSeconds,
    boleto_due_days: row.boletoDueDays,
    max_installments: row.maxInstallments,
    success_url: row.successUrl,
  };
}
