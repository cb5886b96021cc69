-- Foundation schema: tenants, access, catalog, and the tables every later component builds on.
-- Migrations are append-only: never edit a file that has shipped; add the next number instead.

CREATE TABLE companies (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL,
  active      boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id          bigserial PRIMARY KEY,
  company_id  bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  email       text NOT NULL UNIQUE,
  name        text NOT NULL,
  role        text NOT NULL CHECK (role IN ('owner', 'member')),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_company_idx ON users (company_id);

CREATE TABLE panel_tokens (
  id            bigserial PRIMARY KEY,
  user_id       bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash    text NOT NULL UNIQUE,
  prefix        text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz,
  last_used_at  timestamptz
);

CREATE TABLE api_keys (
  id            bigserial PRIMARY KEY,
  company_id    bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name          text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('payments', 'read_only')),
  test          boolean NOT NULL,
  key_hash      text NOT NULL UNIQUE,
  prefix        text NOT NULL,
  last4         text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz,
  last_used_at  timestamptz
);
CREATE INDEX api_keys_company_active_idx ON api_keys (company_id) WHERE revoked_at IS NULL;

CREATE TABLE products (
  id          serial PRIMARY KEY,
  company_id  bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  code        uuid NOT NULL UNIQUE,
  name        text NOT NULL,
  active      boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX products_company_idx ON products (company_id);

CREATE TABLE offers (
  id          bigserial PRIMARY KEY,
  company_id  bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  product_id  integer NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  code        text NOT NULL UNIQUE,
  name        text NOT NULL,
  price       numeric(12, 2) NOT NULL CHECK (price >= 0),
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX offers_company_idx ON offers (company_id, created_at DESC, id DESC);

CREATE TABLE plans (
  id             bigserial PRIMARY KEY,
  company_id     bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  product_id     integer NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  code           text NOT NULL UNIQUE,
  name           text NOT NULL,
  price          numeric(12, 2) NOT NULL CHECK (price >= 0),
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  billing_cycle  text NOT NULL CHECK (billing_cycle IN ('weekly', 'monthly', 'quarterly', 'semiannual', 'yearly')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX plans_company_idx ON plans (company_id, created_at DESC, id DESC);

CREATE TABLE coupons (
  id           bigserial PRIMARY KEY,
  company_id   bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  code         text NOT NULL,
  percent_off  numeric(5, 2) CHECK (percent_off > 0 AND percent_off <= 100),
  amount_off   numeric(12, 2) CHECK (amount_off > 0),
  active       boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (company_id, code),
  CHECK ((percent_off IS NULL) <> (amount_off IS NULL))
);
