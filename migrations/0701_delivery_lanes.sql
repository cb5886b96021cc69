-- Delivery isolation: each integration's deliveries go out through a lane of their own, so a slow,
-- hanging or failing receiver delays only its own integration (docs/webhooks.md, "Delivery lanes").

-- Most attempts started per second for the integration, across every worker process (null: no limit).
ALTER TABLE integrations ADD COLUMN rate_limit_per_second integer
  CHECK (rate_limit_per_second BETWEEN 1 AND 1000);

-- The outbox in the order events were written: the relay claims a company's events in this order,
-- so each integration's deliveries are numbered (and sent) in the order their events committed.
ALTER TABLE events ADD COLUMN seq bigserial;
CREATE INDEX events_unrelayed_seq_idx ON events (company_id, seq) WHERE relayed_at IS NULL;
CREATE INDEX events_unrelayed_order_idx ON events (seq) WHERE relayed_at IS NULL;
DROP INDEX events_unrelayed_idx;

-- An operational event (integration.failing, integration.disabled) names the integration it
-- describes; it is never delivered to that integration.
ALTER TABLE events ADD COLUMN integration_id integer;

-- One row per integration that has had deliveries: who is sending them, and what is due.
--   generation    numbers the lane's jobs (`lane-<integration>-<generation>`): a job of an older
--                 generation finds itself replaced and does nothing.
--   job_at        when the current generation's job is due: now or past (queued or running), later
--                 (sleeping until a retry, a rate-limit slot or a pause ends), null (idle: no job).
--   wake_seq      bumped by every wake (new deliveries, a resend, a recovery): a runner about to
--                 stop checks it did not miss one.
--   bumped_at_wake the wake_seq of the wake that last started a generation: that wake enqueues its job.
--   owner, lease_until  the runner sending for this lane now, and until when its claim holds
--                 without renewal (a worker that died is replaced once it lapses).
--   paused_until  a receiver's 429 with Retry-After: nothing starts before then.
--   next_start_at the rate limit's next free start, carried from one runner to the next.
CREATE TABLE delivery_lanes (
  integration_id  integer PRIMARY KEY REFERENCES integrations(id) ON DELETE CASCADE,
  generation      bigint NOT NULL DEFAULT 1,
  job_at          timestamptz,
  wake_seq        bigint NOT NULL DEFAULT 1,
  bumped_at_wake  bigint NOT NULL DEFAULT 1,
  owner           text,
  lease_until     timestamptz,
  paused_until    timestamptz,
  next_start_at   timestamptz,
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX delivery_lanes_job_idx ON delivery_lanes (job_at) WHERE job_at IS NOT NULL;

-- A lane reads its next deliveries in id order: first attempts by id, and retries by due time.
CREATE INDEX deliveries_lane_fresh_idx ON deliveries (integration_id, id)
  WHERE status = 'pending' AND attempts = 0;
CREATE INDEX deliveries_lane_retry_idx ON deliveries (integration_id, next_attempt_at)
  WHERE status = 'pending' AND attempts > 0;
