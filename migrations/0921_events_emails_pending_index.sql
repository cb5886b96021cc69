-- migrate: no transaction
-- The e-mail sweep finds the live events whose e-mails were never queued (a relay job lost, a crash
-- between the webhook relay and the e-mail relay) through this index: it holds only the kinds that
-- mail a buyer, and only until their e-mails are queued, so it stays a few rows long. The predicate
-- is repeated word for word by the sweep's query (src/emails/repository.ts). Built CONCURRENTLY: the
-- outbox takes writes while it builds; a build that failed half-way is dropped first.
DROP INDEX CONCURRENTLY IF EXISTS events_emails_pending_idx;
CREATE INDEX CONCURRENTLY events_emails_pending_idx ON events (seq)
  WHERE emails_at IS NULL AND livemode AND NOT test
    AND type IN ('order.created', 'order.paid', 'order.refunded', 'order.abandoned', 'subscription.created',
                 'subscription.renewed', 'subscription.past_due', 'subscription.canceled');
