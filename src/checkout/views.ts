import type { CatalogItem } from '../catalog/repository.js';
import type { OrderRow } from '../orders/repository.js';
import type { Simulation } from '../simulate/service.js';
import { PAYMENT_METHODS } from '../shared/enums/payment-methods.js';
import { html, layout, type SafeHtml } from './html.js';
import type { PageLocale } from './locale.js';
import type { FormProblems } from './page-errors.js';
import type { Price } from './pricing.js';
import type { CheckoutView, LinkView } from './service.js';

/**
 * What the buyer is buying and for how much: with a coupon, the list price struck through, the
 * discount and what is paid now (for a plan, the first payment, then the plan's price).
 */
function itemBlock(page: PageLocale, item: CatalogItem, price: Price, couponCode: string | null): SafeHtml {
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

/** `{checkout_url}/teste/<id>`: the test link, its state, and the three simulated outcomes. */
export function simulationPage(page: PageLocale, view: LinkView): SafeHtml {
  const { t } = page;
  const { link, item, price, notice } = view;
  const action = page.href(['teste', link.id, 'simulate']);
  const button = (outcome: keyof typeof t.simulation.outcomes, css: string) =>
    html`<form method="post" action="${action}">
      <input type="hidden" name="outcome" value="${outcome}" />
      <button class="${css}" type="submit">${t.simulation.outcomes[outcome]}</button>
    </form>`;
  return layout(
    page,
    t.simulation.title(item.name),
    html`<p class="test">${t.simulation.testBanner}</p>
      ${itemBlock(page, item, price, link.couponCode)}
      <dl class="facts">
        <div>
          <dt>${t.simulation.linkLine}</dt>
          <dd><code>${link.id}</code></dd>
        </div>
        <div>
          <dt>${t.simulation.statusLabel}</dt>
          <dd>
            <strong id="link-status" data-status="${link.status}">${t.linkStatuses[link.status]}</strong>
          </dd>
        </div>
      </dl>
      ${
        notice
          ? html`<p class="notice">${t.sentences[notice]}</p>`
          : html`<h2 id="simulate">${t.simulation.actionsHeading}</h2>
              <div class="actions" role="group" aria-labelledby="simulate">
                ${button('paid', 'ok')}${button('failed', 'bad')}${button('expired', 'neutral')}
              </div>`
      }`,
  );
}

/** What a simulation button did: the event and each webhook's first attempt. */
export function simulationResultPage(page: PageLocale, simulation: Simulation): SafeHtml {
  const { t } = page;
  const { link } = simulation.link;
  const s = t.simulation;
  const rows = simulation.result.webhooks.map(
    (w) =>
      html`<tr>
        <td>${w.destination}</td>
        <td>${w.success ? s.yes : s.no}</td>
        <td>${w.status === 0 ? s.noResponse : w.status}</td>
      </tr>`,
  );
  return layout(
    page,
    s.resultTitle,
    html`<p class="test">${s.resultBanner}</p>
      <h1>${s.resultTitle}</h1>
      <dl class="facts">
        <div>
          <dt>${s.eventSent}</dt>
          <dd><code id="event">${simulation.event}</code></dd>
        </div>
        <div>
          <dt>${s.linkLine}</dt>
          <dd><code>${link.id}</code></dd>
        </div>
        <div>
          <dt>${s.linkNowIs}</dt>
          <dd>
            <strong id="link-status" data-status="${link.status}">${t.linkStatuses[link.status]}</strong>
          </dd>
        </div>
      </dl>
      ${
        rows.length > 0
          ? html`<table>
              <caption>
                ${s.deliveriesCaption}
              </caption>
              <thead>
                <tr>
                  <th scope="col">${s.destination}</th>
                  <th scope="col">${s.success}</th>
                  <th scope="col">${s.httpStatus}</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
          : html`<p>${s.noWebhooks}</p>`
      }
      <p><a href="${page.href(['teste', link.id])}">${s.back}</a></p>`,
  );
}

interface FieldSpec {
  name: 'name' | 'email' | 'phone' | 'document';
  label: string;
  type: 'text' | 'email' | 'tel';
  /** WCAG 1.3.5: the purpose of fields about the buyer, for autofill and assistive technology. */
  autocomplete: string;
  required?: boolean;
  hint?: string;
}

/** A labelled input with its hint and its problem, both tied to it with aria-describedby. */
function field(page: PageLocale, spec: FieldSpec, value: string | null, problems: FormProblems): SafeHtml {
  const problem = problems[spec.name];
  const hintId = spec.hint ? `${spec.name}-hint` : undefined;
  const errorId = problem ? `${spec.name}-error` : undefined;
  const describedBy = [hintId, errorId].filter((id) => id !== undefined).join(' ');
  return html`<label for="${spec.name}"
      >${spec.label}${spec.required ? html` <span aria-hidden="true">*</span>` : ''}</label
    >
    ${spec.hint ? html`<p class="hint" id="${hintId}">${spec.hint}</p>` : ''}
    ${problem ? html`<p class="error" id="${errorId}">${page.t.problems[problem]}</p>` : ''}
    <input
      id="${spec.name}"
      name="${spec.name}"
      type="${spec.type}"
      value="${value ?? ''}"
      autocomplete="${spec.autocomplete}"
      ${spec.required ? html` required` : ''}${
        describedBy ? html` aria-describedby="${describedBy}"` : ''
      }${problem ? html` aria-invalid="true"` : ''}
    />`;
}

/** The fields a problem can name, each with the element the summary's link jumps to. */
const FIELD_TARGETS = {
  name: 'name',
  email: 'email',
  phone: 'phone',
  document: 'document',
  payment_method: 'payment_method-credit_card',
} as const;

function problemSummary(page: PageLocale, problems: FormProblems): SafeHtml {
  const { t } = page;
  const entries = Object.entries(problems);
  if (entries.length === 0) return html``;
  const labels: Record<keyof typeof FIELD_TARGETS, string> = {
    name: t.checkout.name,
    email: t.checkout.email,
    phone: t.checkout.phone,
    document: t.checkout.document,
    payment_method: t.checkout.paymentMethod,
  };
  const isKnown = (name: string): name is keyof typeof FIELD_TARGETS => Object.hasOwn(FIELD_TARGETS, name);
  return html`<div class="summary" aria-labelledby="problems">
    <p id="problems">${t.checkout.errorSummary}</p>
    <ul>
      ${entries.map(([name, problem]) =>
        problem === undefined
          ? ''
          : isKnown(name)
            ? html`<li><a href="#${FIELD_TARGETS[name]}">${labels[name]}: ${t.problems[problem]}</a></li>`
            : html`<li>${t.problems[problem]}</li>`,
      )}
    </ul>
  </div>`;
}

/**
 * The buyer checkout: the item, price, and (when payable) the prefilled pay form, posted to a
 * relative address (never in a URL, and under whatever host the page was opened).
 */
export function checkoutPage(
  page: PageLocale,
  view: CheckoutView,
  values: Record<string, string | null> = {},
  problems: FormProblems = {},
): SafeHtml {
  const { t } = page;
  const { item, link, price, notice } = view;
  const value = (name: keyof CheckoutView['prefill']): string | null => values[name] ?? view.prefill[name];
  const method = values.payment_method ?? 'credit_card';
  const methodProblem = problems.payment_method;
  const options = PAYMENT_METHODS.map(
    (m) =>
      html`<label class="choice"
        ><input
          type="radio"
          id="payment_method-${m}"
          name="payment_method"
          value="${m}"
          ${method === m ? html` checked` : ''}
        />${t.paymentMethods[m]}</label
      >`,
  );
  const form = html`<form method="post" action="${page.href([item.code, 'pay'])}" novalidate>
    <h2>${t.checkout.detailsHeading}</h2>
    <p class="note">${t.checkout.requiredNote}</p>
    ${problemSummary(page, problems)}
    ${link ? html`<input type="hidden" name="plink" value="${link.id}" />` : ''}
    ${field(
      page,
      { name: 'name', label: t.checkout.name, type: 'text', autocomplete: 'name', required: true },
      value('name'),
      problems,
    )}
    ${field(
      page,
      { name: 'email', label: t.checkout.email, type: 'email', autocomplete: 'email', required: true },
      value('email'),
      problems,
    )}
    ${field(
      page,
      {
        name: 'phone',
        label: t.checkout.phone,
        type: 'tel',
        autocomplete: 'tel',
        hint: t.checkout.phoneHint,
      },
      value('phone'),
      problems,
    )}
    ${field(
      page,
      {
        name: 'document',
        label: t.checkout.document,
        type: 'text',
        autocomplete: 'off',
        hint: t.checkout.documentHint,
      },
      value('document'),
      problems,
    )}
    <fieldset${methodProblem ? html` aria-describedby="payment_method-error"` : ''}>
      <legend>${t.checkout.paymentMethod}</legend>
      ${
        methodProblem ? html`<p class="error" id="payment_method-error">${t.problems[methodProblem]}</p>` : ''
      }
      ${options}
    </fieldset>
    <button class="ok" type="submit">${t.checkout.pay(page.money(price.amount, price.currency))}</button>
    <p class="note">${t.checkout.privacyNote}</p>
  </form>`;
  return layout(
    page,
    `${item.name} · ${t.checkout.titleSuffix}`,
    html`${itemBlock(page, item, price, link?.couponCode ?? null)}${
      notice ? html`<p class="notice">${t.sentences[notice]}</p>` : form
    }`,
  );
}

/**
 * After the pay step: paid (the dev gateway confirmed it) or waiting for the gateway, and in both
 * cases what happens next and what the buyer should do (or need not do).
 */
export function orderPage(page: PageLocale, order: OrderRow, view: CheckoutView): SafeHtml {
  const { t } = page;
  const { item, price } = view;
  const money = (amount: string): string => page.money(amount, price.currency);
  const paid = order.status === 'paid';
  const method = order.paymentMethod;
  const email = order.customer?.email ?? null;
  const cycle = item.billingCycle ? t.cycles[item.billingCycle] : null;
  const next: string[] = paid
    ? [
        ...(email ? [t.thanks.paidEmail(email, item.productName)] : []),
        ...(cycle ? [t.thanks.paidSubscription(money(item.price), cycle)] : []),
        t.thanks.keepCode,
        t.thanks.spamHint,
      ]
    : [
        ...(method ? [t.thanks.pendingByMethod[method]] : []),
        ...(email ? [t.thanks.pendingEmail(email)] : []),
        t.thanks.noNeedToPayAgain,
        t.thanks.keepCode,
      ];
  return layout(
    page,
    paid ? t.thanks.paidTitle : t.thanks.pendingTitle,
    html`<h1>${paid ? t.thanks.paidHeading : t.thanks.pendingHeading}</h1>
      <p class="${paid ? 'done' : 'notice'}">${paid ? t.thanks.paidLead : t.thanks.pendingLead}</p>
      <h2>${t.thanks.orderSummary}</h2>
      <dl class="facts">
        <div>
          <dt>${t.thanks.item}</dt>
          <dd>${item.name}</dd>
        </div>
        <div>
          <dt>${t.thanks.amount}</dt>
          <dd id="order-amount">${money(order.amount)}</dd>
        </div>
        ${
          method
            ? html`<div>
                <dt>${t.thanks.paymentMethod}</dt>
                <dd>${t.paymentMethods[method]}</dd>
              </div>`
            : ''
        }
        <div>
          <dt>${t.thanks.orderCode}</dt>
          <dd><code id="order-code">${order.code}</code></dd>
        </div>
        <div>
          <dt>${t.thanks.status}</dt>
          <dd>
            <strong id="order-status" data-status="${order.status}"
              >${paid ? t.thanks.statusPaid : t.thanks.statusPending}</strong
            >
          </dd>
        </div>
      </dl>
      <h2>${t.thanks.nextHeading}</h2>
      <ul>
        ${next.map((line) => html`<li>${line}</li>`)}
      </ul>`,
  );
}
