-- The outbox of unclaimed events, apart from the events themselves: one row per event no relay has
-- claimed yet, deleted by the claim. The claim used to find its events in a partial index of
-- `events` (relayed_at IS NULL); every claimed event left a dead entry there until a vacuum of the
-- whole events table, and each claim walked the company's dead entries from the oldest (about 400
-- pages per claim after 150,000 claims without a vacuum: docs/benchmarks-history.md, the section
-- "npm run bench:webhooks on 2026-12-07"). This table holds only events in flight, so the worker's
-- sweep vacuums it in a few milliseconds whatever the size of `events` (docs/webhooks.md, "The
-- outbox"). Leaving it is what claims an event: the claim no longer rewrites the event's row.
CREATE TABLE event_outbox (
  -- The event's write order (events.seq): the claim takes a company's events in this order.
  seq        bigint PRIMARY KEY,
  company_id bigint NOT NULL,
  event_id   text NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

CREATE INDEX event_outbox_company_seq_idx ON event_outbox (company_id, seq);

-- Every event written unclaimed enters the outbox in its own statement, so both commit together
-- whatever writes the event (the API, a worker, a script).
CREATE FUNCTION events_enter_outbox() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_outbox (seq, company_id, event_id)
  SELECT seq, company_id, id FROM added_events WHERE relayed_at IS NULL;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_enter_outbox
  AFTER INSERT ON events
  REFERENCING NEW TABLE AS added_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_enter_outbox();

-- A deleted event leaves the outbox (a company's deletion; retention deletes only claimed events).
-- A statement trigger by primary key, as deliveries follow deleted events (0807), rather than a
-- foreign key, which would check each new row against the event just written.
CREATE FUNCTION outbox_follows_deleted_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM event_outbox WHERE seq = ANY (ARRAY(SELECT seq FROM deleted_events));
  RETURN NULL;
END
$$;

CREATE TRIGGER events_leave_outbox
  AFTER DELETE ON events
  REFERENCING OLD TABLE AS deleted_events
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_follows_deleted_events();

-- Events unclaimed now. CREATE TRIGGER above holds writes to `events` until this commits, so none
-- is written between the copy and the trigger.
INSERT INTO event_outbox (seq, company_id, event_id)
SELECT seq, company_id, id FROM events WHERE relayed_at IS NULL;

COMMENT ON COLUMN events.relayed_at IS
  'When a relay claimed the event, for events claimed before event_outbox (0960). Since then an event is claimed once it has no row in event_outbox, and this stays null.';
