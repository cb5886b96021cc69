import { expect } from 'chai';
import { and, eq, sql } from 'drizzle-orm';
import { createDatabase, schema, type Db } from '../../src/shared/db/index.js';
import { warmUpEngine } from '../../src/webhooks/warm-up.js';
import { testEnvironment } from '../helpers/environment.js';
import { requestAnotherAttempt } from '../../src/webhooks/another-attempt.js';
import { seed, sharedApp } from '../helpers/app.js';
import { createIntegration, emit, Receiver, startEngine } from './helpers.js';

const SECRET = `whsec_${Buffer.from('a-very-secret-key-of-32-bytes!!').toString('base64')}`;

/**
 * A running lane reads its first attempts on from the newest it has read, and from the oldest about
 * once a second; and a worker can ready its database connections before it takes jobs.
 */
describe('delivery lane reads', function () {
  this.timeout(60_000);

  it('sends a delivery made due again with an old id while its runner goes on reading newer ones', async () => {
    // The runner lingers long after its last delivery: the same run sees the reopened one.
    const engine = await startEngine({ WEBHOOK_MAX_IN_FLIGHT: '4' }, { laneLingerMs: 30_000 });
    const receiver = await new Receiver().start();
    try {
      const tenant = await seed();
      const integrationId = await createIntegration(engine.app, tenant, {
        url: receiver.url,
        secret: SECRET,
        events: ['lead.created'],
      });
      const laneOf = async () =>
        (
          await engine.app.ctx.db
            .select()
            .from(schema.deliveryLanes)
            .where(eq(schema.deliveryLanes.integrationId, integrationId))
        )[0];
      const emitLead = (note: string) =>
        emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null, note });
      const first = await emitLead('first');
      await receiver.waitFor(1);
      for (const note of ['second', 'third']) await emitLead(note);
      await receiver.waitFor(3);
      const lane = await laneOf();
      expect(lane?.owner, 'the runner still holds its lane').to.be.a('string');

      // The oldest delivery, as one skipped while the integration was off: pending again, never
      // attempted, its id older than everything the runner has read.
      const [oldest] = await engine.app.ctx.db
        .update(schema.deliveries)
        .set({ status: 'skipped', attempts: 0 })
        .where(and(eq(schema.deliveries.eventId, first), eq(schema.deliveries.integrationId, integrationId)))
        .returning();
      expect(await requestAnotherAttempt(engine.app.ctx, oldest?.id ?? 0)).to.equal('requeued');
      await receiver.waitFor(4, 5_000);
      expect(receiver.requests[3]?.headers['webhook-id']).to.equal(first);
      const after = await laneOf();
      expect(after?.owner, 'sent by the same run').to.equal(lane?.owner);
      expect(after?.generation).to.equal(lane?.generation);
    } finally {
      await receiver.close();
      await engine.close();
    }
  });

  it('readies each connection it is told to: the hot statements prepared on it, nothing written', async () => {
    const counts = async (db: Db) =>
      (
        await db.execute<{ lanes: number; deliveries: number; attempts: number; unclaimed: number }>(sql`
          SELECT (SELECT count(*) FROM delivery_lanes)::int AS lanes, (SELECT count(*) FROM deliveries)::int AS deliveries,
                 (SELECT count(*) FROM delivery_attempts)::int AS attempts,
                 (SELECT count(*) FROM event_outbox)::int AS unclaimed`)
      ).rows[0];
    const app = await sharedApp();
    const before = await counts(app.ctx.db);
    // A pool of its own: every connection it holds is one the warm-up readied.
    const database = createDatabase(testEnvironment().databaseUrl, 3);
    try {
      await warmUpEngine({ db: database.db, pool: database.pool, config: app.ctx.config }, 3);
      expect(database.pool.totalCount).to.equal(3);
      const clients = await Promise.all([1, 2, 3].map(() => database.pool.connect()));
      try {
        for (const client of clients) {
          const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
          expect(rows.map((r) => r.name)).to.include.members([
            'webhooks_fan_out',
            'webhooks_lane_read',
            'webhooks_record_attempts',
          ]);
        }
      } finally {
        for (const client of clients) client.release();
      }
    } finally {
      await database.close();
    }
    expect(await counts(app.ctx.db)).to.deep.equal(before);
  });

  it('a worker told to ready its connections first still sends', async () => {
    const engine = await startEngine({}, { warmConnections: 3 });
    const receiver = await new Receiver().start();
    try {
      expect(engine.app.ctx.pool.totalCount).to.be.at.least(3);
      const tenant = await seed();
      await createIntegration(engine.app, tenant, {
        url: receiver.url,
        secret: SECRET,
        events: ['lead.created'],
      });
      await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
      await receiver.waitFor(1);
    } finally {
      await receiver.close();
      await engine.close();
    }
  });
});
