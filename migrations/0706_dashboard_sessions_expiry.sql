-- Expired dashboard sessions are deleted by the hourly retention sweep, revoked or not. The index of
-- 0705 on expires_at holds unrevoked rows only, so it cannot serve that delete, and nothing else reads
-- it (a session is found by its unique hash): one index over every row replaces it. The table holds a
-- row per signed-in browser, a few per seller, so building this index inside the migration's
-- transaction holds its lock for moments only.
CREATE INDEX dashboard_sessions_expires_at_idx ON dashboard_sessions (expires_at);
DROP INDEX dashboard_sessions_expiry_idx;
