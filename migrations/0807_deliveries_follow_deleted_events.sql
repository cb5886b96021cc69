-- The fan-out inserts an event's deliveries in the statement that claims the event, which holds the
-- event's row lock. The foreign key from deliveries to events then key-share-locked each event row
-- again, on the events table's newest pages, where every committing request inserts: under a steady
-- stream that check cost a few microseconds per delivery, and hundreds once the worker fell behind
-- and its batches grew (docs/benchmarks-history.md, "Webhook latency on a faster VM").
-- Only the fan-out writes deliveries, always for events it holds locked, so the key adds no safety
-- there; a statement trigger does what its ON DELETE CASCADE did: deleting events (a company's
-- deletion, retention) deletes their deliveries, and those deletions their attempts.
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_event_id_fkey;

CREATE FUNCTION deliveries_follow_deleted_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- As an array of ids: a lookup in the deliveries' (event_id, integration_id) index per deleted
  -- event, whatever the planner guesses of a transition table's size.
  DELETE FROM deliveries WHERE event_id = ANY (ARRAY(SELECT id FROM deleted_events));
  RETURN NULL;
END
$$;

CREATE TRIGGER events_delete_their_deliveries
  AFTER DELETE ON events
  REFERENCING OLD TABLE AS deleted_events
  FOR EACH STATEMENT EXECUTE FUNCTION deliveries_follow_deleted_events();
