/**
 * The `invoice` kind: a fiscal provider that issues an NFS-e for each paid order of the products the
 * integration covers, and cancels it on a refund or chargeback (docs/invoices.md). Issuing is not a
 * webhook delivery: the invoice job (src/invoices/) does it on a queue of its own, fed by the outbox
 * relay. `receives: live`: only live sales are ever invoiced, so a test-mode order never reaches the
 * provider. Its API token is sealed in the `secrets` group and masked in every answer.
 */
import type { Config } from '../../../shared/config.js';
import { checkedAgainst, stringOf } from '../config-values.js';
import type { IntegrationKind, KindRow, StoredConfig } from '../kind.js';
import { maskedValues, openValues } from '../sealed.js';
import { invoiceConfig, invoiceConfigOfCreate, type IssueAfter } from './config.js';
import { focusNfeProvider } from './focusnfe.js';
import type { InvoiceProvider, IssuerSettings } from './provider.js';

export type {
  InvoiceAnswer,
  InvoiceDraft,
  InvoiceNotice,
  InvoiceProvider,
  IssuerSettings,
  SettingsCheck,
} from './provider.js';
export { ProviderRefusedError } from './provider.js';
export { TEMPLATE_PLACEHOLDERS } from './config.js';

/** The provider an integration's config names (one so far). */
export const invoiceProviderOf = (config: Pick<Config, 'focusNfe'>): InvoiceProvider =>
  focusNfeProvider(config.focusNfe);

/** Whether an integration asked for the provider's webhook (polling goes on either way). */
export const wantsHook = (config: StoredConfig): boolean => config.webhook === true;

/** When an integration issues: at payment, or at the end of the guarantee period. */
export const issueAfterOf = (config: StoredConfig): IssueAfter =>
  config.issue_after === 'guarantee_end' ? 'guarantee_end' : 'paid';

/** The description of one invoice, from the integration's template. */
export const describe = (config: StoredConfig, product: string, orderCode: string): string =>
  (stringOf(config, 'discriminacao') ?? '{product}')
    .replaceAll('{product}', product)
    .replaceAll('{order_code}', orderCode)
    .slice(0, 2000);

/**
 * The issuer's settings with the token opened, or undefined when it does not open (another
 * CREDENTIALS_ENCRYPTION_KEY): nothing can be sent then.
 */
export function issuerSettings(
  config: Pick<Config, 'credentialsKey'>,
  row: Pick<KindRow, 'id' | 'config' | 'secrets'>,
): IssuerSettings | undefined {
  let token: string | undefined;
  try {
    token = openValues(config.credentialsKey, row.id, 'secrets', row.secrets).token;
  } catch {
    return undefined;
  }
  if (!token) return undefined;
  const c = row.config;
  return {
    token,
    cnpj: stringOf(c, 'cnpj') ?? '',
    inscricaoMunicipal: stringOf(c, 'inscricao_municipal') ?? '',
    codigoMunicipio: stringOf(c, 'codigo_municipio') ?? '',
    itemListaServico: stringOf(c, 'item_lista_servico') ?? '',
    aliquota: typeof c.aliquota === 'number' ? c.aliquota : Number(c.aliquota ?? 0),
    issRetido: c.iss_retido === true,
  };
}

export const invoiceKind: IntegrationKind = {
  types: ['invoice'],
  createConfig: invoiceConfigOfCreate,
  updateConfig: invoiceConfig,
  /** The config checked by its own schema; the token goes to the sealed `secrets` group. */
  async check(_deps, { type, config }) {
    // The mask keeps the stored token (a 400 naming config.token where there is none to keep).
    const { token, ...clear } = checkedAgainst(invoiceConfig, type, config);
    return { config: clear, sealed: { secrets: { token } }, receives: 'live' };
  },
  present(row) {
    // Masked for every caller, owners included: the token is never shown again once stored.
    return { ...row.config, ...maskedValues(row.secrets) };
  },
  filterable: false,
  rotatesSecret: false,
  testSends: false,
};
