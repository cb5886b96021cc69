-- migrate: no transaction
-- The dashboard's home sums a company's last 30 days in one mode: the orders created in them
-- (conversion, Pix and boleto generated vs paid) and the orders paid in them (revenue per day and
-- method, less refunds and chargebacks). Each index holds every column its statement reads, so both
-- are index-only scans of the window, however many older orders the company has. Built
-- CONCURRENTLY: checkouts go on writing orders while they build. Each statement can run again: an
-- invalid index a failed build left is dropped before the build starts over.
DROP INDEX CONCURRENTLY IF EXISTS orders_company_mode_created_idx;
CREATE INDEX CONCURRENTLY orders_company_mode_created_idx
  ON orders (company_id, livemode, created_at) INCLUDE (payment_method, paid_at);
DROP INDEX CONCURRENTLY IF EXISTS orders_company_mode_paid_idx;
CREATE INDEX CONCURRENTLY orders_company_mode_paid_idx
  ON orders (company_id, livemode, paid_at) INCLUDE (payment_method, amount, status)
  WHERE paid_at IS NOT NULL;
