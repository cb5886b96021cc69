/**
 * The webhook contract as OpenAPI 3.1: the components of every event body and the `webhooks` entries
 * of the payments document. Each payload's schema lives with the code that builds that payload, so a
 * change to one is a change to both; this module only puts them together, one envelope per kind
 * around the `data` of that kind.
 */
import { EVENT_KINDS, isIntegrationEventKind, isInvoiceEventKind } from '../events/kinds.js';
import { envelopeSchema, eventSchemaName } from '../events/outbox.js';
import { accessEventSchemas } from '../orders/access.js';
import { eventDataSchema, orderEventSchemas } from '../orders/payload.js';
import { invoiceSchemas } from '../invoices/payload.js';
import { ref } from '../shared/openapi/builders.js';
import { purchaseEventSchemas } from '../payment-links/purchase-data.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import { integrationEventDataSchema, integrationEventSchemas } from '../webhooks/integration-events.js';

export { eventSchemaName } from '../events/outbox.js';
export { eventWebhooks } from '../webhooks/openapi.js';

/** Component schemas of the event bodies: the parts their builders describe, and one envelope per kind. */
export const eventSchemas: Record<string, JsonSchema> = {
  ...purchaseEventSchemas,
  ...orderEventSchemas,
  ...accessEventSchemas,
  ...integrationEventSchemas,
  ...invoiceSchemas,
  ...Object.fromEntries(
    EVENT_KINDS.map((kind) => [
      eventSchemaName(kind),
      envelopeSchema(
        kind,
        isIntegrationEventKind(kind)
          ? integrationEventDataSchema
          : isInvoiceEventKind(kind)
            ? ref('InvoiceEventData')
            : eventDataSchema(kind),
      ),
    ]),
  ),
};
