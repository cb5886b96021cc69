-- Subscriptions that live and die like real ones: a renewal that fails leaves the subscription
-- `past_due` while its charge is retried; a cancel may wait for the period end; a chargeback ends it.

ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_status_check;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_status_check
  CHECK (status IN ('active', 'past_due', 'canceled'));

-- Why a subscription ended. Every cancellation before this migration was asked for in the panel.
ALTER TABLE subscriptions ADD COLUMN cancel_reason text
  CHECK (cancel_reason IN ('requested', 'payment_failed', 'chargeback'));
UPDATE subscriptions SET cancel_reason = 'requested' WHERE status = 'canceled';
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_cancel_reason_check_status
  CHECK ((status = 'canceled') = (cancel_reason IS NOT NULL));

-- Asked to end at the period end: the renewal due then cancels instead of charging.
ALTER TABLE subscriptions ADD COLUMN cancel_at_period_end boolean NOT NULL DEFAULT false;

-- The period the subscription is in (1 = the first purchase). Until now it was counted from the
-- billed orders (paid or refunded); a subscription started by a test-mode simulation has no order.
ALTER TABLE subscriptions ADD COLUMN current_period integer NOT NULL DEFAULT 1 CHECK (current_period >= 1);
UPDATE subscriptions s
   SET current_period = greatest(1, (SELECT count(*) FROM orders o
                                      WHERE o.subscription_id = s.id AND o.status IN ('paid', 'refunded')));

-- While past_due: how many charges of the renewal due have failed, and when the next retry is due.
ALTER TABLE subscriptions ADD COLUMN failed_charges integer NOT NULL DEFAULT 0 CHECK (failed_charges >= 0);
ALTER TABLE subscriptions ADD COLUMN next_retry_at timestamptz;

-- The renewal sweep finds past_due subscriptions past their retry (active ones past their period end
-- use subscriptions_due_idx).
CREATE INDEX subscriptions_retry_due_idx ON subscriptions (next_retry_at) WHERE status = 'past_due';
-- A test link's simulated renewals find the subscription the link started.
CREATE INDEX subscriptions_link_idx ON subscriptions (payment_link_id) WHERE payment_link_id IS NOT NULL;

-- A paid order the buyer disputed with the card issuer.
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check
  CHECK (status IN ('pending', 'paid', 'failed', 'refunded', 'abandoned', 'charged_back'));
