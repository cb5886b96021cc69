import type { CatalogItem } from '../../catalog/repository.js';
import { html, type SafeHtml } from '../../ui/html.js';
import type { PageLocale } from '../locale.js';
import { type Price } from '../pricing.js';

/**
 * What the buyer is buying and for how much: with a coupon, the list price struck through, the
 * discount and what is paid now (for a plan, the first payment, then the plan's price).
 */
export function itemBlock(
  page: PageLocale,
  item: CatalogItem,
  price: Price,
  couponCode: string | null,
): SafeHtml {
  const { t } = page;
  const money = (amount: string): string => page.money(amount, price.currency);
  const cycle = item.billingCycle ? t.cycles[item.billingCycle] : null;
  const discounted = price.discount !== '0.00';
  return html`<p class="product">${item.productName}</p>
    <h1>${item.name}</h1>
    <dl class="prices">
      ${
        discounted
          ? html`<div>
                <dt>${t.price.listPrice}</dt>
                <dd class="old"><s id="list-price">${money(price.list)}</s></dd>
              </div>
              <div>
                <dt>${t.price.discount(couponCode ?? '')}</dt>
                <dd id="discount">${money(`-${price.discount}`)}</dd>
              </div>`
          : ''
      }
      <div class="total">
        <dt>${discounted && cycle ? t.price.firstPayment : t.price.total}</dt>
        <dd>
          <span class="price" id="price">${money(price.amount)}</span>${
            cycle && !discounted ? html` <span class="cycle">${cycle}</span>` : ''
          }
        </dd>
      </div>
    </dl>
    ${discounted && cycle ? html`<p class="note">${t.price.planAfterCoupon(money(price.list), cycle)}</p>` : ''}`;
}
