/** How an integration's receiver has been answering lately: its attempts in a recent window. */
import { and, count, gte, inArray, sql } from 'drizzle-orm';
import { schema, type Executor } from '../../shared/db/index.js';

const { deliveryAttempts } = schema;

export interface AttemptCounts {
  integrationId: number;
  attempts: number;
  /** Attempts the receiver answered with a 2xx. */
  succeeded: number;
}

/** Attempts per integration since `since` (one grouped read over the integration-time index). */
export async function attemptCountsSince(
  db: Executor,
  integrationIds: number[],
  since: Date,
): Promise<AttemptCounts[]> {
  if (integrationIds.length === 0) return [];
  return db
    .select({
      integrationId: deliveryAttempts.integrationId,
      attempts: count(),
      succeeded:
        sql<number>`count(*) FILTER (WHERE ${deliveryAttempts.statusCode} BETWEEN 200 AND 299)`.mapWith(
          Number,
        ),
    })
    .from(deliveryAttempts)
    .where(
      and(inArray(deliveryAttempts.integrationId, integrationIds), gte(deliveryAttempts.requestedAt, since)),
    )
    .groupBy(deliveryAttempts.integrationId);
}
