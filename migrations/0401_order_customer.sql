-- Checkout: the buyer's data as entered at checkout (the link's prefill may be absent or corrected),
-- so order events and subscription renewals carry the customer who actually paid. A subscription's
-- orders are read by subscription (renewals copy the first order's buyer and payment method).
ALTER TABLE orders ADD COLUMN customer jsonb;
CREATE INDEX orders_subscription_idx ON orders (subscription_id, id) WHERE subscription_id IS NOT NULL;
-- The renewal sweep looks for active subscriptions past their period end (lost renewal jobs).
CREATE INDEX subscriptions_due_idx ON subscriptions (current_period_end) WHERE status = 'active';
