import type { Config } from '../shared/config.js';
import { catalogOpenApi } from '../catalog/openapi.js';
import { paymentLinksOpenApi } from '../payment-links/openapi.js';
import { simulateOpenApi } from '../webhooks/simulate-openapi.js';
import { buildDocument, selfDescription } from './common.js';
import type { OpenApiDocument, OpenApiFragment } from './types.js';

/** Every component that serves payments paths adds its fragment here. */
const FRAGMENTS: OpenApiFragment[] = [catalogOpenApi, paymentLinksOpenApi, simulateOpenApi];

export function paymentsOpenApi(config: Config): OpenApiDocument {
  return buildDocument(
    {
      info: {
        title: 'Payment links API',
        version: '1.0.0',
        description:
          'Create payment links for offers and subscription plans, follow them, and simulate outcomes in test mode. ' +
          'Authenticate with `Authorization: Bearer vk_test_…` or `vk_live_…`.',
      },
      servers: [{ url: config.urls.payments }],
    },
    [selfDescription('/v1/openapi.json'), ...FRAGMENTS],
  );
}
