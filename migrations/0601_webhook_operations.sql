-- Webhook operations (decisions, "Webhook operations").

-- What each attempt sent: headers without the signature (a signature is a credential for that body
-- and timestamp) and the exact body.
ALTER TABLE delivery_attempts ADD COLUMN request_headers jsonb;
ALTER TABLE delivery_attempts ADD COLUMN request_body text;

-- Secret rotation keeps the secret it replaced signing until it expires; only one is kept.
ALTER TABLE integrations ADD COLUMN previous_secret text;
ALTER TABLE integrations ADD COLUMN previous_secret_expires_at timestamptz;

-- Bulk recovery walks one integration's failed and skipped deliveries since a time, in id order,
-- remembering where it is so a restarted worker continues instead of starting over.
CREATE TABLE delivery_recoveries (
  id              bigserial PRIMARY KEY,
  integration_id  integer NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  since           timestamptz NOT NULL,
  -- The last delivery id a committed page reached (0 before the first page).
  cursor          bigint NOT NULL DEFAULT 0,
  -- Deliveries created after the request are not part of it.
  up_to_id        bigint NOT NULL,
  requested       integer NOT NULL,
  recovered       integer NOT NULL DEFAULT 0,
  finished_at     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The delivery log's filters (event type through the event, since on created_at) reuse
-- deliveries_integration_idx; recovery walks failed and skipped deliveries by id.
CREATE INDEX deliveries_recoverable_idx ON deliveries (integration_id, id) WHERE status IN ('failed', 'skipped');
