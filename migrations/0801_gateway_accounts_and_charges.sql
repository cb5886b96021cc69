-- Real payments through each company's own PSP account (Mercado Pago first).

-- The OAuth round trip of a gateway integration: its state expires, and carries a PKCE verifier
-- (sealed like every credential, see src/shared/credentials.ts).
ALTER TABLE integrations ADD COLUMN oauth_state_expires_at timestamptz;
ALTER TABLE integrations ADD COLUMN oauth_code_verifier text;

-- A company's connection to its account at a PSP: the tokens the OAuth exchange gave, sealed with
-- CREDENTIALS_ENCRYPTION_KEY. It outlives its integration (integration_id set null on delete), so
-- the orders charged through it still settle and refund; only the integration makes new charges.
CREATE TABLE gateway_accounts (
  id                      bigserial PRIMARY KEY,
  company_id              bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  provider                text NOT NULL CHECK (provider IN ('mercadopago')),
  -- The account at the PSP (Mercado Pago's user_id), as text.
  account_id              text NOT NULL,
  integration_id          integer REFERENCES integrations(id) ON DELETE SET NULL,
  public_key              text NOT NULL,
  access_token            text NOT NULL,
  refresh_token           text NOT NULL,
  token_expires_at        timestamptz NOT NULL,
  token_lifetime_seconds  integer NOT NULL CHECK (token_lifetime_seconds > 0),
  live_mode               boolean NOT NULL DEFAULT true,
  connected_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
  refreshed_at            timestamptz,
  -- Set when the PSP refused a refresh: the tokens no longer work until the company reconnects.
  revoked_at              timestamptz,
  UNIQUE (company_id, provider, account_id)
);
-- An integration charges through one account at a time.
CREATE UNIQUE INDEX gateway_accounts_integration_idx ON gateway_accounts (integration_id)
  WHERE integration_id IS NOT NULL;
-- A notification names the PSP account it is about.
CREATE INDEX gateway_accounts_account_idx ON gateway_accounts (provider, account_id);

-- One charge the pay step (or a renewal) asked a gateway for. The row is written before the gateway
-- is called (state `starting`), with what the order will be, and its order_code is the idempotency
-- key: a retry after a timeout asks for the same charge, and a payment the gateway made while the
-- answer was lost is found again (by this code, its external reference). Once the gateway answered,
-- the order exists with the same code (state `charged`). A charge the gateway refused, or one that
-- was never made, ends `dropped`.
CREATE TABLE gateway_charges (
  order_code        uuid PRIMARY KEY,
  company_id        bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  provider          text NOT NULL CHECK (provider IN ('dev', 'callback', 'mercadopago')),
  account_id        bigint REFERENCES gateway_accounts(id),
  payment_link_id   text,
  subscription_id   bigint,
  state             text NOT NULL DEFAULT 'starting' CHECK (state IN ('starting', 'charged', 'dropped')),
  -- The PSP's id of the payment, once known.
  reference         text,
  -- Why the PSP declined a card, in the buyer page's terms (its order failed at the pay step).
  decline_reason    text CHECK (decline_reason IN ('insufficient_funds', 'security_code', 'call_issuer', 'other')),
  -- The pending order's values (buyer, method, amount…), so a late answer can still create it.
  request           jsonb NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- The next read of the payment from the PSP (reconciliation); null once nothing is left to learn.
  reconcile_at      timestamptz,
  reconcile_count   integer NOT NULL DEFAULT 0,
  CHECK ((provider = 'mercadopago') = (account_id IS NOT NULL))
);
CREATE UNIQUE INDEX gateway_charges_reference_idx ON gateway_charges (provider, reference)
  WHERE reference IS NOT NULL;
CREATE INDEX gateway_charges_reconcile_idx ON gateway_charges (reconcile_at) WHERE reconcile_at IS NOT NULL;
-- A single-use link takes one payment at a time: charges still starting count as in flight.
CREATE INDEX gateway_charges_starting_link_idx ON gateway_charges (payment_link_id, created_at)
  WHERE state = 'starting';
