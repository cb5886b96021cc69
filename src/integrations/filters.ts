/**
 * Webhook filters (docs/webhooks.md, "Filters and headers"): a map from a dotted path of the event
 * body to a value or a list of values (any of them); an event is delivered to the integration only
 * when every entry matches. The fan-out statement applies them (src/webhooks/repository/fan-out.ts).
 */
import { ValidationError } from '../shared/errors.js';

export type FilterValue = string | number | boolean;
export type WebhookFilter = Record<string, FilterValue | FilterValue[]>;

/**
 * Whether some event kind's body can hold a string, number or boolean at a dotted path. The webhook
 * payload schemas answer it; they sit above this folder, so the apps hand the check down.
 */
export type EventPathCheck = (path: string) => boolean;

export const FILTER_LIMITS = { entries: 10, values: 50, pathLength: 200, valueLength: 500 } as const;

/** Dot-separated segments, none empty and none with whitespace. */
export const FILTER_PATH_PATTERN = /^[^.\s]+(\.[^.\s]+)*$/;

/** A filter whose every path some event kind has; else a 400 under `filter` naming the paths. */
export function checkFilterPaths(filter: WebhookFilter, eventPaths: EventPathCheck): void {
  const unknown = Object.keys(filter).filter((path) => !eventPaths(path));
  if (unknown.length > 0) {
    throw ValidationError.field(
      'filter',
      `no event kind has ${unknown.map((p) => JSON.stringify(p.slice(0, 100))).join(', ')} ` +
        '(a dotted path of the event body to a string, number or boolean, e.g. data.order.payment_method)',
    );
  }
}

/** The stored form: no entries is no filter. */
export const storedFilter = (filter: WebhookFilter | null | undefined): WebhookFilter | null =>
  filter && Object.keys(filter).length > 0 ? filter : null;
