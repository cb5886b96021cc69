-- The event engine's sweeps: overdue pending deliveries (lost or late retry jobs) and active links
-- past their expiry (lost expiry jobs). Partial indexes keep both scans proportional to the backlog.
CREATE INDEX deliveries_pending_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX payment_links_active_expiry_idx ON payment_links (expires_at) WHERE status = 'active';
