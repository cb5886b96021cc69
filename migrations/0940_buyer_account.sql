-- The buyer's page (`{checkout_url}/account`, docs/api.md "The buyer's page"): sign-in links, buyer
-- sessions, the reason a buyer gave for a refund, and the content a product gives access to.

-- A sign-in link mailed to a buyer: only the SHA-256 of its token is kept; it opens one session, once,
-- within 15 minutes. `email` is lower-cased.
CREATE TABLE buyer_sign_in_links (
  id          bigserial PRIMARY KEY,
  email       text NOT NULL,
  token_hash  text NOT NULL UNIQUE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX buyer_sign_in_links_expires_idx ON buyer_sign_in_links (expires_at);

-- A buyer's session (the cookie's value, hashed), apart from the dashboard's: it names an e-mail
-- address, not a company.
CREATE TABLE buyer_sessions (
  id            bigserial PRIMARY KEY,
  session_hash  text NOT NULL UNIQUE,
  email         text NOT NULL,
  expires_at    timestamptz NOT NULL,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX buyer_sessions_expires_idx ON buyer_sessions (expires_at);

-- The sign-in e-mail is a message like the others (queued, sent by the emails queue, recorded), of a
-- kind no seller turns off.
ALTER TABLE email_messages DROP CONSTRAINT email_messages_kind_check;
ALTER TABLE email_messages ADD CONSTRAINT email_messages_kind_check
  CHECK (kind IN ('instructions', 'reminder', 'receipt', 'refund', 'renewal_notice', 'renewal_failed',
                  'canceled', 'recovery', 'sign_in'));

-- Who asked for a refund (the seller from the panel, or the buyer within the guarantee) and the
-- buyer's reason, written with the refund itself.
ALTER TABLE orders ADD COLUMN refund_requested_by text CHECK (refund_requested_by IN ('seller', 'buyer'));
ALTER TABLE orders ADD COLUMN refund_reason text CHECK (char_length(refund_reason) <= 500);

-- What a product gives access to (a `members_area` integration with the builtin provider): at most
-- 50 items of {title, url, description}, validated by the panel API.
ALTER TABLE products ADD COLUMN content jsonb NOT NULL DEFAULT '[]'
  CHECK (jsonb_typeof(content) = 'array' AND jsonb_array_length(content) <= 50);
