/** The dashboard's invoice actions: retry an order's invoice, ask the provider about the settings. */
import { Router, type Request, type Response } from 'express';
import type { EventPathCheck } from '../../integrations/filters.js';
import { stringOf } from '../../integrations/kinds/config-values.js';
import { createIntegration, getIntegration, updateIntegration } from '../../integrations/service.js';
import { checkInvoiceSettings, retryInvoice } from '../../invoices/service.js';
import type { AppContext } from '../../shared/context.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { v } from '../../shared/validation/typed.js';
import type { FormProblems } from '../forms.js';
import { dashboardLocale } from '../locale.js';
import { sendPage, type Chrome } from '../page.js';
import { formOf, integrationId, orderCode, pathPart } from '../params.js';
import { changing, companyOf, requireChrome } from '../session-guard.js';
import { INVOICE_TEXT_FIELDS, invoiceFormPage, settingsCheckPage, type InvoiceFormValues } from './views.js';

const text = () => v.string().allow('').max(2000);
const invoiceForm = v
  .object({
    ...Object.fromEntries(INVOICE_TEXT_FIELDS.map((name) => [name, text()])),
    iss_retido: text(),
    issue_after: text(),
  })
  .unknown(true);

/** The form as sent, each value as the page shows it again. */
function valuesOf(req: Request): InvoiceFormValues {
  const sent = formOf(req, invoiceForm) as Record<string, string | undefined>;
  const values = Object.fromEntries(INVOICE_TEXT_FIELDS.map((name) => [name, sent[name] ?? ''])) as Record<
    (typeof INVOICE_TEXT_FIELDS)[number],
    string
  >;
  return {
    ...values,
    iss_retido: sent.iss_retido === 'true',
    issue_after: sent.issue_after === 'guarantee_end' ? 'guarantee_end' : 'paid',
  };
}

/** The config the panel API takes, from the form (the API's schema checks it). */
const configOf = (values: InvoiceFormValues): Record<string, unknown> => ({
  provider: 'focusnfe',
  ...values,
  aliquota: values.aliquota.trim().replace(',', '.'),
});

/** A refused save: each `config.x` problem under its field. */
function problemsOf(err: ValidationError): FormProblems {
  const problems: FormProblems = new Map();
  for (const [field, messages] of Object.entries(err.fields ?? {}))
    problems.set(field.replace(/^config\./, ''), `${field.replace(/^config\./, '')}: ${messages[0] ?? ''}`);
  if (problems.size === 0) problems.set('', err.message);
  return problems;
}

const EMPTY: InvoiceFormValues = {
  token: '',
  cnpj: '',
  inscricao_municipal: '',
  codigo_municipio: '',
  item_lista_servico: '',
  aliquota: '',
  discriminacao: '{product} (pedido {order_code})',
  iss_retido: false,
  issue_after: 'paid',
};

/** The dashboard's invoice pages: the integration's form, retry an order's invoice, check settings. */
export function invoicesRoutes(ctx: AppContext, eventPaths: EventPathCheck): Router {
  const router = Router({ caseSensitive: true });
  const deps = { db: ctx.db, config: ctx.config, eventPaths };
  const refused = (
    res: Response,
    req: Request,
    chrome: Chrome,
    id: number | undefined,
    err: ValidationError,
  ) => {
    const page = dashboardLocale(req);
    const values = { ...valuesOf(req), token: id === undefined ? '' : '••••' };
    sendPage(
      res,
      400,
      page,
      invoiceFormPage(page, chrome, { ...(id ? { id } : {}), values, problems: problemsOf(err) }),
    );
  };

  router.get('/integrations/invoice/new', (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    sendPage(res, 200, page, invoiceFormPage(page, chrome, { values: EMPTY }));
  });

  // Every product is covered; the integration's page links products as for any other type.
  router.post('/integrations/invoice/new', async (req, res) => {
    const chrome = requireChrome(req);
    const values = valuesOf(req);
    try {
      const created = await createIntegration(deps, chrome.principal.companyId, {
        type: 'invoice',
        config: configOf(values),
        events: [],
        send_to_all_products: true,
      });
      res.redirect(303, dashboardLocale(req).href(`/integrations/${created.row.id}/invoice`));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      refused(res, req, chrome, undefined, err);
    }
  });

  router.get('/integrations/:id/invoice', async (req, res) => {
    const chrome = changing(req, res);
    if (!chrome) return;
    const page = dashboardLocale(req);
    const id = pathPart(integrationId(), req.params.id);
    const { row } = await getIntegration(ctx.db, chrome.principal.companyId, id);
    if (row.type !== 'invoice') throw new NotFoundError(`Integration ${id} is not an invoice integration`);
    const c = row.config;
    const values: InvoiceFormValues = {
      ...EMPTY,
      ...Object.fromEntries(INVOICE_TEXT_FIELDS.map((name) => [name, String(c[name] ?? '')])),
      token: '••••',
      iss_retido: c.iss_retido === true,
      issue_after: stringOf(c, 'issue_after') === 'guarantee_end' ? 'guarantee_end' : 'paid',
    };
    sendPage(res, 200, page, invoiceFormPage(page, chrome, { id, values }));
  });

  router.post('/integrations/:id/invoice', async (req, res) => {
    const chrome = requireChrome(req);
    const id = pathPart(integrationId(), req.params.id);
    try {
      await updateIntegration(deps, chrome.principal.companyId, id, { config: configOf(valuesOf(req)) });
      res.redirect(303, dashboardLocale(req).href(`/integrations/${id}/invoice`, { saved: '1' }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      refused(res, req, chrome, id, err);
    }
  });

  // Back to the order's page, which shows the invoice pending again.
  router.post('/orders/:code/invoice/retry', async (req, res) => {
    const code = pathPart(orderCode(), req.params.code).toLowerCase();
    await retryInvoice(ctx, companyOf(req), code);
    res.redirect(303, dashboardLocale(req).href(`/orders/${code}`));
  });

  // A POST (it calls the provider with the stored token), answered with a page of its answer.
  router.post('/integrations/:id/check', async (req, res) => {
    const chrome = requireChrome(req);
    const page = dashboardLocale(req);
    const id = pathPart(integrationId(), req.params.id);
    const check = await checkInvoiceSettings(ctx, chrome.principal.companyId, id);
    sendPage(res, 200, page, settingsCheckPage(page, chrome, id, check));
  });

  return router;
}
