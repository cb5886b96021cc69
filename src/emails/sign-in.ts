/**
 * The sign-in message of the buyer's page (`{checkout_url}/account`): a message like the others
 * (a row of `email_messages`, the `emails` job, the same SMTP hand-off), of a kind no seller turns
 * off. The link's token is kept hashed where it is checked (the buyer's page); the message holds
 * it only until it is sent, sealed under CREDENTIALS_ENCRYPTION_KEY when the deployment has one,
 * and forgets it once sent, bounced or failed.
 */
import type { AppContext } from '../shared/context.js';
import { credentialSealer } from '../shared/credentials.js';
import { schema, type Executor } from '../shared/db/index.js';
import { randomBase62 } from '../shared/ids.js';
import { html } from '../ui/html.js';
import type { Language } from '../ui/language.js';
import { enqueueMessage } from './relay.js';
import { oneLine, type Rendered } from './templates.js';
import type { Outgoing } from './transport.js';

/** What a sign-in message holds until it is sent. */
interface SignInData {
  linkId: number;
  /** The link's token, sealed (`sealed`) or as is (a deployment without a credentials key). */
  token: string;
  sealed: boolean;
  expiresAt: string;
}

const isSignInData = (data: object): data is SignInData =>
  'linkId' in data && 'token' in data && 'sealed' in data && 'expiresAt' in data;

const purposeOf = (linkId: number): string => `buyer_sign_in:${linkId}`;

const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1) || 'localhost';

/**
 * Queues the sign-in message of a link (in the caller's transaction, with the link) and returns
 * its id, for `enqueueSignIn` once committed. `companyId`: the company of the buyer's latest
 * purchase, which the message is filed under (every message belongs to one).
 */
export async function insertSignInMessage(
  ctx: Pick<AppContext, 'config'>,
  tx: Executor,
  message: {
    companyId: number;
    email: string;
    language: Language;
    link: { id: number; token: string; expiresAt: Date };
  },
): Promise<{ id: number; sendAt: Date }> {
  const key = ctx.config.credentialsKey;
  const data: SignInData = {
    linkId: message.link.id,
    token: key
      ? credentialSealer(key).seal(message.link.token, purposeOf(message.link.id))
      : message.link.token,
    sealed: key !== undefined,
    expiresAt: message.link.expiresAt.toISOString(),
  };
  const [row] = await tx
    .insert(schema.emailMessages)
    .values({
      companyId: message.companyId,
      eventId: `signin_${message.link.id}`,
      kind: 'sign_in',
      recipient: message.email,
      language: message.language,
      data: { ...data },
      token: randomBase62(32),
      messageId: `<em.${randomBase62(24)}@${domainOf(ctx.config.email.from)}>`,
      sendAt: new Date(),
    })
    .returning({ id: schema.emailMessages.id, sendAt: schema.emailMessages.sendAt });
  if (!row) throw new Error('sign-in message insert returned no row');
  return row;
}

/** Adds the job of a committed sign-in message. */
export const enqueueSignIn = (
  ctx: Pick<AppContext, 'producers' | 'logger'>,
  message: { id: number; sendAt: Date },
): void => enqueueMessage(ctx, { ...message, kind: 'sign_in' });

/** Whether a sign-in message is still worth sending: its link not expired yet. */
export function signInStillDue(data: object, now: Date): boolean {
  return isSignInData(data) && Date.parse(data.expiresAt) > now.getTime();
}

const WORDS = {
  'pt-BR': {
    fromName: 'Minhas compras',
    subject: 'Seu link para entrar em Minhas compras',
    intro: 'Use o link abaixo para ver suas compras. Ele vale por 15 minutos e funciona uma só vez.',
    button: 'Entrar em Minhas compras',
    ignore: 'Se você não pediu este link, ignore este e-mail: ninguém entra sem ele.',
  },
  en: {
    fromName: 'My purchases',
    subject: 'Your link to sign in to My purchases',
    intro: 'Use the link below to see your purchases. It works once, within 15 minutes.',
    button: 'Sign in to My purchases',
    ignore: 'If you did not ask for this link, ignore this e-mail: nobody signs in without it.',
  },
} as const;

function render(language: Language, href: string): Rendered {
  const w = WORDS[language];
  const text = [w.intro, '', `${w.button}: ${href}`, '', w.ignore, ''].join('\n');
  const body = html`<!doctype html>
    <html lang="${language}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>${w.subject}</title>
      </head>
      <body style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;color:#18181b">
        <h1 style="font-size:20px">${w.subject}</h1>
        <p>${w.intro}</p>
        <p>
          <a
            href="${href}"
            style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:4px"
            >${w.button}</a
          >
        </p>
        <p style="font-size:13px;color:#52525b">${w.ignore}</p>
      </body>
    </html>`;
  return { subject: w.subject, text, html: body.value, attachments: [] };
}

/** The message as it leaves: the link opened (unsealed) at the last moment. */
export function signInOutgoing(
  ctx: Pick<AppContext, 'config'>,
  message: { recipient: string; language: Language; messageId: string; data: object },
): Outgoing {
  const { data } = message;
  if (!isSignInData(data)) throw new Error('not a sign-in message, or already sent');
  const token = data.sealed
    ? credentialSealer(ctx.config.credentialsKey).open(data.token, purposeOf(data.linkId))
    : data.token;
  const url = new URL('account/sign-in', `${ctx.config.urls.checkout}/`);
  // The token travels in the query, which the request log redacts.
  url.searchParams.set('token', token);
  url.searchParams.set('lang', message.language);
  const rendered = render(message.language, url.href);
  return {
    messageId: message.messageId,
    from: { name: oneLine(WORDS[message.language].fromName), address: ctx.config.email.from },
    to: message.recipient,
    replyTo: null,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    attachments: [],
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
