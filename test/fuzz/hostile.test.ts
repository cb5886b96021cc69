import fc from 'fast-check';
import { fuzzConfig } from './config.js';
import { selectedOperations, type ApiDocument, type ApiName, type Operation } from './documents.js';
import { requestArbitrary } from './generate.js';
import { BODY_LIMIT_BYTES, mutationArbitrary, mutationsOf, type Expectation } from './hostile.js';
import { judgeHostile } from './oracle.js';
import { probe } from './probe.js';
import type { RawRequest } from './raw-http.js';
import { referencesOf } from './references.js';
import { ProblemLog } from './report.js';
import { resolveRequest } from './request.js';
import { addFuzzTest, runProperty } from './runner.js';
import {
  fuzzWorld,
  giveDeliveries,
  giveOrders,
  newTenant,
  type FuzzTenant,
  type FuzzWorld,
} from './world.js';

/**
 * Hostile mode (docs/api.md, "Requests and errors"): a request the document allows with one
 * hostile change. Never a 5xx, always the error envelope and a documented status, the status the
 * request rules give for that kind of input, and a refused request leaves no row behind.
 */
async function fuzzHostile(
  w: FuzzWorld,
  tenant: FuzzTenant,
  doc: ApiDocument,
  op: Operation,
): Promise<ProblemLog> {
  const log = new ProblemLog();
  const mutations = mutationsOf(op, w.validator);
  const arb = fc.tuple(requestArbitrary(op, referencesOf(op)), mutationArbitrary(mutations));
  await runProperty(`hostile ${op.id}`, arb, fuzzConfig.hostile, log, async ([generated, mutation]) => {
    const resolved = await resolveRequest(op, generated, tenant.pools);
    const refusal = w.validator.requestRefusal(op, resolved.values);
    if (refusal) {
      log.skip(refusal);
      fc.pre(false);
    }
    let raw: RawRequest;
    try {
      raw = mutation.apply(resolved, tenant.credentials);
    } catch (err) {
      // A base value the mutation cannot be written into (a URL cannot carry a lone surrogate).
      log.skip(`${mutation.kind}: ${err instanceof Error ? err.message : String(err)}`);
      fc.pre(false);
      return;
    }
    const size = raw.body === undefined ? 0 : Buffer.byteLength(raw.body);
    // Whatever else is wrong with it, a body over the limit is refused for its size first.
    const expect: Expectation =
      size > BODY_LIMIT_BYTES && !raw.headers?.['content-encoding']
        ? { kind: 'statuses', statuses: [413], why: 'a body over the limit is 413' }
        : mutation.expect;
    await probe(w, tenant, doc, op, raw, log, {
      context: `${mutation.target}: ${mutation.kind}`,
      ...(expect.kind === 'statuses' && expect.bareStatuses ? { bareStatuses: expect.bareStatuses } : {}),
      judge: (res, report) => judgeHostile(op, expect, res, report),
    });
  });
  return log;
}

describe('OpenAPI fuzz: hostile requests', function () {
  this.timeout(180_000);

  before(async function () {
    const w = await fuzzWorld();
    const tenants: Record<ApiName, FuzzTenant> = { payments: await newTenant(w), panel: await newTenant(w) };
    await giveDeliveries(tenants.panel);
    await giveOrders(w, tenants.panel);
    for (const api of ['payments', 'panel'] as const) {
      const ops = selectedOperations(w.docs[api], fuzzConfig.only);
      for (const op of [
        ...ops.filter((o) => o.method !== 'DELETE'),
        ...ops.filter((o) => o.method === 'DELETE'),
      ]) {
        addFuzzTest(this.test?.parent, `${op.id} (${op.method} ${op.fullTemplate})`, 150_000, () =>
          fuzzHostile(w, tenants[api], w.docs[api], op),
        );
      }
    }
  });

  it('has operations to attack', async () => {
    const w = await fuzzWorld();
    if (w.docs.payments.operations.length + w.docs.panel.operations.length === 0)
      throw new Error('no operations in the documents');
  });
});
