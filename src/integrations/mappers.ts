import type { WireConfig } from './kinds/kind.js';
import { kindOf } from './kinds/registry.js';
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
  /** As the integration's kind shows it: secrets masked (a webhook's custom headers: names, values masked). */
  config: WireConfig;
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
  return {
    id: row.id,
    type: row.type,
    is_active: row.isActive,
    config: kindOf(row.type).present(row, view),
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
