-- Payment links, orders, integrations and the event outbox. Shared by the payments API, the panel
-- API and the event engine, so all three agree on one shape from the start.

CREATE TABLE payment_links (
  id                  text PRIMARY KEY,                       -- plink_ + 24 base62
  company_id          bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  livemode            boolean NOT NULL,
  status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paid', 'expired', 'canceled')),
  type                text NOT NULL CHECK (type IN ('offer', 'plan')),
  offer_id            bigint REFERENCES offers(id),
  plan_id             bigint REFERENCES plans(id),
  offer_code          text,
  plan_code           text,
  product_id          integer NOT NULL REFERENCES products(id),
  short_code          text NOT NULL UNIQUE,
  customer_name       text,
  customer_email      text,
  customer_phone      text,
  customer_document   text,
  external_reference  text,
  metadata            jsonb NOT NULL DEFAULT '{}'::jsonb,
  coupon_code         text,
  single_use          boolean NOT NULL DEFAULT true,
  expires_at          timestamptz NOT NULL,
  paid_at             timestamptz,
  canceled_at         timestamptz,
  expired_at          timestamptz,
  latest_order_id     bigint,
  idempotency_key     text,
  request_hash        text,
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK ((offer_id IS NULL) <> (plan_id IS NULL))
);
CREATE UNIQUE INDEX payment_links_idempotency_idx
  ON payment_links (company_id, livemode, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX payment_links_list_idx ON payment_links (company_id, livemode, created_at DESC, id DESC);
CREATE INDEX payment_links_reference_idx
  ON payment_links (company_id, livemode, external_reference, created_at DESC, id DESC)
  WHERE external_reference IS NOT NULL;
CREATE INDEX payment_links_status_idx ON payment_links (company_id, livemode, status, created_at DESC, id DESC);

CREATE TABLE subscriptions (
  id                  bigserial PRIMARY KEY,
  company_id          bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  livemode            boolean NOT NULL,
  plan_id             bigint NOT NULL REFERENCES plans(id),
  payment_link_id     text REFERENCES payment_links(id),
  status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'canceled')),
  current_period_end  timestamptz NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE orders (
  id               bigserial PRIMARY KEY,
  code             uuid NOT NULL UNIQUE,
  company_id       bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  livemode         boolean NOT NULL,
  payment_link_id  text REFERENCES payment_links(id),
  subscription_id  bigint REFERENCES subscriptions(id),
  product_id       integer NOT NULL REFERENCES products(id),
  offer_id         bigint REFERENCES offers(id),
  plan_id          bigint REFERENCES plans(id),
  status           text NOT NULL CHECK (status IN ('pending', 'paid', 'refunded', 'failed', 'expired')),
  amount           numeric(12, 2) NOT NULL,
  payment_method   text CHECK (payment_method IN ('credit_card', 'pix', 'boleto')),
  paid_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX orders_link_idx ON orders (payment_link_id);
ALTER TABLE payment_links ADD CONSTRAINT payment_links_latest_order_fk
  FOREIGN KEY (latest_order_id) REFERENCES orders(id);

CREATE TABLE integrations (
  id                    serial PRIMARY KEY,
  company_id            bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  type                  text NOT NULL,
  is_active             boolean NOT NULL DEFAULT true,
  config                jsonb NOT NULL DEFAULT '{}'::jsonb,
  events                text[] NOT NULL DEFAULT '{}',
  send_to_all_products  boolean NOT NULL DEFAULT false,
  product_ids           integer[] NOT NULL DEFAULT '{}',   -- cache: active linked (or all active) products
  failure_count         integer NOT NULL DEFAULT 0,
  last_failure_at       timestamptz,
  disabled_reason       text NOT NULL DEFAULT '',
  oauth_pending         boolean NOT NULL DEFAULT false,
  oauth_state           text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX integrations_company_idx ON integrations (company_id, id);
-- Only one active gateway per company, enforced by the database so two racing creates cannot both win.
CREATE UNIQUE INDEX integrations_one_active_gateway_idx
  ON integrations (company_id) WHERE type = 'gateway' AND is_active;

CREATE TABLE integration_products (
  id              serial PRIMARY KEY,
  integration_id  integer NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  product_id      integer NOT NULL REFERENCES products(id) ON DELETE CASCADE,
  is_active       boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (integration_id, product_id)
);
CREATE INDEX integration_products_product_idx ON integration_products (product_id);

-- The outbox: written in the same transaction as the state change it describes.
CREATE TABLE events (
  id           text PRIMARY KEY,                 -- evt_ + 24 base62
  company_id   bigint NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  type         text NOT NULL,
  livemode     boolean NOT NULL,
  test         boolean NOT NULL DEFAULT false,
  product_id   integer,                          -- routing: the order's product (null: no product filter)
  payload      jsonb NOT NULL,                   -- the full envelope as delivered
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  relayed_at   timestamptz
);
CREATE INDEX events_unrelayed_idx ON events (created_at) WHERE relayed_at IS NULL;
CREATE INDEX events_company_idx ON events (company_id, created_at DESC);

CREATE TABLE deliveries (
  id               bigserial PRIMARY KEY,
  event_id         text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  integration_id   integer NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  last_status_code integer,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (event_id, integration_id)
);
CREATE INDEX deliveries_integration_idx ON deliveries (integration_id, created_at DESC, id DESC);

CREATE TABLE delivery_attempts (
  id              bigserial PRIMARY KEY,
  delivery_id     bigint NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  event_id        text NOT NULL,
  integration_id  integer NOT NULL,
  attempt         integer NOT NULL,
  requested_at    timestamptz NOT NULL,
  status_code     integer,
  error           text,
  duration_ms     integer NOT NULL,
  response_body   text,
  UNIQUE (delivery_id, attempt)
);
