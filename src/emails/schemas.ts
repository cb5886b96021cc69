import { customerFields, text } from '../payment-links/customer.js';
import { v, type Output } from '../shared/validation/typed.js';
import { EMAIL_KINDS, type EmailKind } from './kinds.js';

/**
 * A name shown in the `From` header: one line of printable text (no control characters at all, so
 * nothing can be smuggled into the message's headers).
 */
const senderName = () =>
  text()
    .trim()
    .min(1)
    .max(100)
    .pattern(/[\u0000-\u001f\u007f]/, { invert: true, name: 'control' })
    .messages({ 'string.pattern.invert.name': 'must be one line of text, without control characters' });

const toggles = Object.fromEntries(EMAIL_KINDS.map((kind) => [kind, v.strictBoolean()])) as Record<
  EmailKind,
  ReturnType<typeof v.strictBoolean>
>;

/** `PATCH /email-settings`: any of the fields; `null` puts a name or an address back to its default. */
export const updateEmailSettingsBody = v.required(
  v
    .object({
      sender_name: v
        .nullable(senderName())
        .description('The display name of `From`; null: the company’s name'),
      reply_to: v
        .nullable(customerFields.email())
        .description(
          'The seller’s support address (`Reply-To`); null: the e-mail of the company’s first owner',
        ),
      messages: v
        .object(toggles)
        .min(1)
        .description('Which messages are sent; a kind left out keeps its value'),
    })
    .min(1),
);
export type EmailSettingsInput = Output<typeof updateEmailSettingsBody>;
