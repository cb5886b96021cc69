import { listEvents } from '../events/repository.js';
import type { EventKind } from '../events/kinds.js';
import type { Db } from '../shared/db/index.js';
import { formatTable } from './table.js';

export interface EventsListOptions {
  companyId: number;
  types: EventKind[];
  since: Date | undefined;
  limit: number;
  /** A table for a person at a terminal; otherwise one JSON body per line, for a pipe. */
  table: boolean;
  out: (line: string) => void;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

/**
 * `cli events list`: the company's events of both modes, newest first, each as its webhooks carried it
 * (the events API's items; an operator sees the live and the test ones).
 */
export async function listCompanyEvents(db: Db, options: EventsListOptions): Promise<number> {
  const found = await listEvents(db, {
    companyId: options.companyId,
    livemode: undefined,
    ...(options.types.length > 0 ? { types: options.types } : {}),
    ...(options.since ? { createdGte: options.since } : {}),
    limit: options.limit,
  });
  // The list reads one row past the limit (to tell whether more follow): not shown here.
  const events = found.slice(0, options.limit);
  if (!options.table) {
    for (const event of events) options.out(JSON.stringify(event));
    return events.length;
  }
  options.out(
    formatTable(
      ['created_at', 'id', 'type', 'mode'],
      events.map((e) => [
        text(e.created_at),
        text(e.id),
        text(e.type),
        e.livemode === true ? 'live' : 'test',
      ]),
    ),
  );
  return events.length;
}
