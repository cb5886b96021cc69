/**
 * The config of an `invoice` integration (docs/invoices.md): the fiscal provider, the company's API
 * token there (sealed, never in `config`), who issues (CNPJ, municipal registration, municipality),
 * what is invoiced (service item, ISS rate and withholding, the description template) and when.
 */
import { references } from '../../../shared/validation/references.js';
import { v } from '../../../shared/validation/typed.js';
import { SECRET_MASK } from '../sealed.js';

export const INVOICE_PROVIDERS = ['focusnfe'] as const;
export const ISSUE_AFTER = ['paid', 'guarantee_end'] as const;
export type IssueAfter = (typeof ISSUE_AFTER)[number];

/** The placeholders a description template may use. */
export const TEMPLATE_PLACEHOLDERS = ['{product}', '{order_code}'] as const;
export const DEFAULT_DESCRIPTION = '{product} (pedido {order_code})';

const template = () =>
  v
    .string()
    .trim()
    .min(1)
    .max(1000)
    .custom((value: string, helpers) => {
      const unknown = (value.match(/\{[^}]*\}/g) ?? []).filter(
        (p) => !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(p),
      );
      return unknown.length === 0
        ? value
        : helpers.message({
            custom: `has an unknown placeholder ${unknown.join(', ')} (known: ${TEMPLATE_PLACEHOLDERS.join(', ')})`,
          });
    })
    .description(
      `The service description on each invoice; ${TEMPLATE_PLACEHOLDERS.join(' and ')} are filled in`,
    );

/** `keep`: the token may be the mask, standing for the stored one (updates). */
const invoiceFields = (keep: boolean) => ({
  provider: v.required(v.enum(INVOICE_PROVIDERS)).description('The fiscal provider: `focusnfe` (Focus NFe)'),
  token: v
    .required(
      v
        .string()
        .min(keep ? 1 : 8)
        .max(200)
        .pattern(keep ? /^(?:[\x21-\x7e]{8,200}|••••)$/ : /^[\x21-\x7e]+$/)
        .messages({ 'string.pattern.base': 'must be the API token the provider gave (visible ASCII)' }),
    )
    .description(
      `The company's API token at the provider; stored encrypted and shown as "${SECRET_MASK}" ` +
        `(send "${SECRET_MASK}" back to keep it)`,
    )
    .meta(references({})),
  cnpj: v
    .required(v.string().pattern(/^\d{14}$/))
    .messages({ 'string.pattern.base': 'must be the 14 digits of the issuing CNPJ' })
    .description('CNPJ of the issuing company (the prestador), 14 digits'),
  inscricao_municipal: v
    .required(v.string().pattern(/^[0-9A-Za-z.\-/]{1,20}$/))
    .messages({ 'string.pattern.base': 'must be the municipal registration (up to 20 letters and digits)' })
    .description('Municipal registration of the issuing company'),
  codigo_municipio: v
    .required(v.string().pattern(/^\d{7}$/))
    .messages({ 'string.pattern.base': 'must be the 7-digit IBGE code of the municipality' })
    .description("IBGE code of the issuing company's municipality (where the service is provided)"),
  item_lista_servico: v
    .required(v.string().pattern(/^\d[\d.]{0,9}$/))
    .messages({ 'string.pattern.base': 'must be a service item code such as 0802, 08.02 or 010701' })
    .description('The service item: the LC 116/2003 list code, or the national service code'),
  aliquota: v.required(v.number().min(0).max(5)).description('ISS rate, in percent (0 to 5)'),
  iss_retido: v.defaulted(v.boolean(), false).description('Whether the buyer withholds the ISS'),
  discriminacao: v.defaulted(template(), DEFAULT_DESCRIPTION),
  // Optional (left out of the answer when not sent): the interface spec's config keeps its shape.
  webhook: v
    .strictBoolean()
    .description(
      "`true`: register the provider's webhook, so its answer arrives at once (polling goes on as the " +
        'safety net); docs/invoices.md',
    ),
  issue_after: v
    .defaulted(v.enum(ISSUE_AFTER), 'paid')
    .description(
      '`paid`: issue once the order is paid; `guarantee_end`: once its guarantee period ends unrefunded',
    ),
});

export const invoiceConfigOfCreate = v.object(invoiceFields(false));
export const invoiceConfig = v.object(invoiceFields(true));
