/** Every statement about the providers' webhooks of invoice integrations (invoice_hooks, migration 0952). */
import { sql } from 'drizzle-orm';
import type { Executor } from '../shared/db/index.js';

export interface InvoiceHookRow {
  integrationId: number;
  companyId: number;
  providerHookId: string;
  url: string;
  cnpj: string;
  authorizationHash: Buffer;
}

type RawHook = {
  integration_id: number;
  company_id: string | number;
  provider_hook_id: string;
  url: string;
  cnpj: string;
  authorization_hash: Buffer;
};

const toRow = (r: RawHook): InvoiceHookRow => ({
  integrationId: r.integration_id,
  companyId: Number(r.company_id),
  providerHookId: r.provider_hook_id,
  url: r.url,
  cnpj: r.cnpj,
  authorizationHash: r.authorization_hash,
});

export async function findInvoiceHook(
  db: Executor,
  integrationId: number,
): Promise<InvoiceHookRow | undefined> {
  const result = await db.execute<RawHook>(sql`
    SELECT * FROM invoice_hooks WHERE integration_id = ${integrationId}`);
  const row = result.rows[0];
  return row ? toRow(row) : undefined;
}

/** Records the hook the provider registered for an integration (replacing an older one). */
export async function saveInvoiceHook(db: Executor, hook: InvoiceHookRow): Promise<void> {
  await db.execute(sql`
    INSERT INTO invoice_hooks (integration_id, company_id, provider_hook_id, url, cnpj, authorization_hash)
    VALUES (${hook.integrationId}, ${hook.companyId}, ${hook.providerHookId}, ${hook.url}, ${hook.cnpj},
            ${hook.authorizationHash})
    ON CONFLICT (integration_id) DO UPDATE
      SET provider_hook_id = EXCLUDED.provider_hook_id, url = EXCLUDED.url, cnpj = EXCLUDED.cnpj,
          authorization_hash = EXCLUDED.authorization_hash, created_at = clock_timestamp()`);
}
