import type { NewEvent } from '../events/outbox.js';
import type { IntegrationEventKind } from '../events/kinds.js';
import { WEBHOOK_KIND_TYPES } from '../integrations/kinds/types.js';
import { dateTime, nullable, ref } from '../shared/openapi/builders.js';
import type { JsonSchema } from '../shared/openapi/types.js';
import type { BreakerCrossing } from './repository/attempts.js';

/** The host of a receiver's URL, the only part of it an operational event shows. */
function hostOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/**
 * The operational events of an integration whose breaker count crossed a mark: `integration.failing`
 * at half the threshold (once per streak), `integration.disabled` when the breaker opened. They carry
 * the integration's id, type, URL host and breaker state, never its secret or full URL, and are
 * routed to the company's other integrations (the fan-out leaves out the one they describe).
 */
export function breakerEvents(crossing: BreakerCrossing): NewEvent[] {
  const kinds: IntegrationEventKind[] = [
    ...(crossing.failing ? (['integration.failing'] as const) : []),
    ...(crossing.disabled ? (['integration.disabled'] as const) : []),
  ];
  return kinds.map((type) => ({
    companyId: crossing.companyId,
    type,
    // An integration receives both modes' events; its health is a fact of the live account.
    livemode: true,
    test: false,
    productId: null,
    subjectIntegrationId: crossing.integrationId,
    data: {
      integration: {
        id: crossing.integrationId,
        type: crossing.type,
        url_host: hostOf(crossing.url),
        failure_count: crossing.failureCount,
        last_failure_at: crossing.lastFailureAt?.toISOString() ?? null,
        disabled_reason: crossing.disabledReason,
      },
    },
  }));
}

/** The schema of the `data` `breakerEvents` builds (a component of the payments document). */
export const integrationEventSchemas: Record<string, JsonSchema> = {
  IntegrationEventData: {
    type: 'object',
    additionalProperties: false,
    required: ['integration'],
    properties: {
      integration: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type', 'url_host', 'failure_count', 'last_failure_at', 'disabled_reason'],
        description: 'The integration the event describes: its health, never its secret or full URL',
        properties: {
          id: { type: 'integer' },
          type: { type: 'string', enum: [...WEBHOOK_KIND_TYPES] },
          url_host: {
            ...nullable({ type: 'string' }),
            description: 'The host (and port) of its `config.url`',
          },
          failure_count: { type: 'integer', minimum: 1, description: 'Consecutive failed attempts' },
          last_failure_at: nullable(dateTime),
          disabled_reason: { type: 'string', enum: ['', 'auto_disabled'] },
        },
      },
    },
  },
};

/** The schema of `data` of every integration event. */
export const integrationEventDataSchema: JsonSchema = ref('IntegrationEventData');
