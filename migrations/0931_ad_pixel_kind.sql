-- `ad_pixel` becomes a kind that sends conversions (src/integrations/kinds/ad-pixel/), its
-- credential sealed in `secrets`. Rows saved while it was a free-form shell keep `receives = 'none'`
-- until saved again with a provider; any credential such a row held in its clear config is dropped.
UPDATE integrations
   SET config = config - 'access_token' - 'api_secret' - 'token' - 'secret'
 WHERE type = 'ad_pixel';
