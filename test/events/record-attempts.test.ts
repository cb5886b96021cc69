import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { recordEvent } from '../../src/events/outbox.js';
import { schema } from '../../src/shared/db/index.js';
import type { AttemptResult } from '../../src/integrations/kinds/kind.js';
import {
  attemptKey,
  recordAttempts,
  recordAttemptsStatement,
  type AttemptRecord,
} from '../../src/webhooks/repository/attempts.js';
import { fanOutEvents } from '../../src/webhooks/repository/fan-out.js';
import { seed, sharedApp } from '../helpers/app.js';
import { createIntegration, integration } from './helpers.js';

const result = (ok: boolean): AttemptResult => ({
  requestedAt: new Date(),
  durationMs: 3,
  statusCode: ok ? 200 : 500,
  error: ok ? null : 'HTTP 500',
  responseBody: '',
  retryAfterSeconds: null,
  ok,
  requestHeaders: { 'content-type': 'application/json' },
  requestBody: '{}',
});

/** A first attempt of each delivery, answered 200. */
const firstAttemptsSucceeded = (targets: Array<AttemptRecord['delivery']>): AttemptRecord[] =>
  targets.map((delivery) => ({
    delivery,
    attempt: 1,
    result: result(true),
    status: 'succeeded',
    nextAttemptAt: null,
  }));

describe('recording a batch of attempts', function () {
  async function deliveries(
    count: number,
  ): Promise<{ integrationId: number; targets: Array<AttemptRecord['delivery']> }> {
    const app = await sharedApp();
    const tenant = await seed();
    const integrationId = await createIntegration(app, tenant, {
      url: 'http://127.0.0.1:9/hook',
      events: ['lead.created'],
    });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const event = await recordEvent(app.ctx.db, {
        companyId: tenant.company.id,
        type: 'lead.created',
        livemode: false,
        test: false,
        productId: null,
        data: {},
      });
      ids.push(event.id);
    }
    await fanOutEvents(app.ctx.db, ids);
    const rows = await app.ctx.db
      .select()
      .from(schema.deliveries)
      .where(sql`${schema.deliveries.integrationId} = ${integrationId}`)
      .orderBy(schema.deliveries.id);
    return { integrationId, targets: rows.map((r) => ({ id: r.id, eventId: r.eventId, integrationId })) };
  }

  it('counts consecutive failures in completion order: a success in the batch resets the count before later failures', async () => {
    const app = await sharedApp();
    const { integrationId, targets } = await deliveries(3);
    await app.ctx.db.execute(sql`UPDATE integrations SET failure_count = 4 WHERE id = ${integrationId}`);
    const [a, b, c] = targets;
    if (!a || !b || !c) throw new Error('expected three deliveries');
    const recorded = await recordAttempts(
      app.ctx.db,
      [
        { delivery: a, attempt: 1, result: result(false), status: 'failed', nextAttemptAt: null },
        { delivery: b, attempt: 1, result: result(true), status: 'succeeded', nextAttemptAt: null },
        { delivery: c, attempt: 1, result: result(false), status: 'failed', nextAttemptAt: null },
      ],
      5,
    );
    expect(recorded.attempts.size).to.equal(3);
    expect(await integration(app.ctx.db, integrationId)).to.include({ failureCount: 1, isActive: true });
  });

  it('opens the breaker when a batch of failures reaches the threshold, and records a duplicate attempt once', async () => {
    const app = await sharedApp();
    const { integrationId, targets } = await deliveries(5);
    const records = targets.map((delivery) => ({
      delivery,
      attempt: 1,
      result: result(false),
      status: 'failed' as const,
      nextAttemptAt: null,
    }));
    const first = records[0];
    if (!first) throw new Error('expected deliveries');
    const recorded = await recordAttempts(app.ctx.db, [...records, first], 5);
    expect(recorded.attempts.size).to.equal(5);
    expect(recorded.attempts.get(attemptKey(first.delivery.id, 1))).to.include({
      failureCount: 5,
      breakerOpened: true,
    });
    expect(await integration(app.ctx.db, integrationId)).to.include({
      failureCount: 5,
      isActive: false,
      disabledReason: 'auto_disabled',
    });
    const again = await recordAttempts(app.ctx.db, [first], 5);
    expect(again.attempts.size).to.equal(0);
    expect((await integration(app.ctx.db, integrationId)).failureCount).to.equal(5);
  });

  it('records no attempt for a delivery that is gone, and deleting deliveries deletes their attempts', async () => {
    const app = await sharedApp();
    const { integrationId, targets } = await deliveries(3);
    const [kept, gone, third] = targets;
    if (!kept || !gone || !third) throw new Error('expected three deliveries');
    await app.ctx.db.execute(sql`DELETE FROM deliveries WHERE id = ${gone.id}`);
    const recorded = await recordAttempts(app.ctx.db, firstAttemptsSucceeded([kept, gone, third]), 5);
    expect([...recorded.attempts.keys()].sort()).to.deep.equal(
      [attemptKey(kept.id, 1), attemptKey(third.id, 1)].sort(),
    );
    const attemptsOf = async (): Promise<number[]> =>
      (
        await app.ctx.db.execute<{ delivery_id: string }>(
          sql`SELECT delivery_id FROM delivery_attempts WHERE integration_id = ${integrationId} ORDER BY delivery_id`,
        )
      ).rows.map((r) => Number(r.delivery_id));
    expect(await attemptsOf()).to.deep.equal([kept.id, third.id]);
    // As ON DELETE CASCADE did: a delivery deleted on its own, and those an integration's deletion takes.
    await app.ctx.db.execute(sql`DELETE FROM deliveries WHERE id = ${kept.id}`);
    expect(await attemptsOf()).to.deep.equal([third.id]);
    await app.ctx.db.execute(sql`DELETE FROM integrations WHERE id = ${integrationId}`);
    expect(await attemptsOf()).to.deep.equal([]);
  });

  it('deleting events deletes their deliveries and their attempts; deleting a company deletes them all', async () => {
    const app = await sharedApp();
    const { integrationId, targets } = await deliveries(3);
    const [first, second, third] = targets;
    if (!first || !second || !third) throw new Error('expected three deliveries');
    await recordAttempts(app.ctx.db, firstAttemptsSucceeded(targets), 5);
    const left = async (): Promise<{ deliveries: number[]; attempts: number[] }> => {
      const rows = await app.ctx.db.execute<{ kind: string; delivery_id: string }>(sql`
        SELECT 'delivery' AS kind, id AS delivery_id FROM deliveries WHERE integration_id = ${integrationId}
        UNION ALL
        SELECT 'attempt', delivery_id FROM delivery_attempts WHERE integration_id = ${integrationId}
        ORDER BY 1, 2`);
      const of = (kind: string): number[] =>
        rows.rows.filter((r) => r.kind === kind).map((r) => Number(r.delivery_id));
      return { deliveries: of('delivery'), attempts: of('attempt') };
    };
    expect(await left()).to.deep.equal({
      deliveries: [first.id, second.id, third.id],
      attempts: [first.id, second.id, third.id],
    });
    await app.ctx.db.execute(sql`DELETE FROM events WHERE id = ${first.eventId}`);
    expect(await left()).to.deep.equal({
      deliveries: [second.id, third.id],
      attempts: [second.id, third.id],
    });
    const [owner] = (
      await app.ctx.db.execute<{ company_id: string }>(
        sql`SELECT company_id FROM integrations WHERE id = ${integrationId}`,
      )
    ).rows;
    await app.ctx.db.execute(sql`DELETE FROM companies WHERE id = ${owner?.company_id ?? 0}`);
    expect(await left()).to.deep.equal({ deliveries: [], attempts: [] });
  });

  it('finds the deliveries it records by primary key, whatever the size of the table', async () => {
    const app = await sharedApp();
    const { targets } = await deliveries(3);
    const { sql: text, params } = new PgDialect().sqlToQuery(
      recordAttemptsStatement(firstAttemptsSucceeded(targets), 5),
    );
    // Tens of thousands of deliveries (rolled back): the size at which a join on the batch alone,
    // estimated at a hundred rows, was planned as a scan of the whole table.
    const client = await app.ctx.pool.connect();
    try {
      await client.query('BEGIN');
      const [first] = targets;
      await client.query(
        `INSERT INTO events (id, company_id, type, livemode, payload)
         SELECT 'evt_plan_' || n, e.company_id, e.type, e.livemode, e.payload
           FROM events e, generate_series(1, 12000) n WHERE e.id = $1`,
        [first?.eventId],
      );
      await client.query(
        `INSERT INTO deliveries (event_id, integration_id) SELECT 'evt_plan_' || n, $1 FROM generate_series(1, 12000) n`,
        [first?.integrationId],
      );
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, params);
      const lines = plan.rows.map((r) => r['QUERY PLAN']);
      expect(
        lines.filter((l) => /Seq Scan on deliveries/.test(l)),
        lines.join('\n'),
      ).to.deep.equal([]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
