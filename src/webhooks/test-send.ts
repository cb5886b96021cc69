import { exampleEventData } from '../events/examples.js';
import type { EventKind } from '../events/kinds.js';
import { envelopeOf } from '../events/outbox.js';
import { kindOf } from '../integrations/kinds/registry.js';
import { openedHeaders } from '../integrations/kinds/webhook/index.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { newEventId } from '../shared/ids.js';
import { findSendTarget } from './repository/delivery-log.js';

export interface TestSendResult {
  event_id: string;
  type: EventKind;
  success: boolean;
  status: number | null;
  duration_ms: number;
}

/**
 * A test send (docs/api.md, "Webhook operations"): one signed example event of `kind`, marked `test`
 * and `sandbox` with a synthetic order, sent now to this integration only, through the same URL
 * guard and signer as a real delivery (during a rotation it carries both signatures). It is not an
 * event of the company: nothing is written to the outbox or the delivery log, and nothing retries.
 * An inactive integration can be tested, so a receiver can be checked before it is re-enabled.
 */
export async function sendTestEvent(
  ctx: AppContext,
  companyId: number,
  integrationId: number,
  kind: EventKind,
): Promise<TestSendResult> {
  const target = await findSendTarget(ctx.db, companyId, integrationId);
  if (!target) throw new NotFoundError(`No integration ${integrationId} in this company`);
  const { testSends, destination } = kindOf(target.type);
  if (!testSends || !destination) {
    throw new ConflictError(`An integration of type ${target.type} does not receive webhooks`);
  }
  const id = newEventId();
  const envelope = envelopeOf(
    id,
    { type: kind, livemode: false, test: true, data: exampleEventData(kind, { simulated: true }) },
    new Date(),
  );
  if (openedHeaders(ctx.config, target) === undefined)
    throw new ConflictError('A custom header of this integration does not decrypt: set its value again');
  const result = await destination.attempt(ctx, target, { id, payload: envelope, traceContext: null });
  return {
    event_id: id,
    type: kind,
    success: result.ok,
    status: result.statusCode,
    duration_ms: result.durationMs,
  };
}
