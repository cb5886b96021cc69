import { expect } from 'chai';
import { inArray, sql } from 'drizzle-orm';
import { schema } from '../../src/shared/db/index.js';
import { pruneExpired } from '../../src/webhooks/retention.js';
import { seed } from '../helpers/app.js';
import { createIntegration, emit, engineAndReceiver, eventually } from './helpers.js';

const DAY = 86_400_000;

describe('retention: what grows with traffic is pruned after RETENTION_DAYS', function () {
  // No sweep during the test: it would relay the deliberately unrelayed event.
  const { engine, receiver } = engineAndReceiver({
    RETENTION_DAYS: '30',
    WEBHOOK_RETRY_SCHEDULE: '3600',
    OUTBOX_SWEEP_MS: '600000',
  });

  it('deletes old finished deliveries, their attempts and their events in bounded batches, and keeps recent, pending and unrelayed ones', async () => {
    const tenant = await seed();
    const db = engine.app.ctx.db;
    receiver.reply = (req) => (req.body.includes('"keep-pending"') ? { status: 503 } : { status: 200 });
    await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
    const oldDone: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      oldDone.push(
        await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null }),
      );
    }
    const oldPending = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
      note: 'keep-pending',
    });
    const recent = await emit(engine.app, {
      companyId: tenant.company.id,
      type: 'lead.created',
      productId: null,
    });
    await receiver.waitFor(7);
    await eventually(async () => {
      const rows = await db
        .select()
        .from(schema.deliveries)
        .where(inArray(schema.deliveries.eventId, [...oldDone, oldPending, recent]));
      return rows.length === 7 && rows.every((r) => r.attempts >= 1) ? rows : undefined;
    });
    // An event nobody relayed yet (the relay is down, say), as old as the rest: in the outbox, unclaimed.
    const [unrelayed] = await db
      .insert(schema.events)
      .values({
        id: 'evt_unrelayed000000000000000',
        companyId: (await seed()).company.id,
        type: 'lead.created',
        livemode: false,
        payload: { note: 'never relayed' },
      })
      .returning();
    const aged = [...oldDone, oldPending, unrelayed?.id ?? ''];
    const past = new Date(Date.now() - 31 * DAY).toISOString();
    await db.execute(
      sql`UPDATE events SET created_at = ${past}::timestamptz WHERE id = ANY(${sql.param(aged)}::text[])`,
    );
    await db.execute(
      sql`UPDATE deliveries SET created_at = ${past}::timestamptz WHERE event_id = ANY(${sql.param(aged)}::text[])`,
    );

    const pruned = await pruneExpired(db, 30, 2);
    expect(pruned).to.deep.equal({ events: 5, deliveries: 5, attempts: 5 });

    const left = await db
      .select({ id: schema.events.id })
      .from(schema.events)
      .where(inArray(schema.events.id, [...aged, recent]));
    expect(left.map((e) => e.id).sort()).to.deep.equal([oldPending, recent, unrelayed?.id ?? ''].sort());
    const deliveries = await db
      .select()
      .from(schema.deliveries)
      .where(inArray(schema.deliveries.eventId, [...aged, recent]));
    expect(deliveries.map((d) => [d.eventId, d.status]).sort()).to.deep.equal(
      [
        [oldPending, 'pending'],
        [recent, 'succeeded'],
      ].sort(),
    );
    expect(await pruneExpired(db, 30, 2)).to.deep.equal({ events: 0, deliveries: 0, attempts: 0 });
  });

  it('runs as an hourly job that every worker schedules once', async () => {
    const schedulers = await engine.app.ctx.producers.queue('retention').getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.every])).to.deep.equal([['retention-hourly', 3_600_000]]);
  });
});
