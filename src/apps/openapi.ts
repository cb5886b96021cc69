import { catalogSchemas } from '../catalog/openapi.js';
import { integrationSchemas } from '../integrations/openapi.js';
import { keySchemas } from '../keys/openapi.js';
import { orderSchemas } from '../orders/openapi.js';
import { paymentLinkSchemas } from '../payment-links/openapi.js';
import type { Config } from '../shared/config.js';
import { operation, route, type Route } from '../shared/http/operation.js';
import { errors, json } from '../shared/openapi/builders.js';
import { buildDocument } from '../shared/openapi/document.js';
import type { JsonSchema, OpenApiDocument } from '../shared/openapi/types.js';
import { simulateSchemas } from '../simulate/openapi.js';
import { eventListSchemas, eventSchemas, eventWebhooks } from './event-payloads.js';
import { deliverySchemas } from '../webhooks/openapi.js';
import { emailSchemas } from '../emails/openapi.js';

/** Every component schema of both documents (the event bodies' parts included). */
export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  ...catalogSchemas,
  ...paymentLinkSchemas,
  ...simulateSchemas,
  ...integrationSchemas,
  ...keySchemas,
  ...deliverySchemas,
  ...orderSchemas,
  ...emailSchemas,
  ...eventSchemas,
  ...eventListSchemas,
};

const RATE_LIMIT_HEADERS: Record<string, JsonSchema> = {
  'RateLimit-Limit': {
    description: 'Requests allowed per minute by the limit closest to running out',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
};

/**
 * The route that serves an API's own OpenAPI document (public). The document lists exactly the
 * routes the app mounts, this one included, so it is built from the same list.
 */
function documentRoute(path: string, operationId: string, build: (self: Route) => OpenApiDocument): Route {
  let doc: OpenApiDocument | undefined;
  const self: Route = route(
    operation({
      method: 'get',
      path,
      operationId,
      summary: 'This OpenAPI 3.1 document (public, no credentials)',
      tags: ['Meta'],
      public: true,
      request: {},
      responses: { '200': json({ type: 'object', required: ['openapi', 'info', 'paths'] }, 'The document') },
    }),
    (_input, res) => {
      doc ??= build(self);
      res.json(doc);
    },
  );
  return self;
}

/** `/v1/openapi.json`: the payments API. */
export function paymentsDocumentRoute(config: Config, routes: Route[]): Route {
  return documentRoute('/v1/openapi.json', 'getPaymentsOpenApi', (self) =>
    buildDocument({
      info: {
        title: 'Payment links API',
        version: '1.0.0',
        description:
          'Create payment links for offers and subscription plans, follow them, and simulate outcomes in test mode. ' +
          'Authenticate with `Authorization: Bearer vk_test_…` or `vk_live_…`. ' +
          'The events sent to webhook integrations are under `webhooks`, one entry per event kind.',
      },
      servers: [{ url: config.urls.payments }],
      routes: [self, ...routes],
      schemas: COMPONENT_SCHEMAS,
      authenticatedResponses: errors('429'),
      successHeaders: RATE_LIMIT_HEADERS,
      webhooks: eventWebhooks(),
    }),
  );
}

/** `{panel_api_url}/openapi.json`: the panel API (paths relative to `{panel_api_url}`). */
export function panelDocumentRoute(config: Config, routes: Route[]): Route {
  return documentRoute('/openapi.json', 'getPanelOpenApi', (self) =>
    buildDocument({
      info: {
        title: 'Company panel API',
        version: '1.0.0',
        description:
          'Manage integrations (webhook receivers and others), their product links, API keys, the catalog, ' +
          'orders (refunds), subscriptions and the e-mails to buyers. ' +
          'Authenticate with a panel token (`Authorization: Bearer pt_…`) or, for GET requests, a read-only key.',
      },
      servers: [{ url: config.urls.panel }],
      routes: [self, ...routes],
      schemas: COMPONENT_SCHEMAS,
      authenticatedResponses: errors('402'),
    }),
  );
}
