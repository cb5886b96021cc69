import { maskedHeaders } from './custom-headers.js';
import type { IntegrationProductView, IntegrationRow } from './repository.js';

/** IntegrationProduct: an integration's link to one product, as the panel API returns it. */
export interface IntegrationProductWire {
  id: number;
  product: number;
  product_code: string;
  product_name: string;
  is_active: boolean;
  created_at: string;
}

/** Integration, as the panel API returns it. */
export interface IntegrationWire {
  id: number;
  type: string;
  is_active: boolean;
  /** String values, and for a webhook-kind type with custom headers `headers` (names, values masked). */
  config: Record<string, string | Record<string, string>>;
  events: string[];
  products: IntegrationProductWire[];
  send_to_all_products: boolean;
  product_ids: number[];
  failure_count: number;
  last_failure_at: string | null;
  disabled_reason: string;
  rate_limit_per_second: number | null;
  filter: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export function toIntegrationProductWire(link: IntegrationProductView): IntegrationProductWire {
  return {
    id: link.id,
    product: link.productId,
    product_code: link.productCode,
    product_name: link.productName,
    is_active: link.isActive,
    created_at: link.createdAt.toISOString(),
  };
}

/** `whsec_…` + the last 4 characters: enough to tell secrets apart, never enough to sign with. */
export const maskSecret = (secret: string): string =>
  `${secret.startsWith('whsec_') ? 'whsec_' : ''}…${secret.slice(-4)}`;

export interface IntegrationView {
  /** Owners and members see the whole config; read-only keys see the signing secret masked. */
  revealSecret: boolean;
}

/** `products` are the integration's links (active or not); pass only this integration's links. */
export function toIntegrationWire(
  row: IntegrationRow,
  products: IntegrationProductView[],
  view: IntegrationView,
): IntegrationWire {
  const { secret, ...config } = row.config;
  // Masked for every caller, owners included: a header value is never shown again once stored.
  const headers: Record<string, Record<string, string>> = row.headers
    ? { headers: maskedHeaders(row.headers) }
    : {};
  return {
    id: row.id,
    type: row.type,
    is_active: row.isActive,
    config: {
      ...config,
      ...(secret === undefined ? {} : { secret: view.revealSecret ? secret : maskSecret(secret) }),
      ...headers,
    },
    events: row.events,
    products: products.filter((p) => p.integrationId === row.id).map(toIntegrationProductWire),
    send_to_all_products: row.sendToAllProducts,
    product_ids: row.productIds,
    failure_count: row.failureCount,
    last_failure_at: row.lastFailureAt ? row.lastFailureAt.toISOString() : null,
    disabled_reason: row.disabledReason,
    rate_limit_per_second: row.rateLimitPerSecond,
    filter: row.filter ?? {},
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
