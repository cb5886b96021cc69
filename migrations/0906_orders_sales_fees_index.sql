-- migrate: no transaction
-- The dashboard's home shows revenue net of fees (0905): the index of the orders paid in a window
-- (0805) now also holds both fee columns, so its sum stays an index-only scan. Built CONCURRENTLY
-- under a new name before the old one is dropped: checkouts go on writing orders, and the home keeps
-- an index to read meanwhile. Each statement can run again.
DROP INDEX CONCURRENTLY IF EXISTS orders_company_mode_paid_fees_idx;
CREATE INDEX CONCURRENTLY orders_company_mode_paid_fees_idx
  ON orders (company_id, livemode, paid_at) INCLUDE (payment_method, amount, status, platform_fee, gateway_fee)
  WHERE paid_at IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS orders_company_mode_paid_idx;
