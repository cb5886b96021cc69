-- The webhook engine's tables churn like queues: every event is claimed once (an update), every
-- delivery goes from pending to done (an update), every lane's claim is renewed every few seconds.
-- The engine reads them through partial indexes of what is still waiting (unclaimed events, pending
-- deliveries), in order from the oldest: until VACUUM removes them, the entries of rows that left
-- those indexes stay at the front and every read walks over them. PostgreSQL's default waits for a
-- fifth of the table to change, which for a table of millions of rows means millions of entries to
-- walk. Vacuum these after a fixed number of changed rows instead, whatever the table's size.
ALTER TABLE events SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000,
                        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 50000,
                        autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE deliveries SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000,
                            autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 50000,
                            autovacuum_analyze_scale_factor = 0.02);
ALTER TABLE delivery_lanes SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
                                fillfactor = 70);

-- Pending deliveries by due time, for a sweep of overdue deliveries across every integration. Lanes
-- read their due deliveries through deliveries_lane_fresh_idx and deliveries_lane_retry_idx, and no
-- statement reads pending deliveries without naming their integration any more: this index only
-- cost an entry per delivery written and per retry scheduled.
DROP INDEX deliveries_pending_due_idx;
