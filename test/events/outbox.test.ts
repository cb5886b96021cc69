import { expect } from 'chai';
import { sql } from 'drizzle-orm';
import { recordEvent } from '../../src/events/outbox.js';
import { schema, type Db } from '../../src/shared/db/index.js';
import { newEventId } from '../../src/shared/ids.js';
import { relayEvents } from '../../src/webhooks/relay.js';
import { sweepDeliveries } from '../../src/webhooks/sweep.js';
import { seed, sharedApp } from '../helpers/app.js';
import { createIntegration, eventually, sampleEventData, unclaimedEvents } from './helpers.js';

/** The company's rows in the outbox of unclaimed events, oldest first. */
async function outboxOf(db: Db, companyId: number): Promise<string[]> {
  const result = await db.execute<{ event_id: string }>(
    sql`SELECT event_id FROM event_outbox WHERE company_id = ${companyId} ORDER BY seq`,
  );
  return result.rows.map((r) => r.event_id);
}

/** Writes a lead event and commits it, without the relay job the API would add after the commit. */
async function writeLead(db: Db, companyId: number): Promise<string> {
  return db.transaction(
    async (tx) =>
      (
        await recordEvent(tx, {
          companyId,
          type: 'lead.created',
          livemode: false,
          test: false,
          productId: null,
          data: sampleEventData('lead.created', null),
        })
      ).id,
  );
}

/**
 * The outbox of unclaimed events (docs/webhooks.md, "The outbox"): one row per event no relay has
 * claimed, written with the event and deleted by the claim, so the claim's reads stay short.
 */
describe('the outbox of unclaimed events', function () {
  it('holds every event written until a relay claims it, its own and the earlier ones of its company', async () => {
    const app = await sharedApp();
    const tenant = await seed();
    const { company } = tenant;
    // Never started: the deliveries stay pending, in the order the fan-out numbered them.
    const integrationId = await createIntegration(app, tenant, {
      url: 'http://127.0.0.1:9/never-called',
      events: ['lead.created'],
    });
    const [first, second, third] = [
      await writeLead(app.ctx.db, company.id),
      await writeLead(app.ctx.db, company.id),
      await writeLead(app.ctx.db, company.id),
    ];
    expect(await outboxOf(app.ctx.db, company.id)).to.deep.equal([first, second, third]);
    const delivered = async () =>
      (
        await app.ctx.db.execute<{ event_id: string }>(
          sql`SELECT event_id FROM deliveries WHERE integration_id = ${integrationId} ORDER BY id`,
        )
      ).rows.map((r) => r.event_id);

    // The second's relay claims the first too, and numbers their deliveries in commit order.
    await relayEvents(app.ctx, [second ?? '']);
    expect(await outboxOf(app.ctx.db, company.id)).to.deep.equal([third]);
    expect(await delivered()).to.deep.equal([first, second]);

    // A relay run again claims nothing: no delivery twice, the outbox as it was.
    await relayEvents(app.ctx, [first ?? '', second ?? '']);
    expect(await outboxOf(app.ctx.db, company.id)).to.deep.equal([third]);
    expect(await delivered()).to.deep.equal([first, second]);
  });

  it('the sweep relays what no job asked for, from the outbox, and vacuums it', async () => {
    const app = await sharedApp();
    const { company } = await seed();
    const lost = await writeLead(app.ctx.db, company.id);
    const vacuums = async () =>
      Number(
        (
          await app.ctx.db.execute<{ n: string }>(
            sql`SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE relname = 'event_outbox'`,
          )
        ).rows[0]?.n ?? 0,
      );
    const before = await vacuums();
    await sweepDeliveries(app.ctx, { eventGraceMs: 0, deliveryGraceMs: 60_000, batch: 100 });
    expect(await outboxOf(app.ctx.db, company.id)).to.deep.equal([]);
    expect(await unclaimedEvents(app.ctx.db, { eventIds: [lost] })).to.equal(0);
    await eventually(async () => (await vacuums()) > before);
  });

  it('leaves out an event written already claimed, and lets go of the events deleted with their company', async () => {
    const app = await sharedApp();
    const { company } = await seed();
    const written = await writeLead(app.ctx.db, company.id);
    const claimedAlready = newEventId();
    await app.ctx.db.insert(schema.events).values({
      id: claimedAlready,
      companyId: company.id,
      type: 'lead.created',
      livemode: false,
      payload: { id: claimedAlready },
      relayedAt: new Date(),
    });
    expect(await outboxOf(app.ctx.db, company.id)).to.deep.equal([written]);

    await app.ctx.db.execute(sql`DELETE FROM companies WHERE id = ${company.id}`);
    expect(await outboxOf(app.ctx.db, company.id)).to.deep.equal([]);
  });
});
