-- migrate: no transaction
-- The e-mail sweep's index (0921) again, with `invoice.issued`: an issued service invoice mails the
-- buyer its PDF (docs/email.md, the second `receipt` row). The predicate is repeated word for word by
-- the repository's statements (src/emails/repository.ts). Built CONCURRENTLY under a new name, then the
-- old one dropped: the sweep always has one; a build that failed half-way is dropped first.
DROP INDEX CONCURRENTLY IF EXISTS events_emails_pending_v2_idx;
CREATE INDEX CONCURRENTLY events_emails_pending_v2_idx ON events (seq)
  WHERE emails_at IS NULL AND livemode AND NOT test
    AND type IN ('order.created', 'order.paid', 'order.refunded', 'order.abandoned', 'subscription.created',
                 'subscription.renewed', 'subscription.past_due', 'subscription.canceled', 'invoice.issued');
-- Invoices issued before this migration were never mailed, and are not now (nothing is mailed about
-- the past, as 0920 did for every event then): done. The new index finds them.
UPDATE events SET emails_at = '-infinity'
 WHERE emails_at IS NULL AND livemode AND NOT test AND type = 'invoice.issued';
DROP INDEX CONCURRENTLY IF EXISTS events_emails_pending_idx;
