/**
 * E-mail to buyers in the dashboard: the settings (as `GET`/`PATCH /panel/v1/email-settings`, checked
 * by the same schema), a preview of each message, and an order's page listing the e-mails its buyer
 * was sent (as the panel's order `emails`).
 */
import { Router, type Response } from 'express';
import { EMAIL_KINDS, type EmailKind } from '../../emails/kinds.js';
import { orderEmailsOf } from '../../emails/order-emails.js';
import { orderInvoicesOf } from '../../invoices/service.js';
import { invoiceSection } from '../invoices/views.js';
import { previewMessage } from '../../emails/preview.js';
import { updateEmailSettingsBody } from '../../emails/schemas.js';
import { sellerOf, updateEmailSettings } from '../../emails/settings.js';
import { getOrder } from '../../orders/panel-service.js';
import type { AppContext } from '../../shared/context.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import type { FormProblems } from '../forms.js';
import { dashboardLocale, type DashboardLocale } from '../locale.js';
import { sendPage, type Chrome } from '../page.js';
import { byApiSchema, formOf, orderCode, pathPart, queryOf, sentList, sentText } from '../params.js';
import { requireChrome, signedIn } from '../session-guard.js';
import { EMAILS_WORDS } from './messages.js';
import { emailsPage, orderDetailPage, type SettingsForm } from './views.js';

const settingsForm = v
  .object({ sender_name: sentText(), reply_to: sentText(), messages: sentList() })
  .unknown(true);
const savedQuery = v.object({ saved: v.enum(['1'] as const) }).unknown(true);

/** A message as the preview shows it (the page lists them all, the HTML one at a time). */
const kindOf = (value: unknown): EmailKind => {
  const kind = EMAIL_KINDS.find((k) => k === value);
  if (!kind) throw new NotFoundError('Not found');
  return kind;
};

/** The HTML part of a preview, as a document of its own: it styles itself inline, as e-mail does. */
function sendPreview(res: Response, page: DashboardLocale, body: string): void {
  res
    .status(200)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Language': page.t.locale,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      // Nothing runs, nothing loads but the message's own inline styles and images.
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
    })
    .send(body);
}

export function emailsRoutes(ctx: AppContext): Router {
  const router = Router({ caseSensitive: true });

  const show = async (
    res: Response,
    page: DashboardLocale,
    chrome: Chrome,
    extra: { status: number; saved: boolean; form?: SettingsForm; problems?: FormProblems },
  ): Promise<void> => {
    const seller = await sellerOf(ctx.db, chrome.principal.companyId);
    if (!seller) throw new NotFoundError('No company');
    const previews = await Promise.all(
      EMAIL_KINDS.map(async (kind) => {
        const rendered = await previewMessage(seller, kind, page.lang, ctx.config.urls.checkout);
        return { kind, subject: rendered.subject, text: rendered.text };
      }),
    );
    const { status, ...rest } = extra;
    const data = { settings: seller.settings, companyName: seller.companyName, previews, ...rest };
    sendPage(res, status, page, emailsPage(page, chrome, data));
  };

  router.get('/emails', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    await show(res, page, chrome, { status: 200, saved: queryOf(req, savedQuery).saved === '1' });
  });

  // As PATCH /email-settings with every field: a blank name or address is the default.
  router.post('/emails', async (req, res) => {
    const chrome = requireChrome(req);
    const page = dashboardLocale(req);
    const sent = formOf(req, settingsForm);
    const messages = Object.fromEntries(EMAIL_KINDS.map((kind) => [kind, sent.messages.includes(kind)]));
    try {
      const input = byApiSchema(updateEmailSettingsBody, {
        sender_name: sent.sender_name === '' ? null : sent.sender_name,
        reply_to: sent.reply_to === '' ? null : sent.reply_to,
        messages,
      });
      await updateEmailSettings(ctx.db, chrome.principal.companyId, input);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const words = EMAILS_WORDS[page.lang].problems;
      const problems: FormProblems = new Map();
      for (const field of Object.keys(err.fields ?? {})) {
        const name = field.split('.')[0] ?? '';
        problems.set(
          name === 'sender_name' || name === 'reply_to' ? name : '',
          name === 'sender_name' ? words.sender_name : name === 'reply_to' ? words.reply_to : words.other,
        );
      }
      const form = {
        senderName: sent.sender_name,
        replyTo: sent.reply_to,
        messages: messages as Record<EmailKind, boolean>,
      };
      await show(res, page, chrome, { status: 400, saved: false, form, problems });
      return;
    }
    res.redirect(303, page.href('/emails', { saved: '1' }));
  });

  router.get('/emails/preview/:kind', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const kind = kindOf(req.params.kind);
    const seller = await sellerOf(ctx.db, chrome.principal.companyId);
    if (!seller) throw new NotFoundError('No company');
    const rendered = await previewMessage(seller, kind, page.lang, ctx.config.urls.checkout);
    sendPreview(res, page, rendered.html);
  });

  // An order's page: its facts and the e-mails its buyer was sent.
  router.get('/orders/:code', async (req, res) => {
    const chrome = signedIn(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const code = pathPart(orderCode(), req.params.code).toLowerCase();
    const { companyId } = chrome.principal;
    // Side by side, one round: the order, and its e-mails (none when the order is not the company's).
    const [row, emails, invoices] = await Promise.all([
      getOrder(ctx.db, companyId, code),
      orderEmailsOf(ctx.db)(companyId, [code]),
      orderInvoicesOf(ctx.db)(companyId, [code]),
    ]);
    const invoice = invoiceSection(page, chrome, code, invoices.get(code) ?? null);
    sendPage(res, 200, page, orderDetailPage(page, chrome, { row, emails: emails.get(code) ?? [], invoice }));
  });

  return router;
}
