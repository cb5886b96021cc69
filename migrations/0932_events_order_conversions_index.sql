-- migrate: no transaction
-- The order page of a company with a browser pixel (docs/ad-conversions.md, "The browser pixel")
-- reads the ids of its order's live `order.created` and `order.paid` events, so the pixel reports
-- them with the same ids as the Conversions API. This index finds them by order code; it holds
-- only those two kinds of live, non-test events. The predicate is repeated word for word by the
-- page's query (src/events/repository.ts). Built CONCURRENTLY: the outbox takes writes while it
-- builds; a build that failed half-way is dropped first.
DROP INDEX CONCURRENTLY IF EXISTS events_order_conversions_idx;
CREATE INDEX CONCURRENTLY events_order_conversions_idx ON events ((payload #>> '{data,order,code}'))
  WHERE livemode AND NOT test AND type IN ('order.created', 'order.paid');
