/** The buyer's page and its sign-in pages, drawn in the buyer pages' layout. */
import { layout } from '../checkout/layout.js';
import type { PageLocale } from '../checkout/locale.js';
import { cardFields, methodChoice } from '../checkout/views/form.js';
import { formatDigitableLine } from '../gateways/boleto.js';
import type { CheckoutNeeds } from '../gateways/port.js';
import { RENEWAL_METHODS, type RenewalMethod } from '../shared/db/schema.js';
import { html, type SafeHtml } from '../ui/html.js';
import type { Purchase } from './repository.js';
import { PURCHASES_SHOWN } from './repository.js';
import type { AccountView } from './service.js';
import { ACCOUNT_WORDS, type AccountWords } from './messages.js';

const wordsOf = (page: PageLocale): AccountWords => ACCOUNT_WORDS[page.lang];

/** An address under the buyer's page (`account/…`), relative to the page drawn. */
const accountHref = (page: PageLocale, ...segments: string[]): string => page.href(['account', ...segments]);

const hidden = (name: string, value: string): SafeHtml =>
  html`<input type="hidden" name="${name}" value="${value}" />`;

/** The sign-in form: one address, a link mailed to it. */
export function signInPage(
  page: PageLocale,
  csrf: string,
  problem?: 'invalid' | 'limited' | 'refused',
  email = '',
): SafeHtml {
  const w = wordsOf(page);
  const note =
    problem === 'limited'
      ? html`<p class="error" role="alert">${w.signIn.limited}</p>`
      : problem === 'refused'
        ? html`<p class="error" role="alert">${w.signIn.linkRefused}</p>`
        : '';
  const invalid = problem === 'invalid';
  return layout(
    page,
    w.title,
    html`<h1>${w.title}</h1>
      ${note}
      <p>${w.signIn.intro}</p>
      <form method="post" action="${accountHref(page, 'link')}">
        ${hidden('_csrf', csrf)}
        <label for="email">${w.signIn.email}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="email"
          required
          maxlength="320"
          value="${email}"
          ${invalid ? html`aria-invalid="true" aria-describedby="email-error"` : ''}
        />
        ${invalid ? html`<p class="error" id="email-error">${w.signIn.invalidEmail}</p>` : ''}
        <button class="ok" type="submit">${w.signIn.send}</button>
      </form>`,
  );
}

/** The same answer whether or not the address has purchases. */
export function linkSentPage(page: PageLocale): SafeHtml {
  const w = wordsOf(page);
  return layout(
    page,
    w.signIn.sentTitle,
    html`<h1>${w.signIn.sentTitle}</h1>
      <p class="notice">${w.signIn.sent}</p>`,
  );
}

/** A mailed link opens this page; its button uses the link (so a mail scanner's GET does not). */
export function useLinkPage(page: PageLocale, token: string, csrf: string): SafeHtml {
  const w = wordsOf(page);
  return layout(
    page,
    w.signIn.linkTitle,
    html`<h1>${w.signIn.linkTitle}</h1>
      <p>${w.signIn.linkIntro}</p>
      <form method="post" action="${accountHref(page, 'sign-in')}">
        ${hidden('_csrf', csrf)} ${hidden('token', token)}
        <button class="ok" type="submit">${w.signIn.linkButton}</button>
      </form>`,
  );
}

const fact = (label: string, value: SafeHtml | string): SafeHtml =>
  html`<div>
    <dt>${label}</dt>
    <dd>${value}</dd>
  </div>`;

function methodText(w: AccountWords, p: Purchase): string {
  if (!p.method) return '';
  const instalments = p.method === 'credit_card' && p.installments ? ` ${w.instalments(p.installments)}` : '';
  return `${w.methods[p.method]}${instalments}`;
}

/** What is still to pay: a pending Pix's code, a pending boleto's line. */
function instructions(page: PageLocale, w: AccountWords, p: Purchase): SafeHtml | string {
  if (p.status !== 'pending') return '';
  const parts: SafeHtml[] = [];
  if (p.pix) {
    parts.push(fact(w.labels.pixCode, html`<code class="pix-code">${p.pix.copyPaste}</code>`));
    if (p.pix.expiresAt) parts.push(fact(w.labels.pixExpires, page.dateTime(p.pix.expiresAt)));
  }
  if (p.boleto) {
    parts.push(
      fact(w.labels.digitableLine, html`<code>${formatDigitableLine(p.boleto.digitableLine)}</code>`),
    );
    if (p.boleto.dueDate) parts.push(fact(w.labels.dueDate, page.date(p.boleto.dueDate)));
  }
  return html`${parts}`;
}

/** The right of regret of a paid order: the form within the guarantee, the seller's contact after. */
function regret(
  page: PageLocale,
  view: AccountView,
  csrf: string,
  p: Purchase,
  n: number,
): SafeHtml | string {
  const w = wordsOf(page);
  const reason = p.refundReason ? html`<dl>${fact(w.labels.reason, p.refundReason)}</dl>` : '';
  if (p.status === 'refunded') return reason;
  if (p.status === 'paid' && p.refundQueuedAt)
    return html`<p class="note">${w.refund.requested(page.dateTime(p.refundQueuedAt))}</p>
      ${reason}`;
  if (p.status !== 'paid' || !p.refundableUntil) return '';
  const until = page.dateTime(p.refundableUntil);
  if (!p.refundable) {
    const contact = view.contacts.get(p.companyId);
    return html`<p class="note">
      ${w.refund.over(until)} ${w.refund.contact(contact?.name ?? p.seller, contact?.address ?? null)}
    </p>`;
  }
  const id = `reason-${n}`;
  return html`<form method="post" action="${accountHref(page, 'orders', p.code, 'refund')}">
    <fieldset>
      <legend>${w.refund.heading}</legend>
      <p class="hint">${w.refund.until(until)}</p>
      ${hidden('_csrf', csrf)}
      <label for="${id}">${w.refund.reasonLabel}</label>
      <textarea id="${id}" name="reason" maxlength="500" rows="3" aria-describedby="${id}-hint"></textarea>
      <p class="hint" id="${id}-hint">${w.refund.reasonHint}</p>
      <button class="bad" type="submit">${w.refund.button}</button>
    </fieldset>
  </form>`;
}

/** How a subscription renews: as its buyer chose, else as it was paid (a boleto renews by Pix when switched). */
const renewalMethodOf = (p: Purchase): RenewalMethod =>
  p.subscription?.renewalMethod ?? (p.method === 'pix' ? 'pix' : 'credit_card');

/**
 * The form that switches how a subscription renews: Pix or a card. With a PSP that tokenizes in the
 * browser, the card is the checkout's own card fields and script (`mercadopago-card.js`, which posts
 * only the token it made); with the dev gateway the card posts nothing, as at checkout.
 */
export function renewalMethodView(
  page: PageLocale,
  purchase: Purchase,
  tokenizer: CheckoutNeeds['cardTokenizer'],
  csrf: string,
): SafeHtml {
  const w = wordsOf(page);
  const chosen = renewalMethodOf(purchase);
  const id = String(purchase.subscription?.id ?? '');
  return layout(
    page,
    w.renewalMethod.title,
    html`<h1>${w.renewalMethod.title}</h1>
      <p>${w.renewalMethod.intro(purchase.product)}</p>
      <form
        method="post"
        action="${accountHref(page, 'subscriptions', id, 'method')}"
        ${tokenizer ? html` data-mp-public-key="${tokenizer.publicKey}" data-mp-locale="${page.t.locale}"` : ''}
      >
        ${hidden('_csrf', csrf)}
        <fieldset>
          <legend>${w.renewalMethod.legend}</legend>
          ${RENEWAL_METHODS.map((m) => methodChoice(m, w.methods[m], chosen === m))}
        </fieldset>
        ${
          tokenizer
            ? html`${chosen === 'credit_card' ? html`<p class="hint">${w.renewalMethod.cardCurrent}</p>` : ''}
              ${cardFields(page, {})}`
            : html`<p class="hint">${w.renewalMethod.cardLocal}</p>`
        }
        <button class="ok" type="submit">${w.renewalMethod.save}</button>
      </form>
      <p><a href="${accountHref(page)}">${w.renewalMethod.back}</a></p>`,
    tokenizer ? { cardTokenizer: tokenizer.sdkUrl } : {},
  );
}

/** A subscription's state and its actions (shown once, on its newest order). */
function subscriptionControls(
  page: PageLocale,
  view: AccountView,
  csrf: string,
  p: Purchase,
): SafeHtml | string {
  const sub = p.subscription;
  if (!sub) return '';
  const w = wordsOf(page);
  const state =
    sub.status === 'canceled'
      ? w.subscriptions.canceled
      : sub.cancelAtPeriodEnd
        ? w.subscriptions.willCancel(page.dateTime(sub.currentPeriodEnd))
        : `${w.labels.renewsOn}: ${page.dateTime(sub.currentPeriodEnd)}`;
  const cancel = (when: 'now' | 'period_end', label: string): SafeHtml =>
    html`<form method="post" action="${accountHref(page, 'subscriptions', String(sub.id), 'cancel')}">
      ${hidden('_csrf', csrf)} ${hidden('when', when)}
      <button class="bad" type="submit">${label}</button>
    </form>`;
  const token = view.payNow.get(sub.id);
  const renews = sub.status !== 'canceled' && !sub.cancelAtPeriodEnd;
  return html`<div class="subscription">
    <p>
      ${w.labels.subscription}: ${w.subscriptionStatuses[sub.status]}. ${state}
      ${renews ? w.subscriptions.renewsBy(w.methods[renewalMethodOf(p)]) : ''}
    </p>
    ${
      renews
        ? html`<p>
            <a href="${accountHref(page, 'subscriptions', String(sub.id), 'method')}"
              >${w.subscriptions.changeMethod}</a
            >
          </p>`
        : ''
    }
    ${
      sub.status === 'past_due' && token
        ? html`<p><a href="${page.href(['renewals'], { token })}">${w.subscriptions.payNow}</a></p>`
        : ''
    }
    ${
      sub.status !== 'canceled'
        ? html`<div class="actions">
            ${cancel('now', w.subscriptions.cancelNow)}
            ${
              sub.status === 'active' && !sub.cancelAtPeriodEnd
                ? cancel('period_end', w.subscriptions.cancelAtEnd)
                : ''
            }
          </div>`
        : ''
    }
  </div>`;
}

function purchaseItem(
  page: PageLocale,
  view: AccountView,
  csrf: string,
  p: Purchase,
  n: number,
  newestOfSubscription: boolean,
): SafeHtml {
  const w = wordsOf(page);
  const name = p.item && p.item !== p.product ? `${p.product} · ${p.item}` : p.product;
  const receipt =
    p.paidAt && (p.status === 'paid' || p.status === 'refunded')
      ? html`${fact(w.labels.paidAt, page.dateTime(p.paidAt))}`
      : '';
  return html`<li class="purchase">
    <article aria-labelledby="purchase-${n}">
      <h3 id="purchase-${n}">${name}</h3>
      <dl>
        ${fact(w.labels.seller, p.seller)} ${fact(w.labels.status, w.statuses[p.status])}
        ${fact(w.labels.amount, page.money(p.amount, 'BRL'))}
        ${p.method ? fact(w.labels.method, methodText(w, p)) : ''}
        ${fact(w.labels.date, page.dateTime(p.createdAt))} ${receipt}
        ${p.refundedAt ? fact(w.labels.refundedAt, page.dateTime(p.refundedAt)) : ''}
        ${fact(w.labels.order, html`<code>${p.code}</code>`)} ${instructions(page, w, p)}
        ${p.invoice ? fact(w.invoice.label, html`<a href="${p.invoice.pdfUrl}" rel="noopener noreferrer">${w.invoice.pdf(p.invoice.number)}</a>`) : ''}
      </dl>
      <p><a href="${page.href(['orders', p.code])}">${w.orderPage}</a></p>
      ${newestOfSubscription ? subscriptionControls(page, view, csrf, p) : ''}
      ${regret(page, view, csrf, p, n)}
    </article>
  </li>`;
}

/** The content the buyer holds access to: each product's items, links out. */
function contentSection(page: PageLocale, view: AccountView): SafeHtml | string {
  const w = wordsOf(page);
  const withItems = view.content.filter((c) => c.items.length > 0);
  if (withItems.length === 0) return '';
  return html`<section aria-labelledby="content-heading">
    <h2 id="content-heading">${w.contentHeading}</h2>
    ${withItems.map(
      (c) =>
        html`<h3>${w.contentOf(c.product, c.seller)}</h3>
          <ul class="content">
            ${c.items.map(
              (item) =>
                html`<li>
                  <a href="${item.url}" rel="noopener noreferrer">${item.title}</a>
                  ${item.description ? html`<p class="hint">${item.description}</p>` : ''}
                </li>`,
            )}
          </ul>`,
    )}
  </section>`;
}

/** The signed-in page: the content held, then every live purchase of the address, newest first. */
export function accountPage(page: PageLocale, view: AccountView, csrf: string, notice?: string): SafeHtml {
  const w = wordsOf(page);
  const list =
    view.purchases.length === 0
      ? html`<p>${w.none}</p>`
      : html`<ol class="purchases">
          ${view.purchases.map((p, n) =>
            purchaseItem(
              page,
              view,
              csrf,
              p,
              n,
              p.subscription !== null &&
                view.purchases.findIndex((q) => q.subscription?.id === p.subscription?.id) === n,
            ),
          )}
        </ol>`;
  return layout(
    page,
    w.title,
    html`<h1>${w.title}</h1>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
      <p>${w.signedInAs(view.email)}</p>
      <form method="post" action="${accountHref(page, 'sign-out')}">
        ${hidden('_csrf', csrf)}
        <button class="neutral" type="submit">${w.signOut}</button>
      </form>
      ${contentSection(page, view)}
      <h2>${w.purchasesHeading}</h2>
      ${list}
      ${view.purchases.length >= PURCHASES_SHOWN ? html`<p class="note">${w.shownAtMost(PURCHASES_SHOWN)}</p>` : ''}`,
  );
}
