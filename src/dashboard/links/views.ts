/**
 * The payment links: the filtered list, the create form (every option of the API), and a link's
 * page with its address, its copy button and its QR code.
 */
import type { CatalogItem } from '../../catalog/repository.js';
import type { CouponRow } from '../../catalog/repository.js';
import type { LinkWithOrder } from '../../payment-links/repository.js';
import { LINK_STATUSES, type LinkStatus } from '../../shared/enums/link-statuses.js';
import { PAYMENT_METHODS } from '../../shared/enums/payment-methods.js';
import { flag, html, type SafeHtml } from '../../ui/html.js';
import { checkbox, copyField, fieldProblem, problemSummary, textField, type FormProblems } from '../forms.js';
import {
  badge,
  fact,
  filterForm,
  filterSelect,
  listTable,
  nextPageLink,
  rowConfirm,
  testMark,
  type Mode,
  type Tone,
} from '../lists.js';
import type { DashboardLocale } from '../locale.js';
import type { DoneKey } from '../messages.js';
import { canChange, confirmStep, doneNotice, layout, postForm, type Chrome } from '../page.js';

const TONES: Record<LinkStatus, Tone> = { active: 'good', paid: 'good', expired: 'idle', canceled: 'idle' };

export interface LinkFilter {
  mode: Mode;
  status?: LinkStatus | undefined;
  external_reference?: string | undefined;
}

const sells = (l: LinkWithOrder['link']): string => l.offerCode ?? l.planCode ?? '';

export function linksPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { links: LinkWithOrder[]; hasMore: boolean; filter: LinkFilter; done?: DoneKey | undefined },
): SafeHtml {
  const { t } = page;
  const tl = t.links;
  const change = canChange(chrome);
  const { mode } = data.filter;
  const rows = data.links.map(
    ({ link }) =>
      html`<tr>
        <td data-label="${tl.link}">
          <a href="${page.href(`/links/${link.id}`, { mode })}" aria-label="${tl.open(link.id)}"
            ><code>${link.id}</code></a
          >${testMark(page, link.livemode)}
        </td>
        <td data-label="${tl.sells}"><code>${sells(link)}</code></td>
        <td data-label="${tl.reference}">${link.externalReference ?? ''}</td>
        <td data-label="${tl.status}">${badge(TONES[link.status], tl.statuses[link.status])}</td>
        <td data-label="${tl.expires}">${page.dateTime(link.expiresAt)}</td>
        <td data-label="${tl.created}">${page.dateTime(link.createdAt)}</td>
        ${
          change
            ? html`<td data-label="${tl.action}">
                ${
                  link.status === 'active'
                    ? rowConfirm(
                        page,
                        `/links/${link.id}/cancel`,
                        { text: tl.cancel, label: tl.cancelLabel(link.id) },
                        { mode },
                      )
                    : ''
                }
              </td>`
            : ''
        }
      </tr>`,
  );
  const last = data.links.at(-1);
  const filter = filterForm(page, {
    path: '/links',
    label: tl.filter,
    apply: tl.apply,
    fields: [
      modeField(page, mode),
      filterSelect({
        name: 'status',
        label: tl.status,
        any: tl.anyStatus,
        values: LINK_STATUSES,
        words: (s) => tl.statuses[s],
        current: data.filter.status,
      }),
      html`<div>
        <label for="external_reference">${tl.search}</label>
        <input
          type="search"
          id="external_reference"
          name="external_reference"
          value="${data.filter.external_reference ?? ''}"
          aria-describedby="search-hint"
        />
        <p class="hint" id="search-hint">${tl.searchHint}</p>
      </div>`,
    ],
  });
  return layout(
    page,
    tl.title,
    html`<h1>${tl.title}</h1>
      ${doneNotice(page, data.done)}
      ${change ? html`<p><a class="button" href="${page.href('/links/new', { mode })}">${tl.create}</a></p>` : html`<p class="notice">${t.readOnly}</p>`}
      ${filter}
      ${listTable(
        tl.caption,
        tl.none,
        [tl.link, tl.sells, tl.reference, tl.status, tl.expires, tl.created, change && tl.action],
        rows,
      )}
      ${nextPageLink(
        data.hasMore && last
          ? page.href('/links', { ...data.filter, starting_after: last.link.id })
          : undefined,
        tl.more,
      )}`,
    chrome,
  );
}

/** Live or test: links live in one mode, so the list and the form always name one. */
function modeField(page: DashboardLocale, current: Mode): SafeHtml {
  const to = page.t.orders;
  return html`<div>
    <label for="mode">${page.t.links.mode}</label>
    <select id="mode" name="mode">
      ${(['live', 'test'] as const).map((m) => html`<option value="${m}" ${flag('selected', current === m)}>${to[m]}</option>`)}
    </select>
  </div>`;
}

/** What the create form holds, as typed (shown back when refused). */
export interface LinkFormValues {
  mode: Mode;
  item: string;
  coupon_code: string;
  external_reference: string;
  metadata: string;
  customer_name: string;
  customer_email: string;
  customer_phone: string;
  customer_document: string;
  payment_methods: string[];
  pix_expires_in_seconds: string;
  boleto_due_days: string;
  max_installments: string;
  single_use: boolean;
  expires_at: string;
  success_url: string;
  idempotency_key: string;
}

export const EMPTY_LINK_FORM: Omit<LinkFormValues, 'mode' | 'idempotency_key'> = {
  item: '',
  coupon_code: '',
  external_reference: '',
  metadata: '',
  customer_name: '',
  customer_email: '',
  customer_phone: '',
  customer_document: '',
  payment_methods: [...PAYMENT_METHODS],
  pix_expires_in_seconds: '',
  boleto_due_days: '',
  max_installments: '',
  single_use: true,
  expires_at: '',
  success_url: '',
};

/** The form's fields' labels, as a refused form names them. */
export const linkFieldLabels = (page: DashboardLocale): Record<string, string> => {
  const tl = page.t.links;
  return {
    item: tl.item,
    coupon_code: tl.coupon,
    external_reference: tl.reference,
    metadata: tl.metadata,
    customer_name: tl.customerName,
    customer_email: tl.customerEmail,
    customer_phone: tl.customerPhone,
    customer_document: tl.customerDocument,
    payment_methods: tl.methods,
    pix_expires_in_seconds: tl.pixSeconds,
    boleto_due_days: tl.boletoDays,
    max_installments: tl.installments,
    single_use: tl.singleUse,
    expires_at: tl.expiresAt,
    success_url: tl.successUrl,
  };
};

export function newLinkPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    values: LinkFormValues;
    offers: CatalogItem[];
    plans: CatalogItem[];
    coupons: CouponRow[];
    problems?: FormProblems | undefined;
  },
): SafeHtml {
  const tl = page.t.links;
  const { values, problems } = data;
  const offers = data.offers.filter((o) => o.onSale);
  const plans = data.plans.filter((p) => p.onSale);
  const option = (item: CatalogItem) => {
    const value = `${item.kind}:${item.code}`;
    const cycle = item.billingCycle ? ` · ${page.t.cycles[item.billingCycle]}` : '';
    return html`<option value="${value}" ${flag('selected', values.item === value)}>
      ${item.name} (${page.money(item.price)}${cycle}) · ${item.code}
    </option>`;
  };
  const item = fieldProblem(problems, 'item', 'item');
  const coupon = fieldProblem(problems, 'coupon_code', 'coupon_code');
  const metadata = fieldProblem(problems, 'metadata', 'metadata', 'metadata-hint');
  const methods = fieldProblem(problems, 'payment_methods', 'payment_methods');
  const expires = fieldProblem(problems, 'expires_at', 'expires_at', 'expires_at-hint');
  const numberField = (
    name: 'pix_expires_in_seconds' | 'boleto_due_days' | 'max_installments',
    label: string,
    hint: string,
  ) => textField(problems, { name, label, hint, value: values[name], inputmode: 'numeric' });
  const body =
    offers.length + plans.length === 0
      ? html`<p class="notice">${tl.noItems}</p>`
      : postForm(
          page,
          chrome,
          '/links',
          html`<input type="hidden" name="idempotency_key" value="${values.idempotency_key}" />
            ${modeField(page, values.mode)}
            <label for="item">${tl.item}</label> ${item.note}
            <select id="item" name="item" required ${item.attrs}>
              <option value="">${tl.chooseItem}</option>
              ${offers.length ? html`<optgroup label="${tl.offers}">${offers.map(option)}</optgroup>` : ''}
              ${plans.length ? html`<optgroup label="${tl.plans}">${plans.map(option)}</optgroup>` : ''}
            </select>
            <label for="coupon_code">${tl.coupon}</label> ${coupon.note}
            <select id="coupon_code" name="coupon_code" ${coupon.attrs}>
              <option value="">${tl.noCoupon}</option>
              ${data.coupons
                .filter((c) => c.active)
                .map(
                  (c) =>
                    html`<option value="${c.code}" ${flag('selected', values.coupon_code === c.code)}>
                      ${c.code}
                      (${c.percentOff !== null ? `${c.percentOff}%` : page.money(c.amountOff ?? '0')})
                    </option>`,
                )}
            </select>
            ${textField(problems, { name: 'external_reference', label: tl.reference, hint: tl.referenceHint, value: values.external_reference })}
            <label for="metadata">${tl.metadata}</label>
            <p class="hint" id="metadata-hint">${tl.metadataHint}</p>
            ${metadata.note}
            <textarea id="metadata" name="metadata" rows="3" ${metadata.attrs}>${values.metadata}</textarea>
            <fieldset>
              <legend>${tl.customer}</legend>
              <p class="hint">${tl.customerHint}</p>
              ${textField(problems, { name: 'customer_name', label: tl.customerName, value: values.customer_name })}
              ${textField(problems, { name: 'customer_email', label: tl.customerEmail, value: values.customer_email, type: 'email' })}
              ${textField(problems, { name: 'customer_phone', label: tl.customerPhone, value: values.customer_phone, type: 'tel' })}
              ${textField(problems, { name: 'customer_document', label: tl.customerDocument, value: values.customer_document })}
            </fieldset>
            <fieldset ${methods.attrs}>
              <legend>${tl.methods}</legend>
              ${methods.note}
              ${PAYMENT_METHODS.map((m) =>
                checkbox({
                  name: 'payment_methods',
                  value: m,
                  checked: values.payment_methods.includes(m),
                  label: tl.methodNames[m],
                }),
              )}
            </fieldset>
            <fieldset>
              <legend>${tl.checkout}</legend>
              ${numberField('pix_expires_in_seconds', tl.pixSeconds, tl.pixSecondsHint)}
              ${numberField('boleto_due_days', tl.boletoDays, tl.boletoDaysHint)}
              ${numberField('max_installments', tl.installments, tl.installmentsHint)}
              ${checkbox({
                name: 'single_use',
                value: 'true',
                checked: values.single_use,
                label: tl.singleUse,
                hint: 'single_use-hint',
              })}
              <p class="hint" id="single_use-hint">${tl.singleUseHint}</p>
              <label for="expires_at">${tl.expiresAt}</label>
              <p class="hint" id="expires_at-hint">${tl.expiresAtHint}</p>
              ${expires.note}
              <input
                type="datetime-local"
                id="expires_at"
                name="expires_at"
                value="${values.expires_at}"
                ${expires.attrs}
              />
              ${textField(problems, { name: 'success_url', label: tl.successUrl, hint: tl.successUrlHint, value: values.success_url, type: 'url' })}
            </fieldset>
            <button type="submit">${tl.submit}</button>`,
        );
  return layout(
    page,
    tl.newTitle,
    html`<h1>${tl.newTitle}</h1>
      <p>${tl.newIntro}</p>
      ${problemSummary(page, problems)} ${body}`,
    chrome,
  );
}

export function linkPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    found: LinkWithOrder;
    /** The offer or plan it sells, as the seller named it. */
    item: { name: string; code: string } | undefined;
    url: string;
    shortUrl: string;
    qrSvg: string;
    done?: DoneKey | undefined;
  },
): SafeHtml {
  const tl = page.t.links;
  const { link, order } = data.found;
  const mode: Mode = link.livemode ? 'live' : 'test';
  const qrSrc = `data:image/svg+xml;base64,${Buffer.from(data.qrSvg).toString('base64')}`;
  const metadata = Object.entries(link.metadata ?? {});
  return layout(
    page,
    tl.linkTitle(link.id),
    html`<p><a href="${page.href('/links', { mode })}">${tl.back}</a></p>
      <h1>${tl.linkTitle(link.id)}${testMark(page, link.livemode)}</h1>
      ${doneNotice(page, data.done)} ${link.livemode ? '' : html`<p class="notice">${tl.testHint}</p>`}
      <div class="secret">${copyField(page, 'link-url', tl.url, tl.urlHint, data.url)}</div>
      <div class="secret">${copyField(page, 'link-short-url', tl.shortUrl, tl.urlHint, data.shortUrl)}</div>
      <h2>${tl.qr}</h2>
      <div class="qr">
        <img src="${qrSrc}" alt="${tl.qrAlt(data.url)}" width="224" height="224" />
        <ul>
          <li>
            <a href="${page.href(`/links/${link.id}/qr.png`, { mode })}" download="${link.id}.png"
              >${tl.downloadPng}</a
            >
          </li>
          <li>
            <a href="${page.href(`/links/${link.id}/qr.svg`, { mode })}" download="${link.id}.svg"
              >${tl.downloadSvg}</a
            >
          </li>
        </ul>
      </div>
      <h2>${tl.facts}</h2>
      <dl>
        ${fact(tl.status, badge(TONES[link.status], tl.statuses[link.status]))}
        ${fact(
          tl.sells,
          data.item
            ? html`${data.item.name} <code>${data.item.code}</code>`
            : html`<code>${sells(link)}</code>`,
        )}
        ${fact(tl.reference, link.externalReference ?? false)} ${fact(tl.coupon, link.couponCode ?? false)}
        ${fact(tl.methods, link.paymentMethods.map((m) => tl.methodNames[m]).join(', '))}
        ${fact(tl.installments, link.maxInstallments)} ${fact(tl.singleUse, link.singleUse ? tl.yes : tl.no)}
        ${fact(tl.expires, page.dateTime(link.expiresAt))} ${fact(tl.successUrl, link.successUrl ?? false)}
        ${fact(tl.metadata, metadata.length ? metadata.map(([k, v]) => `${k}=${v}`).join(', ') : false)}
        ${fact(tl.order, order ? `${order.code} · ${page.t.orderStatuses[order.status]} · ${page.money(order.amount)}` : false)}
        ${fact(tl.created, page.dateTime(link.createdAt))}
      </dl>
      ${
        canChange(chrome) && link.status === 'active'
          ? confirmStep(
              page,
              `/links/${link.id}/cancel`,
              html`<button type="submit" class="danger">${tl.cancelLabel(link.id)}</button>`,
              { mode },
            )
          : ''
      }`,
    chrome,
  );
}
