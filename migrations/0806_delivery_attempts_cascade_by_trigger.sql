-- Recording an attempt inserts it and updates its delivery in one statement. The foreign key from
-- delivery_attempts to deliveries then key-share-locks the delivery row that statement just
-- updated, which PostgreSQL records as a MultiXact; under a steady stream of webhooks that lock was
-- the largest single cost of recording (docs/benchmarks-history.md, "Webhook latency: the machine's CPU").
-- The insert now takes the delivery's row lock itself and skips a delivery that is gone, and a
-- statement trigger does what ON DELETE CASCADE did: deleting deliveries deletes their attempts.
ALTER TABLE delivery_attempts DROP CONSTRAINT IF EXISTS delivery_attempts_delivery_id_fkey;

CREATE FUNCTION delivery_attempts_follow_deleted_deliveries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- As an array of ids: a lookup in the attempts' (delivery_id, attempt) index per deleted delivery,
  -- whatever the planner guesses of a transition table's size.
  DELETE FROM delivery_attempts WHERE delivery_id = ANY (ARRAY(SELECT id FROM deleted_deliveries));
  RETURN NULL;
END
$$;

CREATE TRIGGER deliveries_delete_their_attempts
  AFTER DELETE ON deliveries
  REFERENCING OLD TABLE AS deleted_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION delivery_attempts_follow_deleted_deliveries();
