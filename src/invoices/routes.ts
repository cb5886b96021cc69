import { integrationParams } from '../integrations/schemas.js';
import { orderParams } from '../orders/schemas.js';
import type { AppContext } from '../shared/context.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { panelPrincipal } from '../shared/http/principal.js';
import { errors, json, ref } from '../shared/openapi/builders.js';
import { checkInvoiceSettings, retryInvoice } from './service.js';

/** The panel's invoice actions: retry an order's invoice, check an invoice integration's settings. */
export function invoiceRoutes(ctx: AppContext): Route[] {
  const company = (res: Parameters<typeof panelPrincipal>[0]): number => panelPrincipal(res).companyId;
  return [
    route(
      operation({
        method: 'post',
        path: '/orders/{code}/invoice/retry',
        operationId: 'retryOrderInvoice',
        summary: "Submit an order's failed (or needs_data) invoice again",
        description:
          'After the seller fixed the integration settings (or the buyer data): the invoice goes back to `pending` ' +
          'and is submitted under the same reference, so it is never issued twice. 409 for an invoice that is ' +
          'pending, issued or canceled, and for an order without an invoice; 404 for an order of another company.',
        tags: ['Orders'],
        request: { params: orderParams },
        responses: {
          '200': json(ref('OrderInvoice'), 'The invoice, pending again'),
          ...errors('404', '409'),
        },
      }),
      async ({ params }, res) => {
        res.json(await retryInvoice(ctx, company(res), params.code));
      },
    ),
    route(
      operation({
        method: 'post',
        path: '/integrations/{id}/check',
        operationId: 'checkInvoiceIntegration',
        summary: "Ask the fiscal provider whether an invoice integration's settings can issue",
        description:
          'The provider is asked with the stored token about the municipality (NFS-e active there, the service ' +
          'item known, which buyer data it requires). `ok` false with the reason when not; never a 5xx for the ' +
          "provider's sake.",
        tags: ['Integrations'],
        request: { params: integrationParams },
        responses: {
          '200': json(ref('InvoiceSettingsCheck'), "The provider's answer"),
          ...errors('404', '409'),
        },
      }),
      async ({ params }, res) => {
        res.json(await checkInvoiceSettings(ctx, company(res), params.id));
      },
    ),
  ];
}
