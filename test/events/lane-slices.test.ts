import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import { createIntegration, emit, Receiver, startEngine, type Engine } from './helpers.js';

const SECRET = `whsec_${Buffer.from('a-very-secret-key-of-32-bytes!!').toString('base64')}`;
const SLICE_MS = 300;
/** A receiver that takes this long per request keeps its lane busy for BACKLOG × REPLY_MS. */
const REPLY_MS = 50;
const BACKLOG = 30;

/**
 * A lane's time slice: with its worker's only slot taken, a busy lane hands the slot on after its
 * slice so another lane gets its turn (fair share); with a slot free, it goes on without stalling.
 */
describe('delivery lane slices', function () {
  this.timeout(60_000);
  const receivers: Receiver[] = [];

  async function busyLane(engine: Engine): Promise<{ integrationId: number; receiver: Receiver }> {
    const receiver = await new Receiver().start();
    receivers.push(receiver);
    receiver.reply = () => ({ status: 200, body: 'ok', delayMs: REPLY_MS });
    const tenant = await seed();
    const integrationId = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      secret: SECRET,
      events: ['lead.created'],
    });
    await Promise.all(
      Array.from({ length: BACKLOG }, (_, n) =>
        emit(engine.app, {
          companyId: tenant.company.id,
          type: 'lead.created',
          productId: null,
          note: `n${n}`,
        }),
      ),
    );
    await receiver.waitFor(1);
    return { integrationId, receiver };
  }

  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('hands the only worker slot on after the slice: another company’s lane is sent while the busy one still has a backlog', async () => {
    const engine = await startEngine(
      { DELIVERY_CONCURRENCY: '1', WEBHOOK_MAX_IN_FLIGHT: '1' },
      { laneSliceMs: SLICE_MS },
    );
    try {
      const busy = await busyLane(engine);
      const other = await new Receiver().start();
      receivers.push(other);
      const tenant = await seed();
      await createIntegration(engine.app, tenant, {
        url: other.url,
        secret: SECRET,
        events: ['lead.created'],
      });
      await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
      await other.waitFor(1, 10_000);
      // Sent one at a time, the busy backlog takes BACKLOG × REPLY_MS (1.5 s): the other lane did not wait for it.
      expect(busy.receiver.requests.length).to.be.lessThan(BACKLOG);
    } finally {
      await engine.close();
    }
  });

  it('goes on past its slice while its worker has a slot free, in one lane generation', async () => {
    const engine = await startEngine({ WEBHOOK_MAX_IN_FLIGHT: '1' }, { laneSliceMs: SLICE_MS });
    try {
      const busy = await busyLane(engine);
      await busy.receiver.waitFor(BACKLOG, 20_000);
      const [lane] = await engine.app.ctx.db
        .select()
        .from(schema.deliveryLanes)
        .where(eq(schema.deliveryLanes.integrationId, busy.integrationId));
      // A hand-on every slice would have made about BACKLOG × REPLY_MS / SLICE_MS = 5 generations.
      expect(Number(lane?.generation)).to.be.lessThan(3);
      expect(busy.receiver.requests).to.have.length(BACKLOG);
    } finally {
      await engine.close();
    }
  });

  it('keeps an idle lane a moment while a slot is free: events each sent once the last was delivered go out in one generation', async () => {
    // A linger far longer than a loaded machine takes from one delivery to the next event's relay:
    // what is shown is that an idle runner waits, not how long (half a second by default).
    const engine = await startEngine({}, { laneLingerMs: 10_000 });
    try {
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      const tenant = await seed();
      const integrationId = await createIntegration(engine.app, tenant, {
        url: receiver.url,
        secret: SECRET,
        events: ['lead.created'],
      });
      const generation = async (): Promise<number> => {
        const [lane] = await engine.app.ctx.db
          .select()
          .from(schema.deliveryLanes)
          .where(eq(schema.deliveryLanes.integrationId, integrationId));
        return Number(lane?.generation);
      };
      for (let n = 1; n <= 5; n++) {
        await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
        // Delivered: the lane has run dry, and lingers for the next one.
        await receiver.waitFor(n, 10_000);
      }
      // Released whenever it ran dry, the lane would have needed a new generation (a job) per event.
      expect(await generation()).to.equal(1);
    } finally {
      await engine.close();
    }
  });
});
