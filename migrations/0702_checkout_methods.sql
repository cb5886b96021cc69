-- Pix, boleto and card in the checkout: what a link lets the buyer use, and what the gateway gave the
-- buyer to pay with.

-- Link options (the API's defaults; links made before this migration get them too).
ALTER TABLE payment_links
  ADD COLUMN payment_methods text[] NOT NULL DEFAULT ARRAY['credit_card', 'pix', 'boleto'],
  ADD COLUMN pix_expires_in_seconds integer NOT NULL DEFAULT 1800,
  ADD COLUMN boleto_due_days integer NOT NULL DEFAULT 3,
  ADD COLUMN max_installments integer NOT NULL DEFAULT 1,
  ADD COLUMN success_url text;
ALTER TABLE payment_links
  ADD CONSTRAINT payment_links_payment_methods_check
    CHECK (cardinality(payment_methods) > 0
           AND payment_methods <@ ARRAY['credit_card', 'pix', 'boleto']),
  ADD CONSTRAINT payment_links_pix_expires_in_seconds_check
    CHECK (pix_expires_in_seconds BETWEEN 60 AND 1209600),
  ADD CONSTRAINT payment_links_boleto_due_days_check CHECK (boleto_due_days BETWEEN 1 AND 30),
  ADD CONSTRAINT payment_links_max_installments_check CHECK (max_installments BETWEEN 1 AND 12);

-- The payment instructions of an order (null when its method has none, or the gateway gave none) and
-- the instalments of a card payment. boleto_url is where the buyer prints it.
ALTER TABLE orders
  ADD COLUMN installments integer CHECK (installments BETWEEN 1 AND 12),
  ADD COLUMN pix_copy_paste text,
  ADD COLUMN pix_expires_at timestamptz,
  ADD COLUMN boleto_digitable_line text,
  ADD COLUMN boleto_barcode text,
  ADD COLUMN boleto_due_date date,
  ADD COLUMN boleto_url text,
  -- When a still-pending order is abandoned: the Pix expiry, or the boleto's due date plus clearing
  -- time. Null: ORDER_ABANDON_AFTER_SECONDS after created_at (cards, and orders before this migration).
  ADD COLUMN abandon_at timestamptz;

-- The abandonment sweep reads pending orders by their deadline.
CREATE INDEX orders_pending_abandon_at_idx ON orders (abandon_at) WHERE status = 'pending';
