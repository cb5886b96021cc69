import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { SeedResult } from '../../src/cli/seed.js';
import { insertUser } from '../../src/companies/repository.js';
import { createPanelToken } from '../../src/companies/service.js';
import { schema } from '../../src/shared/db/index.js';
import { runRecovery } from '../../src/webhooks/recovery.js';
import { insertRecovery } from '../../src/webhooks/repository/recovery.js';
import { seed } from '../helpers/app.js';
import { noteSecret } from '../helpers/secrets.js';
import {
  createIntegration,
  emit,
  eventually,
  Receiver,
  startEngine,
  type Engine,
  type ReceivedRequest,
} from './helpers.js';

const P = '/panel/v1';

describe('webhook operations: test sends, secret rotation, bulk recovery', function () {
  let engine: Engine;
  let receiver: Receiver;
  let tenant: SeedResult;
  let member: string;

  before(async () => {
    // One retry, quickly: deliveries end `failed` within a second when the receiver refuses.
    // The breaker stays shut: ten failed attempts of one integration would disable it.
    engine = await startEngine({ WEBHOOK_RETRY_SCHEDULE: '0.1', BREAKER_THRESHOLD: '100' });
  });
  after(async () => {
    await engine.close();
  });
  beforeEach(async () => {
    receiver = await new Receiver().start();
    tenant = await seed();
    const user = await insertUser(engine.app.ctx.db, {
      companyId: tenant.company.id,
      email: `member-${tenant.company.id}@example.com`,
      name: 'Member',
      role: 'member',
    });
    member = await createPanelToken(engine.app.ctx.db, user.id);
    noteSecret(member);
  });
  afterEach(async () => {
    await receiver.close();
  });

  const post = <T = Record<string, unknown>>(path: string, auth: string, body?: unknown) =>
    engine.app.http.post<T>(`${P}${path}`, { auth, body });

  async function secretOf(id: number): Promise<string> {
    const res = await engine.app.http.get<{ config: { secret: string } }>(`${P}/integrations/${id}`, {
      auth: tenant.panel_token,
    });
    noteSecret(res.body.config.secret);
    return res.body.config.secret;
  }

  const verifies = (secret: string, request: ReceivedRequest): boolean => {
    try {
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };

  describe('POST /integrations/{id}/test', function () {
    it('sends one signed example event to that integration only, for owners and members; a read-only key gets 403', async () => {
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['order.paid'] });
      const bystander = await new Receiver().start();
      try {
        await createIntegration(engine.app, tenant, {
          url: bystander.url,
          events: ['order.paid', 'lead.created'],
        });
        const secret = await secretOf(id);
        const kinds = ['order.paid', 'lead.created'] as const;
        for (const [i, credential] of [tenant.panel_token, member].entries()) {
          const kind = kinds[i] ?? 'order.paid';
          const res = await post<Record<string, unknown>>(`/integrations/${id}/test`, credential, {
            event: kind,
          });
          expect(res.status).to.equal(200);
          expect(res.body).to.include({ type: kind, success: true, status: 200 });
          expect(res.body.event_id).to.match(/^evt_[0-9A-Za-z]{24}$/);
          expect(res.body.duration_ms).to.be.a('number');
          const request = receiver.requests[i];
          if (!request) throw new Error('not received');
          expect(request.headers['webhook-id']).to.equal(res.body.event_id);
          expect(verifies(secret, request)).to.equal(true);
          const body = JSON.parse(request.body) as Record<string, unknown>;
          expect(body).to.include({
            id: res.body.event_id,
            type: kind,
            livemode: false,
            test: true,
            sandbox: true,
          });
        }
        const readOnly = await post<{ error: { type: string } }>(
          `/integrations/${id}/test`,
          tenant.keys.read_only,
          {
            event: 'order.paid',
          },
        );
        expect(readOnly.status).to.equal(403);
        expect(receiver.requests).to.have.length(2);
        expect(bystander.requests).to.have.length(0);
        // Not an event of the company: nothing in the outbox, nothing in the delivery log.
        const logged = await engine.app.ctx.db
          .select()
          .from(schema.deliveries)
          .where(eq(schema.deliveries.integrationId, id));
        expect(logged).to.have.length(0);
      } finally {
        await bystander.close();
      }
    });

    it('reports the receiver’s failure, and refuses an unknown kind (400), a non-webhook integration (409) and another company’s (404)', async () => {
      receiver.reply = () => ({ status: 500, body: 'nope' });
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['order.paid'] });
      const failed = await post(`/integrations/${id}/test`, tenant.panel_token, { event: 'order.refunded' });
      expect(failed.status).to.equal(200);
      expect(failed.body).to.include({ success: false, status: 500 });

      const unknown = await post<{ error: { type: string; fields?: Record<string, unknown> } }>(
        `/integrations/${id}/test`,
        tenant.panel_token,
        { event: 'order.unknown' },
      );
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.fields).to.have.property('event');

      const gateway = await post<{ id: number }>('/integrations/', tenant.panel_token, {
        type: 'gateway',
        config: {},
        events: [],
      });
      const onGateway = await post<{ error: { type: string } }>(
        `/integrations/${gateway.body.id}/test`,
        tenant.panel_token,
        {
          event: 'order.paid',
        },
      );
      expect(onGateway.status).to.equal(409);

      const other = await seed();
      const theirs = await post<{ error: { type: string } }>(`/integrations/${id}/test`, other.panel_token, {
        event: 'order.paid',
      });
      expect(theirs.status).to.equal(404);
    });
  });

  describe('POST /integrations/{id}/rotate-secret', function () {
    it('signs with the new and the old secret during the overlap, each verifying with the stock standardwebhooks package', async () => {
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
      const first = await secretOf(id);
      const rotated = await post<{ config: { secret: string } }>(`/integrations/${id}/rotate-secret`, member);
      expect(rotated.status).to.equal(200);
      const second = rotated.body.config.secret;
      noteSecret(second);
      expect(second)
        .to.match(/^whsec_/)
        .and.not.equal(first);
      expect(await secretOf(id)).to.equal(second);

      await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
      const [delivered] = await receiver.waitFor(1);
      if (!delivered) throw new Error('not received');
      expect(String(delivered.headers['webhook-signature']).split(' ')).to.have.length(2);
      expect(verifies(second, delivered)).to.equal(true);
      expect(verifies(first, delivered)).to.equal(true);

      // A test send carries both signatures too.
      await post(`/integrations/${id}/test`, tenant.panel_token, { event: 'lead.created' });
      const [, tested] = await receiver.waitFor(2);
      if (!tested) throw new Error('not received');
      expect([verifies(first, tested), verifies(second, tested)]).to.deep.equal([true, true]);

      // Rotating again keeps only the secret it replaces: the first stops signing at once.
      const again = await post<{ config: { secret: string } }>(
        `/integrations/${id}/rotate-secret`,
        tenant.panel_token,
        {
          old_secret_expires_in_seconds: 3600,
        },
      );
      const third = again.body.config.secret;
      noteSecret(third);
      await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
      const [, , later] = await receiver.waitFor(3);
      if (!later) throw new Error('not received');
      expect([verifies(first, later), verifies(second, later), verifies(third, later)]).to.deep.equal([
        false,
        true,
        true,
      ]);

      // With no overlap the replaced secret stops at once.
      const now = await post<{ config: { secret: string } }>(
        `/integrations/${id}/rotate-secret`,
        tenant.panel_token,
        {
          old_secret_expires_in_seconds: 0,
        },
      );
      const fourth = now.body.config.secret;
      noteSecret(fourth);
      await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
      const [, , , last] = await receiver.waitFor(4);
      if (!last) throw new Error('not received');
      expect(String(last.headers['webhook-signature']).split(' ')).to.have.length(1);
      expect([verifies(third, last), verifies(fourth, last)]).to.deep.equal([false, true]);
    });

    it('stops the old secret when its overlap ends', async () => {
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
      const old = await secretOf(id);
      await post(`/integrations/${id}/rotate-secret`, tenant.panel_token, {
        old_secret_expires_in_seconds: 1,
      });
      const fresh = await secretOf(id);
      // The overlap is judged by PostgreSQL's clock at delivery time: move its end into the past.
      await engine.app.ctx.db
        .update(schema.integrations)
        .set({ previousSecretExpiresAt: new Date(Date.now() - 1000) })
        .where(eq(schema.integrations.id, id));
      await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null });
      const [delivered] = await receiver.waitFor(1);
      if (!delivered) throw new Error('not received');
      expect([verifies(old, delivered), verifies(fresh, delivered)]).to.deep.equal([false, true]);
    });

    it('is refused to a read-only key (403), bounds the overlap (400), and has nothing to rotate on a gateway (409)', async () => {
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
      const before = await secretOf(id);
      expect((await post(`/integrations/${id}/rotate-secret`, tenant.keys.read_only)).status).to.equal(403);
      for (const bad of [-1, 604_801, 1.5, '60']) {
        const res = await post(`/integrations/${id}/rotate-secret`, tenant.panel_token, {
          old_secret_expires_in_seconds: bad,
        });
        expect(res.status, String(bad)).to.equal(400);
      }
      expect(await secretOf(id)).to.equal(before);
      const gateway = await post<{ id: number }>('/integrations/', tenant.panel_token, {
        type: 'gateway',
        config: {},
        events: [],
      });
      expect(
        (await post(`/integrations/${gateway.body.id}/rotate-secret`, tenant.panel_token)).status,
      ).to.equal(409);
    });
  });

  describe('POST /integrations/{id}/deliveries/recover', function () {
    async function failedDeliveries(id: number, count: number): Promise<string[]> {
      receiver.reply = () => ({ status: 503 });
      const events: string[] = [];
      for (let i = 0; i < count; i += 1) {
        events.push(
          await emit(engine.app, { companyId: tenant.company.id, type: 'lead.created', productId: null }),
        );
      }
      await eventually(async () => {
        const rows = await engine.app.ctx.db
          .select()
          .from(schema.deliveries)
          .where(eq(schema.deliveries.integrationId, id));
        return rows.length === count && rows.every((r) => r.status === 'failed') ? rows : undefined;
      });
      return events;
    }

    const sentPerEvent = (): Map<string, number> => {
      const counts = new Map<string, number>();
      for (const r of receiver.requests) {
        const id = String(r.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    };

    it('sends every failed delivery since a time once more (202 with the count), for owners and members', async () => {
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
      const events = await failedDeliveries(id, 3);
      expect(receiver.requests).to.have.length(6); // two attempts each
      receiver.reply = () => ({ status: 200 });
      const since = new Date(Date.now() - 3600_000).toISOString();
      const res = await post(`/integrations/${id}/deliveries/recover`, member, { since });
      expect(res.status).to.equal(202);
      expect(res.body).to.deep.equal({ recovered: 3 });
      await receiver.waitFor(9);
      await eventually(async () => {
        const rows = await engine.app.ctx.db
          .select()
          .from(schema.deliveries)
          .where(eq(schema.deliveries.integrationId, id));
        return rows.every((r) => r.status === 'succeeded' && r.attempts === 3) ? true : undefined;
      });
      expect([...sentPerEvent().entries()].sort()).to.deep.equal(events.map((e) => [e, 3]).sort());

      // Nothing failed since: nothing to recover.
      const none = await post(`/integrations/${id}/deliveries/recover`, tenant.panel_token, { since });
      expect(none.body).to.deep.equal({ recovered: 0 });
    });

    it('refuses a read-only key (403), a since older than 14 days or in the future (400), and an inactive integration (409)', async () => {
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
      const since = new Date(Date.now() - 60_000).toISOString();
      expect(
        (await post(`/integrations/${id}/deliveries/recover`, tenant.keys.read_only, { since })).status,
      ).to.equal(403);
      for (const bad of [
        new Date(Date.now() - 15 * 86_400_000).toISOString(),
        new Date(Date.now() + 3600_000).toISOString(),
        'yesterday',
        undefined,
      ]) {
        const res = await post<{ error: { fields?: Record<string, unknown> } }>(
          `/integrations/${id}/deliveries/recover`,
          tenant.panel_token,
          bad === undefined ? {} : { since: bad },
        );
        expect(res.status, String(bad)).to.equal(400);
        expect(res.body.error.fields).to.have.property('since');
      }
      await engine.app.http.patch(`${P}/integrations/${id}`, {
        auth: tenant.panel_token,
        body: { is_active: false },
      });
      expect(
        (await post(`/integrations/${id}/deliveries/recover`, tenant.panel_token, { since })).status,
      ).to.equal(409);
      const other = await seed();
      expect(
        (await post(`/integrations/${id}/deliveries/recover`, other.panel_token, { since })).status,
      ).to.equal(404);
    });

    it('resumes after the last committed page when its run stops midway, sending each delivery once more', async () => {
      const id = await createIntegration(engine.app, tenant, { url: receiver.url, events: ['lead.created'] });
      const events = await failedDeliveries(id, 5);
      receiver.reply = () => ({ status: 200 });
      const recovery = await insertRecovery(engine.app.ctx.db, id, new Date(Date.now() - 3600_000));
      expect(recovery.requested).to.equal(5);
      // A run that stops after its first page, as a worker killed midway would.
      const interrupted = await runRecovery(engine.app.ctx, recovery.id, { pageSize: 2, maxPages: 1 });
      expect(interrupted.recovered).to.equal(2);
      // The job runs again (a restarted worker) and goes on from the cursor.
      const resumed = await runRecovery(engine.app.ctx, recovery.id, { pageSize: 2 });
      expect(resumed.recovered).to.equal(3);
      expect((await runRecovery(engine.app.ctx, recovery.id, { pageSize: 2 })).recovered).to.equal(0);
      await receiver.waitFor(15);
      await eventually(async () => {
        const rows = await engine.app.ctx.db
          .select()
          .from(schema.deliveries)
          .where(eq(schema.deliveries.integrationId, id));
        return rows.every((r) => r.status === 'succeeded') ? true : undefined;
      });
      expect([...sentPerEvent().entries()].sort()).to.deep.equal(events.map((e) => [e, 3]).sort());
      const [row] = await engine.app.ctx.db
        .select()
        .from(schema.deliveryRecoveries)
        .where(eq(schema.deliveryRecoveries.id, recovery.id));
      expect(row?.recovered).to.equal(5);
      expect(row?.finishedAt).to.be.instanceOf(Date);
    });
  });
});
