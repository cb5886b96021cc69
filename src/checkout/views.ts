import type { Config } from '../shared/config.js';
import type { OrderRow } from '../orders/repository.js';
import type { Simulation } from '../simulate/service.js';
import { formatMoney } from '../shared/money.js';
import { html, layout, type SafeHtml } from './html.js';
import type { CheckoutView, LinkView } from './service.js';
import type { CatalogItem } from '../catalog/repository.js';
import type { Price } from './pricing.js';

const CYCLE_LABEL: Record<string, string> = {
  weekly: 'per week',
  monthly: 'per month',
  quarterly: 'every 3 months',
  semiannual: 'every 6 months',
  yearly: 'per year',
};

function itemBlock(item: CatalogItem, price: Price, couponCode: string | null): SafeHtml {
  const cycle = item.billingCycle ? ` ${CYCLE_LABEL[item.billingCycle] ?? item.billingCycle}` : '';
  const discounted = price.discount !== '0.00';
  return html`<p>${item.productName}</p>
    <h1>${item.name}</h1>
    ${discounted ? html`<p class="old">${price.list}</p>` : ''}
    <p class="price">${price.amount}${cycle}</p>
    ${discounted && couponCode ? html`<p>Coupon ${couponCode} applied: ${price.discount} off${item.kind === 'plan' ? ' the first payment' : ''}.</p>` : ''}`;
}

/** `{checkout_url}/teste/<id>`: the test link, its state, and the three simulated outcomes. */
export function simulationPage(config: Config, view: LinkView): SafeHtml {
  const { link, item, price, notice } = view;
  const action = `${config.urls.checkout}/teste/${encodeURIComponent(link.id)}/simulate`;
  const button = (outcome: string, label: string, css: string) =>
    html`<form method="post" action="${action}" style="display:inline">
      <input type="hidden" name="outcome" value="${outcome}" /><button class="${css}" type="submit">
        ${label}
      </button>
    </form>`;
  return layout(
    `Test payment: ${item.name}`,
    html`<p class="test">
        Test mode: nothing is charged. The buttons send the same test events as the simulate API.
      </p>
      ${itemBlock(item, price, link.couponCode)}
      <p>Link <code>${link.id}</code>, status <strong id="link-status">${link.status}</strong></p>
      ${
        notice
          ? html`<p class="notice">${notice}</p>`
          : html`<div>
              ${button('paid', 'Approved payment', 'ok')}${button('failed', 'Declined payment', 'bad')}${button('expired', 'Expired payment', 'neutral')}
            </div>`
      }`,
  );
}

/** What a simulation button did: the event and each webhook's first attempt. */
export function simulationResultPage(config: Config, simulation: Simulation): SafeHtml {
  const { link } = simulation.link;
  const rows = simulation.result.webhooks.map(
    (w) =>
      html`<tr>
        <td>${w.destination}</td>
        <td>${w.success ? 'yes' : 'no'}</td>
        <td>${w.status}</td>
      </tr>`,
  );
  return layout(
    'Test payment sent',
    html`<p class="test">Test mode: nothing was charged.</p>
      <h1>Event <code id="event">${simulation.event}</code> sent</h1>
      <p>Link <code>${link.id}</code> is now <strong id="link-status">${link.status}</strong>.</p>
      ${
        rows.length > 0
          ? html`<table>
              <thead>
                <tr>
                  <th>Destination</th>
                  <th>Success</th>
                  <th>Status</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
          : html`<p>No webhook is subscribed to this event.</p>`
      }
      <p>
        <a href="${config.urls.checkout}/teste/${encodeURIComponent(link.id)}">Back to the test page</a>
      </p>`,
  );
}

export type FormErrors = Record<string, string[]>;

function field(
  name: string,
  label: string,
  value: string | null,
  errors: FormErrors,
  type = 'text',
  required = false,
): SafeHtml {
  const messages = errors[name] ?? [];
  return html`<label for="${name}">${label}${required ? ' *' : ''}</label>
    <input
      id="${name}"
      name="${name}"
      type="${type}"
      value="${value ?? ''}"
      ${required ? html` required` : ''}
    />
    ${messages.map((m) => html`<p class="error">${label}: ${m}</p>`)}`;
}

/** The buyer checkout: the item, price, and (when payable) the prefilled pay form, posted, never in a URL. */
export function checkoutPage(
  config: Config,
  view: CheckoutView,
  values: Record<string, string | null> = {},
  errors: FormErrors = {},
): SafeHtml {
  const { item, link, price, notice } = view;
  const action = `${config.urls.checkout}/${encodeURIComponent(item.code)}/pay`;
  const value = (name: keyof CheckoutView['prefill']): string | null => values[name] ?? view.prefill[name];
  const method = values.payment_method ?? 'credit_card';
  const option = (v: string, label: string) =>
    html`<option value="${v}" ${method === v ? html` selected` : ''}>${label}</option>`;
  const form = html`<form method="post" action="${action}">
    ${link ? html`<input type="hidden" name="plink" value="${link.id}" />` : ''}
    ${field('name', 'Name', value('name'), errors, 'text', true)}
    ${field('email', 'Email', value('email'), errors, 'email', true)}
    ${field('phone', 'Phone', value('phone'), errors, 'tel')}
    ${field('document', 'CPF or CNPJ', value('document'), errors)}
    <label for="payment_method">Payment method</label>
    <select id="payment_method" name="payment_method">
      ${option('credit_card', 'Credit card')}${option('pix', 'Pix')}${option('boleto', 'Boleto')}
    </select>
    ${(errors.payment_method ?? []).map((m) => html`<p class="error">Payment method: ${m}</p>`)}
    <button class="ok" type="submit">Pay ${price.amount}</button>
  </form>`;
  return layout(
    item.name,
    html`${itemBlock(item, price, link?.couponCode ?? null)}${notice ? html`<p class="notice">${notice}</p>` : form}`,
  );
}

/** After the pay step: paid (dev gateway) or waiting for the gateway's confirmation. */
export function orderPage(order: OrderRow, view: CheckoutView): SafeHtml {
  const paid = order.status === 'paid';
  return layout(
    paid ? 'Thank you' : 'Payment in progress',
    html`<h1>${paid ? 'Thank you for your purchase' : 'Payment in progress'}</h1>
      <p>${view.item.name}: <strong>${formatMoney(order.amount)}</strong></p>
      <p>
        Order <code id="order-code">${order.code}</code> is
        <strong id="order-status">${order.status}</strong>.
      </p>
      ${paid ? '' : html`<p>We will confirm your order as soon as the payment gateway does.</p>`}`,
  );
}
