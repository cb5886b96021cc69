-- Service invoices (docs/invoices.md): one NFS-e per paid order (a renewal is an order of its own),
-- issued through the company's `invoice` integration. The order's code is the provider's reference,
-- so a retried submission can never issue a second invoice for one order.
--
-- `status`: pending (waiting for its time, submitted or being authorised), needs_data (the buyer's
-- data the municipality asks for is missing: `message` names the field), issued (authorised:
-- `number`, `pdf_url`, `xml_url`), failed (refused by the provider or the prefecture: `message` is
-- their answer; a retry after a settings fix submits again under the same reference), canceled (a
-- refund or chargeback canceled it, or came before it was issued).
CREATE TABLE order_invoices (
  id              bigserial PRIMARY KEY,
  company_id      bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  order_id        bigint NOT NULL UNIQUE REFERENCES orders(id) ON DELETE CASCADE,
  order_code      uuid NOT NULL UNIQUE,
  integration_id  integer REFERENCES integrations(id) ON DELETE SET NULL,
  status          text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'needs_data', 'issued', 'failed', 'canceled')),
  -- When to submit it: at payment, or at the end of the guarantee period.
  due_at          timestamptz NOT NULL,
  -- When the provider accepted it for processing (null: not submitted since the last retry).
  submitted_at    timestamptz,
  -- Reads of the provider's answer since the submission (the next read waits longer each time).
  polls           integer NOT NULL DEFAULT 0,
  -- Each retry from the panel starts a new job (job ids are kept a while after they finish).
  round           integer NOT NULL DEFAULT 1,
  -- A refund or chargeback asked for it to be canceled, with this justification (15 to 255 chars).
  cancel_reason   text CHECK (char_length(cancel_reason) BETWEEN 15 AND 255),
  number          text,
  pdf_url         text,
  xml_url         text,
  message         text CHECK (char_length(message) <= 1000),
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX order_invoices_company_idx ON order_invoices (company_id, id);
