-- migrate: no transaction
-- The claim and the sweeps find unclaimed events in `event_outbox` (0960) now: the partial indexes
-- of `events` they used go, and with them an index entry per event written and, once claimed, a
-- dead one until the next vacuum of `events`.
DROP INDEX CONCURRENTLY IF EXISTS events_unrelayed_seq_idx;
DROP INDEX CONCURRENTLY IF EXISTS events_unrelayed_order_idx;
