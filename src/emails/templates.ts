/**
 * A message's subject, plain-text part and HTML part, in the buyer's language. Every value in the
 * HTML goes through the escaping `html` tag (a product named `<script>` arrives as text), and every
 * value bound for a header is one line (no line break can start another header).
 */
import QRCode from 'qrcode';
import { formatDigitableLine } from '../gateways/boleto.js';
import { BRASILIA, BUYER_DATE_TIME, dateFormat, formatMoney } from '../ui/format.js';
import { html, type SafeHtml } from '../ui/html.js';
import type { Language } from '../ui/language.js';
import type { EmailKind, MessageData } from './kinds.js';
import { EMAIL_WORDS, type EmailWords } from './words.js';

/** Collapses control characters (CR and LF among them) so a value fits on one header line. */
export const oneLine = (value: string): string => value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

export interface RenderInput {
  kind: EmailKind;
  language: Language;
  data: MessageData;
  seller: { name: string; cnpj: string | null };
  /** `{checkout_url}`: the buyer pages every link of a message points into. */
  checkoutUrl: string;
  /** The message's own credential (its unsubscribe and pay-now links). */
  token: string;
}

export interface Attachment {
  filename: string;
  content: Buffer;
  contentType: string;
  cid: string;
}

export interface Rendered {
  subject: string;
  text: string;
  html: string;
  attachments: Attachment[];
}

interface Link {
  label: string;
  href: string;
}

/** Where the buyer's links go, each carrying the message's language. */
function linkTo(
  input: Pick<RenderInput, 'checkoutUrl' | 'language'>,
  target: string,
  query: Record<string, string> = {},
): string {
  const url = new URL(target, `${input.checkoutUrl}/`);
  // A token travels in the query, which the request log redacts (never in the path, which it keeps).
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  url.searchParams.set('lang', input.language);
  return url.href;
}

const cnpjText = (digits: string): string =>
  digits.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5');

function formats(w: EmailWords) {
  return {
    money: (amount: string) => formatMoney(w.locale, amount, 'BRL'),
    dateTime: (iso: string) => dateFormat(w.locale, 'email date-time', BUYER_DATE_TIME).format(new Date(iso)),
    /** A calendar day (`YYYY-MM-DD`) or the day of an instant in Brasília. */
    day: (value: string) =>
      dateFormat(w.locale, 'email day', {
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        timeZone: /^\d{4}-\d{2}-\d{2}$/.test(value) ? 'UTC' : BRASILIA,
      }).format(new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T12:00:00Z` : value)),
  };
}

/** The message's facts, label and value, in the order a buyer reads them. */
function factsOf(input: RenderInput, w: EmailWords): Array<[string, string]> {
  const { data, kind } = input;
  const f = formats(w);
  const item = oneLine(
    data.item && data.item !== data.product ? `${data.product} · ${data.item}` : data.product,
  );
  const facts: Array<[string, string]> = [[w.labels.item, item]];
  const cycle = data.plan ? ` (${w.cycles[data.plan.cycle] ?? data.plan.cycle})` : '';
  facts.push([w.labels.amount, `${f.money(data.amount)}${cycle}`]);
  if (data.method && kind !== 'renewal_notice' && kind !== 'recovery') {
    const instalments =
      data.method === 'credit_card' && data.installments ? `, ${w.instalments(data.installments)}` : '';
    facts.push([w.labels.method, `${w.methods[data.method]}${instalments}`]);
  }
  if (data.orderCode && kind !== 'renewal_notice' && kind !== 'canceled' && kind !== 'recovery')
    facts.push([w.labels.order, data.orderCode]);
  if (kind === 'renewal_notice' && data.subscription)
    facts.push([w.labels.renewsOn, f.day(data.subscription.currentPeriodEnd)]);
  if (kind === 'receipt' && data.invoice?.number)
    facts.push([w.labels.invoice, oneLine(data.invoice.number)]);
  if (kind === 'receipt' || kind === 'refund') {
    facts.push([w.labels.seller, input.seller.name]);
    if (input.seller.cnpj) facts.push([w.labels.cnpj, cnpjText(input.seller.cnpj)]);
  }
  return facts;
}

/** The opening sentences of each kind. */
function introOf(input: RenderInput, w: EmailWords): string[] {
  const { data } = input;
  const f = formats(w);
  const byBoleto = data.boleto !== null;
  switch (input.kind) {
    case 'instructions':
      return [byBoleto ? w.intro.instructionsBoleto : w.intro.instructionsPix];
    case 'reminder':
      return [
        data.boleto
          ? w.intro.reminderBoleto(f.day(data.boleto.dueDate))
          : w.intro.reminderPix(f.dateTime(data.pix?.expiresAt ?? new Date().toISOString())),
      ];
    case 'receipt':
      // Sent again once the invoice is issued; or the receipt itself, with the invoice issued by then.
      if (data.invoice?.notice) return [w.intro.invoiceIssued];
      return data.invoice ? [w.intro.receipt, w.intro.invoiceIssued] : [w.intro.receipt];
    case 'refund':
      return [w.intro.refund];
    case 'renewal_notice':
      return [
        w.intro.renewalNotice(f.day(data.subscription?.currentPeriodEnd ?? new Date().toISOString())),
        data.method === 'credit_card' ? w.intro.renewalByCard : w.intro.renewalByInstructions,
      ];
    case 'renewal_failed':
      return [w.intro.renewalFailed, w.intro.renewalRetry];
    case 'canceled':
      return [w.intro.canceled(data.cancelReason)];
    case 'recovery':
      return [w.intro.recovery];
  }
}

/** The links at the end of a message (a receipt's: the order page; add a line here for another). */
function linksOf(input: RenderInput, w: EmailWords): Link[] {
  const { data } = input;
  const orderPage = data.orderCode
    ? { label: w.links.orderPage, href: linkTo(input, `orders/${data.orderCode}`) }
    : null;
  switch (input.kind) {
    case 'instructions':
    case 'reminder':
      return [
        ...(data.boleto ? [{ label: w.links.boletoPage, href: linkTo(input, data.boleto.url) }] : []),
        ...(orderPage ? [orderPage] : []),
      ];
    case 'receipt':
      return [
        // The provider's own address of the PDF (http or https, checked when the message was planned).
        ...(data.invoice ? [{ label: w.links.invoicePdf, href: data.invoice.pdfUrl }] : []),
        ...(orderPage ? [orderPage] : []),
        { label: w.links.account, href: linkTo(input, 'account') },
      ];
    case 'refund':
      return orderPage ? [orderPage] : [];
    case 'renewal_failed':
      return [{ label: w.links.payNow, href: linkTo(input, 'renewals', { token: input.token }) }];
    case 'recovery':
      return data.checkoutPath ? [{ label: w.links.buyAgain, href: linkTo(input, data.checkoutPath) }] : [];
    case 'renewal_notice':
    case 'canceled':
      return [];
  }
}

/** The unsubscribe address of a recovery message (also its `List-Unsubscribe` https target). */
export const unsubscribeUrl = (input: Pick<RenderInput, 'checkoutUrl' | 'token' | 'language'>): string =>
  linkTo(input, 'emails/unsubscribe', { token: input.token });

const PIX_QR_CID = 'pix-qr@payment-links';

/** Renders one message. The Pix QR code travels as an inline image (`cid:`), which mail clients show. */
export async function renderMessage(input: RenderInput): Promise<Rendered> {
  const w = EMAIL_WORDS[input.language];
  const { data, kind } = input;
  const f = formats(w);
  const itemName = data.item || data.product;
  const dateForSubject = data.subscription ? f.day(data.subscription.currentPeriodEnd) : '';
  const subject = oneLine(
    kind === 'receipt' && data.invoice?.notice
      ? w.invoiceSubject(oneLine(itemName))
      : w.subjects[kind](oneLine(itemName), { method: data.method, date: dateForSubject }),
  );
  const intro = introOf(input, w);
  const facts = factsOf(input, w);
  const links = linksOf(input, w);
  const paying = kind === 'instructions' || kind === 'reminder';
  const pix = paying ? data.pix : null;
  const boleto = paying ? data.boleto : null;
  const attachments: Attachment[] = pix
    ? [
        {
          filename: 'pix.png',
          contentType: 'image/png',
          cid: PIX_QR_CID,
          content: await QRCode.toBuffer(pix.copyPaste, { errorCorrectionLevel: 'M', margin: 4, width: 240 }),
        },
      ]
    : [];
  const footer = [
    w.footer.sentBecause(input.seller.name),
    ...(kind === 'recovery' ? [w.footer.recoveryWhy] : []),
    w.footer.reply,
  ];
  const unsubscribe = kind === 'recovery' ? unsubscribeUrl(input) : null;

  const text = [
    w.hello(data.buyerName),
    '',
    ...intro,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    ...(pix
      ? ['', `${w.labels.pixCode}:`, pix.copyPaste, `${w.labels.expiresAt}: ${f.dateTime(pix.expiresAt)}`]
      : []),
    ...(boleto
      ? [
          '',
          `${w.labels.digitableLine}:`,
          formatDigitableLine(boleto.digitableLine),
          `${w.labels.dueDate}: ${f.day(boleto.dueDate)}`,
        ]
      : []),
    ...(links.length > 0 ? ['', ...links.map((l) => `${l.label}: ${l.href}`)] : []),
    '',
    '--',
    input.seller.name + (input.seller.cnpj ? ` · ${w.labels.cnpj} ${cnpjText(input.seller.cnpj)}` : ''),
    ...footer,
    ...(unsubscribe ? [`${w.links.unsubscribe}: ${unsubscribe}`] : []),
    '',
  ].join('\n');

  const block = (inner: SafeHtml): SafeHtml =>
    html`<tr>
      <td style="padding:8px 24px">${inner}</td>
    </tr>`;
  const body = html`<!doctype html>
    <html lang="${w.locale}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>${subject}</title>
      </head>
      <body
        style="margin:0;padding:0;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b"
      >
        <table
          role="presentation"
          width="100%"
          cellpadding="0"
          cellspacing="0"
          style="max-width:600px;margin:0 auto;background:#ffffff"
        >
          ${block(html`<h1 style="font-size:20px;margin:16px 0 8px">${subject}</h1>`)}
          ${block(
            html`<p style="margin:0 0 8px">${w.hello(data.buyerName)}</p>
              ${intro.map((s) => html`<p style="margin:0 0 8px">${s}</p>`)}`,
          )}
          ${block(
            html`<table role="presentation" cellpadding="4" cellspacing="0" style="border-collapse:collapse">
              ${facts.map(
                ([label, value]) =>
                  html`<tr>
                    <th scope="row" align="left" style="padding-right:16px;color:#52525b;font-weight:normal">
                      ${label}
                    </th>
                    <td>${value}</td>
                  </tr>`,
              )}
            </table>`,
          )}
          ${
            pix
              ? block(
                  html`<p style="margin:8px 0">
                      <img src="cid:${PIX_QR_CID}" width="240" height="240" alt="${w.labels.pixQrAlt}" />
                    </p>
                    <p style="margin:0 0 4px"><strong>${w.labels.pixCode}</strong></p>
                    <p style="margin:0 0 8px;font-family:monospace;word-break:break-all">${pix.copyPaste}</p>
                    <p style="margin:0">${w.labels.expiresAt}: ${f.dateTime(pix.expiresAt)}</p>`,
                )
              : ''
          }
          ${
            boleto
              ? block(
                  html`<p style="margin:0 0 4px"><strong>${w.labels.digitableLine}</strong></p>
                    <p style="margin:0 0 8px;font-family:monospace">
                      ${formatDigitableLine(boleto.digitableLine)}
                    </p>
                    <p style="margin:0">${w.labels.dueDate}: ${f.day(boleto.dueDate)}</p>`,
                )
              : ''
          }
          ${links.map((l) =>
            block(
              html`<p style="margin:8px 0">
                <a
                  href="${l.href}"
                  style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:4px"
                  >${l.label}</a
                >
              </p>`,
            ),
          )}
          ${block(
            html`<hr style="border:none;border-top:1px solid #e4e4e7" />
              <p style="margin:0 0 4px;font-size:13px;color:#52525b">
                ${input.seller.name}${input.seller.cnpj ? html` · ${w.labels.cnpj} ${cnpjText(input.seller.cnpj)}` : ''}
              </p>
              ${footer.map((s) => html`<p style="margin:0 0 4px;font-size:13px;color:#52525b">${s}</p>`)}
              ${unsubscribe ? html`<p style="margin:0 0 16px;font-size:13px"><a href="${unsubscribe}">${w.links.unsubscribe}</a></p>` : ''}`,
          )}
        </table>
      </body>
    </html>`;
  return { subject, text, html: body.value, attachments };
}
