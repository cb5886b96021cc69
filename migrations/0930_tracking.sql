-- Tracking kept from link to order (docs/api.md, "Tracking"): a link keeps the campaign parameters
-- its creator sent (utm_*, src, sck); an order keeps what its checkout visit carried (those, the ad
-- click ids and cookies, the buyer's IP, user agent and page address). Null: nothing known (and for
-- every order made before this).
ALTER TABLE payment_links ADD COLUMN tracking jsonb;
ALTER TABLE orders ADD COLUMN tracking jsonb;
