-- migrate: no transaction
-- The dashboard's health at a glance counts each integration's attempts of the last day. The index is
-- built CONCURRENTLY: writes to delivery_attempts (every webhook attempt) go on while it builds. An
-- installation that applied 0705 as first written has it already, built in that migration's
-- transaction under its old name; it is built again here, without stopping writes, and the old one
-- dropped. Each statement can run again: a build that failed half-way leaves an invalid index, which
-- the first statement drops before the build starts over.
DROP INDEX CONCURRENTLY IF EXISTS delivery_attempts_by_integration_time_idx;
CREATE INDEX CONCURRENTLY delivery_attempts_by_integration_time_idx ON delivery_attempts (integration_id, requested_at);
DROP INDEX CONCURRENTLY IF EXISTS delivery_attempts_integration_time_idx;
