-- A buyer's refund asked while the order's gateway did not answer (docs/api.md, "The buyer's page"):
-- the order stays `paid` with the time it was asked (and who asked, and why, in the columns of 0940)
-- until the `refunds` queue has the gateway refund it; the sweep finds the ones whose job was lost.
ALTER TABLE orders ADD COLUMN refund_queued_at timestamptz;
CREATE INDEX orders_refund_queued_idx ON orders (refund_queued_at) WHERE refund_queued_at IS NOT NULL AND status = 'paid';
