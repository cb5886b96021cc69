-- Signed-in browsers of the dashboard (/dashboard). The cookie carries a random session id; only its
-- SHA-256 is stored, so a read of this table signs no one in. A session was opened with a panel token
-- or a read-only key and ends with it: revoking that credential, or deleting the user, ends it too.
CREATE TABLE dashboard_sessions (
  id              bigserial PRIMARY KEY,
  session_hash    text NOT NULL UNIQUE,
  company_id      bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  panel_token_id  bigint REFERENCES panel_tokens(id) ON DELETE CASCADE,
  api_key_id      bigint REFERENCES api_keys(id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  CHECK ((panel_token_id IS NULL) <> (api_key_id IS NULL))
);
CREATE INDEX dashboard_sessions_expiry_idx ON dashboard_sessions (expires_at) WHERE revoked_at IS NULL;

-- The dashboard's index of each integration's attempts by time is built by 0708, without holding
-- writes to delivery_attempts while it builds (this migration built it in its transaction at first).
