-- Custom headers of webhook integrations: name → value sealed under CREDENTIALS_ENCRYPTION_KEY
-- (src/integrations/custom-headers.ts), so a dump or a backup holds no usable value. Null: none.
ALTER TABLE integrations ADD COLUMN headers jsonb;
