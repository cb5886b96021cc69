-- The right of regret: each offer and plan has a guarantee period in days (at least 7, the legal
-- minimum for purchases made online in Brazil; at most 30). Within it, counted from the payment, the
-- buyer may ask for a refund from their own page; an invoice may wait for it to end.
ALTER TABLE offers ADD COLUMN guarantee_days integer NOT NULL DEFAULT 7 CHECK (guarantee_days BETWEEN 7 AND 30);
ALTER TABLE plans ADD COLUMN guarantee_days integer NOT NULL DEFAULT 7 CHECK (guarantee_days BETWEEN 7 AND 30);
