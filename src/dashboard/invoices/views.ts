/** An order's invoice on its page, with the retry button; the answer of "check settings". */
import type { SettingsCheck } from '../../integrations/kinds/invoice/index.js';
import type { OrderInvoiceWire } from '../../orders/mappers.js';
import { flag, html, type SafeHtml } from '../../ui/html.js';
import { checkbox, problemSummary, textField, type FormProblems } from '../forms.js';
import { badge, fact, type Tone } from '../lists.js';
import type { DashboardLocale } from '../locale.js';
import { canChange, layout, postForm, type Chrome } from '../page.js';
import { INVOICE_FORM_WORDS, INVOICE_WORDS } from './messages.js';

const TONES: Record<string, Tone> = {
  pending: 'warn',
  needs_data: 'warn',
  issued: 'good',
  failed: 'bad',
  canceled: 'idle',
};

const link = (href: string | null, text: string): SafeHtml | false =>
  href !== null && /^https?:\/\//.test(href) ? html`<a href="${href}" rel="noreferrer">${text}</a>` : false;

/** The invoice part of an order's page: its state, number, files, the provider's message, a retry. */
export function invoiceSection(
  page: DashboardLocale,
  chrome: Chrome,
  code: string,
  invoice: OrderInvoiceWire | null,
): SafeHtml {
  const w = INVOICE_WORDS[page.lang];
  if (!invoice)
    return html`<h2>${w.heading}</h2>
      <p>${w.none}</p>`;
  const status = w.statuses[invoice.status as keyof typeof w.statuses] ?? invoice.status;
  const retry =
    canChange(chrome) && (invoice.status === 'failed' || invoice.status === 'needs_data')
      ? postForm(
          page,
          chrome,
          `/orders/${code}/invoice/retry`,
          html`<button type="submit">${w.retry}</button>`,
        )
      : '';
  return html`<h2>${w.heading}</h2>
    <dl>
      ${fact(w.status, badge(TONES[invoice.status] ?? 'idle', status))}
      ${fact(w.number, invoice.number ?? false)} ${fact(w.pdf, link(invoice.pdf_url, w.pdf))}
      ${fact(w.xml, link(invoice.xml_url, w.xml))} ${fact(w.message, invoice.message ?? false)}
    </dl>
    ${retry}`;
}

/** What the provider said about an invoice integration's settings. */
export function settingsCheckPage(
  page: DashboardLocale,
  chrome: Chrome,
  id: number,
  check: SettingsCheck,
): SafeHtml {
  const w = INVOICE_WORDS[page.lang];
  return layout(
    page,
    w.checkTitle(id),
    html`<h1>${w.checkTitle(id)}</h1>
      <p role="status">${badge(check.ok ? 'good' : 'bad', check.ok ? w.checkOk : w.checkNot)}</p>
      <p class="provider-answer">${check.message}</p>
      <p><a href="${page.href(`/integrations/${id}`)}">${w.back}</a></p>`,
    chrome,
  );
}

/** The text fields of the form, in order. */
export const INVOICE_TEXT_FIELDS = [
  'token',
  'cnpj',
  'inscricao_municipal',
  'codigo_municipio',
  'item_lista_servico',
  'aliquota',
  'discriminacao',
] as const;

/** What the form shows: the values as sent (or stored), and which issue time is chosen. */
export type InvoiceFormValues = Record<(typeof INVOICE_TEXT_FIELDS)[number], string> & {
  iss_retido: boolean;
  issue_after: 'paid' | 'guarantee_end';
};

/** The create or edit form of an invoice integration; `id` undefined: a new one. */
export function invoiceFormPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { id?: number; values: InvoiceFormValues; problems?: FormProblems },
): SafeHtml {
  const w = INVOICE_FORM_WORDS[page.lang];
  const title = data.id === undefined ? w.newTitle : w.editTitle(data.id);
  const action = data.id === undefined ? '/integrations/invoice/new' : `/integrations/${data.id}/invoice`;
  const fields = INVOICE_TEXT_FIELDS.map((name) => {
    const [label, hint] = w.fields[name];
    return textField(data.problems, { name, label, value: data.values[name], ...(hint ? { hint } : {}) });
  });
  const issueAfter = (['paid', 'guarantee_end'] as const).map(
    (value) =>
      html`<label class="check"
        ><input
          type="radio"
          name="issue_after"
          value="${value}"
          ${flag('checked', data.values.issue_after === value)}
        />
        ${w.issueAfterValues[value]}</label
      >`,
  );
  const check =
    data.id === undefined
      ? ''
      : postForm(
          page,
          chrome,
          `/integrations/${data.id}/check`,
          html`<button type="submit">${w.check}</button>`,
        );
  return layout(
    page,
    title,
    html`<h1>${title}</h1>
      ${problemSummary(page, data.problems)}
      ${postForm(
        page,
        chrome,
        action,
        html`${fields}
          ${checkbox({ name: 'iss_retido', value: 'true', checked: data.values.iss_retido, label: w.issRetido })}
          <fieldset>
            <legend>${w.issueAfter}</legend>
            ${issueAfter}
          </fieldset>
          <button type="submit">${w.save}</button>`,
      )}
      ${check}`,
    chrome,
  );
}
