/** Drizzle mirror of the e-mail tables (migrations 0920 and after). */
import { sql } from 'drizzle-orm';
import { bigserial, boolean, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { clockStamps, id64, ts } from './schema-columns.js';

/** A company's e-mail settings (0920); a company without a row has the defaults. */
export const emailSettings = pgTable('email_settings', {
  companyId: id64('company_id').primaryKey(),
  senderName: text('sender_name'),
  replyTo: text('reply_to'),
  instructions: boolean('instructions').notNull().default(true),
  reminder: boolean('reminder').notNull().default(true),
  receipt: boolean('receipt').notNull().default(true),
  refund: boolean('refund').notNull().default(true),
  renewalNotice: boolean('renewal_notice').notNull().default(true),
  renewalFailed: boolean('renewal_failed').notNull().default(true),
  canceled: boolean('canceled').notNull().default(true),
  recovery: boolean('recovery').notNull().default(false),
  updatedAt: ts('updated_at')
    .notNull()
    .default(sql`clock_timestamp()`),
});

export const EMAIL_KINDS = [
  'instructions',
  'reminder',
  'receipt',
  'refund',
  'renewal_notice',
  'renewal_failed',
  'canceled',
  'recovery',
] as const;
/** Every kind of message: the sellers' (EMAIL_KINDS, each a setting) and the sign-in link (0940), always on. */
export const MESSAGE_KINDS = [...EMAIL_KINDS, 'sign_in'] as const;
export const EMAIL_STATES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'skipped'] as const;

/** One message to one recipient about one event (0920). */
export const emailMessages = pgTable('email_messages', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  companyId: id64('company_id').notNull(),
  eventId: text('event_id').notNull(),
  kind: text('kind', { enum: MESSAGE_KINDS }).notNull(),
  recipient: text('recipient').notNull(),
  language: text('language', { enum: ['pt-BR', 'en'] }).notNull(),
  orderCode: uuid('order_code'),
  subscriptionId: id64('subscription_id'),
  /** What the message says (`MessageData` of src/emails/kinds.ts). */
  data: jsonb('data').$type<object>().notNull(),
  token: text('token').notNull(),
  messageId: text('message_id').notNull(),
  state: text('state', { enum: EMAIL_STATES }).notNull().default('queued'),
  sendAt: ts('send_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  attemptedAt: ts('attempted_at'),
  sentAt: ts('sent_at'),
  smtpResponse: text('smtp_response'),
  lastError: text('last_error'),
  ...clockStamps(),
});

/** Addresses that asked a company for no more recovery messages (0920). */
export const emailUnsubscribes = pgTable(
  'email_unsubscribes',
  {
    companyId: id64('company_id').notNull(),
    email: text('email').notNull(),
    createdAt: ts('created_at')
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  (table) => [primaryKey({ columns: [table.companyId, table.email] })],
);
