/** The checkout form: its fields, their problems, and the page that asks again after a refusal. */
import type { PaymentMethod } from '../../shared/enums/payment-methods.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { layout } from '../layout.js';
import type { PageLocale } from '../locale.js';
import { EMAIL_PAGE_WORDS } from '../email-messages.js';
import type { FormProblems } from '../page-errors.js';
import { installmentPlan } from '../pricing.js';
import { type CheckoutView } from '../view-models.js';
import { ADDRESS_FIELDS, FEDERAL_UNITS } from '../pay-form.js';
import { newUuid, UUID_PATTERN } from '../../shared/ids.js';
import { CARRIED_FIELDS } from '../visit.js';
import { itemBlock } from './item.js';

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
export function cardFields(page: PageLocale, problems: FormProblems): SafeHtml {
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

/** One `payment_method` radio button (the checkout's, and the buyer's renewal method form). */
export const methodChoice = (m: PaymentMethod, label: string, checked: boolean): SafeHtml =>
  html`<label class="choice"
    ><input
      type="radio"
      id="payment_method-${m}"
      name="payment_method"
      value="${m}"
      ${checked ? html` checked` : ''}
    />${label}</label
  >`;

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
  const options = view.methods.map((m) => methodChoice(m, t.paymentMethods[m], method === m));
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
