-- A platform fee (docs/mercadopago.md, "Platform fee"): a company may override the deployment's
-- PLATFORM_FEE_PERCENT / PLATFORM_FEE_FIXED (null: the deployment's). Each order records the fee the
-- PSP split off for the platform and the fee the PSP kept for itself (null: none, or not known yet);
-- its net is the amount less both, computed where it is read, so adding these columns rewrites nothing.
ALTER TABLE companies
  ADD COLUMN platform_fee_percent numeric(5, 2) CHECK (platform_fee_percent BETWEEN 0 AND 50),
  ADD COLUMN platform_fee_fixed numeric(12, 2) CHECK (platform_fee_fixed >= 0);
ALTER TABLE orders
  ADD COLUMN platform_fee numeric(12, 2) CHECK (platform_fee >= 0),
  ADD COLUMN gateway_fee numeric(12, 2) CHECK (gateway_fee >= 0);
