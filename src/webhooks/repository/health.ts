/** How an integration's receiver has been answering lately: its attempts in a recent window. */
import { and, count, eq, gte, inArray, sql, type SQL } from 'drizzle-orm';
import { schema, type Executor } from '../../shared/db/index.js';

const { deliveryAttempts, integrations } = schema;

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
  return countsWhere(db, inArray(deliveryAttempts.integrationId, integrationIds), since);
}

/**
 * The same for every integration of a company, its ids read in the same statement: the list page
 * sends it beside the list of integrations instead of after it.
 */
export function companyAttemptCountsSince(
  db: Executor,
  companyId: number,
  since: Date,
): Promise<AttemptCounts[]> {
  const own = db
    .select({ id: integrations.id })
    .from(integrations)
    .where(eq(integrations.companyId, companyId));
  return countsWhere(db, inArray(deliveryAttempts.integrationId, own), since);
}

function countsWhere(db: Executor, which: SQL, since: Date): Promise<AttemptCounts[]> {
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
    .where(and(which, gte(deliveryAttempts.requestedAt, since)))
    .groupBy(deliveryAttempts.integrationId);
}
