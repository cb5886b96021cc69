import { EVENT_KINDS } from '../events/kinds.js';
import type { EventPathCheck } from '../integrations/filters.js';
import { ref } from '../shared/openapi/builders.js';
import { scalarAt } from '../shared/openapi/schema-paths.js';
import { eventSchemaName } from './event-payloads.js';
import { COMPONENT_SCHEMAS } from './openapi.js';

const known = new Map<string, boolean>();

/**
 * Whether some event kind's body (its schema under the payments document's `webhooks`) can hold a
 * string, number or boolean at a dotted path: what a webhook filter may name. Answers are kept, as
 * the schemas never change while the process runs.
 */
export const eventFilterPaths: EventPathCheck = (path) => {
  let found = known.get(path);
  if (found === undefined) {
    const segments = path.split('.');
    found = EVENT_KINDS.some((kind) => scalarAt(COMPONENT_SCHEMAS, ref(eventSchemaName(kind)), segments));
    if (known.size < 10_000) known.set(path, found);
  }
  return found;
};
