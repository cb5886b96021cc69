-- migrate: no transaction
-- GET /v1/events: a company's events of one mode, newest first, keyset-paginated on (created_at, id).
-- With this index a page is one range scan that stops after `limit + 1` rows, whatever the company's
-- volume (docs/benchmarks.md, "Events API"). Built CONCURRENTLY: the outbox takes writes while it
-- builds. A build that failed half-way leaves an invalid index, which the first statement drops.
DROP INDEX CONCURRENTLY IF EXISTS events_company_mode_created_idx;
CREATE INDEX CONCURRENTLY events_company_mode_created_idx ON events (company_id, livemode, created_at DESC, id DESC);
