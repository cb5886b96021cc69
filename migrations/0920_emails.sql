-- E-mail to buyers (docs/email.md): what the checkout learns about the buyer's wishes, each
-- company's e-mail settings, the messages themselves and the addresses that unsubscribed.

-- The language the buyer checked out in (the e-mails speak it) and whether the buyer agreed, at the
-- checkout, to one reminder should the order be left unpaid. Null language: an order made before
-- this migration, or a renewal, whose e-mails speak the subscription's first order's language.
ALTER TABLE orders ADD COLUMN language text CHECK (language IN ('pt-BR', 'en'));
ALTER TABLE orders ADD COLUMN recovery_consent boolean NOT NULL DEFAULT false;

-- The seller's CNPJ, printed on receipts when the company has one.
ALTER TABLE companies ADD COLUMN cnpj text CHECK (cnpj ~ '^\d{14}$');

-- One row per company that changed its settings; a company without one has the defaults.
CREATE TABLE email_settings (
  company_id      bigint PRIMARY KEY REFERENCES companies(id) ON DELETE CASCADE,
  sender_name     text CHECK (char_length(sender_name) BETWEEN 1 AND 100),
  reply_to        text CHECK (char_length(reply_to) BETWEEN 3 AND 254),
  instructions    boolean NOT NULL DEFAULT true,
  reminder        boolean NOT NULL DEFAULT true,
  receipt         boolean NOT NULL DEFAULT true,
  refund          boolean NOT NULL DEFAULT true,
  renewal_notice  boolean NOT NULL DEFAULT true,
  renewal_failed  boolean NOT NULL DEFAULT true,
  canceled        boolean NOT NULL DEFAULT true,
  recovery        boolean NOT NULL DEFAULT false,
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- One message to one recipient about one event. `data` is what it says, taken from the event when it
-- was queued (events are pruned after RETENTION_DAYS, a renewal notice may wait a year). `token` is
-- the recipient's credential in the message's links (unsubscribe, pay now). `state`: queued (waiting
-- for its time or its job), sending (handed to SMTP, outcome not recorded yet), sent, failed (every
-- attempt failed), bounced (the server refused the recipient or the message for good), skipped (a
-- timed message no longer due, or a kind the seller turned off before its time).
CREATE TABLE email_messages (
  id               bigserial PRIMARY KEY,
  company_id       bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  event_id         text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('instructions', 'reminder', 'receipt', 'refund', 'renewal_notice',
                                                 'renewal_failed', 'canceled', 'recovery')),
  recipient        text NOT NULL,
  language         text NOT NULL CHECK (language IN ('pt-BR', 'en')),
  order_code       uuid,
  subscription_id  bigint,
  data             jsonb NOT NULL,
  token            text NOT NULL UNIQUE,
  message_id       text NOT NULL,
  state            text NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'sending', 'sent', 'failed', 'bounced', 'skipped')),
  send_at          timestamptz NOT NULL,
  attempts         integer NOT NULL DEFAULT 0,
  attempted_at     timestamptz,
  sent_at          timestamptz,
  smtp_response    text,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (event_id, kind, recipient)
);
CREATE INDEX email_messages_order_idx ON email_messages (order_code) WHERE order_code IS NOT NULL;
-- The per-company hourly limit counts the attempts of the last hour.
CREATE INDEX email_messages_attempted_idx ON email_messages (company_id, attempted_at) WHERE attempted_at IS NOT NULL;
-- The sweep: messages still waiting, by when they are due.
CREATE INDEX email_messages_waiting_idx ON email_messages (send_at) WHERE state IN ('queued', 'sending');

-- Addresses (lower-cased) that asked a company for no more recovery messages.
CREATE TABLE email_unsubscribes (
  company_id  bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  email       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (company_id, email)
);

-- Which events have had their e-mails queued. Every event already in the outbox reads '-infinity'
-- (done: nothing is mailed about the past), at no cost (a constant default is stored once, not
-- written per row); new events start null, and the e-mail relay sets it when it queues theirs.
ALTER TABLE events ADD COLUMN emails_at timestamptz DEFAULT '-infinity';
ALTER TABLE events ALTER COLUMN emails_at DROP DEFAULT;
