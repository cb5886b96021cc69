-- How a subscription renews, as its buyer chose on the buyer's page (docs/api.md, "The buyer's page",
-- "Switching how a subscription renews"): null renews as its first purchase was paid (as before),
-- `pix` or `credit_card` as chosen. `renewal_card` is the card a PSP's browser script tokenized for it
-- (`{token, payment_method_id, issuer_id, stored_at}`; never the card's number), kept only while the
-- method is `credit_card` and until a renewal spends it (a PSP's card token is single use).
ALTER TABLE subscriptions ADD COLUMN renewal_method text CHECK (renewal_method IN ('pix', 'credit_card'));
ALTER TABLE subscriptions ADD COLUMN renewal_card jsonb;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_renewal_card_is_card
  CHECK (renewal_card IS NULL OR renewal_method = 'credit_card');
