/**
 * Registering the provider's webhook of an invoice integration configured with `webhook: true`
 * (docs/invoices.md, "The provider's webhook"): at its first submission, and again when its CNPJ or
 * our address changed. Focus NFe sends the `authorization` we give back in the Authorization header of
 * each notice ("Gatilhos / Webhooks", field `authorization`): a random secret of ours, of which only
 * the SHA-256 is kept. A failure is logged and never stops the invoice: polling answers anyway.
 */
import { createHash, randomBytes } from 'node:crypto';
import { wantsHook, type InvoiceProvider, type IssuerSettings } from '../integrations/kinds/invoice/index.js';
import type { IntegrationRow } from '../integrations/repository.js';
import type { AppContext } from '../shared/context.js';
import { findInvoiceHook, saveInvoiceHook } from './hooks-repository.js';

/** Where Focus NFe's notices arrive, under `{checkout_url}`; the integration's id follows. */
export const FOCUSNFE_NOTICES_PATH = '/invoices/focusnfe/notifications';

export const hookUrl = (config: Pick<AppContext['config'], 'urls'>, integrationId: number): string =>
  `${config.urls.checkout}${FOCUSNFE_NOTICES_PATH}/${integrationId}`;

/** What is kept of a notice secret, and what a notice's header is compared with. */
export const secretDigest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

type Deps = Pick<AppContext, 'db' | 'config' | 'logger'>;

/** Registers the integration's hook when it asks for one and has none for its CNPJ and our address. */
export async function ensureHook(
  ctx: Deps,
  provider: InvoiceProvider,
  settings: IssuerSettings,
  integration: Pick<IntegrationRow, 'id' | 'companyId' | 'config'>,
): Promise<void> {
  if (!wantsHook(integration.config)) return;
  const url = hookUrl(ctx.config, integration.id);
  const known = await findInvoiceHook(ctx.db, integration.id);
  if (known && known.url === url && known.cnpj === settings.cnpj) return;
  const log = { integrationId: integration.id };
  try {
    // The old one first (another CNPJ, another address): its notices would fail our check anyway.
    if (known) await provider.removeHook(settings, known.providerHookId);
    const authorization = randomBytes(32).toString('base64url');
    const providerHookId = await provider.registerHook(settings, url, authorization);
    await saveInvoiceHook(ctx.db, {
      integrationId: integration.id,
      companyId: integration.companyId,
      providerHookId,
      url,
      cnpj: settings.cnpj,
      authorizationHash: secretDigest(authorization),
    });
    ctx.logger.info(log, "registered the invoice provider's webhook");
  } catch (err) {
    ctx.logger.warn(
      { ...log, err },
      "could not register the invoice provider's webhook; polling answers instead",
    );
  }
}
