/**
 * The catalog: products, offers, plans and coupons listed, and the forms that create and edit them
 * as the panel API allows (a coupon is only (de)activated once made).
 */
import type { CatalogItem, CouponRow, ItemKind, ProductRow } from '../../catalog/repository.js';
import { BILLING_CYCLES } from '../../shared/enums/billing-cycles.js';
import { flag, html, type SafeHtml } from '../../ui/html.js';
import { fieldProblem, problemSummary, textField, type FormProblems } from '../forms.js';
import { badge, listTable } from '../lists.js';
import type { DashboardLocale } from '../locale.js';
import type { DoneKey } from '../messages.js';
import { canChange, doneNotice, layout, postForm, type Chrome } from '../page.js';

const statusBadge = (page: DashboardLocale, active: boolean): SafeHtml =>
  active ? badge('good', page.t.catalog.active) : badge('idle', page.t.catalog.inactive);

export function catalogPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    products: ProductRow[];
    offers: CatalogItem[];
    plans: CatalogItem[];
    coupons: CouponRow[];
    done?: DoneKey | undefined;
  },
): SafeHtml {
  const tc = page.t.catalog;
  const change = canChange(chrome);
  const editCell = (path: string, label: string): SafeHtml | string =>
    change
      ? html`<td data-label="${tc.action}">
          <a href="${page.href(path)}" aria-label="${tc.editLabel(label)}">${tc.edit}</a>
        </td>`
      : '';
  const newLink = (path: string, words: string): SafeHtml | string =>
    change ? html`<p><a class="button" href="${page.href(path)}">${words}</a></p>` : '';
  const items = (kind: ItemKind, rows: CatalogItem[]) =>
    rows.map(
      (item) =>
        html`<tr>
          <td data-label="${tc.code}"><code>${item.code}</code></td>
          <td data-label="${tc.name}">${item.name}</td>
          <td data-label="${tc.product}">${item.productName}</td>
          <td data-label="${tc.price}">${page.money(item.price)}</td>
          ${kind === 'plan' ? html`<td data-label="${tc.cycle}">${item.billingCycle ? page.t.cycles[item.billingCycle] : ''}</td>` : ''}
          <td data-label="${tc.status}">${statusBadge(page, item.status === 'active')}</td>
          <td data-label="${tc.onSale}">${item.onSale ? tc.yes : tc.no}</td>
          ${editCell(`/catalog/${kind}s/${item.code}`, item.code)}
        </tr>`,
    );
  const coupons = data.coupons.map(
    (c) =>
      html`<tr>
        <td data-label="${tc.code}"><code>${c.code}</code></td>
        <td data-label="${tc.discount}">
          ${c.percentOff !== null ? `${c.percentOff}%` : page.money(c.amountOff ?? '0')}
        </td>
        <td data-label="${tc.status}">${statusBadge(page, c.active)}</td>
        ${
          change
            ? html`<td data-label="${tc.action}">
                ${postForm(
                  page,
                  chrome,
                  `/catalog/coupons/${encodeURIComponent(c.code)}/status`,
                  html`<input
                      type="hidden"
                      name="status"
                      value="${c.active ? 'inactive' : 'active'}"
                    /><button
                      type="submit"
                      class="small neutral"
                      aria-label="${tc.toggleLabel(c.code, !c.active)}"
                    >
                      ${c.active ? tc.deactivate : tc.activate}
                    </button>`,
                )}
              </td>`
            : ''
        }
      </tr>`,
  );
  return layout(
    page,
    tc.title,
    html`<h1>${tc.title}</h1>
      <p>${tc.intro}</p>
      ${doneNotice(page, data.done)} ${change ? '' : html`<p class="notice">${page.t.readOnly}</p>`}
      <h2>${tc.products}</h2>
      ${newLink('/catalog/products/new', tc.newProduct)}
      ${listTable(
        tc.products,
        tc.none,
        [tc.id, tc.name, tc.status, change && tc.action],
        data.products.map(
          (p) =>
            html`<tr>
              <td data-label="${tc.id}">${p.id}</td>
              <td data-label="${tc.name}">${p.name}</td>
              <td data-label="${tc.status}">${statusBadge(page, p.active)}</td>
              ${editCell(`/catalog/products/${p.id}`, p.name)}
            </tr>`,
        ),
      )}
      <h2>${tc.offers}</h2>
      ${newLink('/catalog/offers/new', tc.newOffer)}
      ${listTable(
        tc.offers,
        tc.none,
        [tc.code, tc.name, tc.product, tc.price, tc.status, tc.onSale, change && tc.action],
        items('offer', data.offers),
      )}
      <h2>${tc.plans}</h2>
      ${newLink('/catalog/plans/new', tc.newPlan)}
      ${listTable(
        tc.plans,
        tc.none,
        [tc.code, tc.name, tc.product, tc.price, tc.cycle, tc.status, tc.onSale, change && tc.action],
        items('plan', data.plans),
      )}
      <h2>${tc.coupons}</h2>
      ${newLink('/catalog/coupons/new', tc.newCoupon)}
      ${listTable(tc.coupons, tc.none, [tc.code, tc.discount, tc.status, change && tc.action], coupons)}`,
    chrome,
  );
}

/** What a catalog form holds, as typed. */
export type CatalogFormValues = Record<string, string>;

/** A select of a form, with its problem. */
function selectField(
  problems: FormProblems | undefined,
  field: { name: string; label: string; value: string; options: Array<[string, string]> },
): SafeHtml {
  const problem = fieldProblem(problems, field.name, field.name);
  return html`<label for="${field.name}">${field.label}</label> ${problem.note}
    <select id="${field.name}" name="${field.name}" ${problem.attrs}>
      ${field.options.map(([value, words]) => html`<option value="${value}" ${flag('selected', field.value === value)}>${words}</option>`)}
    </select>`;
}

/** The labels of every catalog field, as a refused form names them. */
export const catalogFieldLabels = (page: DashboardLocale): Record<string, string> => {
  const tc = page.t.catalog;
  return {
    name: tc.name,
    status: tc.status,
    price: tc.price,
    product_id: tc.product,
    billing_cycle: tc.cycle,
    guarantee_days: tc.guaranteeDays,
    content: tc.content,
    code: tc.code,
    percent_off: tc.percentOff,
    amount_off: tc.amountOff,
  };
};

/** The form a catalog entry is created or edited with: which fields depend on what and whether it is new. */
export function catalogFormPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    what: 'product' | ItemKind | 'coupon';
    title: string;
    action: string;
    creating: boolean;
    values: CatalogFormValues;
    products?: ProductRow[];
    problems?: FormProblems | undefined;
  },
): SafeHtml {
  const tc = page.t.catalog;
  const { values, problems, what } = data;
  const value = (name: string): string => values[name] ?? '';
  const statusField = selectField(problems, {
    name: 'status',
    label: tc.status,
    value: value('status') || 'active',
    options: [
      ['active', tc.active],
      ['inactive', tc.inactive],
    ],
  });
  const fields: Array<SafeHtml | string> = [];
  if (what === 'coupon') {
    fields.push(
      textField(problems, { name: 'code', label: tc.code, hint: tc.codeHint, value: value('code') }),
      textField(problems, {
        name: 'percent_off',
        label: tc.percentOff,
        hint: tc.percentOffHint,
        value: value('percent_off'),
        inputmode: 'decimal',
      }),
      textField(problems, {
        name: 'amount_off',
        label: tc.amountOff,
        hint: tc.amountOffHint,
        value: value('amount_off'),
        inputmode: 'decimal',
      }),
    );
  } else {
    if ((what === 'offer' || what === 'plan') && data.creating) {
      const active = (data.products ?? []).filter((p) => p.active);
      fields.push(
        active.length === 0
          ? html`<p class="notice">${tc.noProducts}</p>`
          : selectField(problems, {
              name: 'product_id',
              label: tc.product,
              value: value('product_id'),
              options: active.map((p) => [String(p.id), p.name]),
            }),
      );
    }
    fields.push(textField(problems, { name: 'name', label: tc.name, value: value('name') }));
    if (what !== 'product')
      fields.push(
        textField(problems, {
          name: 'price',
          label: tc.price,
          hint: tc.priceHint,
          value: value('price'),
          inputmode: 'decimal',
        }),
      );
    if (what !== 'product')
      fields.push(
        textField(problems, {
          name: 'guarantee_days',
          label: tc.guaranteeDays,
          hint: tc.guaranteeDaysHint,
          value: value('guarantee_days') || '7',
          type: 'number',
          inputmode: 'numeric',
        }),
      );
    if (what === 'product') {
      const problem = fieldProblem(problems, 'content', 'content', 'content-hint');
      fields.push(
        html`<label for="content">${tc.content}</label>
          <p class="hint" id="content-hint">${tc.contentHint}</p>
          ${problem.note}
          <textarea id="content" name="content" rows="6" ${problem.attrs}>${value('content')}</textarea>`,
      );
    }
    if (what === 'plan' && data.creating)
      fields.push(
        selectField(problems, {
          name: 'billing_cycle',
          label: tc.cycle,
          value: value('billing_cycle') || 'monthly',
          options: BILLING_CYCLES.map((c) => [c, page.t.cycles[c]]),
        }),
      );
  }
  fields.push(statusField);
  return layout(
    page,
    data.title,
    html`<p><a href="${page.href('/catalog')}">${tc.back}</a></p>
      <h1>${data.title}</h1>
      ${problemSummary(page, problems)}
      ${postForm(page, chrome, data.action, html`${fields}<button type="submit">${data.creating ? tc.create : tc.save}</button>`)}`,
    chrome,
  );
}
