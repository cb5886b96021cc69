/**
 * A preview of each message (the dashboard's e-mail page): the company's own sender name and CNPJ,
 * a made-up buyer and purchase, in the language asked for. Nothing is sent, nothing is stored.
 */
import type { Language } from '../ui/language.js';
import type { EmailKind, MessageData } from './kinds.js';
import type { Seller } from './settings.js';
import { renderMessage, type Rendered } from './templates.js';

const DAY_MS = 86_400_000;

/** An example BR Code (the shape a Pix copia e cola has), for the preview's QR code only. */
const EXAMPLE_PIX =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865406197.505802BR5913LOJA EXEMPLO6009SAO PAULO62070503***6304ABCD';

function sampleData(kind: EmailKind, language: Language, now: Date): MessageData {
  const subscription = kind === 'renewal_notice' || kind === 'renewal_failed' || kind === 'canceled';
  const en = language === 'en';
  const pending = kind === 'instructions' || kind === 'reminder';
  return {
    buyerName: 'Ana Souza',
    product: en ? 'Photography course' : 'Curso de fotografia',
    item: subscription ? (en ? 'Monthly plan' : 'Plano mensal') : en ? 'Full access' : 'Acesso completo',
    amount: '197.50',
    method: pending ? 'pix' : 'credit_card',
    installments: pending ? null : 3,
    orderCode: '00000000-0000-4000-8000-000000000000',
    pix: pending
      ? { copyPaste: EXAMPLE_PIX, expiresAt: new Date(now.getTime() + 2 * DAY_MS).toISOString() }
      : null,
    boleto: null,
    plan: subscription ? { cycle: 'monthly' } : null,
    subscription: subscription
      ? { id: 1, currentPeriodEnd: new Date(now.getTime() + 3 * DAY_MS).toISOString() }
      : null,
    cancelReason: kind === 'canceled' ? 'requested' : null,
    checkoutPath: kind === 'recovery' ? 'of_example' : null,
  };
}

/**
 * One message as the company's buyers would receive it now. The HTML part shows its images inline
 * (`data:`), as a page can, where a mail client reads them from the message (`cid:`).
 */
export async function previewMessage(
  seller: Pick<Seller, 'senderName' | 'cnpj'>,
  kind: EmailKind,
  language: Language,
  checkoutUrl: string,
): Promise<Rendered> {
  const rendered = await renderMessage({
    kind,
    language,
    data: sampleData(kind, language, new Date()),
    seller: { name: seller.senderName, cnpj: seller.cnpj },
    checkoutUrl,
    token: 'preview',
  });
  let htmlPart = rendered.html;
  for (const image of rendered.attachments)
    htmlPart = htmlPart.replaceAll(
      `cid:${image.cid}`,
      `data:${image.contentType};base64,${image.content.toString('base64')}`,
    );
  return { ...rendered, html: htmlPart };
}
