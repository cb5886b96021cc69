import type { CatalogItem } from '../catalog/repository.js';
import { formatDigitableLine } from '../gateways/boleto.js';
import type { Simulation } from '../simulate/service.js';
import type { PaymentMethod } from '../shared/enums/payment-methods.js';
import { html, type SafeHtml } from '../ui/html.js';
import { layout } from './layout.js';
import type { PageLocale } from './locale.js';
import { EMAIL_PAGE_WORDS } from './email-messages.js';
import type { FormProblems } from './page-errors.js';
import { CATALOG_CURRENCY, installmentPlan, type Price } from './pricing.js';
import {
  ADDRESS_FIELDS,
  FEDERAL_UNITS,
  type CheckoutView,
  type LinkView,
  type OrderView,
} from './service.js';
import { newUuid, UUID_PATTERN } from '../shared/ids.js';
import { CARRIED_FIELDS } from './visit.js';

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
  name: 'name' | 'email' | 'phone' | 'document' | Exclude<(typeof ADDRESS_FIELDS)[number], 'state'>;
  label: string;
  type: 'text' | 'email' | 'tel';
  inputmode?: 'numeric';
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
      ${spec.inputmode ? html` inputmode="${spec.inputmode}"` : ''}
      ${spec.required ? html` required` : ''}${
        describedBy ? html` aria-describedby="${describedBy}"` : ''
      }${problem ? html` aria-invalid="true"` : ''}
    />`;
}

/** The fields a problem can name, each with the element the summary's link jumps to. */
const FIELD_NAMES = [
  'name',
  'email',
  'phone',
  'document',
  'payment_method',
  'installments',
  ...ADDRESS_FIELDS,
  'card',
] as const;
type FieldName = (typeof FIELD_NAMES)[number];

function problemSummary(page: PageLocale, problems: FormProblems, firstMethod: PaymentMethod): SafeHtml {
  const { t } = page;
  const entries = Object.entries(problems);
  if (entries.length === 0) return html``;
  const targets: Record<FieldName, { id: string; label: string }> = {
    name: { id: 'name', label: t.checkout.name },
    email: { id: 'email', label: t.checkout.email },
    phone: { id: 'phone', label: t.checkout.phone },
    document: { id: 'document', label: t.checkout.document },
    payment_method: { id: `payment_method-${firstMethod}`, label: t.checkout.paymentMethod },
    installments: { id: 'installments', label: t.checkout.installments },
    zip_code: { id: 'zip_code', label: t.checkout.zipCode },
    street_name: { id: 'street_name', label: t.checkout.streetName },
    street_number: { id: 'street_number', label: t.checkout.streetNumber },
    neighborhood: { id: 'neighborhood', label: t.checkout.neighborhood },
    city: { id: 'city', label: t.checkout.city },
    state: { id: 'state', label: t.checkout.state },
    card: { id: 'card_holder', label: t.checkout.cardHeading },
  };
  const isKnown = (name: string): name is FieldName => (FIELD_NAMES as readonly string[]).includes(name);
  return html`<div class="summary" aria-labelledby="problems">
    <p id="problems">${t.checkout.errorSummary}</p>
    <ul>
      ${entries.map(([name, problem]) =>
        problem === undefined
          ? ''
          : isKnown(name)
            ? html`<li><a href="#${targets[name].id}">${targets[name].label}: ${t.problems[problem]}</a></li>`
            : html`<li>${t.problems[problem]}</li>`,
      )}
    </ul>
  </div>`;
}

/**
 * The card instalments the link offers, as a list (every option says what each payment is). Shown
 * whatever the chosen method, so the form works without JavaScript; only a card uses it.
 */
function installmentsField(
  page: PageLocale,
  view: CheckoutView,
  chosen: string | null | undefined,
  problems: FormProblems,
): SafeHtml {
  const { t } = page;
  if (!view.methods.includes('credit_card') || view.maxInstallments < 2) return html``;
  const money = (amount: string): string => page.money(amount, view.price.currency);
  const problem = problems.installments;
  const describedBy = problem ? 'installments-hint installments-error' : 'installments-hint';
  const options = Array.from({ length: view.maxInstallments }, (_, i) => i + 1).map((n) => {
    const plan = installmentPlan(view.price.amount, n);
    return html`<option value="${n}" ${String(n) === (chosen ?? '1') ? html` selected` : ''}>
      ${t.checkout.installmentOption(n, money(plan.each), money(plan.first))}
    </option>`;
  });
  return html`<label for="installments">${t.checkout.installments}</label>
    <p class="hint" id="installments-hint">${t.checkout.installmentsHint}</p>
    ${problem ? html`<p class="error" id="installments-error">${t.problems[problem]}</p>` : ''}
    <select
      id="installments"
      name="installments"
      aria-describedby="${describedBy}"
      ${problem ? html` aria-invalid="true"` : ''}
    >
      ${options}
    </select>`;
}

/**
 * The payer's address, for a gateway that needs it on a boleto (Mercado Pago): required when the
 * buyer chooses boleto, ignored otherwise, so it sits in a group of its own that says so.
 */
function addressFields(
  page: PageLocale,
  values: Record<string, string | null>,
  problems: FormProblems,
): SafeHtml {
  const { t } = page;
  const text = (
    name: FieldSpec['name'],
    label: string,
    autocomplete: string,
    extra: Partial<FieldSpec> = {},
  ): SafeHtml =>
    field(page, { name, label, type: 'text', autocomplete, ...extra }, values[name] ?? null, problems);
  const stateProblem = problems.state;
  const chosen = values.state ?? '';
  return html`<fieldset class="address" aria-describedby="address-hint">
    <legend>${t.checkout.addressHeading}</legend>
    <p class="hint" id="address-hint">${t.checkout.addressHint}</p>
    ${text('zip_code', t.checkout.zipCode, 'postal-code', { hint: t.checkout.zipCodeHint, inputmode: 'numeric' })}
    ${text('street_name', t.checkout.streetName, 'address-line1')}
    ${text('street_number', t.checkout.streetNumber, 'off')}
    ${text('neighborhood', t.checkout.neighborhood, 'address-level3')}
    ${text('city', t.checkout.city, 'address-level2')}
    <label for="state">${t.checkout.state}</label>
    ${stateProblem ? html`<p class="error" id="state-error">${t.problems[stateProblem]}</p>` : ''}
    <select
      id="state"
      name="state"
      autocomplete="address-level1"
      ${stateProblem ? html` aria-describedby="state-error" aria-invalid="true"` : ''}
    >
      <option value="">${t.checkout.stateChoose}</option>
      ${FEDERAL_UNITS.map((uf) => html`<option value="${uf}" ${chosen === uf ? html` selected` : ''}>${uf}</option>`)}
    </select>
  </fieldset>`;
}

/**
 * The card, for a gateway that tokenizes it in the browser (Mercado Pago): the number, expiry and
 * security code are the PSP's own fields (iframes its script mounts in these boxes), so they never
 * reach this page or this service; the script posts the token and the brand in the hidden inputs.
 */
function cardFields(page: PageLocale, problems: FormProblems): SafeHtml {
  const { t } = page;
  const problem = problems.card ?? problems.card_token ?? problems.card_payment_method_id;
  const box = (id: string, label: string) =>
    html`<p class="label" id="${id}-label">${label}</p>
      <div class="secure-field" id="${id}" role="group" aria-labelledby="${id}-label"></div>`;
  return html`<fieldset class="card" aria-describedby="card-hint">
    <legend>${t.checkout.cardHeading}</legend>
    <p class="hint" id="card-hint">${t.checkout.cardHint('Mercado Pago')}</p>
    <noscript><p class="notice">${t.checkout.cardNoScript}</p></noscript>
    ${problem ? html`<p class="error" id="card-error">${t.problems[problem]}</p>` : ''}
    <p class="error" id="card-script-error" role="alert" tabindex="-1" hidden>${t.checkout.cardUnreadable}</p>
    ${box('mp-card-number', t.checkout.cardNumber)} ${box('mp-expiration', t.checkout.cardExpiration)}
    ${box('mp-security-code', t.checkout.cardSecurityCode)}
    <label for="card_holder">${t.checkout.cardholderName}</label>
    <input id="card_holder" type="text" autocomplete="cc-name" />
    <input type="hidden" name="card_token" value="" />
    <input type="hidden" name="card_payment_method_id" value="" />
    <input type="hidden" name="card_issuer_id" value="" />
  </fieldset>`;
}

/** The page's own id of this payment: posted with the form, it becomes the order's code. */
const attemptOf = (values: Record<string, string | null>): string => {
  const given = values.attempt;
  return given && UUID_PATTERN.test(given) ? given : newUuid();
};

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
  const [firstMethod = 'credit_card'] = view.methods;
  const method = values.payment_method ?? firstMethod;
  const methodProblem = problems.payment_method;
  const options = view.methods.map(
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
  const tokenizer = view.gateway.cardTokenizer;
  const tokenizes = tokenizer !== null && view.methods.includes('credit_card');
  const asksAddress = view.gateway.boletoPayer && view.methods.includes('boleto');
  const form = html`<form
    method="post"
    action="${view.payAction ? page.href(view.payAction.path, view.payAction.query) : page.href([item.code, 'pay'])}"
    novalidate${
      tokenizes && tokenizer
        ? html` data-mp-public-key="${tokenizer.publicKey}" data-mp-locale="${page.t.locale}"`
        : ''
    }
  >
    <h2>${t.checkout.detailsHeading}</h2>
    <p class="note">${t.checkout.requiredNote}</p>
    ${problemSummary(page, problems, firstMethod)}
    ${link ? html`<input type="hidden" name="plink" value="${link.id}" />` : ''}
    <input type="hidden" name="attempt" value="${attemptOf(values)}" />
    ${CARRIED_FIELDS.map((name) => {
      const carried = values[name];
      return carried ? html`<input type="hidden" name="${name}" value="${carried}" />` : '';
    })}
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
        hint: asksAddress ? t.checkout.documentHintBoleto : t.checkout.documentHint,
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
    ${installmentsField(page, view, values.installments, problems)}
    ${tokenizes ? cardFields(page, problems) : ''} ${asksAddress ? addressFields(page, values, problems) : ''}
    ${
      view.askRecoveryConsent
        ? html`<label class="choice"
            ><input
              type="checkbox"
              id="recovery_consent"
              name="recovery_consent"
              value="yes"
              ${values.recovery_consent === 'yes' ? html` checked` : ''}
            />${EMAIL_PAGE_WORDS[page.lang].consent}</label
          >`
        : ''
    }
    <button class="ok" type="submit">${t.checkout.pay(page.money(price.amount, price.currency))}</button>
    <p class="note">${t.checkout.privacyNote}</p>
  </form>`;
  return layout(
    page,
    `${item.name} · ${t.checkout.titleSuffix}`,
    html`${itemBlock(page, item, price, link?.couponCode ?? null)}${
      notice ? html`<p class="notice">${t.sentences[notice]}</p>` : form
    }`,
    notice === null && tokenizes && tokenizer ? { cardTokenizer: tokenizer.sdkUrl } : {},
  );
}

/**
 * The gateway did not answer the pay step: nothing was charged, and the button posts the very same
 * form again (the same attempt, so the same charge: never a second one).
 */
export function retryPage(page: PageLocale, code: string, values: Record<string, string>): SafeHtml {
  const { t } = page;
  const hidden = Object.entries(values).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  const back = values.plink
    ? page.local(`${encodeURIComponent(code)}?plink=${encodeURIComponent(values.plink)}`)
    : page.href([code]);
  return layout(
    page,
    t.retry.title,
    html`<h1>${t.retry.heading}</h1>
      <p class="notice">${t.sentences.gateway_unavailable}</p>
      <form method="post" action="${page.href([code, 'pay'])}">
        ${hidden}
        <button class="ok" type="submit">${t.retry.tryAgain}</button>
      </form>
      <p><a href="${back}">${t.retry.other}</a></p>`,
  );
}

/** What the buyer's order page shows: the order's state, and for a pending Pix or boleto, how to pay. */
export type OrderState =
  | 'paid'
  | 'pix'
  | 'pix_expired'
  | 'boleto'
  | 'pending'
  | 'failed'
  | 'abandoned'
  | 'refunded'
  | 'charged_back';

export function orderState(order: OrderView['order'], now: Date): OrderState {
  if (order.status !== 'pending') return order.status;
  if (order.pixCopyPaste !== null)
    return order.pixExpiresAt && order.pixExpiresAt > now ? 'pix' : 'pix_expired';
  if (order.boletoDigitableLine !== null) return 'boleto';
  return 'pending';
}

/** The pictures of the order's instructions (data: URIs), made before the page is written. */
export interface OrderImages {
  qr: string | null;
  barcode: string | null;
}

/** A code with a copy button that JavaScript reveals (without it, the code is there to select). */
function copyable(
  page: PageLocale,
  id: string,
  label: string,
  hint: string | null,
  control: SafeHtml,
  button: string,
): SafeHtml {
  // A form control gets a <label>; a code shown as text is described by the line above it.
  const labelled = control.value.startsWith('<textarea')
    ? html`<label for="${id}" id="${id}-label">${label}</label>`
    : html`<p class="label" id="${id}-label">${label}</p>`;
  return html`<div class="copy-box">
    ${labelled} ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''} ${control}
    <button
      type="button"
      class="neutral copy"
      data-copy="${id}"
      data-status="${id}-status"
      data-copied="${page.t.order.copy.done}"
      data-copy-failed="${page.t.order.copy.failed}"
      hidden
    >
      ${button}
    </button>
    <p class="copied" role="status" id="${id}-status"></p>
  </div>`;
}

/**
 * `{checkout_url}/orders/<code>`, where the pay step leads: a pending Pix (QR code, copia e cola,
 * expiry) or boleto (linha digitável, barcode, due date, printable page), the paid confirmation, or
 * what became of the order. A pending order's page asks for its status every few seconds and shows
 * the new state by itself (without JavaScript, a reload does).
 */
export function orderPage(page: PageLocale, view: OrderView, images: OrderImages, now: Date): SafeHtml {
  const { t } = page;
  const { order, item, link } = view;
  const money = (amount: string): string => page.money(amount, CATALOG_CURRENCY);
  const state = orderState(order, now);
  const method = order.paymentMethod;
  const cycle = item.billingCycle ? t.cycles[item.billingCycle] : null;
  const retry = html`<p>
    <a
      href="${link ? page.local(`${encodeURIComponent(item.code)}?plink=${encodeURIComponent(link.id)}`) : page.href([item.code])}"
      >${t.order.tryAgain}</a
    >
  </p>`;
  const methodLine =
    method === 'credit_card' && order.installments !== null
      ? t.thanks.cardInstallments(
          order.installments,
          money(installmentPlan(order.amount, order.installments).each),
        )
      : method
        ? t.paymentMethods[method]
        : null;
  const statusText: Record<OrderState, string> = {
    paid: t.thanks.statusPaid,
    pix: t.thanks.statusPending,
    pix_expired: t.thanks.statusPending,
    boleto: t.thanks.statusPending,
    pending: t.thanks.statusPending,
    failed: t.order.statuses.failed,
    abandoned: t.order.statuses.abandoned,
    refunded: t.order.statuses.refunded,
    charged_back: t.order.statuses.charged_back,
  };
  const summary = html`<h2>${t.thanks.orderSummary}</h2>
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
        methodLine
          ? html`<div>
              <dt>${t.thanks.paymentMethod}</dt>
              <dd id="order-method">${methodLine}</dd>
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
          <strong id="order-status" data-status="${order.status}">${statusText[state]}</strong>
        </dd>
      </div>
    </dl>`;
  const next = (lines: string[]): SafeHtml =>
    html`<h2>${t.thanks.nextHeading}</h2>
      <ul>
        ${lines.map((line) => html`<li>${line}</li>`)}
      </ul>`;
  const pendingNext = (howTo: string | null): SafeHtml =>
    next([
      ...(howTo ? [howTo] : []),
      t.order.autoUpdate,
      t.thanks.pendingEmail,
      t.thanks.noNeedToPayAgain,
      t.thanks.keepCode,
    ]);
  const at = (instant: Date): SafeHtml =>
    html`<time datetime="${instant.toISOString()}"
      >${page.dateTime(instant)} (${t.order.brasiliaTime})</time
    >`;

  /** An order that can no longer be paid from this page: what became of it, and a way to order again. */
  const ended = (heading: string, lead: string, again: boolean): { title: string; body: SafeHtml } => ({
    title: heading,
    body: html`<h1 tabindex="-1">${heading}</h1>
      <p class="notice">${lead}</p>
      ${again ? retry : ''} ${summary}`,
  });

  let title: string;
  let body: SafeHtml;
  switch (state) {
    case 'paid':
      title = t.thanks.paidTitle;
      body = html`<h1 tabindex="-1">${t.thanks.paidHeading}</h1>
        <p class="done">${t.thanks.paidLead}</p>
        ${summary}
        ${next([
          t.thanks.paidEmail(item.productName),
          ...(cycle ? [t.thanks.paidSubscription(money(item.price), cycle)] : []),
          t.thanks.keepCode,
          t.thanks.spamHint,
        ])}`;
      break;
    case 'pix': {
      const expiresAt = order.pixExpiresAt ?? now;
      title = t.order.pixTitle;
      body = html`<h1 tabindex="-1">${t.order.pixHeading}</h1>
        <p class="notice">${t.order.pixLead(page.dateTime(expiresAt))}</p>
        <h2>${t.order.pixScanHeading}</h2>
        <p class="hint">${t.order.pixScanHint}</p>
        ${
          images.qr
            ? html`<p class="qr">
                <img
                  id="pix-qr"
                  src="${images.qr}"
                  alt="${t.order.pixQrAlt(money(order.amount))}"
                  width="264"
                  height="264"
                />
              </p>`
            : ''
        }
        ${copyable(
          page,
          'pix-code',
          t.order.pixCopyLabel,
          t.order.pixCopyHint,
          html`<textarea id="pix-code" readonly rows="4" aria-describedby="pix-code-hint">
${order.pixCopyPaste ?? ''}</textarea>`,
          t.order.copy.pix,
        )}
        <p>${t.order.pixExpires}: <strong id="pix-expires">${at(expiresAt)}</strong></p>
        ${summary} ${pendingNext(null)}`;
      break;
    }
    case 'boleto': {
      const due = order.boletoDueDate ?? '';
      const line = order.boletoDigitableLine ?? '';
      title = t.order.boletoTitle;
      body = html`<h1 tabindex="-1">${t.order.boletoHeading(page.date(due))}</h1>
        <p class="notice">${t.order.boletoLead}</p>
        ${copyable(
          page,
          'boleto-line',
          t.order.boletoLineLabel,
          null,
          html`<p class="line">
            <code id="boleto-line" data-copy-value="${line}">${formatDigitableLine(line)}</code>
          </p>`,
          t.order.copy.boleto,
        )}
        ${
          images.barcode
            ? html`<p class="barcode">
                <img id="boleto-barcode" src="${images.barcode}" alt="${t.order.boletoBarcodeAlt}" />
              </p>`
            : ''
        }
        <p>
          ${t.order.boletoDue}:
          <strong id="boleto-due"><time datetime="${due}">${page.date(due)}</time></strong>
        </p>
        <p>
          <a id="boleto-print" href="${page.href(['orders', order.code, 'boleto'])}"
            >${t.order.boletoPrint}</a
          >
        </p>
        ${summary} ${pendingNext(t.order.boletoClearing)}`;
      break;
    }
    case 'pending':
      title = t.thanks.pendingTitle;
      body = html`<h1 tabindex="-1">${t.thanks.pendingHeading}</h1>
        <p class="notice">${t.thanks.pendingLead}</p>
        ${summary} ${pendingNext(method ? t.thanks.pendingByMethod[method] : null)}`;
      break;
    case 'pix_expired':
      ({ title, body } = ended(t.order.pixExpiredTitle, t.order.pixExpiredLead, true));
      break;
    case 'failed':
      ({ title, body } = ended(
        t.order.failedTitle,
        view.declineReason
          ? `${t.order.declined[view.declineReason]} ${t.order.failedLead}`
          : t.order.failedLead,
        true,
      ));
      break;
    case 'abandoned':
      ({ title, body } = ended(t.order.abandonedTitle, t.order.abandonedLead, true));
      break;
    case 'refunded':
      ({ title, body } = ended(t.order.refundedTitle, t.order.refundedLead, false));
      break;
    case 'charged_back':
      ({ title, body } = ended(t.order.chargedBackTitle, t.order.chargedBackLead, false));
      break;
  }
  const waiting = order.status === 'pending';
  return layout(
    page,
    title,
    html`<div
      id="order"
      data-status="${order.status}"
      ${waiting ? html` data-status-url="${page.bare(`orders/${encodeURIComponent(order.code)}/status`)}"` : ''}
    >
      ${body}
    </div>`,
    { scripts: true },
  );
}

/**
 * `{checkout_url}/orders/<code>/boleto`: the boleto on a page of its own, to print or to keep. It
 * names the seller and the order, never the buyer.
 */
export function boletoPage(page: PageLocale, view: OrderView, images: OrderImages): SafeHtml {
  const { t } = page;
  const { order, item, merchantName } = view;
  const due = order.boletoDueDate ?? '';
  const line = order.boletoDigitableLine ?? '';
  const open = order.status === 'pending';
  return layout(
    page,
    t.boletoPage.title(item.name),
    html`<h1>${t.boletoPage.heading}</h1>
      ${open ? '' : html`<p class="notice">${order.status === 'paid' ? t.boletoPage.paid : t.boletoPage.closed}</p>`}
      <dl class="facts">
        <div>
          <dt>${t.boletoPage.beneficiary}</dt>
          <dd>${merchantName}</dd>
        </div>
        <div>
          <dt>${t.thanks.item}</dt>
          <dd>${item.name}</dd>
        </div>
        <div>
          <dt>${t.thanks.amount}</dt>
          <dd id="order-amount">${page.money(order.amount, CATALOG_CURRENCY)}</dd>
        </div>
        <div>
          <dt>${t.order.boletoDue}</dt>
          <dd id="boleto-due"><time datetime="${due}">${page.date(due)}</time></dd>
        </div>
        <div>
          <dt>${t.thanks.orderCode}</dt>
          <dd><code id="order-code">${order.code}</code></dd>
        </div>
      </dl>
      ${
        open
          ? html`<h2>${t.order.boletoLineLabel}</h2>
              <p class="line"><code id="boleto-line">${formatDigitableLine(line)}</code></p>
              ${
                images.barcode
                  ? html`<p class="barcode">
                      <img id="boleto-barcode" src="${images.barcode}" alt="${t.order.boletoBarcodeAlt}" />
                    </p>`
                  : ''
              }
              <p>${t.boletoPage.howToPay}</p>
              <p class="no-print">
                <button type="button" class="neutral" data-print hidden>${t.boletoPage.print}</button>
              </p>`
          : ''
      }
      <p class="no-print"><a href="${page.href(['orders', order.code])}">${t.boletoPage.back}</a></p>`,
    { scripts: true },
  );
}
