-- The order lifecycle: pending → paid | failed | abandoned, paid → refunded (and abandoned → paid when
-- a gateway confirms late). `expired` is not an order status: a link expires, an unpaid order is
-- abandoned. No order was ever written as `expired`, but one that was is an unpaid order that timed
-- out, which is what `abandoned` now says.
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
UPDATE orders SET status = 'abandoned' WHERE status = 'expired';
ALTER TABLE orders ADD CONSTRAINT orders_status_check
  CHECK (status IN ('pending', 'paid', 'failed', 'refunded', 'abandoned'));
ALTER TABLE orders ADD COLUMN refunded_at timestamptz;
-- A refunded order that predates the column was refunded no earlier than it was paid.
UPDATE orders SET refunded_at = coalesce(paid_at, created_at) WHERE status = 'refunded';

-- The panel's order list (newest first, keyset on created_at and id) and the abandonment sweep.
CREATE INDEX orders_company_list_idx ON orders (company_id, created_at DESC, id DESC);
CREATE INDEX orders_pending_idx ON orders (created_at) WHERE status = 'pending';

-- Subscriptions can be canceled in the panel; renewals stop.
ALTER TABLE subscriptions ADD COLUMN canceled_at timestamptz;
UPDATE subscriptions SET canceled_at = created_at WHERE status = 'canceled';
CREATE INDEX subscriptions_company_list_idx ON subscriptions (company_id, created_at DESC, id DESC);

-- Every buyer e-mail a company has seen at its checkout, per mode (lower-cased): the first
-- submission of one emits `lead.created`. Buyers of earlier orders were seen already.
CREATE TABLE leads (
  company_id  bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  livemode    boolean NOT NULL,
  email       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (company_id, livemode, email)
);
INSERT INTO leads (company_id, livemode, email, created_at)
SELECT company_id, livemode, lower(customer->>'email'), min(created_at)
  FROM orders
 WHERE customer->>'email' IS NOT NULL
 GROUP BY company_id, livemode, lower(customer->>'email');
