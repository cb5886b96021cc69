import { expect } from 'chai';
import { eq } from 'drizzle-orm';
import { expireDueLink } from '../../src/payment-links/expiry.js';
import { schema } from '../../src/shared/db/index.js';
import { seed } from '../helpers/app.js';
import { createIntegration, createLink, emit, engineAndReceiver, eventually, unclaimedEvents } from './helpers.js';

describe('event routing and link expiry', function () {
  const { engine, receiver } = engineAndReceiver();

  async function routedTo(eventId: string): Promise<number[]> {
    await eventually(async () => (await unclaimedEvents(engine.app.ctx.db, { eventIds: [eventId] })) === 0);
    const rows = await engine.app.ctx.db
      .select()
      .from(schema.deliveries)
      .where(eq(schema.deliveries.eventId, eventId));
    return rows.map((r) => r.integrationId).sort((a, b) => a - b);
  }

  it('sends an event only to active webhook-kind integrations subscribed to its kind and covering its product', async () => {
    const tenant = await seed();
    const [product, other] = tenant.products;
    if (!product || !other) throw new Error('seed needs two products');
    const c = tenant.company.id;
    const filtered = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.paid'],
      productIds: [product.id],
    });
    const allProducts = await createIntegration(engine.app, tenant, {
      type: 'automation_webhook',
      url: receiver.url,
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.paid'],
      productIds: [other.id],
    });
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.refunded'],
      sendToAllProducts: true,
    });
    await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.paid'],
      sendToAllProducts: true,
      isActive: false,
    });
    await createIntegration(engine.app, tenant, {
      type: 'members_area',
      events: ['order.paid'],
      sendToAllProducts: true,
    });
    const otherTenant = await seed();
    await createIntegration(engine.app, otherTenant, {
      url: receiver.url,
      events: ['order.paid'],
      sendToAllProducts: true,
    });

    const eventId = await emit(engine.app, {
      companyId: c,
      type: 'order.paid',
      productId: product.id,
    });
    expect(await routedTo(eventId)).to.deep.equal([filtered, allProducts]);
  });

  it('ignores the product filter for lead.created and sends order.payment_declined to order.failed subscribers', async () => {
    const tenant = await seed();
    const [product, other] = tenant.products;
    if (!product || !other) throw new Error('seed needs two products');
    const c = tenant.company.id;
    const leads = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['lead.created'],
      productIds: [other.id],
    });
    const failed = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.failed'],
      sendToAllProducts: true,
    });
    const declined = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.payment_declined'],
      productIds: [product.id],
    });

    const lead = await emit(engine.app, {
      companyId: c,
      type: 'lead.created',
      productId: product.id,
    });
    expect(await routedTo(lead)).to.deep.equal([leads]);
    const decline = await emit(engine.app, {
      companyId: c,
      type: 'order.payment_declined',
      productId: product.id,
    });
    expect(await routedTo(decline)).to.deep.equal([failed, declined]);
  });

  it('expires a link at its expires_at (the expiry tick), once, with one order.expired event', async () => {
    const tenant = await seed();
    const db = engine.app.ctx.db;
    const hook = await createIntegration(engine.app, tenant, {
      url: receiver.url,
      events: ['order.expired'],
      sendToAllProducts: true,
    });
    // Made straight in the database, so nothing but the worker's tick knows of the link.
    const link = await createLink(db, tenant, { expiresAt: new Date(Date.now() + 300) });

    const expired = await eventually(async () => {
      const [row] = await db.select().from(schema.paymentLinks).where(eq(schema.paymentLinks.id, link.id));
      return row?.status === 'expired' ? row : undefined;
    });
    expect(expired.expiredAt).to.be.instanceOf(Date);
    expect(expired.expiredAt?.getTime() ?? 0).to.be.at.least(link.expiresAt.getTime());
    // A second run (a duplicate of an earlier version's job) changes nothing and emits nothing.
    expect(await expireDueLink(db, link.id)).to.equal(undefined);
    const deliveries = await eventually(async () => {
      const rows = await db
        .select({ status: schema.deliveries.status, eventId: schema.deliveries.eventId })
        .from(schema.deliveries)
        .where(eq(schema.deliveries.integrationId, hook));
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    });
    expect(deliveries).to.have.length(1);
    const events = await db
      .select()
      .from(schema.events)
      .where(eq(schema.events.companyId, tenant.company.id));
    expect(events.map((e) => e.type)).to.deep.equal(['order.expired']);
  });

  it('does not expire a link before its expires_at, even if a job runs early', async () => {
    const tenant = await seed();
    const link = await createLink(engine.app.ctx.db, tenant, { expiresAt: new Date(Date.now() + 60_000) });
    expect(await expireDueLink(engine.app.ctx.db, link.id)).to.equal(undefined);
    const [row] = await engine.app.ctx.db
      .select()
      .from(schema.paymentLinks)
      .where(eq(schema.paymentLinks.id, link.id));
    expect(row?.status).to.equal('active');
  });

  it('expires a link already overdue when it is found (made past its expires_at)', async () => {
    const tenant = await seed();
    const link = await createLink(engine.app.ctx.db, tenant, { expiresAt: new Date(Date.now() - 5000) });
    const row = await eventually(async () => {
      const [r] = await engine.app.ctx.db
        .select()
        .from(schema.paymentLinks)
        .where(eq(schema.paymentLinks.id, link.id));
      return r?.status === 'expired' ? r : undefined;
    });
    expect(row.status).to.equal('expired');
  });
});
