import { dateTime, nullable } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { EMAIL_KINDS, SHOWN_EMAIL_STATES } from './kinds.js';

const MESSAGE_DESCRIPTIONS: Record<(typeof EMAIL_KINDS)[number], string> = {
  instructions: 'How to pay a Pix or boleto order (`order.created`)',
  reminder: 'The day before a boleto, or a Pix of more than a day, falls due, if still unpaid',
  receipt: 'The receipt of a paid order (`order.paid`) and of a paid renewal (`subscription.renewed`)',
  refund: 'The refund of an order (`order.refunded`)',
  renewal_notice: 'Three days before a subscription renews',
  renewal_failed: 'A renewal charge failed, with a link to pay it now (`subscription.past_due`)',
  canceled: 'A subscription ended (`subscription.canceled`; never after a chargeback)',
  recovery:
    'One message to a buyer who left an order unpaid and agreed to it at the checkout (`order.abandoned`)',
};

/** Named schemas of the e-mail settings and of the e-mails listed on an order. */
export const emailSchemas: Record<string, JsonSchema> = {
  EmailSettings: {
    type: 'object',
    additionalProperties: false,
    required: ['object', 'sender_name', 'reply_to', 'messages'],
    properties: {
      object: { const: 'email_settings' },
      sender_name: {
        type: 'string',
        description:
          'The display name of `From` (the address is the deployment’s EMAIL_FROM); default: the company’s name',
      },
      reply_to: nullable({
        type: 'string',
        format: 'email',
        description:
          'The seller’s support address (`Reply-To`); null: the e-mail of the company’s first owner',
      }),
      messages: {
        type: 'object',
        additionalProperties: false,
        required: [...EMAIL_KINDS],
        description: 'Which messages are sent; every one is on by default but `recovery`',
        properties: Object.fromEntries(
          EMAIL_KINDS.map((kind) => [kind, { type: 'boolean', description: MESSAGE_DESCRIPTIONS[kind] }]),
        ),
      },
    },
  },
  OrderEmail: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'to', 'state', 'sent_at'],
    properties: {
      kind: { type: 'string', enum: [...EMAIL_KINDS] },
      to: { type: 'string', format: 'email' },
      state: {
        type: 'string',
        enum: [...SHOWN_EMAIL_STATES],
        description:
          '`queued` until the SMTP server took it (a reminder waits for its day); `sent` once it did; `bounced` when ' +
          'it refused the recipient or the message for good; `failed` when every attempt failed',
      },
      sent_at: nullable(dateTime),
    },
  },
};
