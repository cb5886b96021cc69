/** What the buyer pages are drawn from: a link's page, the checkout, an order's page. */
import { type CatalogItem } from '../catalog/repository.js';
import type { BrowserPixel } from './ad-pixel.js';
import { type CheckoutNeeds, type DeclineReason } from '../gateways/port.js';
import { type OrderRow } from '../orders/repository.js';
import { type LinkOrder, type LinkRow } from '../payment-links/repository.js';
import type { OrderCustomer } from '../shared/db/schema.js';
import { type PaymentMethod } from '../shared/enums/payment-methods.js';
import type { NoticeKey } from './messages.js';
import { type Price } from './pricing.js';

export interface LinkView {
  link: LinkRow;
  order: LinkOrder | null;
  item: CatalogItem;
  price: Price;
  /** Why the link cannot be paid (or simulated) now; null when it can. */
  notice: NoticeKey | null;
}

export interface CheckoutView {
  item: CatalogItem;
  /** Null for a checkout opened without `plink`. */
  link: LinkRow | null;
  price: Price;
  notice: NoticeKey | null;
  prefill: OrderCustomer;
  /** The methods the checkout offers (the link's, or all), and the most card instalments. */
  methods: PaymentMethod[];
  maxInstallments: number;
  /** What the company's gateway needs the form to ask (a boleto payer's address, a card tokenized in the browser). */
  gateway: CheckoutNeeds;
  /** Whether the form offers the box "remind me by e-mail" (the company sends the recovery message). */
  askRecoveryConsent: boolean;
  /** Where the form posts, relative to `{checkout_url}` (default: `<code>/pay`). */
  payAction?: { path: string[]; query: Record<string, string> };
}

/** An order as the buyer's pages show it: what was bought, from whom, and through which link. */
export interface OrderView {
  order: OrderRow;
  item: CatalogItem;
  link: LinkRow | null;
  merchantName: string;
  /** Why the card was declined, when its gateway said (a failed order). */
  declineReason: DeclineReason | null;
  /** The Meta pixel the page loads (the order's page only, when its company has one on); null: none. */
  pixel: BrowserPixel | null;
}
