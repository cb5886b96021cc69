-- Webhook filters (docs/webhooks.md, "Filters and headers"): a dotted path of the event body to a value
-- or a list of values; null is no filter. Read by the fan-out statement for each matching integration.
ALTER TABLE integrations ADD COLUMN filter jsonb;
