/** An order's page (Pix, boleto, card, its outcome) and the printable boleto. */
import { formatDigitableLine } from '../../gateways/boleto.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { layout } from '../layout.js';
import type { PageLocale } from '../locale.js';
import { CATALOG_CURRENCY, installmentPlan } from '../pricing.js';
import { type OrderView } from '../view-models.js';
import type { BrowserPixel } from '../ad-pixel.js';

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
 * What the Meta pixel's script (`static/ad-pixel.js`) reads: the pixel, its script, and the event ids
 * to report with (src/checkout/ad-pixel.ts). Inside the part the page refreshes in place, so the
 * `Purchase` id arrives with the paid state.
 */
const pixelData = (pixel: BrowserPixel | null): SafeHtml | string =>
  pixel
    ? html` data-pixel-id="${pixel.pixelId}" data-pixel-script="${pixel.scriptUrl}"
      data-pixel-value="${pixel.value}" data-pixel-currency="${pixel.currency}"
      ${pixel.initiateCheckout ? html` data-pixel-initiate-checkout="${pixel.initiateCheckout}"` : ''}
      ${pixel.purchase ? html` data-pixel-purchase="${pixel.purchase}"` : ''}`
    : '';

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
      ${pixelData(view.pixel)}
    >
      ${body}
    </div>`,
    view.pixel ? { scripts: true, adPixel: view.pixel } : { scripts: true },
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
