-- One integration core, one kind per type (src/integrations/kinds/).

-- Which of its company's events the fan-out hands an integration, as its kind decided when its config
-- was last saved: 'all' (test mode's too), 'live' only, or 'none'. The fan-out reads this column
-- instead of a list of types, so a kind that starts receiving events needs no change of its SQL.
ALTER TABLE integrations ADD COLUMN receives text NOT NULL DEFAULT 'none'
  CHECK (receives IN ('all', 'live', 'none'));
UPDATE integrations SET receives = 'all'
 WHERE type IN ('webhook', 'automation_webhook', 'notification_topic', 'database_webhook');

-- A kind's credentials other than a webhook's custom headers (an access token, an API token): name to
-- value sealed with CREDENTIALS_ENCRYPTION_KEY, as `headers` holds them; null: none.
ALTER TABLE integrations ADD COLUMN secrets jsonb;
