import { exampleEventData } from '../events/examples.js';
import type { EventKind } from '../events/kinds.js';
import { envelopeOf, webhookBody } from '../events/outbox.js';
import { WEBHOOK_KIND_TYPES } from '../integrations/types.js';
import type { AppContext } from '../shared/context.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { newEventId } from '../shared/ids.js';
import { customHeadersOf } from './attempt.js';
import { postWebhook } from './http-client.js';
import { findSendTarget } from './repository/delivery-log.js';

export interface TestSendResult {
  event_id: string;
  type: EventKind;
  success: boolean;
  status: number | null;
  duration_ms: number;
}

const WEBHOOK_KINDS = new Set<string>(WEBHOOK_KIND_TYPES);

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
  if (!WEBHOOK_KINDS.has(target.integrationType) || !target.url) {
    throw new ConflictError(`An integration of type ${target.integrationType} does not receive webhooks`);
  }
  const id = newEventId();
  const envelope = envelopeOf(
    id,
    { type: kind, livemode: false, test: true, data: exampleEventData(kind, { simulated: true }) },
    new Date(),
  );
  const headers = customHeadersOf(ctx, integrationId, target);
  if (headers === undefined)
    throw new ConflictError('A custom header of this integration does not decrypt: set its value again');
  const result = await postWebhook(
    ctx.config,
    { url: target.url, secrets: target.secrets, headers },
    id,
    webhookBody(envelope),
  );
  return {
    event_id: id,
    type: kind,
    success: result.ok,
    status: result.statusCode,
    duration_ms: result.durationMs,
  };
}
