import { expect } from 'chai';
import fc from 'fast-check';
import { fuzzConfig } from './config.js';
import { selectedOperations, type ApiDocument, type ApiName, type Operation } from './documents.js';
import { requestArbitrary } from './generate.js';
import { judgeValid } from './oracle.js';
import { probe } from './probe.js';
import { referencesOf } from './references.js';
import { ProblemLog } from './report.js';
import { resolveRequest, toRawRequest } from './request.js';
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
 * Valid mode: for every operation of both documents, requests the
 * document allows. Each answer must be a listed status with a matching body, never a 5xx, and a
 * refusal only for data the document cannot know (see references.ts).
 */
async function fuzzValid(
  w: FuzzWorld,
  tenant: FuzzTenant,
  doc: ApiDocument,
  op: Operation,
): Promise<ProblemLog> {
  const log = new ProblemLog();
  const arb = requestArbitrary(op, referencesOf(op));
  await runProperty(`valid ${op.id}`, arb, fuzzConfig.valid, log, async (generated) => {
    const resolved = await resolveRequest(op, generated, tenant.pools);
    const refusal = w.validator.requestRefusal(op, resolved.values);
    if (refusal) {
      log.skip(refusal);
      fc.pre(false);
    }
    const raw = toRawRequest(resolved, tenant.credentials);
    await probe(w, tenant, doc, op, raw, log, {
      judge: (res, report) => judgeValid(op, resolved.used, resolved.values.path, res, tenant.pools, report),
    });
  });
  if (log.skipped > log.requests) {
    console.log(
      `      ${op.id}: ${log.skipped} generated requests skipped (not allowed by the document after resolution):`,
    );
    for (const [reason, count] of log.skipReasons) console.log(`        ${count}× ${reason}`);
  }
  return log;
}

describe('OpenAPI fuzz: requests the documents allow', function () {
  this.timeout(180_000);
  let w: FuzzWorld;
  const operations: Operation[] = [];

  before(async function () {
    w = await fuzzWorld();
    const tenants: Record<ApiName, FuzzTenant> = { payments: await newTenant(w), panel: await newTenant(w) };
    await giveDeliveries(tenants.panel);
    await giveOrders(w, tenants.panel);
    for (const api of ['payments', 'panel'] as const) {
      // Deletions last, so the data the other operations reference is still there when they run.
      const ops = selectedOperations(w.docs[api], fuzzConfig.only);
      for (const op of [
        ...ops.filter((o) => o.method !== 'DELETE'),
        ...ops.filter((o) => o.method === 'DELETE'),
      ]) {
        operations.push(op);
        addFuzzTest(this.test?.parent, `${op.id} (${op.method} ${op.fullTemplate})`, 120_000, () =>
          fuzzValid(w, tenants[api], w.docs[api], op),
        );
      }
    }
  });

  it('both documents describe operations, and every x-references names a listing operation of them', () => {
    expect(w.docs.payments.operations.length).to.be.greaterThan(0);
    expect(w.docs.panel.operations.length).to.be.greaterThan(0);
    const all = [...w.docs.payments.operations, ...w.docs.panel.operations];
    const stale: string[] = [];
    let marked = 0;
    for (const op of all) {
      for (const ref of referencesOf(op)) {
        marked += 1;
        const target = ref.spec.operationId;
        if (target === undefined) continue;
        const listing = all.find((o) => o.id === target);
        if (!listing) stale.push(`${op.id} ${ref.location}.${ref.field}: no operation ${target}`);
        else if (listing.method !== 'GET')
          stale.push(`${op.id} ${ref.location}.${ref.field}: ${target} is not a GET`);
      }
    }
    expect(stale, 'x-references out of date').to.deep.equal([]);
    // The id, code and cursor fields of both APIs are marked; losing the marks would blind the suite.
    expect(marked).to.be.greaterThan(25);
  });
});
