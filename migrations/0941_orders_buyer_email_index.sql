-- migrate: no transaction
-- The buyer's page lists a buyer's live orders by e-mail, across companies.
CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_buyer_email_idx ON orders (lower(customer->>'email')) WHERE livemode;
