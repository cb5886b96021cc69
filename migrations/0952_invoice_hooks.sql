-- Focus NFe's webhook ("gatilho") of an `invoice` integration configured with `webhook: true`
-- (docs/invoices.md, "The provider's webhook"): registered with the provider at the integration's first
-- submission, one per integration. Focus NFe sends `authorization` back in the Authorization header of
-- each notice; only its SHA-256 is kept, so a dump cannot forge a notice. Polling stays the safety net.
CREATE TABLE invoice_hooks (
  integration_id      integer PRIMARY KEY REFERENCES integrations(id) ON DELETE CASCADE,
  company_id          bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  -- The provider's id of the hook (to remove it when the CNPJ or our address changes).
  provider_hook_id    text NOT NULL CHECK (char_length(provider_hook_id) BETWEEN 1 AND 100),
  -- Where the provider sends notices, and for which issuer: a change registers the hook again.
  url                 text NOT NULL,
  cnpj                text NOT NULL,
  authorization_hash  bytea NOT NULL CHECK (octet_length(authorization_hash) = 32),
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
