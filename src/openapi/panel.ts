import type { Config } from '../shared/config.js';
import { catalogPanelOpenApi } from '../catalog/panel-openapi.js';
import { integrationsOpenApi } from '../integrations/openapi.js';
import { keysPanelOpenApi } from '../keys/panel-openapi.js';
import { deliveriesOpenApi } from '../webhooks/deliveries-openapi.js';
import { buildDocument, selfDescription } from './common.js';
import type { OpenApiDocument, OpenApiFragment } from './types.js';

/** Every component that serves panel paths adds its fragment here (paths relative to `{panel_api_url}`). */
const FRAGMENTS: OpenApiFragment[] = [integrationsOpenApi, keysPanelOpenApi, catalogPanelOpenApi, deliveriesOpenApi];

export function panelOpenApi(config: Config): OpenApiDocument {
  return buildDocument(
    {
      info: {
        title: 'Company panel API',
        version: '1.0.0',
        description:
          'Manage integrations (webhook receivers and others), their product links, API keys and the catalog. ' +
          'Authenticate with a panel token (`Authorization: Bearer pt_…`) or, for GET requests, a read-only key.',
      },
      servers: [{ url: config.urls.panel }],
    },
    [selfDescription('/openapi.json'), ...FRAGMENTS],
  );
}
