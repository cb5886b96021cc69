/**
 * The e-mail page (the settings of the panel's `/email-settings`, and a preview of each message) and
 * an order's page (its facts and the e-mails its buyer was sent).
 */
import { EMAIL_KINDS, type EmailKind } from '../../emails/kinds.js';
import type { EmailSettings } from '../../emails/settings.js';
import { orderFees, type OrderEmailWire } from '../../orders/mappers.js';
import type { PanelOrderRow } from '../../orders/repository.js';
import { CAMPAIGN_KEYS } from '../../shared/tracking.js';
import { html, type SafeHtml } from '../../ui/html.js';
import { checkbox, fieldProblem, textField, type FormProblems } from '../forms.js';
import { badge, fact, listTable, testMark, type Tone } from '../lists.js';
import type { DashboardLocale } from '../locale.js';
import { canChange, layout, postForm, type Chrome } from '../page.js';
import { EMAILS_WORDS } from './messages.js';

export interface Preview {
  kind: EmailKind;
  subject: string;
  text: string;
}

/** What the form shows: the stored values, or what was just posted (a refused form). */
export interface SettingsForm {
  senderName: string;
  replyTo: string;
  messages: Record<EmailKind, boolean>;
}

export const formOfSettings = (settings: EmailSettings): SettingsForm => ({
  senderName: settings.senderNameSet ? settings.senderName : '',
  replyTo: settings.replyTo ?? '',
  messages: settings.messages,
});

function settingsForm(
  page: DashboardLocale,
  chrome: Chrome,
  companyName: string,
  form: SettingsForm,
  problems: FormProblems | undefined,
): SafeHtml {
  const w = EMAILS_WORDS[page.lang];
  const summary =
    problems && problems.size > 0
      ? html`<div class="problems" role="alert">
          <p>${w.problems.heading}</p>
          <ul>
            ${[...problems.values()].map((p) => html`<li>${p}</li>`)}
          </ul>
        </div>`
      : '';
  const boxes = EMAIL_KINDS.map(
    (kind) =>
      html`${checkbox({
          name: 'messages',
          value: kind,
          checked: form.messages[kind],
          label: w.kinds[kind].name,
          hint: `when-${kind}`,
        })}
        <p class="hint" id="when-${kind}">${w.kinds[kind].when}</p>`,
  );
  const messagesProblem = fieldProblem(problems, 'messages', 'messages');
  return postForm(
    page,
    chrome,
    '/emails',
    html`${summary}
      ${textField(problems, {
        name: 'sender_name',
        label: w.senderName,
        value: form.senderName,
        hint: w.senderNameHint(companyName),
      })}
      ${textField(problems, {
        name: 'reply_to',
        label: w.replyTo,
        value: form.replyTo,
        type: 'email',
        hint: w.replyToHint,
      })}
      <fieldset>
        <legend>${w.messagesLegend}</legend>
        ${messagesProblem.note} ${boxes}
      </fieldset>
      <button type="submit">${w.save}</button>`,
  );
}

/** The settings as a read-only session sees them (no form). */
function settingsFacts(page: DashboardLocale, settings: EmailSettings): SafeHtml {
  const w = EMAILS_WORDS[page.lang];
  return html`<p class="notice">${w.readOnly}</p>
    <dl>
      ${fact(w.senderName, settings.senderName)} ${fact(w.replyTo, settings.replyTo ?? '')}
      ${EMAIL_KINDS.map((kind) => fact(w.kinds[kind].name, settings.messages[kind] ? '✓' : w.off))}
    </dl>`;
}

export function emailsPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: {
    settings: EmailSettings;
    companyName: string;
    form?: SettingsForm;
    problems?: FormProblems;
    saved: boolean;
    previews: Preview[];
  },
): SafeHtml {
  const w = EMAILS_WORDS[page.lang];
  const previews = data.previews.map(
    (p) =>
      html`<section aria-labelledby="preview-${p.kind}">
        <h3 id="preview-${p.kind}">
          ${w.kinds[p.kind].name}${data.settings.messages[p.kind] ? '' : html` ${badge('idle', w.off)}`}
        </h3>
        <dl>${fact(w.subject, p.subject)}</dl>
        <details>
          <summary>${w.textPart}</summary>
          <pre>${p.text}</pre>
        </details>
        <p>
          <a href="${page.href(`/emails/preview/${p.kind}`)}">${w.openHtml(w.kinds[p.kind].name)}</a>
        </p>
      </section>`,
  );
  return layout(
    page,
    w.title,
    html`<h1>${w.title}</h1>
      <p>${w.intro}</p>
      ${data.saved ? html`<p class="done" role="status">${w.saved}</p>` : ''}
      ${
        canChange(chrome)
          ? settingsForm(
              page,
              chrome,
              data.companyName,
              data.form ?? formOfSettings(data.settings),
              data.problems,
            )
          : settingsFacts(page, data.settings)
      }
      <h2>${w.previewHeading}</h2>
      <p>${w.previewIntro}</p>
      ${previews}`,
    chrome,
  );
}

const STATE_TONES: Record<string, Tone> = { queued: 'warn', sent: 'good', failed: 'bad', bounced: 'bad' };

export function orderDetailPage(
  page: DashboardLocale,
  chrome: Chrome,
  data: { row: PanelOrderRow; emails: OrderEmailWire[]; invoice?: SafeHtml },
): SafeHtml {
  const { t } = page;
  const w = EMAILS_WORDS[page.lang];
  const wo = w.order;
  const { order, productName } = data.row;
  const { fees, net_amount: net } = orderFees(order);
  const rows = data.emails.map(
    (e) =>
      html`<tr>
        <td data-label="${wo.kind}">${w.kinds[e.kind as EmailKind]?.name ?? e.kind}</td>
        <td data-label="${wo.to}">${e.to}</td>
        <td data-label="${wo.state}">
          ${badge(STATE_TONES[e.state] ?? 'idle', wo.states[e.state as keyof typeof wo.states] ?? e.state)}
        </td>
        <td data-label="${wo.sentAt}">${e.sent_at ? page.dateTime(new Date(e.sent_at)) : ''}</td>
      </tr>`,
  );
  return layout(
    page,
    wo.title(order.code),
    html`<h1>${wo.title(order.code)}${testMark(page, order.livemode)}</h1>
      <p><a href="${page.href('/orders')}">${wo.back}</a></p>
      <dl>
        ${fact(wo.status, t.orderStatuses[order.status])} ${fact(wo.amount, page.money(order.amount))}
        ${fact(wo.platformFee, page.money(fees.platform))} ${fact(wo.gatewayFee, page.money(fees.gateway))}
        ${fact(wo.net, page.money(net))}
        ${fact(wo.method, order.paymentMethod ? t.ordersCsv.methods[order.paymentMethod] : '')}
        ${fact(wo.product, productName)}
        ${fact(wo.buyer, [order.customer?.name, order.customer?.email].filter(Boolean).join(' · '))}
        ${fact(wo.created, page.dateTime(order.createdAt))}
        ${fact(wo.paid, order.paidAt ? page.dateTime(order.paidAt) : false)}
        ${CAMPAIGN_KEYS.map((key) => fact(key, order.tracking?.[key] ?? false))}
        ${fact(
          wo.refunded,
          order.refundedAt
            ? [
                page.dateTime(order.refundedAt),
                order.refundRequestedBy ? wo.refundedBy[order.refundRequestedBy] : '',
              ]
                .filter(Boolean)
                .join(' · ')
            : false,
        )}
        ${fact(
          wo.refundQueued,
          order.status === 'paid' && order.refundQueuedAt ? page.dateTime(order.refundQueuedAt) : false,
        )}
        ${fact(wo.refundReason, order.refundReason ?? false)}
      </dl>
      ${data.invoice ?? ''}
      <h2>${wo.emailsHeading}</h2>
      ${listTable(wo.emailsCaption, wo.none, [wo.kind, wo.to, wo.state, wo.sentAt], rows)}`,
    chrome,
  );
}
