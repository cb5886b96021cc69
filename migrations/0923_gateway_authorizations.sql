-- A gateway integration's pending OAuth authorization leaves `integrations` for a table of the
-- gateways' own (src/gateways/accounts/): `integrations` keeps what every kind has, and the PSP
-- connection (its authorization here, its sealed tokens in gateway_accounts since 0801) is the
-- gateways'. A row is a gateway integration waiting for its company's authorization: it exists from
-- the integration's creation (or its move to another provider, or a refresh the PSP refused) until
-- the OAuth round trip completes.
CREATE TABLE gateway_authorizations (
  integration_id    integer PRIMARY KEY REFERENCES integrations(id) ON DELETE CASCADE,
  -- The single-use OAuth state the callback carries; null once a callback claimed it (a new one is
  -- handed out by the next alert).
  state             text UNIQUE,
  -- When the state stops being accepted.
  state_expires_at  timestamptz,
  -- The PKCE verifier of the state, sealed like every credential (src/shared/credentials.ts), its
  -- purpose naming the state: `v2.<key id>.…` under the key ring.
  code_verifier     text,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- What was pending stays pending, with its state and sealed verifier as they were (the purpose names
-- the state, not the row, so the sealed values move unchanged).
INSERT INTO gateway_authorizations (integration_id, state, state_expires_at, code_verifier)
SELECT id, oauth_state, oauth_state_expires_at, oauth_code_verifier
  FROM integrations
 WHERE oauth_pending;

ALTER TABLE integrations
  DROP COLUMN oauth_pending,
  DROP COLUMN oauth_state,
  DROP COLUMN oauth_state_expires_at,
  DROP COLUMN oauth_code_verifier;
